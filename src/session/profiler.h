// Session profiling (SessionOptions.enable_profiling) in the Chrome trace event format that
// onnxruntime's profiler writes: a JSON array of complete events ("ph":"X") whose "ts" and "dur"
// are microseconds since the session was created. Opens in Perfetto and chrome://tracing.
//
// Categories: "Session" for the session's phases (model_loading_uri, session_initialization
// and its parts, one model_run per Run), "Node" for each kernel run ("<node>_kernel_time"), and
// "Copy" for the copies the executor makes between memory spaces (kept out of "Node" so that
// each run has exactly one Node event per node it ran).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace prism {

class Value;

// One input or output of a node as onnxruntime prints it: {"float":[1,3,224,224]}.
struct ProfileTypeShape {
  std::string type;  // element type name ("float"), or "seq(float)" with dims = {length}
  std::vector<int64_t> dims;
};

struct ProfileEvent {
  std::string category;  // "Session", "Node" or "Copy"
  std::string name;
  int64_t start_ns = 0;  // since the profiler started
  int64_t end_ns = 0;
  int thread_id = 0;
  // Node events: onnxruntime's args.
  std::string op_name;
  std::string provider;
  std::vector<ProfileTypeShape> inputs;
  std::vector<ProfileTypeShape> outputs;
  // Any event: further args, written as JSON strings and integers.
  std::vector<std::pair<std::string, std::string>> string_args;
  std::vector<std::pair<std::string, int64_t>> int_args;
};

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;
  // onnxruntime's default cap; events past it are counted and dropped.
  static constexpr size_t kMaxEvents = 1000000;

  Profiler();

  bool Enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // When the profiler started, in nanoseconds since the Unix epoch (Python's time.time_ns(), the
  // clock onnxruntime's get_profiling_start_time_ns reads).
  int64_t StartTimeNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(start_wall_.time_since_epoch())
        .count();
  }
  int64_t NanosecondsSinceStart(Clock::time_point time) const;
  // Thread-safe; ignored once profiling has ended.
  void Record(ProfileEvent event);
  // A "Session" event from start to end.
  void RecordSession(const std::string& name, Clock::time_point start, Clock::time_point end,
                     std::vector<std::pair<std::string, std::string>> string_args = {},
                     std::vector<std::pair<std::string, int64_t>> int_args = {});

  std::vector<ProfileEvent> Events() const;
  size_t DroppedEvents() const;
  // The trace as a JSON array, one event per line as onnxruntime writes it.
  std::string ToJson() const;
  // Stops recording, writes the trace to path (throws kFail when it cannot), drops the events.
  void EndAndWrite(const std::string& path);
  // "<prefix>_<YYYY-MM-DD_HH-MM-SS>.json" from the local time the profiler started.
  std::string DefaultPath(const std::string& prefix) const;

  // A small number per thread for "tid" (stable for the thread's life).
  static int CurrentThreadId();
  // The type and shape of a value as the Node events print it (empty type for no value).
  static ProfileTypeShape DescribeValue(const Value& value);

 private:
  Clock::time_point start_;
  std::chrono::system_clock::time_point start_wall_;
  std::atomic<bool> enabled_{true};
  mutable std::mutex mutex_;
  std::vector<ProfileEvent> events_;
  size_t dropped_ = 0;
};

}  // namespace prism
