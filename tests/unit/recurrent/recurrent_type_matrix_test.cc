// Type coverage of RNN, GRU and LSTM: every element type the CPU registry registers for T at
// the first opset of every ONNX schema version range, with sequence_lens (T1 = int32) given.
// The cases use activations whose results are exact in every floating type (Relu, and
// HardSigmoid with alpha = beta = 0.5 on integers: 0, 0.5 or 1), so the expected values below,
// worked out by hand, hold exactly for float16 and bfloat16 too.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"

namespace prism::testing {
namespace {

using E = ElementType;

// The since_version of every ai.onnx schema of the op (onnx 1.23.2).
std::vector<int> SpecVersions(const std::string& op) {
  if (op == "GRU") return {1, 3, 7, 14, 22};
  return {1, 7, 14, 22};
}

std::vector<E> RegisteredT(const std::string& op, int opset) {
  return CpuRegisteredTypes(op, opset, "T");
}

// A floating tensor of `type` holding `values` (exactly representable in it).
Tensor Floating(E type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  switch (type) {
    case E::kFloat:
      return MakeTensor<float>(dims, std::vector<float>(values.begin(), values.end()));
    case E::kDouble:
      return MakeTensor<double>(dims, values);
    case E::kFloat16: {
      std::vector<Float16> halves;
      for (double v : values) halves.emplace_back(static_cast<float>(v));
      return MakeTensor<Float16>(dims, halves);
    }
    case E::kBFloat16: {
      std::vector<BFloat16> halves;
      for (double v : values) halves.emplace_back(static_cast<float>(v));
      return MakeTensor<BFloat16>(dims, halves);
    }
    default:
      ADD_FAILURE() << "no floating tensor of " << ElementTypeName(type);
      return MakeTensor<float>(dims, std::vector<float>(values.begin(), values.end()));
  }
}

void ForEachRangeAndType(const std::string& op, const std::function<void(int, E)>& check) {
  for (int opset : SpecVersions(op)) {
    const std::vector<E> types = RegisteredT(op, opset);
    EXPECT_FALSE(types.empty()) << op << " registers no type at opset " << opset;
    for (E type : types) {
      SCOPED_TRACE(::testing::Message()
                   << op << " opset " << opset << " T=" << ElementTypeName(type));
      check(opset, type);
    }
  }
}

// X = [1, 2] over 2 steps, batch 1, input 1.
void AddSequence(OpTester& test, E type) {
  test.InputTensor("X", Floating(type, {2, 1, 1}, {1, 2}));
}

TEST(RecurrentTypeMatrixTest, RnnEveryRangeAndType) {
  // H_t = Relu(2 x_t + H_{t-1} + 1): 3, then 4 + 3 + 1 = 8.
  ForEachRangeAndType("RNN", [](int opset, E type) {
    OpTester test("RNN", opset);
    test.Attr("hidden_size", int64_t{1});
    test.Attr("activations", std::vector<std::string>{"Relu"});
    AddSequence(test, type);
    test.InputTensor("W", Floating(type, {1, 1, 1}, {2}));
    test.InputTensor("R", Floating(type, {1, 1, 1}, {1}));
    test.InputTensor("B", Floating(type, {1, 2}, {1, 0}));
    test.Input<int32_t>("sequence_lens", {1}, {2});
    test.OutputTensor("Y", Floating(type, {2, 1, 1, 1}, {3, 8}));
    test.OutputTensor("Y_h", Floating(type, {1, 1, 1}, {8}));
    test.Run();
  });
}

TEST(RecurrentTypeMatrixTest, GruEveryRangeAndType) {
  // z = HardSigmoid(0) = 0.5, r = HardSigmoid(x) = 1, n = Relu(2 x + r H), H = (n + H) / 2:
  // step 1: n = 2, H = 1; step 2: n = 4 + 1 = 5, H = 3.
  ForEachRangeAndType("GRU", [](int opset, E type) {
    OpTester test("GRU", opset);
    test.Attr("hidden_size", int64_t{1});
    test.Attr("activations", std::vector<std::string>{"HardSigmoid", "Relu"});
    test.Attr("activation_alpha", std::vector<float>{0.5f});
    test.Attr("activation_beta", std::vector<float>{0.5f});
    AddSequence(test, type);
    test.InputTensor("W", Floating(type, {1, 3, 1}, {0, 1, 2}));
    test.InputTensor("R", Floating(type, {1, 3, 1}, {0, 0, 1}));
    test.InputTensor("B", Floating(type, {1, 6}, {0, 0, 0, 0, 0, 0}));
    test.Input<int32_t>("sequence_lens", {1}, {2});
    test.OutputTensor("Y", Floating(type, {2, 1, 1, 1}, {1, 3}));
    test.OutputTensor("Y_h", Floating(type, {1, 1, 1}, {3}));
    test.Run();
  });
}

TEST(RecurrentTypeMatrixTest, LstmEveryRangeAndType) {
  // i = HardSigmoid(x) = 1, o = f = HardSigmoid(0) = 0.5, c~ = Relu(2 x), C = C / 2 + c~,
  // H = Relu(C) / 2: step 1: C = 2, H = 1; step 2: C = 1 + 4 = 5, H = 2.5.
  ForEachRangeAndType("LSTM", [](int opset, E type) {
    OpTester test("LSTM", opset);
    test.Attr("hidden_size", int64_t{1});
    test.Attr("activations", std::vector<std::string>{"HardSigmoid", "Relu", "Relu"});
    test.Attr("activation_alpha", std::vector<float>{0.5f});
    test.Attr("activation_beta", std::vector<float>{0.5f});
    AddSequence(test, type);
    test.InputTensor("W", Floating(type, {1, 4, 1}, {1, 0, 0, 2}));
    test.InputTensor("R", Floating(type, {1, 4, 1}, {0, 0, 0, 0}));
    test.InputTensor("B", Floating(type, {1, 8}, {0, 0, 0, 0, 0, 0, 0, 0}));
    test.Input<int32_t>("sequence_lens", {1}, {2});
    test.OutputTensor("Y", Floating(type, {2, 1, 1, 1}, {1, 2.5}));
    test.OutputTensor("Y_h", Floating(type, {1, 1, 1}, {2.5}));
    test.OutputTensor("Y_c", Floating(type, {1, 1, 1}, {5}));
    test.Run();
  });
}

}  // namespace
}  // namespace prism::testing
