// --top: where the time of the timed runs went, from the session's profile.
#pragma once

#include <string>
#include <vector>

#include "session/profiler.h"

namespace prism::perf {

struct TimeEntry {
  std::string name;      // op type, or node name
  std::string op_type;   // for nodes
  std::string provider;  // for nodes
  double total_ms = 0;
  long long calls = 0;
};

struct ProfileSummary {
  int runs = 0;                     // model_run events counted (run_tag "run_<i>")
  double run_total_ms = 0;          // their summed duration
  double node_total_ms = 0;         // summed Node time inside them
  std::vector<TimeEntry> op_types;  // most total time first
  std::vector<TimeEntry> nodes;
};

// Counts Node events inside the model_run events whose run_tag starts with run_tag_prefix (on
// the same thread), so the first run and warm-ups stay out.
ProfileSummary SummarizeProfile(const std::vector<ProfileEvent>& events,
                                const std::string& run_tag_prefix);

std::string FormatTop(const ProfileSummary& summary, size_t top);

}  // namespace prism::perf
