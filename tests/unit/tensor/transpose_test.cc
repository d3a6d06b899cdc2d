#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "coded_tensor.h"
#include "op_tester.h"
#include "providers/cpu/tensor/spec_type_sets.h"

namespace prism::testing {
namespace {

using cpu::AllTensorTypesOf;
using cpu::TensorTypeGeneration;

// Straightforward index arithmetic, independent of the kernel's axis merging.
std::vector<int> ReferenceTranspose(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& perm, const std::vector<int>& codes,
                                    std::vector<int64_t>* out_dims) {
  const size_t rank = dims.size();
  out_dims->assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) (*out_dims)[i] = dims[static_cast<size_t>(perm[i])];
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t k = rank; k-- > 1;) in_strides[k - 1] = in_strides[k] * dims[k];
  std::vector<int> out(codes.size());
  std::vector<int64_t> index(rank, 0);
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * in_strides[static_cast<size_t>(perm[i])];
    out[o] = codes[static_cast<size_t>(src)];
    for (size_t a = rank; a-- > 0;) {
      if (++index[a] < (*out_dims)[a]) break;
      index[a] = 0;
    }
  }
  return out;
}

void CheckTranspose(ElementType type, int opset, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& perm) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  const std::vector<int> codes = Iota(static_cast<int>(count));
  std::vector<int64_t> out_dims;
  const std::vector<int> expected = ReferenceTranspose(dims, perm, codes, &out_dims);
  OpTester test("Transpose", opset);
  test.InputTensor("data", MakeCodedTensor(type, dims, codes));
  test.Attr("perm", perm);
  test.OutputTensor("transposed", MakeCodedTensor(type, out_dims, expected));
  test.Run();
}

TEST(TransposeTest, EveryVersionRangeAndType) {
  using G = TensorTypeGeneration;
  const std::vector<OpsetTypes> ranges = {
      {1, AllTensorTypesOf(G::kNoBfloat16)},  {13, AllTensorTypesOf(G::kBfloat16)},
      {21, AllTensorTypesOf(G::kInt4)},       {23, AllTensorTypesOf(G::kFloat4)},
      {24, AllTensorTypesOf(G::kFloat8E8M0)}, {25, AllTensorTypesOf(G::kInt2)}};
  for (const OpsetTypes& range : ranges) {
    for (ElementType type : range.types) {
      SCOPED_TRACE(::testing::Message() << "opset " << range.opset << " " << ElementTypeName(type));
      OpTester test("Transpose", range.opset);  // default perm: reverse the axes
      test.InputTensor("data", MakeCodedTensor(type, {2, 3}, Iota(6)));
      test.OutputTensor("transposed", MakeCodedTensor(type, {3, 2}, {0, 3, 1, 4, 2, 5}));
      test.Run();
      CheckTranspose(type, range.opset, {2, 3, 2}, {1, 0, 2});  // contiguous inner blocks
      CheckTranspose(type, range.opset, {3, 1, 5}, {2, 1, 0});  // strided, odd sizes
      CheckTranspose(type, range.opset, {2, 3, 2, 2}, {0, 2, 3, 1});
    }
  }
}

TEST(TransposeTest, AllPermutationsOfRank4) {
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    SCOPED_TRACE(::testing::PrintToString(perm));
    CheckTranspose(ElementType::kFloat, 13, {2, 3, 4, 5}, perm);
    CheckTranspose(ElementType::kUint4, 21, {2, 3, 1, 5}, perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeTest, BertAttentionShapes) {
  CheckTranspose(ElementType::kFloat, 13, {1, 128, 12, 64}, {0, 2, 1, 3});
  CheckTranspose(ElementType::kFloat, 13, {1, 128, 12, 64}, {0, 2, 3, 1});
  CheckTranspose(ElementType::kFloat16, 13, {1, 12, 128, 64}, {0, 2, 1, 3});
}

// 8-bit matrices go through 16 x 16 register blocks (mlas::TransposeBytes): whole blocks,
// ragged edges on either side, and a batch of matrices (the 3-D form).
TEST(TransposeTest, ByteMatricesInBlocksAndEdges) {
  for (ElementType type : {ElementType::kUint8, ElementType::kInt8}) {
    SCOPED_TRACE(ElementTypeName(type));
    CheckTranspose(type, 13, {16, 32}, {1, 0});
    CheckTranspose(type, 13, {37, 50}, {1, 0});
    CheckTranspose(type, 13, {96, 200}, {1, 0});
    CheckTranspose(type, 13, {5, 70}, {1, 0});
    CheckTranspose(type, 13, {3, 33, 17}, {0, 2, 1});
    CheckTranspose(type, 13, {2, 48, 18}, {0, 2, 1});
  }
}

// Three byte rows made triples (an RGB image made channels-last, mlas::InterleaveThreeRows):
// counts below, at and past its 16-byte steps and the two triples it leaves after the last one,
// and a batch of such images.
TEST(TransposeTest, ThreeByteRowsInterleaved) {
  for (ElementType type : {ElementType::kUint8, ElementType::kInt8}) {
    SCOPED_TRACE(ElementTypeName(type));
    for (int64_t n : {1, 15, 16, 17, 18, 33, 34, 35, 50, 85})
      CheckTranspose(type, 13, {3, n}, {1, 0});
    CheckTranspose(type, 13, {2, 3, 40}, {0, 2, 1});
  }
}

TEST(TransposeTest, Rank6AndSizeOneDims) {
  CheckTranspose(ElementType::kInt64, 13, {2, 1, 3, 1, 2, 2}, {5, 3, 0, 4, 1, 2});
  CheckTranspose(ElementType::kString, 13, {1, 1, 4}, {2, 0, 1});
}

TEST(TransposeTest, ScalarAndEmpty) {
  OpTester scalar("Transpose", 13);
  scalar.Input<float>("data", {}, {2.5f});
  scalar.Output<float>("transposed", {}, {2.5f});
  scalar.Run();

  OpTester empty("Transpose", 13);
  empty.Input<float>("data", {0, 3}, {});
  empty.Output<float>("transposed", {3, 0}, {});
  empty.Run();
}

TEST(TransposeTest, EmptyPermMeansReverse) {
  OpTester test("Transpose", 13);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("perm", std::vector<int64_t>{});
  test.Output<float>("transposed", {3, 2}, {1, 4, 2, 5, 3, 6});
  test.Run();
}

TEST(TransposeTest, PermWithWrongLengthFails) {
  OpTester test("Transpose", 13);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("perm", std::vector<int64_t>{0, 1, 2});
  test.Output<float>("transposed", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("perm has 3 entries but the input [2,3] has rank 2");
}

TEST(TransposeTest, PermRepeatingAnAxisFails) {
  OpTester test("Transpose", 13);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("perm", std::vector<int64_t>{1, 1});
  test.Output<float>("transposed", {3, 2}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("perm repeats axis 1");
}

TEST(TransposeTest, PermOutOfRangeFails) {
  OpTester test("Transpose", 13);
  test.Input<float>("data", {2, 3}, {1, 2, 3, 4, 5, 6});
  test.Attr("perm", std::vector<int64_t>{0, -1});
  test.Output<float>("transposed", {3, 2}, {1, 2, 3, 4, 5, 6});
  test.ExpectFailure("perm[1] = -1 is out of range");
}

}  // namespace
}  // namespace prism::testing
