// Runs the custom EP example from C++: asks for ExampleExecutionProvider by name (Prism loads
// libprism_provider_example.so from PLUGIN_DIR), runs custom_ep_example.onnx (make_model.py),
// checks both outputs against values computed here by hand, and prints the partition report,
// which says where each node ran and why the example EP declined the others.
//
// Usage: prism_custom_ep_example PLUGIN_DIR MODEL
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "prism/prism_cxx_api.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PLUGIN_DIR MODEL\n";
    return 2;
  }
  constexpr int64_t kRows = 3, kColumns = 5000, kCount = kRows * kColumns;
  try {
    prism::Env env(PRISM_LOGGING_WARNING, "custom_ep_example");
    prism::SessionOptions options;
    options.AddConfigEntry("session.provider_library_dir", argv[1]);
    options.SetIntraOpNumThreads(2);
    options.AppendExecutionProvider("ExampleExecutionProvider", {});
    prism::Session session(env, argv[2], options);

    std::vector<float> x(kCount), y(kCount);
    for (int64_t i = 0; i < kCount; ++i) {
      x[i] = static_cast<float>(2.0 * std::sin(0.01 * static_cast<double>(i)));
      y[i] = static_cast<float>(std::cos(0.007 * static_cast<double>(i)));
    }
    const std::vector<int64_t> shape = {kRows, kColumns};
    const prism::MemoryInfo cpu = prism::MemoryInfo::CreateCpu();
    std::vector<prism::Value> inputs;
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, x.data(), x.size(), shape));
    inputs.push_back(prism::Value::CreateTensor<float>(cpu, y.data(), y.size(), shape));
    std::vector<prism::Value> outputs = session.Run({"X", "Y"}, inputs, {"Out", "R"});
    const float* out = outputs[0].GetTensorData<float>();
    const float* r = outputs[1].GetTensorData<float>();

    // Out = sigmoid(relu(X + Y)) * W - X + b, as make_model.py builds it.
    int64_t bad = 0;
    double worst = 0.0;
    for (int64_t i = 0; i < kCount; ++i) {
      const float relu = std::max(0.0f, x[i] + y[i]);
      const float w = static_cast<float>((i % 7) - 3) / 4.0f;
      const float b = static_cast<float>(i % kColumns) / 1000.0f;
      const float expected = (1.0f / (1.0f + std::exp(-relu))) * w - x[i] + b;
      const double error = std::fabs(out[i] - expected);
      worst = std::max(worst, error);
      if (r[i] != relu || error > 1e-5 + 1e-5 * std::fabs(expected)) ++bad;
    }
    std::printf("Out[0..3]: %.6f %.6f %.6f %.6f\n", out[0], out[1], out[2], out[3]);
    std::printf("largest difference from the hand computation: %.3g\n", worst);
    std::cout << session.GetPartitionReport();
    const auto ep_options = session.GetProviderOptions(0);
    for (const auto& [key, value] : ep_options)
      std::cout << "option " << key << "=" << value << "\n";
    if (bad != 0) {
      std::cerr << bad << " of " << kCount << " values differ from the hand computation\n";
      return 1;
    }
  } catch (const prism::Exception& e) {
    std::cerr << "error " << e.Code() << ": " << e.what() << "\n";
    return 1;
  }
  std::cout << "custom EP example OK (C++)\n";
  return 0;
}
