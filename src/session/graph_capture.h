// Whole-run capture and replay for an EP that records device graphs (onnxruntime's
// enable_cuda_graph): when every node of a session runs on that EP, a run whose inputs are all in
// the EP's memory, with the same shapes as the run before it, is captured once into a device
// graph; later runs with those shapes copy their inputs into the captured run's input buffers,
// replay the graph and hand back copies of its outputs. Runs that do not qualify (inputs in host
// memory, other shapes, a fetch subset) run step by step as usual, with a warning once.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "framework/value.h"
#include "session/execution_plan.h"
#include "session/session_options.h"

namespace prism {

class IExecutionProvider;
class SessionState;
struct RunInstrumentation;

class GraphCaptureRunner {
 public:
  explicit GraphCaptureRunner(const IExecutionProvider& provider) : provider_(provider) {}
  ~GraphCaptureRunner();
  GraphCaptureRunner(const GraphCaptureRunner&) = delete;
  GraphCaptureRunner& operator=(const GraphCaptureRunner&) = delete;

  // The run's outputs (copies, in the EP's memory) when it was captured or replayed; nothing
  // when it must run step by step (the caller then runs it).
  std::optional<std::vector<Value>> Run(const SessionState& state, const GraphPlan& plan,
                                        const std::vector<Value>& inputs,
                                        const RunOptions& run_options,
                                        RunInstrumentation* instrumentation);

  // Runs replayed so far (for tests and the partition report).
  int64_t Replays() const;

 private:
  std::vector<Value> Capture(const SessionState& state, const GraphPlan& plan,
                             const std::vector<Value>& inputs, const RunOptions& run_options,
                             RunInstrumentation* instrumentation);
  std::vector<Value> CopiesOfOutputs(const SessionState& state) const;

  const IExecutionProvider& provider_;
  mutable std::mutex mutex_;
  std::vector<TensorShape> previous_shapes_;  // the last run's input shapes
  bool captured_ = false;
  bool failed_ = false;  // a capture failed: every run goes step by step
  std::vector<TensorShape> captured_shapes_;
  std::vector<Value> captured_inputs_;   // the buffers the graph reads its inputs from
  std::vector<Value> captured_outputs_;  // the buffers the graph writes its outputs to
  int64_t replays_ = 0;
};

}  // namespace prism
