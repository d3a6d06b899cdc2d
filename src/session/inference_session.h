// The internal C++ session API: load a model, partition it across the requested EPs, and run it.
// Run() is const and may be called from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/logging.h"
#include "framework/value.h"
#include "graph/model.h"
#include "session/partition_report.h"
#include "session/session_allocators.h"
#include "session/session_options.h"

namespace prism {

class ModelFileWeights;

class ThreadPool;

class SessionState;
class Profiler;

struct ValueInfo {
  std::string name;
  ValueType type;
  bool has_shape = false;
  std::vector<Dim> shape;  // symbolic dims keep their names, unknown ones have value -1
};

// Totals over every Run of a session: copies between memory spaces made by the executor, and
// feeds or outputs moved between device and CPU memory by Run itself.
struct RunStatistics {
  int64_t runs = 0;
  int64_t copies = 0;
  int64_t bytes_copied = 0;
};

// What prepacking did at session creation (OpKernel::PrePack).
struct PrepackStatistics {
  int64_t packed_inputs = 0;  // kernel inputs read from a packed form (subgraphs included)
  // Packed forms in the session's container, and their bytes (with a container shared between
  // sessions: all of theirs).
  int64_t packed_weights = 0;
  int64_t packed_bytes = 0;
  int64_t shared_hits = 0;  // packings found already done (same bytes and format)
  // The model's weights no longer held because every reader took them packed, and their bytes.
  int64_t originals_released = 0;
  int64_t released_bytes = 0;
};

// Where Run leaves one output.
struct OutputDestination {
  // The memory the result is left in (moved there when produced elsewhere); unset: wherever the
  // graph produced it.
  std::optional<MemoryInfo> memory = CpuMemoryInfo();
  // When set, a caller-owned tensor value in any memory an EP of the session can write: the
  // result is copied into it (element type and shape must match) and it is returned; `memory`
  // is then ignored.
  Value* preallocated = nullptr;
};

class InferenceSession {
 public:
  // providers: in priority order; CPUExecutionProvider is appended when absent (it is always
  // last). An empty list means CPU only.
  explicit InferenceSession(SessionOptions options = {}, std::vector<ProviderSpec> providers = {});
  ~InferenceSession();
  InferenceSession(const InferenceSession&) = delete;
  InferenceSession& operator=(const InferenceSession&) = delete;

  void Load(const std::string& path);
  void Load(const void* data, size_t size, const std::string& model_directory = "");
  // Partitions, inserts copies, creates kernels and plans. Called by Load when not yet done.
  // When the requested EPs fail here and retrying on the CPU EP may help (see below), it warns,
  // falls back to the CPU EP alone and disables further fallback.
  void Initialize();

  // onnxruntime's retry policy, for every caller (C, C++, Python): when session creation or a
  // Run fails in an EP (kEpFail for runs; any error but the model's own for creation) and the
  // session uses an EP other than the CPU EP, it is rebuilt on the CPU EP alone and the call is
  // retried, once: fallback is then disabled. Enabled by default (config
  // "session.disable_ep_failure_fallback" = "1" turns it off at creation); never taken when
  // "session.disable_cpu_ep_fallback" = "1".
  void EnableFallback() { fallback_enabled_ = true; }
  void DisableFallback() { fallback_enabled_ = false; }
  bool FallbackEnabled() const { return fallback_enabled_; }
  // What the last fallback said ("EP Error ... Falling back to ['CPUExecutionProvider'] and
  // retrying."), cleared by the call; empty when none happened since the last call.
  std::string TakeFallbackNotice() const;

  // Runs with feeds given by name; returns the requested outputs (all outputs when
  // output_names is empty) in CPU memory unless keep_device_outputs is set.
  std::vector<Value> Run(const RunOptions& run_options, const std::vector<std::string>& feed_names,
                         const std::vector<Value>& feeds,
                         const std::vector<std::string>& output_names,
                         bool keep_device_outputs = false) const;
  // As above, with one destination per requested output (output_names must not be empty).
  // Moves between memory spaces made for the destinations count in Statistics().
  std::vector<Value> Run(const RunOptions& run_options, const std::vector<std::string>& feed_names,
                         const std::vector<Value>& feeds,
                         const std::vector<std::string>& output_names,
                         const std::vector<OutputDestination>& destinations) const;

  std::vector<ValueInfo> Inputs() const;  // required inputs (initializers excluded)
  std::vector<ValueInfo> Outputs() const;
  std::vector<ValueInfo> OverridableInitializers() const;
  const ModelMetadata& Metadata() const;
  const Model& GetModel() const;

  // The EPs in use, in priority order (names), and their options.
  std::vector<std::string> Providers() const;
  std::vector<ProviderOptions> ProviderOptionsList() const;
  // The degree of parallelism kernels get from the session's intra-op pool (1: no pool).
  int IntraOpThreads() const;
  // Each EP's default memory, in the order of Providers().
  std::vector<MemoryInfo> ProviderMemories() const;
  // Rebuilds the plan with another provider list (onnxruntime's set_providers).
  void SetProviders(std::vector<ProviderSpec> providers);

