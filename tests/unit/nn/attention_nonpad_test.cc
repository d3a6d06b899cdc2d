// ONNX Attention's nonpad_kv_seqlen (opset 24): the number of keys each batch entry attends,
// checked against the key count before the window and causal arithmetic uses it (the model
// fuzzer fed INT64_MIN, whose offset overflowed int64).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "op_tester.h"

namespace prism::testing {
namespace {

void RunWithNonpad(int64_t nonpad, const char* failure) {
  // One query [1, 0], keys [1, 0] and [0, 1], values [10, 20] and [30, 40].
  OpTester test("Attention", 24);
  test.Input<float>("Q", {1, 1, 1, 2}, {1, 0});
  test.Input<float>("K", {1, 1, 2, 2}, {1, 0, 0, 1});
  test.Input<float>("V", {1, 1, 2, 2}, {10, 20, 30, 40});
  test.MissingInput();  // attn_mask
  test.MissingInput();  // past_key
  test.MissingInput();  // past_value
  test.Input<int64_t>("nonpad_kv_seqlen", {1}, {nonpad});
  // With one key left the softmax gives it all the weight: Y is its value.
  test.Output<float>("Y", {1, 1, 1, 2}, {10, 20});
  if (failure != nullptr)
    test.ExpectFailure(failure);
  else
    test.Run();
}

TEST(AttentionNonpadTest, OneKeyLeftIsAttendedAlone) {
  RunWithNonpad(1, nullptr);
}

TEST(AttentionNonpadTest, LengthsOutsideTheKeyCountAreRefused) {
  RunWithNonpad(std::numeric_limits<int64_t>::min(),
                "nonpad_kv_seqlen[0] is -9223372036854775808, outside [0, 2] (the number of keys)");
  RunWithNonpad(3, "nonpad_kv_seqlen[0] is 3, outside [0, 2]");
}

}  // namespace
}  // namespace prism::testing
