// Session and run settings, with onnxruntime's names and defaults.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/execution_provider.h"
#include "graph/model_adjustments.h"

namespace prism {

class PrepackedWeightsContainer;
struct CustomOpDomain;

// kLayout (onnxruntime's ORT_ENABLE_LAYOUT) runs the basic, extended and layout transformers,
// as kAll does: Prism has no level above layout.
enum class GraphOptimizationLevel : int {
  kDisableAll = 0,
  kBasic = 1,
  kExtended = 2,
  kLayout = 3,
  kAll = 99
};
enum class ExecutionMode : int { kSequential = 0, kParallel = 1 };

struct SessionOptions {
  // The intra-op pool's threads (0: the physical cores this process may use). With
  // execution_mode parallel, independent nodes run at once on inter_op_num_threads threads
  // (0: the same default); the memory pattern and in-place reuse are then off.
  int intra_op_num_threads = 0;
  // false: the session uses the process's global thread pools (global_thread_pools.h), which
  // must exist; intra_op_num_threads is then not used (onnxruntime's DisablePerSessionThreads).
  bool use_per_session_threads = true;
  int inter_op_num_threads = 0;
  ExecutionMode execution_mode = ExecutionMode::kSequential;
  // Which graph transformers run (src/optimizer): none, basic, basic+extended, all.
  GraphOptimizationLevel graph_optimization_level = GraphOptimizationLevel::kAll;
  // Transformers skipped by name (onnxruntime's disabled_optimizers); unknown names are logged.
  std::vector<std::string> disabled_optimizers;
  // Where the transformed graph is written as an ONNX model at session creation ("" = nowhere).
  std::string optimized_model_filepath;
  // CPU memory through a per-session arena (session.arena_* config entries); off: every tensor
  // is its own system allocation.
  bool enable_cpu_mem_arena = true;
  // One block per run planned from recorded lifetimes, per set of feed shapes (memory_pattern.h).
  bool enable_mem_pattern = true;
  // Buffers shared between values: an output written over an input its kernel may overwrite
  // (in-place), and the memory pattern's block placing values whose lifetimes do not meet over
  // the same bytes. false: every value gets its own buffer (onnxruntime's enable_mem_reuse).
  bool enable_mem_reuse = true;
  // onnxruntime's use_deterministic_compute. Prism's kernels are deterministic whatever it says
  // (a given session computes the same bits on every run, threads or not); it is kept so that
  // the setting can be read back.
  bool use_deterministic_compute = false;

  // The session's logging (creation, and runs whose RunOptions set no severity): -1 means the
  // process defaults. log_id names the session in its messages.
  int log_severity_level = -1;
  int log_verbosity_level = -1;
  std::string log_id;
  bool enable_profiling = false;
  std::string profile_file_prefix = "prism_profile";

  // Free-form entries (onnxruntime's add_session_config_entry). Known keys:
  //   session.disable_cpu_ep_fallback = "1": nodes the listed EPs cannot take are an error.
  //   session.fail_on_unavailable_provider = "1": an unavailable requested EP is an error
  //     (default: logged and skipped, as onnxruntime does).
  //   session.provider_library_dir: where plugin EP libraries are looked up first.
  //   session.disable_prepacking = "1": kernels read constant weights as stored (no packed
  //     forms; the originals stay in the session).
  //   session.set_denormal_as_zero = "1": runs compute with denormal floats flushed to zero
  //     (operands and results), on the calling thread and the pool threads working for it.
  //   session.model_external_initializers_file_folder_path: the folder a model loaded from
  //     bytes reads its external data files from (default: none, such data is refused).
  //   session.use_env_allocators = "1": memory spaces with an allocator in
  //     environment_allocators use it (shared with every session of that environment that
  //     opts in) instead of one of the session's own.
  std::map<std::string, std::string> config_entries;
  // The allocators the session's environment shares (environment_allocators.h), set by the API
  // layer when session.use_env_allocators is "1"; empty otherwise.
  std::vector<AllocatorPtr> environment_allocators;
  // Where kernels' packed forms of constant weights are kept: sessions given one container share
  // the packing of identical weights (onnxruntime's PrepackedWeightsContainer). nullptr: each
  // session keeps its own.
  std::shared_ptr<PrepackedWeightsContainer> prepacked_weights;
  // Custom op domains (framework/custom_op.h): their ops are offered to their EP (the CPU EP
  // unless an op names another) before its own kernels. Shared, never changed once added.
  std::vector<std::shared_ptr<const CustomOpDomain>> custom_op_domains;
  // Free dimension overrides, initializers and external data the application supplies, applied
  // as the model loads (graph/model_adjustments.h). Tensors share the application's memory.
  ModelAdjustments model_adjustments;

  std::string ConfigOr(const std::string& key, const std::string& fallback) const {
    auto it = config_entries.find(key);
    return it == config_entries.end() ? fallback : it->second;
  }
};

struct RunOptions {
  // The run's logging: severity -1 means the session's; verbosity -1 the session's.
  int log_severity_level = -1;
  int log_verbosity_level = -1;
  std::string run_tag;
  // Compute only the nodes the requested outputs depend on (onnxruntime's
  // only_execute_path_to_fetches); by default every node of the main graph runs.
  bool only_execute_path_to_fetches = false;
  // Set from another thread to stop a run between nodes (it then fails with a clear error).
  std::atomic<bool>* terminate = nullptr;
  // Free-form entries (onnxruntime's add_run_config_entry). Known keys:
  //   memory.enable_memory_arena_shrinkage = "cpu:0": the session's CPU arena returns its
  //     unused regions to the system when the run ends (other devices: logged, ignored).
  std::map<std::string, std::string> config_entries;
};

// One entry of the session's provider list: a name in onnxruntime's spelling and options.
struct ProviderSpec {
  std::string name;
  ProviderOptions options;
};

}  // namespace prism
