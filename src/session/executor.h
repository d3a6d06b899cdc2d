// Runs a GraphPlan step by step on one frame of values; subgraphs run on child frames.
#pragma once

#include <vector>

#include "session/session_state.h"

namespace prism {

class ExecutionFrame;

// inputs bind to plan.input_slots in order (an empty Value leaves an overridable initializer
// in place). parent resolves outer-scope values; null for the main graph.
std::vector<Value> ExecuteGraph(const SessionState& state, const GraphPlan& plan,
                                const std::vector<Value>& inputs, const ExecutionFrame* parent,
                                const RunOptions& run_options);

// A copy of a tensor or sequence in allocator's memory.
Value CopyValue(const DataTransferManager& transfers, const Value& source,
                const AllocatorPtr& allocator);
// The value itself when already in CPU memory, else a CPU copy (tensors and sequences).
Value CopyValueToCpu(const DataTransferManager& transfers, const Value& value);

}  // namespace prism
