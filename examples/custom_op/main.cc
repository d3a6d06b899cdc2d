// Runs the custom op example from C++: loads the custom op library by path
// (SessionOptions::RegisterCustomOpsLibrary), adds an op of its own written with
// prism::CustomOpBase (Negate, domain "prism.example.cxx"), runs
// custom_op_example_cxx.onnx (make_model.py) and checks Z = -(2 A + 1.5 B) by hand.
//
// Usage: prism_custom_op_example_cxx LIBRARY MODEL
#include <cstdio>
#include <iostream>
#include <vector>

#include "prism/prism_cxx_api.h"

namespace {

// Z = -X, split over the session's intra-op threads.
struct NegateKernel {
  explicit NegateKernel(const prism::KernelInfo&) {}
  void Compute(prism::KernelContext& context) {
    const prism::KernelValue x = context.GetInput(0);
    const float* in = x.Data<float>();
    prism::KernelValue z = context.GetOutput(0, x.Shape());
    float* out = z.MutableData<float>();
    context.ParallelFor(x.ElementCount(), [&](size_t i) { out[i] = -in[i]; });
  }
};

struct NegateOp : prism::CustomOpBase<NegateOp, NegateKernel> {
  const char* GetName() const { return "Negate"; }
  size_t GetInputTypeCount() const { return 1; }
  PrismElementType GetInputType(size_t) const { return PRISM_TYPE_FLOAT; }
  size_t GetOutputTypeCount() const { return 1; }
  PrismElementType GetOutputType(size_t) const { return PRISM_TYPE_FLOAT; }
};

// Ops must outlive the sessions using them.
const NegateOp kNegate;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " LIBRARY MODEL\n";
    return 2;
  }
  try {
    prism::Env env(PRISM_LOGGING_WARNING, "custom_op_example");
    prism::SessionOptions options;
    options.RegisterCustomOpsLibrary(argv[1]);
    prism::CustomOpDomain domain("prism.example.cxx");
    domain.Add(&kNegate);
    options.Add(domain);
    prism::Session session(env, argv[2], options);

    std::vector<float> a = {1, 2, 3, 4, 5, 6};
    std::vector<float> b = {10, 20, 30, 40, 50, 60};
    const std::vector<int64_t> shape = {2, 3};
    const prism::MemoryInfo cpu = prism::MemoryInfo::CreateCpu();
    std::vector<prism::Value> inputs;
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, a.data(), a.size(), shape));
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, b.data(), b.size(), shape));
    std::vector<prism::Value> outputs = session.Run({"A", "B"}, inputs, {"Z"});
    const float* z = outputs[0].GetTensorData<float>();
    const float expected[6] = {-17, -34, -51, -68, -85, -102};  // -(2 a + 1.5 b)
    bool bad = false;
    std::cout << "output Z:";
    for (int i = 0; i < 6; ++i) {
      std::cout << " " << z[i];
      bad = bad || z[i] != expected[i];
    }
    std::cout << "\n" << session.GetPartitionReport();
    if (bad) {
      std::cerr << "Z differs from -(2 A + 1.5 B) = -17 -34 -51 -68 -85 -102\n";
      return 1;
    }
  } catch (const prism::Exception& e) {
    std::cerr << "error " << e.Code() << ": " << e.what() << "\n";
    return 1;
  }
  std::cout << "custom op example OK (C++)\n";
  return 0;
}
