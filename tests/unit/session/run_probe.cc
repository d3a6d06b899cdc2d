#include "run_probe.h"

#include <algorithm>
#include <atomic>

#include "common/status.h"
#include "framework/kernel_registry.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::testing {
namespace {

std::atomic<RunRendezvous*> installed_rendezvous{nullptr};

// An identity that first meets the installed rendezvous.
class RunProbeKernel final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext& context) const override {
    if (RunRendezvous* rendezvous = installed_rendezvous.load()) rendezvous->Arrive();
    context.SetOutput(0, *context.InputValue(0));
  }
};

void RegisterRunProbeKernel(KernelRegistry& registry) {
  registry.Register(KernelDefBuilder(kRunProbeOp)
                        .Domain(kRunProbeDomain)
                        .Versions(1)
                        .Constraint("T", {ElementType::kFloat}, {0}, {0})
                        .Build(),
                    MakeKernelFactory<RunProbeKernel>());
}

}  // namespace

// Registered at static initialization like the real CPU kernel families; the CPU registry is
// built on first use, after main has started.
PRISM_CPU_KERNEL_FAMILY(test_run_probe, RegisterRunProbeKernel);

RunRendezvous::RunRendezvous(int parties, std::chrono::milliseconds timeout)
    : parties_(parties), timeout_(timeout) {}

void RunRendezvous::Arrive() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!failure_.empty()) return;  // already broken: do not make every later run wait too
  const int64_t round = round_;
  most_inside_ = std::max(most_inside_, ++waiting_);
  if (waiting_ == parties_) {
    waiting_ = 0;
    ++round_;
    round_done_.notify_all();
    return;
  }
  const bool filled =
      round_done_.wait_for(lock, timeout_, [&] { return round_ != round || !failure_.empty(); });
  if (filled || !failure_.empty()) return;
  failure_ = MakeString("only ", waiting_, " of ", parties_,
                        " concurrent runs were inside a kernel at the same time (round ", round + 1,
                        ", waited ", timeout_.count(),
                        " ms in the RunProbe kernel): Run calls on one session are serialized");
  round_done_.notify_all();
}

std::string RunRendezvous::Verdict() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

int64_t RunRendezvous::CompletedRounds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return round_;
}

int RunRendezvous::MostInsideAtOnce() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return most_inside_;
}

ScopedRunProbe::ScopedRunProbe(RunRendezvous& rendezvous) {
  installed_rendezvous.store(&rendezvous);
}

ScopedRunProbe::~ScopedRunProbe() {
  installed_rendezvous.store(nullptr);
}

onnx::ModelProto WithRunProbe(onnx::ModelProto model, const std::string& value) {
  onnx::GraphProto* graph = model.mutable_graph();
  const std::string probed = value + "_probed";
  for (onnx::NodeProto& node : *graph->mutable_node())
    for (std::string& input : *node.mutable_input())
      if (input == value) input = probed;

  onnx::NodeProto probe;
  probe.set_op_type(kRunProbeOp);
  probe.set_domain(kRunProbeDomain);
  probe.set_name("run_probe");
  probe.add_input(value);
  probe.add_output(probed);
  // Keep the node list topologically sorted: the probe goes first for a graph input, else
  // right after value's producer.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  bool placed = false;
  for (const onnx::ValueInfoProto& input : graph->input()) {
    if (input.name() == value) {
      *nodes.Add() = probe;
      placed = true;
    }
  }
  for (const onnx::NodeProto& node : graph->node()) {
    *nodes.Add() = node;
    if (std::find(node.output().begin(), node.output().end(), value) != node.output().end()) {
      *nodes.Add() = probe;
      placed = true;
    }
  }
  PRISM_ENFORCE(placed, kInvalidArgument, "WithRunProbe: '", value,
                "' is neither a graph input nor a node output");
  graph->mutable_node()->Swap(&nodes);

  // Types of custom-domain outputs are not inferred; say it is float.
  onnx::ValueInfoProto* info = graph->add_value_info();
  info->set_name(probed);
  info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::OperatorSetIdProto* import = model.add_opset_import();
  import->set_domain(kRunProbeDomain);
  import->set_version(1);
  return model;
}

}  // namespace prism::testing
