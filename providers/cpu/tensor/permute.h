// Moves the elements of `input`, seen as a tensor of shape `dims`, into `output` with its axes
// permuted: output axis i is input axis perm[i]. Every element type (strings, complex and packed
// sub-byte types included). Shared by Transpose, DepthToSpace and SpaceToDepth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "framework/tensor.h"

namespace prism::cpu {

void PermuteElements(const Tensor& input, const std::vector<int64_t>& dims,
                     const std::vector<size_t>& perm, Tensor& output);

}  // namespace prism::cpu
