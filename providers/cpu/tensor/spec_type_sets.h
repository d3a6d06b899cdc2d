// The ONNX spec's "all tensor types" constraint as it grew with the opsets. Data-movement
// kernels register one of these per schema version; AllTensorTypesOf leaves out complex64 and
// complex128, which the spec allows only for ops that move bytes (never Cast or arithmetic).
#pragma once

#include <vector>

#include "framework/element_type.h"

namespace prism::cpu {

enum class TensorTypeGeneration {
  kNoBfloat16,  // IR 3: the 13 classic types without bfloat16 (opsets before 13)
  kBfloat16,    // + bfloat16 (opset 13)
  kFloat8,      // + the four float8 types (opset 19)
  kInt4,        // + uint4, int4 (opset 21)
  kFloat4,      // + float4e2m1 (opset 23)
  kFloat8E8M0,  // + float8e8m0 (opset 24)
  kInt2,        // + uint2, int2 (opset 25)
};

inline std::vector<ElementType> AllTensorTypesOf(TensorTypeGeneration generation) {
  using E = ElementType;
  using G = TensorTypeGeneration;
  std::vector<ElementType> types = {E::kUint8,  E::kUint16, E::kUint32, E::kUint64,  E::kInt8,
                                    E::kInt16,  E::kInt32,  E::kInt64,  E::kFloat16, E::kFloat,
                                    E::kDouble, E::kString, E::kBool};
  if (generation >= G::kBfloat16) types.push_back(E::kBFloat16);
  if (generation >= G::kFloat8)
    types.insert(types.end(),
                 {E::kFloat8E4M3FN, E::kFloat8E4M3FNUZ, E::kFloat8E5M2, E::kFloat8E5M2FNUZ});
  if (generation >= G::kInt4) types.insert(types.end(), {E::kUint4, E::kInt4});
  if (generation >= G::kFloat4) types.push_back(E::kFloat4E2M1);
  if (generation >= G::kFloat8E8M0) types.push_back(E::kFloat8E8M0);
  if (generation >= G::kInt2) types.insert(types.end(), {E::kUint2, E::kInt2});
  return types;
}

// The same list plus complex64 and complex128, for the data-movement ops whose spec allows them
// (Identity, Reshape, Transpose, Concat, Gather, ...): their kernels only move bytes.
inline std::vector<ElementType> AllTensorTypesWithComplexOf(TensorTypeGeneration generation) {
  std::vector<ElementType> types = AllTensorTypesOf(generation);
  types.insert(types.end(), {ElementType::kComplex64, ElementType::kComplex128});
  return types;
}

}  // namespace prism::cpu
