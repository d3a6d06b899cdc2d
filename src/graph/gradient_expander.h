// The Gradient op of ai.onnx.preview.training (version 1): output i is the derivative of the
// sum of y with respect to xs[i] (zs are inputs held constant). There is no kernel: before the
// graph is built, each Gradient node of the main graph is replaced by the backward nodes of the
// forward nodes between xs and y (reverse-mode differentiation; an upstream gradient of ones;
// contributions of several paths added). Differentiable ops: Add, Sub, Mul, Div, Neg,
// Identity, Relu, Sigmoid, Tanh, Exp, Log, Sqrt; any other op on a path from xs to y is
// refused naming it. Broadcasting is undone by com.prism.internal's SumToShape, and the ones
// and zeros come from its OnesLike/ZerosLike, so the expansion works at any ai.onnx opset.
#pragma once

#include <onnx/onnx_pb.h>

namespace prism {

inline constexpr const char* kPrismInternalDomain = "com.prism.internal";

// Rewrites the model in place (importing com.prism.internal 1); true when it expanded a node.
// Throws kInvalidGraph naming the Gradient node and the rule broken.
bool ExpandGradientNodes(onnx::ModelProto& model);

}  // namespace prism
