// Runs a GraphPlan step by step on one frame of values; subgraphs run on child frames.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "session/session_state.h"

namespace prism {

class ExecutionFrame;
class Profiler;

// What one run measures besides its results; owned by the run, shared with its subgraphs.
struct RunInstrumentation {
  Profiler* profiler = nullptr;  // null: no timing calls at all
  std::atomic<int64_t> copies{0};
  std::atomic<int64_t> bytes_copied{0};
};

// Bytes of a tensor's or sequence's data (0 for an empty value).
int64_t ValueBytes(const Value& value);

// inputs bind to plan.input_slots in order (an empty Value leaves an overridable initializer
// in place). parent resolves outer-scope values; null for the main graph. fetched (main graph
// only, RunOptions.only_execute_path_to_fetches): the outputs wanted, as indices into
// plan.output_slots; only the steps they depend on run, and the other outputs come back empty.
// Steps log at verbosity 1 in the calling thread's logging settings, on whichever thread runs
// them.
std::vector<Value> ExecuteGraph(const SessionState& state, const GraphPlan& plan,
                                const std::vector<Value>& inputs, const ExecutionFrame* parent,
                                const RunOptions& run_options,
                                RunInstrumentation* instrumentation = nullptr,
                                const std::vector<size_t>* fetched = nullptr);

// Whether a value's tensors are all in memory (any CPU-accessible memory counts as CPU); an
// empty optional is anywhere.
bool ValueInMemory(const Value& value, const MemoryInfo& memory);

// A copy of a tensor or sequence in allocator's memory.
Value CopyValue(const DataTransferManager& transfers, const Value& source,
                const AllocatorPtr& allocator);
// The value itself when already in CPU memory, else a CPU copy (tensors and sequences).
Value CopyValueToCpu(const DataTransferManager& transfers, const Value& value);

}  // namespace prism
