// RNN, GRU and LSTM corner cases with values worked out by hand: a 1-step, 1-unit LSTM with
// peepholes, biases and initial states; reverse sequences that start at each entry's length;
// bidirectional layout 1; a zero length; GRU's linear_before_reset; LSTM's input_forget; clip;
// double precision; and bad inputs refused by name. Most cases use Affine(1, 0) (the identity)
// or HardSigmoid(0.5, 0.5) on small numbers so that the expected values are exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "op_tester.h"
#include "precision_reference.h"

namespace prism::testing {
namespace {

const std::vector<std::string> kIdentity = {"Affine"};

// A forward RNN H_t = x_t W + H_{t-1} R (the identity activation, no bias).
OpTester IdentityRnn(int opset = 14) {
  OpTester test("RNN", opset);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("activations", kIdentity);
  test.Attr("activation_alpha", std::vector<float>{1.0f});
  test.Attr("activation_beta", std::vector<float>{0.0f});
  return test;
}

TEST(LstmTest, OneStepOneUnitByHand) {
  // x = 1, H0 = 0.5, C0 = -1; gates in order i, o, f, c; peepholes i, o, f.
  //   i = sigmoid(0.5 + 0.1 * 0.5 + 0.3 * -1 + 0.1 + 0)        = sigmoid(0.35)
  //   f = sigmoid(-0.5 + 0.3 * 0.5 + 0.1 * -1 + 0.2 + 0)       = sigmoid(-0.25)
  //   c~ = tanh(1 - 0.4 * 0.5 - 0.1 + 0.1)                     = tanh(0.8)
  //   C = f * -1 + i * c~                                      = -0.048287856627593
  //   o = sigmoid(0.25 + 0.2 * 0.5 - 0.2 * C + 0 + 0.05)       = sigmoid(0.4 - 0.2 C)
  //   H = o * tanh(C)                                          = -0.028998744905621
  OpTester test("LSTM", 22);
  test.Attr("hidden_size", int64_t{1});
  test.Input<float>("X", {1, 1, 1}, {1.0f});
  test.Input<float>("W", {1, 4, 1}, {0.5f, 0.25f, -0.5f, 1.0f});
  test.Input<float>("R", {1, 4, 1}, {0.1f, 0.2f, 0.3f, -0.4f});
  test.Input<float>("B", {1, 8}, {0.1f, 0.0f, 0.2f, -0.1f, 0.0f, 0.05f, 0.0f, 0.1f});
  test.MissingInput();  // sequence_lens
  test.Input<float>("initial_h", {1, 1, 1}, {0.5f});
  test.Input<float>("initial_c", {1, 1, 1}, {-1.0f});
  test.Input<float>("P", {1, 3}, {0.3f, -0.2f, 0.1f});
  test.Output<float>("Y", {1, 1, 1, 1}, {-0.028998744905621f});
  test.Output<float>("Y_h", {1, 1, 1}, {-0.028998744905621f});
  test.Output<float>("Y_c", {1, 1, 1}, {-0.048287856627593f});
  test.SetTolerance(1e-7, 1e-5, "float sigmoid and tanh of a few operations");
  test.Run();
}

// hidden_size is an attribute: one whose gate rows overflow int64 is refused by name (the shapes
// of W and R were compared with the wrapped product before).
TEST(LstmTest, HiddenSizeWhoseGatesOverflowIsRefused) {
  for (const char* op : {"LSTM", "GRU"}) {
    OpTester test(op, 14);
    test.Attr("hidden_size", std::numeric_limits<int64_t>::max() / 2);
    test.Input<float>("X", {1, 1, 2}, {1, 2});
    test.Input<float>("W", {1, 4, 2}, std::vector<float>(8, 1.0f));
    test.Input<float>("R", {1, 4, 1}, std::vector<float>(4, 1.0f));
    test.Output<float>("Y", {1, 1, 1, 1}, {0});
    test.ExpectFailure("is too large");
  }
}

TEST(RnnTest, ReverseStartsAtEachSequenceLength) {
  // Entry 0 has length 2: H(t=1) = 2, H(t=0) = 1 + 2 = 3, Y(t=2) = 0, the 100 is never read.
  // Entry 1 has length 3: 30, 50, 60.
  OpTester test = IdentityRnn();
  test.Attr("direction", std::string("reverse"));
  test.Input<float>("X", {3, 2, 1}, {1, 10, 2, 20, 100, 30});
  test.Input<float>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.MissingInput();
  test.Input<int32_t>("sequence_lens", {2}, {2, 3});
  test.Output<float>("Y", {3, 1, 2, 1}, {3, 60, 2, 50, 0, 30});
  test.Output<float>("Y_h", {1, 2, 1}, {3, 60});
  test.Run();
}

TEST(RnnTest, ForwardStopsAtEachSequenceLength) {
  OpTester test = IdentityRnn();
  test.Input<float>("X", {3, 2, 1}, {1, 10, 2, 20, 100, 30});
  test.Input<float>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.MissingInput();
  test.Input<int32_t>("sequence_lens", {2}, {2, 3});
  test.Output<float>("Y", {3, 1, 2, 1}, {1, 10, 3, 30, 0, 60});
  test.Output<float>("Y_h", {1, 2, 1}, {3, 60});
  test.Run();
}

TEST(RnnTest, BidirectionalLayoutOneWithInitialState) {
  // X is [batch, seq, input]: entry 0 reads 1, 2 and entry 1 reads 3, 4.
  // Forward (W = 1, H0 = 10 and 20): 11, 13 and 23, 27.
  // Reverse (W = 2, H0 = 100 and 200): t=1: 104, t=0: 106 and t=1: 208, t=0: 214.
  // Y is [batch, seq, dirs, hidden], Y_h [batch, dirs, hidden].
  OpTester test("RNN", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("direction", std::string("bidirectional"));
  test.Attr("layout", int64_t{1});
  test.Attr("activations", std::vector<std::string>{"Affine", "Affine"});
  test.Attr("activation_alpha", std::vector<float>{1.0f, 1.0f});
  test.Attr("activation_beta", std::vector<float>{0.0f, 0.0f});
  test.Input<float>("X", {2, 2, 1}, {1, 2, 3, 4});
  test.Input<float>("W", {2, 1, 1}, {1, 2});
  test.Input<float>("R", {2, 1, 1}, {1, 1});
  test.MissingInput();
  test.MissingInput();
  test.Input<float>("initial_h", {2, 2, 1}, {10, 100, 20, 200});
  test.Output<float>("Y", {2, 2, 2, 1}, {11, 106, 13, 104, 23, 214, 27, 208});
  test.Output<float>("Y_h", {2, 2, 1}, {13, 106, 27, 214});
  test.Run();
}

TEST(RnnTest, ClipBoundsTheActivationInput) {
  // clip(3) = 0.5, then clip(-0.2 + 0.5) = 0.3.
  OpTester test = IdentityRnn();
  test.Attr("clip", 0.5f);
  test.Input<float>("X", {2, 1, 1}, {3, -0.2f});
  test.Input<float>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.Output<float>("Y", {2, 1, 1, 1}, {0.5f, 0.3f});
  test.Run();
}

TEST(RnnTest, OpsetOneWithOutputSequence) {
  OpTester test = IdentityRnn(1);
  test.Attr("output_sequence", int64_t{1});
  test.Input<float>("X", {2, 1, 1}, {1, 2});
  test.Input<float>("W", {1, 1, 1}, {3});
  test.Input<float>("R", {1, 1, 1}, {2});
  test.Output<float>("Y", {2, 1, 1, 1}, {3, 12});
  test.Output<float>("Y_h", {1, 1, 1}, {12});
  test.Run();
}

TEST(LstmTest, ZeroLengthLeavesZeroStatesAndOutputs) {
  // As onnxruntime: an entry of length 0 has zero Y_h and Y_c, not its initial state.
  OpTester test("LSTM", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Input<float>("X", {2, 1, 1}, {1, 2});
  test.Input<float>("W", {1, 4, 1}, {1, 1, 1, 1});
  test.Input<float>("R", {1, 4, 1}, {1, 1, 1, 1});
  test.MissingInput();
  test.Input<int32_t>("sequence_lens", {1}, {0});
  test.Input<float>("initial_h", {1, 1, 1}, {5});
  test.Input<float>("initial_c", {1, 1, 1}, {7});
  test.Output<float>("Y", {2, 1, 1, 1}, {0, 0});
  test.Output<float>("Y_h", {1, 1, 1}, {0});
  test.Output<float>("Y_c", {1, 1, 1}, {0});
  test.Run();
}

// GRU with z = r = HardSigmoid(0) = 0.5 and the identity for g; x = 3, H0 = 1, Rh = 2, Rbh = 1.
OpTester HalfGatesGru(int64_t linear_before_reset) {
  OpTester test("GRU", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("linear_before_reset", linear_before_reset);
  test.Attr("activations", std::vector<std::string>{"HardSigmoid", "Affine"});
  test.Attr("activation_alpha", std::vector<float>{0.5f, 1.0f});
  test.Attr("activation_beta", std::vector<float>{0.5f, 0.0f});
  test.Input<float>("X", {1, 1, 1}, {3});
  test.Input<float>("W", {1, 3, 1}, {0, 0, 1});
  test.Input<float>("R", {1, 3, 1}, {0, 0, 2});
  test.Input<float>("B", {1, 6}, {0, 0, 0, 0, 0, 1});
  test.MissingInput();
  test.Input<float>("initial_h", {1, 1, 1}, {1});
  return test;
}

TEST(GruTest, ResetBeforeTheLinearTransform) {
  // n = 3 + (0.5 * 1) * 2 + 1 = 5, H = 0.5 * 5 + 0.5 * 1 = 3.
  OpTester test = HalfGatesGru(0);
  test.Output<float>("Y", {1, 1, 1, 1}, {3});
  test.Output<float>("Y_h", {1, 1, 1}, {3});
  test.Run();
}

TEST(GruTest, LinearBeforeReset) {
  // n = 3 + 0.5 * (1 * 2 + 1) = 4.5, H = 0.5 * 4.5 + 0.5 * 1 = 2.75.
  OpTester test = HalfGatesGru(1);
  test.Output<float>("Y", {1, 1, 1, 1}, {2.75f});
  test.Output<float>("Y_h", {1, 1, 1}, {2.75f});
  test.Run();
}

// LSTM with f = HardSigmoid(0.5, 0.5), g = h = identity; x = 1, C0 = 4:
// i = HardSigmoid(0.5) = 0.75, o = HardSigmoid(0) = 0.5, c~ = 2.
OpTester ExactLstm(int64_t input_forget) {
  OpTester test("LSTM", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("input_forget", input_forget);
  test.Attr("activations", std::vector<std::string>{"HardSigmoid", "Affine", "Affine"});
  test.Attr("activation_alpha", std::vector<float>{0.5f, 1.0f, 1.0f});
  test.Attr("activation_beta", std::vector<float>{0.5f, 0.0f, 0.0f});
  test.Input<float>("X", {1, 1, 1}, {1});
  test.Input<float>("W", {1, 4, 1}, {0.5f, 0, 0, 2});
  test.Input<float>("R", {1, 4, 1}, {0, 0, 0, 0});
  test.MissingInput();
  test.MissingInput();
  test.MissingInput();
  test.Input<float>("initial_c", {1, 1, 1}, {4});
  return test;
}

TEST(LstmTest, InputForgetCouplesTheForgetGate) {
  // f = 1 - i = 0.25: C = 0.25 * 4 + 0.75 * 2 = 2.5, H = 0.5 * 2.5.
  OpTester test = ExactLstm(1);
  test.Output<float>("Y", {1, 1, 1, 1}, {1.25f});
  test.Output<float>("Y_h", {1, 1, 1}, {1.25f});
  test.Output<float>("Y_c", {1, 1, 1}, {2.5f});
  test.Run();
}

TEST(LstmTest, WithoutInputForget) {
  // f = HardSigmoid(0) = 0.5: C = 2 + 1.5 = 3.5, H = 1.75.
  OpTester test = ExactLstm(0);
  test.Output<float>("Y", {1, 1, 1, 1}, {1.75f});
  test.Output<float>("Y_h", {1, 1, 1}, {1.75f});
  test.Output<float>("Y_c", {1, 1, 1}, {3.5f});
  test.Run();
}

TEST(RecurrentTest, ActivationParametersAreConsumedByTheFunctionsThatTakeThem) {
  // Tanh takes none, so LeakyRelu takes alpha 0.5 (not 0.25): H = LeakyRelu(-4) = -2.
  OpTester test("RNN", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("direction", std::string("bidirectional"));
  test.Attr("activations", std::vector<std::string>{"Tanh", "LeakyRelu"});
  test.Attr("activation_alpha", std::vector<float>{0.5f, 0.25f});
  test.Input<float>("X", {1, 1, 1}, {-4});
  test.Input<float>("W", {2, 1, 1}, {0, 1});
  test.Input<float>("R", {2, 1, 1}, {0, 0});
  test.MissingOutput();
  test.Output<float>("Y_h", {2, 1, 1}, {0, -2});
  test.Run();
}

TEST(RecurrentTest, DefaultActivationParameters) {
  // LeakyRelu's alpha defaults to 0.01, ThresholdedRelu's to 1 (x = 0.5 is below it).
  OpTester test("RNN", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("direction", std::string("bidirectional"));
  test.Attr("activations", std::vector<std::string>{"LeakyRelu", "ThresholdedRelu"});
  test.Input<float>("X", {1, 1, 1}, {-4});
  test.Input<float>("W", {2, 1, 1}, {1, -0.125f});
  test.Input<float>("R", {2, 1, 1}, {0, 0});
  test.MissingOutput();
  test.Output<float>("Y_h", {2, 1, 1}, {-0.04f, 0});
  test.Run();
}

// Double: inputs 1 + k 2^-30 through two LSTM steps with peepholes and default activations.
TEST(RecurrentDoublePrecisionTest, LstmExactToDoublePrecision) {
  const std::vector<double> x = {NearOne(3) * 0.5, NearOne(-5) * -0.25};
  const std::vector<double> w = {NearOne(1) * 0.5, NearOne(2) * 0.25, NearOne(-3) * -0.5,
                                 NearOne(4)};
  const std::vector<double> r = {NearOne(7) * 0.1, NearOne(-6) * 0.2, NearOne(5) * 0.3,
                                 NearOne(-2) * -0.4};
  const std::vector<double> p = {NearOne(9) * 0.3, NearOne(-8) * -0.2, NearOne(6) * 0.1};
  const double c0 = NearOne(11) * -1;
  const double h0 = NearOne(-9) * 0.5;
  const std::vector<double> expected = DoubleExpected([&]<typename C>() {
    auto sigmoid = [](C v) { return C(1) / (C(1) + std::exp(-v)); };
    C h = static_cast<C>(h0);
    C c = static_cast<C>(c0);
    std::vector<C> out;
    for (double xd : x) {
      const C xt = static_cast<C>(xd);
      auto pre = [&](int gate) {
        return static_cast<C>(w[gate]) * xt + static_cast<C>(r[gate]) * h;
      };
      const C i = sigmoid(pre(0) + static_cast<C>(p[0]) * c);
      const C f = sigmoid(pre(2) + static_cast<C>(p[2]) * c);
      c = f * c + i * std::tanh(pre(3));
      const C o = sigmoid(pre(1) + static_cast<C>(p[1]) * c);
      h = o * std::tanh(c);
      out.push_back(h);
    }
    out.push_back(c);
    return out;
  });
  OpTester test("LSTM", 22);
  test.Attr("hidden_size", int64_t{1});
  test.Input<double>("X", {2, 1, 1}, x);
  test.Input<double>("W", {1, 4, 1}, w);
  test.Input<double>("R", {1, 4, 1}, r);
  test.MissingInput();
  test.MissingInput();
  test.Input<double>("initial_h", {1, 1, 1}, {h0});
  test.Input<double>("initial_c", {1, 1, 1}, {c0});
  test.Input<double>("P", {1, 3}, p);
  test.Output<double>("Y", {2, 1, 1, 1}, {expected[0], expected[1]});
  test.Output<double>("Y_h", {1, 1, 1}, {expected[1]});
  test.Output<double>("Y_c", {1, 1, 1}, {expected[2]});
  test.Run();
}

// Double GRU: x and H differ from 1 by a few 2^-30.
TEST(RecurrentDoublePrecisionTest, GruExactToDoublePrecision) {
  const std::vector<double> x = {NearOne(3), NearOne(-4)};
  const std::vector<double> w = {NearOne(1) * 0.5, NearOne(2) * -0.25, NearOne(-3) * 0.75};
  const std::vector<double> r = {NearOne(7) * 0.1, NearOne(-6) * 0.2, NearOne(5) * -0.3};
  const std::vector<double> b = {0, NearOne(1) * 0.1, 0, NearOne(2) * -0.1, 0, NearOne(4) * 0.2};
  const double h0 = NearOne(-9);
  for (int64_t linear_before_reset : {0, 1}) {
    const std::vector<double> expected = DoubleExpected([&]<typename C>() {
      auto sigmoid = [](C v) { return C(1) / (C(1) + std::exp(-v)); };
      auto at = [](const std::vector<double>& v, int i) { return static_cast<C>(v[i]); };
      C h = static_cast<C>(h0);
      std::vector<C> out;
      for (double xd : x) {
        const C xt = static_cast<C>(xd);
        const C z = sigmoid(at(w, 0) * xt + at(r, 0) * h + at(b, 0) + at(b, 3));
        const C reset = sigmoid(at(w, 1) * xt + at(r, 1) * h + at(b, 1) + at(b, 4));
        const C n = std::tanh(linear_before_reset
                                  ? at(w, 2) * xt + at(b, 2) + reset * (at(r, 2) * h + at(b, 5))
                                  : at(w, 2) * xt + at(r, 2) * (reset * h) + at(b, 2) + at(b, 5));
        h = (C(1) - z) * n + z * h;
        out.push_back(h);
      }
      return out;
    });
    OpTester test("GRU", 22);
    test.Attr("hidden_size", int64_t{1});
    test.Attr("linear_before_reset", linear_before_reset);
    test.Input<double>("X", {2, 1, 1}, x);
    test.Input<double>("W", {1, 3, 1}, w);
    test.Input<double>("R", {1, 3, 1}, r);
    test.Input<double>("B", {1, 6}, b);
    test.MissingInput();
    test.Input<double>("initial_h", {1, 1, 1}, {h0});
    test.Output<double>("Y", {2, 1, 1, 1}, expected);
    test.Output<double>("Y_h", {1, 1, 1}, {expected[1]});
    test.Run();
  }
}

// float16 and bfloat16 compute in float and round once: a float LSTM on the same (widened) half
// inputs, rounded once, is within 2 ULP of every output.
template <typename T>
class RecurrentHalfPrecisionTest : public ::testing::Test {};
using HalfTypes = ::testing::Types<Float16, BFloat16>;
TYPED_TEST_SUITE(RecurrentHalfPrecisionTest, HalfTypes);

TYPED_TEST(RecurrentHalfPrecisionTest, LstmWithinTwoUlpOfFloatReference) {
  using T = TypeParam;
  constexpr int kSeq = 3, kBatch = 2, kInput = 3, kHidden = 2, kRows = 4 * kHidden;
  const std::vector<T> x = SpreadValues<T>(kSeq * kBatch * kInput, -2.f, 2.f);
  const std::vector<T> w = SpreadValues<T>(kRows * kInput, -1.f, 1.f);
  const std::vector<T> r = SpreadValues<T>(kRows * kHidden, -0.8f, 0.9f);
  const std::vector<T> b = SpreadValues<T>(2 * kRows, -0.5f, 0.5f);
  const std::vector<float> xf = Widen(x), wf = Widen(w), rf = Widen(r), bf = Widen(b);
  auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  std::vector<float> y(kSeq * kBatch * kHidden), h(kBatch * kHidden, 0.f), c(h.size(), 0.f);
  for (int t = 0; t < kSeq; ++t) {
    std::vector<float> gates(kBatch * kRows);
    for (int n = 0; n < kBatch; ++n)
      for (int g = 0; g < kRows; ++g) {
        float sum = bf[g] + bf[kRows + g];
        for (int i = 0; i < kInput; ++i)
          sum += xf[(t * kBatch + n) * kInput + i] * wf[g * kInput + i];
        for (int j = 0; j < kHidden; ++j) sum += h[n * kHidden + j] * rf[g * kHidden + j];
        gates[n * kRows + g] = sum;
      }
    for (int n = 0; n < kBatch; ++n)
      for (int k = 0; k < kHidden; ++k) {
        const float* gate = &gates[n * kRows];
        float& cell = c[n * kHidden + k];
        cell = sigmoid(gate[2 * kHidden + k]) * cell +
               sigmoid(gate[k]) * std::tanh(gate[3 * kHidden + k]);
        h[n * kHidden + k] = sigmoid(gate[kHidden + k]) * std::tanh(cell);
        y[(t * kBatch + n) * kHidden + k] = h[n * kHidden + k];
      }
  }
  OpTester test("LSTM", 22);
  test.Attr("hidden_size", int64_t{kHidden});
  test.Input<T>("X", {kSeq, kBatch, kInput}, x);
  test.Input<T>("W", {1, kRows, kInput}, w);
  test.Input<T>("R", {1, kRows, kHidden}, r);
  test.Input<T>("B", {1, 2 * kRows}, b);
  test.Output<T>("Y", {kSeq, 1, kBatch, kHidden}, RoundTo<T>(y));
  test.Output<T>("Y_h", {1, kBatch, kHidden}, RoundTo<T>(h));
  test.Output<T>("Y_c", {1, kBatch, kHidden}, RoundTo<T>(c));
  test.Run();
}

// ---------------------------------------------------------------------------------------------
// Bad inputs are refused naming the input, what was expected and what was given.

OpTester OneStepGru() {
  OpTester test("GRU", 14);
  test.Attr("hidden_size", int64_t{2});
  test.Input<float>("X", {2, 1, 1}, {1, 2});
  return test;
}

TEST(RecurrentErrorTest, WeightRowsMustMatchHiddenSize) {
  OpTester test = OneStepGru();
  test.Input<float>("W", {1, 5, 1}, std::vector<float>(5, 0));
  test.Input<float>("R", {1, 6, 2}, std::vector<float>(12, 0));
  test.Output<float>("Y", {2, 1, 1, 2}, std::vector<float>(4, 0));
  test.ExpectFailure("input W must have shape [1,6,1]");
}

TEST(RecurrentErrorTest, WeightsMustMatchTheDirections) {
  OpTester test = OneStepGru();
  test.Attr("direction", std::string("bidirectional"));
  test.Input<float>("W", {1, 6, 1}, std::vector<float>(6, 0));
  test.Input<float>("R", {1, 6, 2}, std::vector<float>(12, 0));
  test.Output<float>("Y", {2, 2, 1, 2}, std::vector<float>(8, 0));
  test.ExpectFailure("input W must have shape [2,6,1]");
}

TEST(RecurrentErrorTest, BiasMustHoldBothHalves) {
  OpTester test = OneStepGru();
  test.Input<float>("W", {1, 6, 1}, std::vector<float>(6, 0));
  test.Input<float>("R", {1, 6, 2}, std::vector<float>(12, 0));
  test.Input<float>("B", {1, 6}, std::vector<float>(6, 0));
  test.Output<float>("Y", {2, 1, 1, 2}, std::vector<float>(4, 0));
  test.ExpectFailure("input B must have shape [1,12]");
}

TEST(RecurrentErrorTest, SequenceLengthBeyondTheSequence) {
  OpTester test = OneStepGru();
  test.Input<float>("W", {1, 6, 1}, std::vector<float>(6, 0));
  test.Input<float>("R", {1, 6, 2}, std::vector<float>(12, 0));
  test.MissingInput();
  test.Input<int32_t>("sequence_lens", {1}, {3});
  test.Output<float>("Y", {2, 1, 1, 2}, std::vector<float>(4, 0));
  test.ExpectFailure("input sequence_lens[0] must be in [0, seq_length = 2], got 3");
}

TEST(RecurrentErrorTest, PeepholesMustBeThreeGates) {
  OpTester test("LSTM", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Input<float>("X", {1, 1, 1}, {1});
  test.Input<float>("W", {1, 4, 1}, {0, 0, 0, 0});
  test.Input<float>("R", {1, 4, 1}, {0, 0, 0, 0});
  test.MissingInput();
  test.MissingInput();
  test.MissingInput();
  test.MissingInput();
  test.Input<float>("P", {1, 4}, {0, 0, 0, 0});
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.ExpectFailure("input P must have shape [1,3]");
}

TEST(RecurrentErrorTest, InitialStateInTheOtherLayout) {
  OpTester test("LSTM", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("direction", std::string("bidirectional"));
  test.Input<float>("X", {1, 3, 1}, {1, 2, 3});
  test.Input<float>("W", {2, 4, 1}, std::vector<float>(8, 0));
  test.Input<float>("R", {2, 4, 1}, std::vector<float>(8, 0));
  test.MissingInput();
  test.MissingInput();
  test.MissingInput();
  test.Input<float>("initial_c", {3, 2, 1}, std::vector<float>(6, 0));
  test.Output<float>("Y", {1, 2, 3, 1}, std::vector<float>(6, 0));
  test.ExpectFailure("input initial_c must have shape [2,3,1]");
}

TEST(RecurrentErrorTest, WeightsMustHaveTheInputsType) {
  OpTester test = IdentityRnn();
  test.Input<float>("X", {1, 1, 1}, {1});
  test.Input<double>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.Output<float>("Y", {1, 1, 1, 1}, {1});
  test.ExpectFailure("input W must have X's element type float, got tensor(double)[1,1,1]");
}

TEST(RecurrentErrorTest, UnknownActivation) {
  OpTester test("RNN", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("activations", std::vector<std::string>{"Swish"});
  test.Input<float>("X", {1, 1, 1}, {1});
  test.Input<float>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.Output<float>("Y", {1, 1, 1, 1}, {1});
  test.ExpectFailure("attribute activations has unknown function 'Swish'");
}

TEST(RecurrentErrorTest, ActivationCountMustMatchTheCell) {
  OpTester test("LSTM", 14);
  test.Attr("hidden_size", int64_t{1});
  test.Attr("activations", std::vector<std::string>{"Sigmoid", "Tanh"});
  test.Input<float>("X", {1, 1, 1}, {1});
  test.Input<float>("W", {1, 4, 1}, {0, 0, 0, 0});
  test.Input<float>("R", {1, 4, 1}, {0, 0, 0, 0});
  test.Output<float>("Y", {1, 1, 1, 1}, {0});
  test.ExpectFailure("attribute activations must list 3 functions");
}

TEST(RecurrentErrorTest, InputMustBeThreeDimensional) {
  OpTester test = IdentityRnn();
  test.Input<float>("X", {1, 1}, {1});
  test.Input<float>("W", {1, 1, 1}, {1});
  test.Input<float>("R", {1, 1, 1}, {1});
  test.Output<float>("Y", {1, 1, 1, 1}, {1});
  test.ExpectFailure("X must have rank 3");
}

}  // namespace
}  // namespace prism::testing
