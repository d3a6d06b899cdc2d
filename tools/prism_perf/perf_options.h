// Command-line options of prism_perf.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "session/session_options.h"

namespace prism::perf {

struct PerfOptions {
  std::string model_path;
  std::vector<ProviderSpec> providers;  // priority order, CPU last
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  int optimization_level = 99;
  bool optimization_level_given = false;
  int warmup_runs = 3;
  int runs = 20;
  double seconds = 0.0;  // when > 0, run for this long instead of a fixed count
  unsigned seed = 0;
  std::map<std::string, int64_t> free_dims;  // symbolic dim name -> value
  int concurrent = 1;
  std::string json_path;
  bool show_help = false;
};

// Parses argv; throws prism::Exception(kInvalidArgument) with a clear message on bad options.
PerfOptions ParsePerfOptions(int argc, char** argv);
std::string PerfUsage();
// "cpu" -> CPUExecutionProvider, "test" -> TestExecutionProvider, full names pass through.
std::string ProviderNameFromShort(const std::string& name);

}  // namespace prism::perf
