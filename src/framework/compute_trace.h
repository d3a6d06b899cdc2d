// Optional hooks that the executor calls after every kernel Compute that returned normally, and
// at the end of every run. Test tooling uses them to learn which kernel registration really
// computed with which concrete types (tests/coverage/). Off unless hooks are installed; off, they
// cost one atomic load per kernel step and per run.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "framework/kernel_def.h"
#include "framework/value.h"
#include "graph/node.h"

namespace prism {

struct ComputeTraceEvent {
  const Node& node;
  const KernelDef& def;         // the registration that computed (its op, domain, versions)
  const std::string& provider;  // the EP's type, e.g. "CPUExecutionProvider"
  // The values the kernel read and wrote, one per node input/output; nullptr where omitted.
  const std::vector<const Value*>& inputs;
  const std::vector<const Value*>& outputs;

  // The concrete type each of def's constraints took in this call, in def's order:
  // "T1=tensor(float);T2=tensor(int8)". A constraint takes the type of its first present bound
  // input, else output (for one bound to nothing: output 0); the kind (tensor, seq, optional)
  // is the graph's, the element type the value's. "?" where nothing tells.
  std::string TypeBinding() const;
};

struct ComputeTraceHooks {
  // After every kernel Compute that returned normally, on the thread that ran it.
  void (*computed)(const ComputeTraceEvent& event) = nullptr;
  // After every run of a main graph (InferenceSession::Run), on the thread that ran it: whether
  // the run completed. A run's kernels all compute on its thread, so the computations reported on
  // that thread since its previous run ended belong to this run.
  void (*run_ended)(bool completed) = nullptr;
};

// Installs hooks for every session of the process (nullptr turns tracing off); *hooks must stay
// valid while installed. The hooks are called from every thread that runs sessions, possibly at
// once, so they must be thread-safe.
void SetComputeTraceHooks(const ComputeTraceHooks* hooks);

namespace detail {
extern std::atomic<const ComputeTraceHooks*> compute_trace_hooks;
}

inline const ComputeTraceHooks* CurrentComputeTraceHooks() {
  return detail::compute_trace_hooks.load(std::memory_order_acquire);
}

}  // namespace prism
