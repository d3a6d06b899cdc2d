// HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix and STFT (opset 17): every
// registered type combination on inputs whose outputs are worked out by hand (the type-coverage
// evidence for these ops), and the corners and refusals. onnxruntime and onnx.reference compare
// random cases in tests/python/test_signal_ops_oracle.py.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "framework/kernel_registry.h"
#include "op_tester.h"
#include "providers/cpu/cpu_execution_provider.h"
#include "registered_types.h"
#include "typed_values.h"

namespace prism::testing {
namespace {

using E = ElementType;

std::vector<E> RegisteredSignalTypes(const std::string& op, const std::string& constraint) {
  const std::vector<E> types = CpuRegisteredTypes(op, 17, constraint);
  EXPECT_FALSE(types.empty()) << op << " registers no type for " << constraint;
  return types;
}

// values as type, converted as a Cast would (tests/common/typed_values.h).
Tensor Values(E type, const std::vector<int64_t>& dims, const std::vector<double>& values) {
  return CastValues(type, dims, values);
}

Tensor Scalar(E type, double value) {
  return Values(type, {}, {value});
}

// Hand-checked windows (non-negative, so an integer output truncates each to 0 or 1):
//   periodic Hann of 4:       sin^2(pi n / 4)                      = 0, 1/2, 1, 1/2
//   symmetric Hamming of 3:   25/46 - 21/46 cos(pi n)              = 2/23, 1, 2/23
//   periodic Blackman of 4:   0.42 - 0.5 cos(pi n/2) + 0.08 cos(pi n) = 0, 0.34, 1, 0.34,
//   evaluated in the reference's order, (-0.5 c1 + 0.08 c2) + 0.42, so that the first value is
//   the reference's -1.4e-17 (bfloat16 keeps it) and the peak exactly 1 (integers keep it)
struct WindowCase {
  const char* op;
  int64_t size, periodic;
  std::vector<double> expected;
};

const std::vector<WindowCase>& WindowCases() {
  static const std::vector<WindowCase> cases = {
      {"HannWindow", 4, 1, {0, 0.5, 1, 0.5}},
      {"HammingWindow", 3, 0, {2.0 / 23, 1, 2.0 / 23}},
      {"BlackmanWindow",
       4,
       1,
       {(-0.5 + 0.08) + 0.42, -0.08 + 0.42, (0.5 + 0.08) + 0.42, -0.08 + 0.42}},
  };
  return cases;
}

TEST(SignalOpsTest, WindowsEverySizeTypeAndOutputType) {
  for (const WindowCase& c : WindowCases()) {
    for (E size_type : RegisteredSignalTypes(c.op, "T1")) {
      for (E output_type : RegisteredSignalTypes(c.op, "T2")) {
        SCOPED_TRACE(::testing::Message() << c.op << " size " << ElementTypeName(size_type)
                                          << " output " << ElementTypeName(output_type));
        OpTester test(c.op, 17);
        test.InputTensor("size", Scalar(size_type, static_cast<double>(c.size)));
        test.Attr("periodic", c.periodic);
        test.Attr("output_datatype", static_cast<int64_t>(output_type));
        test.OutputTensor("output", Values(output_type, {c.size}, c.expected));
        test.Run();
      }
    }
  }
}

TEST(SignalOpsTest, WindowDefaultsArePeriodicFloat) {
  OpTester test("HannWindow", 17);
  test.Input<int64_t>("size", {}, {4});
  test.Output<float>("output", {4}, {0, 0.5f, 1, 0.5f});
  test.Run();
}

TEST(SignalOpsTest, WindowDoubleIsExactAtQuarterTurns) {
  // A symmetric Hann window of 5 is sin^2(pi n / 4): 0, 1/2, 1, 1/2, 0, exact in double.
  OpTester test("HannWindow", 17);
  test.Input<int32_t>("size", {}, {5});
  test.Attr("periodic", int64_t{0});
  test.Attr("output_datatype", static_cast<int64_t>(E::kDouble));
  test.Output<double>("output", {5}, {0, 0.5, 1, 0.5, 0});
  test.SetTolerance(0, 0, "the quarter-turn cosines are exact");
  test.Run();
}

TEST(SignalOpsTest, WindowOfSizeZeroIsEmptyAndSymmetricSizeOneIsNan) {
  {
    OpTester test("BlackmanWindow", 17);
    test.Input<int64_t>("size", {}, {0});
    test.Output<float>("output", {0}, {});
    test.Run();
  }
  {
    OpTester test("HammingWindow", 17);  // 0/0 in the spec's formula, as onnxruntime gives
    test.Input<int64_t>("size", {}, {1});
    test.Attr("periodic", int64_t{0});
    test.Output<float>("output", {1}, {std::nanf("")});
    test.Run();
  }
  {
    OpTester test("HannWindow", 17);  // periodic: N = 1, w[0] = 0
    test.Input<int64_t>("size", {}, {1});
    test.Output<float>("output", {1}, {0});
    test.Run();
  }
}

TEST(SignalOpsTest, WindowRefusals) {
  {
    OpTester test("HannWindow", 17);
    test.Input<int64_t>("size", {}, {-2});
    test.Output<float>("output", {0}, {});
    test.ExpectFailure("input size must be >= 0, got -2");
  }
  {
    OpTester test("HannWindow", 17);
    test.Input<int64_t>("size", {}, {1});
    test.Attr("periodic", int64_t{0});
    test.Attr("output_datatype", static_cast<int64_t>(E::kInt32));
    test.Output<int32_t>("output", {1}, {0});
    test.ExpectFailure("a symmetric window of size 1 is 0/0 (NaN)");
  }
  {
    OpTester test("HammingWindow", 17);
    test.Input<int64_t>("size", {}, {3});
    test.Attr("periodic", int64_t{2});
    test.Output<float>("output", {3}, {0, 0, 0});
    test.ExpectFailure("periodic must be 0 or 1, got 2");
  }
}

TEST(SignalOpsTest, MelWeightMatrixEveryTypeCombination) {
  // Expected (onnxruntime and the reference agree): row 0 has ones at mel bins 0 and 1, row 1 at
  // 2 and 3, then one per row for bins 4..7 at rows 2..5, rows 6..8 empty.
  std::vector<double> expected(9 * 8, 0.0);
  const std::pair<int, int> ones[] = {{0, 0}, {0, 1}, {1, 2}, {1, 3},
                                      {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& [row, column] : ones) expected[row * 8 + column] = 1.0;
  for (E index_type : RegisteredSignalTypes("MelWeightMatrix", "T1")) {
    for (E edge_type : RegisteredSignalTypes("MelWeightMatrix", "T2")) {
      for (E output_type : RegisteredSignalTypes("MelWeightMatrix", "T3")) {
        SCOPED_TRACE(::testing::Message()
                     << ElementTypeName(index_type) << " " << ElementTypeName(edge_type) << " "
                     << ElementTypeName(output_type));
        OpTester test("MelWeightMatrix", 17);
        test.InputTensor("num_mel_bins", Scalar(index_type, 8));
        test.InputTensor("dft_length", Scalar(index_type, 16));
        test.InputTensor("sample_rate", Scalar(index_type, 8192));
        test.InputTensor("lower_edge_hertz", Scalar(edge_type, 0));
        test.InputTensor("upper_edge_hertz", Scalar(edge_type, 4096));
        if (output_type != E::kFloat)
          test.Attr("output_datatype", static_cast<int64_t>(output_type));
        test.OutputTensor("output", Values(output_type, {9, 8}, expected));
        test.Run();
      }
    }
  }
}

TEST(SignalOpsTest, MelWeightMatrixTriangles) {
  // 2 mel bins over dft_length 8 at 1000 Hz, 0 to 500 Hz: mel(500) = 607.4, step 151.86 mel;
  // the points 0, 151.86, 303.72, 455.58 mel are 0, 100.97, 216.52, 348.72 Hz; bins
  // floor(9 hz / 1000) = 0, 0, 1, 3: mel bin 0 has a zero-width rise (a 1 at bin 0) and falls
  // over one bin (1 at bin 0); mel bin 1 rises from 0 to 1 (0, 1) and falls to 3 (1, 1/2).
  OpTester test("MelWeightMatrix", 17);
  test.Input<int64_t>("num_mel_bins", {}, {2});
  test.Input<int64_t>("dft_length", {}, {8});
  test.Input<int64_t>("sample_rate", {}, {1000});
  test.Input<float>("lower_edge_hertz", {}, {0});
  test.Input<float>("upper_edge_hertz", {}, {500});
  test.Attr("output_datatype", static_cast<int64_t>(E::kDouble));
  test.Output<double>("output", {5, 2}, {1, 0, 0, 1, 0, 0.5, 0, 0, 0, 0});
  test.Run();
}

// A num_mel_bins whose matrix cannot be held is an error before anything is allocated (the
// model fuzzer's input fuzz/regressions/model/melweightmatrix-bins-int32-max.onnx asked for
// 16 GiB of bin edges first).
TEST(SignalOpsTest, MelWeightMatrixTooLargeIsAnError) {
  OpTester test("MelWeightMatrix", 17);
  test.Input<int64_t>("num_mel_bins", {}, {int64_t{1} << 62});
  test.Input<int64_t>("dft_length", {}, {16});
  test.Input<int64_t>("sample_rate", {}, {1000});
  test.Input<float>("lower_edge_hertz", {}, {0});
  test.Input<float>("upper_edge_hertz", {}, {500});
  test.Output<float>("output", {0}, {});
  test.ExpectFailure("the 9 x 4611686018427387904 weight matrix of dft_length 16");
}

TEST(SignalOpsTest, MelWeightMatrixRoundsTheEdgesInTheirOwnType) {
  // 160 Hz at dft_length 19 and 3200 Hz lies exactly on bin 1 (20 * 160 / 3200): the reference's
  // mel edge, rounded to float32 at each step, maps back just above 160 Hz (bin 1), where a
  // double computation lands just below (bin 0, which would put 1/2 at row 1). Reference bins
  // 1, 2, 3, 4: mel bin 0 is 0 at row 1 and 1 at row 2, mel bin 1 is 0 at row 2 and 1 at row 3.
  std::vector<double> expected(10 * 2, 0.0);
  expected[2 * 2 + 0] = 1;
  expected[3 * 2 + 1] = 1;
  OpTester test("MelWeightMatrix", 17);
  test.Input<int64_t>("num_mel_bins", {}, {2});
  test.Input<int64_t>("dft_length", {}, {19});
  test.Input<int64_t>("sample_rate", {}, {3200});
  test.Input<float>("lower_edge_hertz", {}, {160});
  test.Input<float>("upper_edge_hertz", {}, {1005});
  test.Attr("output_datatype", static_cast<int64_t>(E::kDouble));
  test.OutputTensor("output", Values(E::kDouble, {10, 2}, expected));
  test.Run();
}

TEST(SignalOpsTest, MelWeightMatrixRefusals) {
  auto mel = [](int64_t bins, int64_t dft, int64_t rate, float low, float high) {
    OpTester test("MelWeightMatrix", 17);
    test.Input<int64_t>("num_mel_bins", {}, {bins});
    test.Input<int64_t>("dft_length", {}, {dft});
    test.Input<int64_t>("sample_rate", {}, {rate});
    test.Input<float>("lower_edge_hertz", {}, {low});
    test.Input<float>("upper_edge_hertz", {}, {high});
    test.Output<float>("output", {1, 1}, {0});
    return test;
  };
  mel(4, 16, 8000, 0, 12000).ExpectFailure("reaches spectrogram bin");
  mel(4, 16, 8000, -100, 2000).ExpectFailure("reaches spectrogram bin -1,");
  mel(4, 16, 8000, -3000, 2000).ExpectFailure("mel point 0 maps to frequency bin");
  mel(-1, 16, 8000, 0, 4000).ExpectFailure("num_mel_bins must be >= 0, got -1");
  mel(4, 0, 8000, 0, 4000).ExpectFailure("dft_length must be positive, got 0");
  mel(4, 16, -5, 0, 4000).ExpectFailure("sample_rate must be positive, got -5");
}

// STFT of the real signal 1, 2, 3, 4 with frame_step 2 and the window (1, 2) (frame_length 2
// given too): the windowed frames (1, 4) and (3, 8) give X0 = 5, X1 = -3 and X0 = 11, X1 = -5;
// exact in every type.
TEST(SignalOpsTest, StftEverySignalAndIndexType) {
  for (E signal_type : RegisteredSignalTypes("STFT", "T1")) {
    for (E index_type : RegisteredSignalTypes("STFT", "T2")) {
      SCOPED_TRACE(::testing::Message()
                   << ElementTypeName(signal_type) << " " << ElementTypeName(index_type));
      OpTester test("STFT", 17);
      test.InputTensor("signal", Values(signal_type, {1, 4, 1}, {1, 2, 3, 4}));
      test.InputTensor("frame_step", Scalar(index_type, 2));
      test.InputTensor("window", Values(signal_type, {2}, {1, 2}));
      test.InputTensor("frame_length", Scalar(index_type, 2));
      test.OutputTensor("output", Values(signal_type, {1, 2, 2, 2}, {5, 0, -3, 0, 11, 0, -5, 0}));
      test.Run();
    }
  }
}

TEST(SignalOpsTest, StftComplexTwoSidedAndDefaults) {
  {
    // The complex signal (1, i, -1, -i) is e^(2 pi i n / 4): all of its energy is in bin 1.
    OpTester test("STFT", 17);
    test.Input<double>("signal", {1, 4, 2}, {1, 0, 0, 1, -1, 0, 0, -1});
    test.Input<int64_t>("frame_step", {}, {4});
    test.Attr("onesided", int64_t{0});
    test.Output<double>("output", {1, 1, 4, 2}, {0, 0, 4, 0, 0, 0, 0, 0});
    test.SetTolerance(0, 0, "quarter-turn twiddles are exact");
    test.Run();
  }
  {
    // No window, no frame_length: one frame of the whole signal (3 bins one-sided for 4).
    OpTester test("STFT", 17);
    test.Input<float>("signal", {2, 4, 1}, {1, 1, 1, 1, 1, 0, -1, 0});
    test.Input<int32_t>("frame_step", {}, {3});
    test.Output<float>("output", {2, 1, 3, 2}, {4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0});
    test.Run();
  }
  {
    // frame_step longer than the frame: frames at 0 and 5 of a 7-sample signal, length 2.
    OpTester test("STFT", 17);
    test.Input<float>("signal", {1, 7, 1}, {1, 2, 9, 9, 9, 3, 5});
    test.Input<int64_t>("frame_step", {}, {5});
    test.MissingInput();
    test.Input<int64_t>("frame_length", {}, {2});
    test.Attr("onesided", int64_t{0});
    test.Output<float>("output", {1, 2, 2, 2}, {3, 0, -1, 0, 8, 0, -2, 0});
    test.Run();
  }
}

TEST(SignalOpsTest, StftRefusals) {
  {
    OpTester test("STFT", 17);
    test.Input<float>("signal", {1, 4, 2}, {1, 0, 0, 1, -1, 0, 0, -1});
    test.Input<int64_t>("frame_step", {}, {4});
    test.Output<float>("output", {1, 1, 3, 2}, std::vector<float>(6));
    test.ExpectFailure("onesided=1 (the default) needs a real signal");
  }
  {
    OpTester test("STFT", 17);
    test.Input<float>("signal", {1, 4, 1}, {1, 2, 3, 4});
    test.Input<int64_t>("frame_step", {}, {1});
    test.Input<float>("window", {3}, {1, 1, 1});
    test.Input<int64_t>("frame_length", {}, {2});
    test.Output<float>("output", {1, 3, 2, 2}, std::vector<float>(12));
    test.ExpectFailure("input window has length 3 but frame_length is 2");
  }
  {
    OpTester test("STFT", 17);
    test.Input<float>("signal", {1, 4, 1}, {1, 2, 3, 4});
    test.Input<int64_t>("frame_step", {}, {-1});
    test.Output<float>("output", {1, 1, 3, 2}, std::vector<float>(6));
    test.ExpectFailure("frame_step must be positive, got -1");
  }
  {
    OpTester test("STFT", 17);
    test.Input<float>("signal", {4, 1}, {1, 2, 3, 4});
    test.Input<int64_t>("frame_step", {}, {1});
    test.Output<float>("output", {1, 1, 3, 2}, std::vector<float>(6));
    test.ExpectFailure("must be [batch, length, 1] (real) or [batch, length, 2] (complex)");
  }
}

}  // namespace
}  // namespace prism::testing
