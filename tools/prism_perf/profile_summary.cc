#include "profile_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace prism::perf {
namespace {

void SortByTime(std::vector<TimeEntry>& entries) {
  std::sort(entries.begin(), entries.end(), [](const TimeEntry& a, const TimeEntry& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.name < b.name;
  });
}

// printf into a string of any length.
template <typename... Args>
std::string MakeRow(const char* format, Args... args) {
  const int size = std::snprintf(nullptr, 0, format, args...);
  std::string row(static_cast<size_t>(size > 0 ? size : 0) + 1, '\0');
  std::snprintf(row.data(), row.size(), format, args...);
  row.pop_back();
  return row;
}

const std::string* StringArg(const ProfileEvent& event, const std::string& key) {
  for (const auto& [name, value] : event.string_args)
    if (name == key) return &value;
  return nullptr;
}

}  // namespace

ProfileSummary SummarizeProfile(const std::vector<ProfileEvent>& events,
                                const std::string& run_tag_prefix) {
  ProfileSummary summary;
  // Timed runs per thread, as [start, end] intervals.
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> runs;
  for (const ProfileEvent& event : events) {
    if (event.category != "Session" || event.name != "model_run") continue;
    const std::string* tag = StringArg(event, "run_tag");
    if (tag == nullptr || tag->rfind(run_tag_prefix, 0) != 0) continue;
    runs[event.thread_id].emplace_back(event.start_ns, event.end_ns);
    ++summary.runs;
    summary.run_total_ms += static_cast<double>(event.end_ns - event.start_ns) / 1e6;
  }
  std::map<std::string, TimeEntry> by_op;
  std::map<std::string, TimeEntry> by_node;
  for (const ProfileEvent& event : events) {
    if (event.category != "Node") continue;
    auto thread = runs.find(event.thread_id);
    if (thread == runs.end()) continue;
    const bool timed = std::any_of(thread->second.begin(), thread->second.end(), [&](auto& run) {
      return event.start_ns >= run.first && event.start_ns <= run.second;
    });
    if (!timed) continue;
    const double ms = static_cast<double>(event.end_ns - event.start_ns) / 1e6;
    summary.node_total_ms += ms;
    TimeEntry& op = by_op[event.op_name];
    op.name = event.op_name;
    op.total_ms += ms;
    ++op.calls;
    const std::string* graph = StringArg(event, "graph");
    const std::string key = (graph ? *graph + "/" : "") + event.name;
    TimeEntry& node = by_node[key];
    node.name = key.substr(0, key.size() - std::string("_kernel_time").size());
    node.op_type = event.op_name;
    node.provider = event.provider;
    node.total_ms += ms;
    ++node.calls;
  }
  for (auto& [name, entry] : by_op) summary.op_types.push_back(entry);
  for (auto& [name, entry] : by_node) summary.nodes.push_back(entry);
  SortByTime(summary.op_types);
  SortByTime(summary.nodes);
  return summary;
}

std::string FormatTop(const ProfileSummary& summary, size_t top) {
  std::string text;
  char line[512];
  const double run_ms = summary.run_total_ms > 0 ? summary.run_total_ms : 1.0;
  std::snprintf(line, sizeof(line),
                "Top op types over %d timed runs (profiled; node time is %.1f%% of run time):\n",
                summary.runs, 100.0 * summary.node_total_ms / run_ms);
  text += line;
  std::snprintf(line, sizeof(line), "  %-28s %12s %8s %10s %12s\n", "op type", "total ms", "% run",
                "calls", "avg us");
  text += line;
  for (size_t i = 0; i < std::min(top, summary.op_types.size()); ++i) {
    const TimeEntry& entry = summary.op_types[i];
    std::snprintf(line, sizeof(line), "  %-28s %12.3f %7.1f%% %10lld %12.1f\n", entry.name.c_str(),
                  entry.total_ms, 100.0 * entry.total_ms / run_ms, entry.calls,
                  1000.0 * entry.total_ms / static_cast<double>(entry.calls));
    text += line;
  }
  text += "Top nodes:\n";
  // Node names run long (exporters' scoped names): size the columns to the rows shown.
  const size_t shown = std::min(top, summary.nodes.size());
  int name_width = 4, op_width = 7;
  for (size_t i = 0; i < shown; ++i) {
    name_width = std::max(name_width, static_cast<int>(summary.nodes[i].name.size()));
    op_width = std::max(op_width, static_cast<int>(summary.nodes[i].op_type.size()));
  }
  text += MakeRow("  %-*s  %-*s %12s %8s %12s  %s\n", name_width, "node", op_width, "op type",
                  "total ms", "% run", "avg us", "EP");
  for (size_t i = 0; i < shown; ++i) {
    const TimeEntry& entry = summary.nodes[i];
    text +=
        MakeRow("  %-*s  %-*s %12.3f %7.1f%% %12.1f  %s\n", name_width, entry.name.c_str(),
                op_width, entry.op_type.c_str(), entry.total_ms, 100.0 * entry.total_ms / run_ms,
                1000.0 * entry.total_ms / static_cast<double>(entry.calls), entry.provider.c_str());
  }
  return text;
}

}  // namespace prism::perf
