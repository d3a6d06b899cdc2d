// Model bytes -> session -> one run: the loader, the graph checks, shape inference, the
// transforms, the planner and every CPU kernel a model can reach, on hostile models.
//
// The session runs on one thread with the arena and the memory pattern off (every tensor is an
// allocation of its own, so AddressSanitizer sees an overrun by one element), under the limits
// a service taking untrusted models would set (session.max_tensor_bytes,
// session.max_memory_bytes, session.run_timeout_ms). Feeds are made for each input from its
// declared type and shape (fuzz_inputs.h); a model whose feeds would be large is loaded but not
// run.
//
// Any prism::Exception is a clean refusal. Anything else escaping (another exception, a crash,
// a sanitizer report, a leak, a timeout) is a finding: libFuzzer stops and saves the input.
#include <string>
#include <vector>

#include "common/logging.h"
#include "fuzz_inputs.h"
#include "fuzz_target.h"
#include "session/inference_session.h"

namespace prism::fuzz {
namespace {

constexpr const char* kMaxTensorBytes = "16777216";   // 16 MiB per tensor
constexpr const char* kMaxMemoryBytes = "134217728";  // 128 MiB held at once
// Well under libFuzzer's -timeout (30 s): a valid model that loops for ever (a Loop whose trip
// count is left to the data) is stopped with an error, not reported as a hang.
constexpr const char* kRunTimeoutMs = "3000";
constexpr int64_t kMaxFeedElements = 1 << 16;

SessionOptions FuzzSessionOptions() {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  options.inter_op_num_threads = 1;
  options.enable_cpu_mem_arena = false;
  options.enable_mem_pattern = false;
  options.log_severity_level = 4;
  options.config_entries["session.max_tensor_bytes"] = kMaxTensorBytes;
  options.config_entries["session.max_memory_bytes"] = kMaxMemoryBytes;
  options.config_entries["session.run_timeout_ms"] = kRunTimeoutMs;
  return options;
}

int RunModel(const uint8_t* data, size_t size) {
  static const bool quiet = [] {
    SetMinLogSeverity(Severity::kFatal);  // warnings about hostile models are expected
    return true;
  }();
  (void)quiet;
  InferenceSession session(FuzzSessionOptions());
  try {
    session.Load(data, size);
  } catch (const Exception&) {
    return 0;
  }
  Random random(HashBytes(data, size));
  std::map<std::string, int64_t> symbols;
  int64_t budget = kMaxFeedElements;
  std::vector<std::string> names;
  std::vector<Value> feeds;
  for (const ValueInfo& input : session.Inputs()) {
    std::optional<Value> feed = MakeFeed(input, random, symbols, &budget);
    if (!feed) return 0;
    names.push_back(input.name);
    feeds.push_back(std::move(*feed));
  }
  try {
    session.Run(RunOptions{}, names, feeds, {});
  } catch (const Exception&) {
  }
  return 0;
}

}  // namespace
}  // namespace prism::fuzz

PRISM_FUZZ_TARGET(model) {
  return prism::fuzz::RunModel(data, size);
}