  // A copy: SetProviders replaces the state a reference would point into.
  PartitionReport Report() const;
  // The graph the session runs: its own copy of the model's graph after the optimizer passes
  // and the fusing of EP-claimed groups (kept alive by the returned pointer).
  std::shared_ptr<const Graph> SessionGraph() const;

  // The allocator of the session's EP that owns memory (CPU memory: the CPU allocator), or
  // nullptr when no EP of the session has that memory.
  AllocatorPtr AllocatorFor(const MemoryInfo& memory) const;
  // Copies a tensor or sequence into memory through the session's data transfers (returns the
  // value itself when it is already there).
  Value CopyToMemory(const Value& value, const MemoryInfo& memory) const;
  const SessionOptions& Options() const { return options_; }

  RunStatistics Statistics() const;
  PrepackStatistics Prepacking() const;
  // The session's allocators (one per memory space its plan allocates in) and what each did:
  // requests, bytes in use and at peak, the arena's size and growth.
  std::vector<NamedAllocatorStats> AllocatorStatistics() const;

  // With SessionOptions.enable_profiling: stops profiling and writes the Chrome trace to path,
  // or to "<profile_file_prefix>_<YYYY-MM-DD_HH-MM-SS>.json" when path is empty; returns the
  // path written. Returns "" when profiling is off or has already ended (onnxruntime's
  // end_profiling).
  std::string EndProfiling(const std::string& path = "");
  // The live profiler (events so far), or nullptr when profiling is off.
  const Profiler* GetProfiler() const { return profiler_.get(); }
  // When profiling started, in nanoseconds since the Unix epoch (Python's time.time_ns()); 0 when
  // profiling is off (onnxruntime's get_profiling_start_time_ns).
  int64_t ProfilingStartTimeNs() const;

  // The session's intra-op pool (nullptr: one thread), for diagnostics and tests.
  const ThreadPool* IntraOpPool() const;

 private:
  // Whether run_options ask for the CPU arena to shrink when the run ends; throws on a malformed
  // memory.enable_memory_arena_shrinkage entry.
  static bool ShrinkCpuArenaAfterRun(const RunOptions& run_options);
  std::shared_ptr<const SessionState> State() const;
  // What the loader may accept (session.max_tensor_bytes).
  ModelLoadLimits LoadLimits() const;
  void BuildState();
  bool MayRetryOnCpu(const Exception& error, bool creating) const;
  // Whether to retry: true when the session was rebuilt on the CPU EP alone now (fallback is
  // then disabled) or, for a run, when another thread already rebuilt it since failed_on.
  bool FallBackToCpu(const Exception& error, const std::shared_ptr<const SessionState>& failed_on,
                     bool creating) const;
  // destinations: one per selected output, or empty for `fallback` everywhere.
  std::vector<Value> RunTo(const RunOptions& run_options,
                           const std::vector<std::string>& feed_names,
                           const std::vector<Value>& feeds,
                           const std::vector<std::string>& output_names,
                           const std::vector<OutputDestination>& destinations,
                           const OutputDestination& fallback) const;
  std::vector<Value> RunOnce(const std::shared_ptr<const SessionState>& state,
                             const RunOptions& run_options,
                             const std::vector<std::string>& feed_names,
                             const std::vector<Value>& feeds,
                             const std::vector<std::string>& output_names,
                             const std::vector<OutputDestination>& destinations,
                             const OutputDestination& fallback) const;

  SessionOptions options_;
  // The session's logging (creation, and runs without a severity of their own).
  LogSettings log_settings_;
  // session.set_denormal_as_zero = "1": runs flush denormal floats to zero.
  bool denormal_as_zero_ = false;
  // Changed by a run-time fallback (under fallback_mutex_), hence mutable.
  mutable std::vector<ProviderSpec> requested_providers_;
  mutable std::atomic<bool> fallback_enabled_{true};
  mutable std::mutex fallback_mutex_;
  mutable std::string fallback_notice_;
  std::shared_ptr<const Model> model_;
  // Main-graph weights the current state holds only prepacked, released from model_ (restored
  // from their packed forms before a state is built again). Changed under fallback_mutex_ or
  // while no run can start (Load, SetProviders).
  mutable std::vector<std::pair<std::string, PrePackedWeight>> released_weights_;
  // The file the model came from, when its weights may be read back from it (Load(path) with no
  // application-supplied initializers or in-memory files): weights released without a way to
  // rebuild them from what the state keeps are restored from there.
  std::shared_ptr<ModelFileWeights> model_file_;
  // Swapped atomically by SetProviders; each Run holds its own reference.
  mutable std::mutex state_mutex_;
  std::shared_ptr<const SessionState> state_;
  std::unique_ptr<Profiler> profiler_;  // set at construction when profiling is enabled
  mutable std::atomic<int64_t> runs_{0};
  mutable std::atomic<int64_t> copies_{0};
  mutable std::atomic<int64_t> bytes_copied_{0};
};

}  // namespace prism
