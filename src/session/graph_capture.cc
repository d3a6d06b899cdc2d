#include "session/graph_capture.h"

#include "common/logging.h"
#include "framework/execution_provider.h"
#include "session/executor.h"
#include "session/session_state.h"

namespace prism {

GraphCaptureRunner::~GraphCaptureRunner() = default;

int64_t GraphCaptureRunner::Replays() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return replays_;
}

std::optional<std::vector<Value>> GraphCaptureRunner::Run(const SessionState& state,
                                                          const GraphPlan& plan,
                                                          const std::vector<Value>& inputs,
                                                          const RunOptions& run_options,
                                                          RunInstrumentation* instrumentation) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) return std::nullopt;
  const MemoryInfo& device = provider_.GetAllocator(MemType::kDefault)->Info();
  std::vector<TensorShape> shapes;
  for (const Value& input : inputs) {
    if (!input.IsTensor() || !(input.GetTensor().Location() == device)) {
      LogWarningOnce(
          "graph_capture.inputs." + provider_.Type(),
          MakeString(provider_.Type(), ": graph capture replays runs whose inputs are all in ",
                     device.ToString(),
                     " memory (bind them there with IO binding); runs with other "
                     "inputs go step by step"));
      return std::nullopt;
    }
    shapes.push_back(input.GetTensor().Shape());
  }
  if (captured_) {
    if (shapes != captured_shapes_) {
      LogWarningOnce("graph_capture.shapes." + provider_.Type(),
                     MakeString(provider_.Type(),
                                ": the graph was captured for other input shapes; runs with "
                                "these go step by step"));
      return std::nullopt;
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& feed = inputs[i].GetTensor();
      Tensor& into = captured_inputs_[i].MutableTensor();
      if (feed.RawData() != into.RawData()) state.DataTransfers().CopyTensor(feed, into);
    }
    provider_.ReplayGraph();
    ++replays_;
    return CopiesOfOutputs(state);
  }
  // Capture only a run shaped like the one before it: that run has chosen the kernels'
  // algorithms and grown the arena, so the captured run asks the device for nothing.
  const bool repeat = !previous_shapes_.empty() && shapes == previous_shapes_;
  previous_shapes_ = shapes;
  if (!repeat) return std::nullopt;
  try {
    return Capture(state, plan, inputs, run_options, instrumentation);
  } catch (const Exception& error) {
    failed_ = true;
    captured_inputs_.clear();
    captured_outputs_.clear();
    PRISM_LOG(kWarning, provider_.Type(),
              ": graph capture failed, runs go step by step: ", error.what());
    return std::nullopt;
  }
}

std::vector<Value> GraphCaptureRunner::Capture(const SessionState& state, const GraphPlan& plan,
                                               const std::vector<Value>& inputs,
                                               const RunOptions& run_options,
                                               RunInstrumentation* instrumentation) {
  AllocatorPtr allocator = provider_.GetAllocator(MemType::kDefault);
  captured_inputs_.clear();
  for (const Value& input : inputs)
    captured_inputs_.push_back(CopyValue(state.DataTransfers(), input, allocator));
  provider_.BeginGraphCapture();
  std::vector<Value> outputs;
  try {
    outputs = ExecuteGraph(state, plan, captured_inputs_, nullptr, run_options, instrumentation);
  } catch (...) {
    try {
      provider_.EndGraphCapture(false);
    } catch (const Exception&) {
      // The first error says more.
    }
    throw;
  }
  provider_.EndGraphCapture(true);
  captured_outputs_ = std::move(outputs);
  provider_.ReserveCapturedMemory();
  captured_shapes_.clear();
  for (const Value& input : captured_inputs_) captured_shapes_.push_back(input.GetTensor().Shape());
  captured_ = true;
  // Capturing recorded the run without executing it.
  provider_.ReplayGraph();
  ++replays_;
  PRISM_LOG(kInfo, provider_.Type(), ": captured the run as a device graph; later runs with ",
            "these input shapes replay it");
  return CopiesOfOutputs(state);
}

std::vector<Value> GraphCaptureRunner::CopiesOfOutputs(const SessionState& state) const {
  // Copies, since the next replay overwrites the captured buffers while the caller may still
  // hold this run's results.
  AllocatorPtr allocator = provider_.GetAllocator(MemType::kDefault);
  std::vector<Value> copies;
  copies.reserve(captured_outputs_.size());
  for (const Value& output : captured_outputs_)
    copies.push_back(output.IsTensor() ? CopyValue(state.DataTransfers(), output, allocator)
                                       : output);
  return copies;
}

}  // namespace prism
