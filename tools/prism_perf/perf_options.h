// Command-line options of prism_perf.
#pragma once

#include <map>
#include <optional>
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
  std::vector<std::string> disabled_optimizers;  // -D
  int warmup_runs = 3;
  int runs = 20;
  double seconds = 0.0;  // when > 0, run for this long instead of a fixed count
  unsigned seed = 0;
  std::map<std::string, int64_t> free_dims;  // symbolic dim name -> value
  int concurrent = 1;
  // --on-request: after the warm-up, run the counts read from stdin (one per line) and answer
  // each with its latencies, until stdin ends; a driver interleaves another runtime's runs.
  bool on_request = false;
  std::string json_path;
  std::string profile_path;  // -p: profile the runs and write the Chrome trace here
  int top = 0;               // --top N: the op types and nodes that took the most time
  bool inputs_on_device =
      false;              // --inputs-on-device: bind the inputs in the first device EP's memory
  bool explain = false;   // --explain: print the partition and exit without running
  std::string dot_path;   // --dot: Graphviz of the partition
  std::string input_dir;  // -I: input_K.pb files instead of random inputs
  // -C "key|value": session config entries (onnxruntime_perf_test's -C)
  std::map<std::string, std::string> config_entries;
  bool runs_given = false;
  bool show_help = false;
};

// text as a whole integer in [minimum, 1e9], or nothing.
std::optional<int> IntegerAtLeast(const std::string& text, int minimum);
// Parses argv; throws prism::Exception(kInvalidArgument) with a clear message on bad options.
PerfOptions ParsePerfOptions(int argc, char** argv);
std::string PerfUsage();
// "cpu" -> CPUExecutionProvider, "test" -> TestExecutionProvider, full names pass through.
std::string ProviderNameFromShort(const std::string& name);

}  // namespace prism::perf
