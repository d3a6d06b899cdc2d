// What an op's inference function sees: its node's input types, shapes and (when known) small
// int64 values, and where it writes output types, shapes and values.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"

namespace prism {

// One element of a propagated value: a number (possibly negative, as Reshape's -1), a symbolic
// dim's name, or unknown.
struct SymbolicInt {
  std::optional<int64_t> value;
  std::string symbol;
  static SymbolicInt FromDim(const Dim& dim) {
    return dim.IsKnown() ? SymbolicInt{dim.value, ""} : SymbolicInt{std::nullopt, dim.param};
  }
  Dim ToDim() const {
    return value && *value >= 0 ? Dim{*value, ""} : Dim{-1, value ? "" : symbol};
  }
};

// Values of a small integer tensor of rank 0 or 1 (shape computations); a scalar has is_scalar.
struct PropagatedValues {
  std::vector<SymbolicInt> values;
  bool is_scalar = false;
  // Small floating-point constants (Resize's scales) are kept apart: InputValues never returns
  // them, so integer consumers cannot mistake them for an empty list; InputReals does.
  std::optional<std::vector<double>> reals;
};

class InferenceContext {
 public:
  InferenceContext(const Node& node,
                   std::unordered_map<const NodeArg*, PropagatedValues>& propagated);

  const Node& GetNode() const { return node_; }
  int Opset() const { return node_.OpsetVersion(); }
  size_t InputCount() const { return node_.InputCount(); }
  bool HasInput(size_t i) const { return node_.HasInput(i); }
  ElementType InputElem(size_t i) const;
  const ValueType& InputType(size_t i) const;
  // The input's shape when its rank is known.
  const SymbolicShape* InputShape(size_t i) const;
  // The input's rank, or -1 when its shape (or the input) is unknown.
  int64_t InputRank(size_t i) const;
  // The input's values when it is a constant initializer or propagated (shape computations).
  const PropagatedValues* InputValues(size_t i) const;
  // All values known as numbers.
  std::optional<std::vector<int64_t>> InputInts(size_t i) const;
  // The values of a small floating-point constant input, when known.
  std::optional<std::vector<double>> InputReals(size_t i) const;
  const Attribute* Attr(const std::string& name) const { return node_.FindAttribute(name); }
  int64_t IntAttr(const std::string& name, int64_t fallback) const;
  std::optional<std::vector<int64_t>> IntsAttr(const std::string& name) const;

  void SetOutputType(size_t o, ValueType type);
  void SetOutputShape(size_t o, SymbolicShape shape);
  void SetOutputValues(size_t o, PropagatedValues values);
  // Output o: input i's element type with shape (convenience).
  void SetOutput(size_t o, ElementType elem, std::optional<SymbolicShape> shape);

  [[noreturn]] void Fail(const std::string& message) const;

 private:
  const Node& node_;
  std::unordered_map<const NodeArg*, PropagatedValues>& propagated_;
};

using InferenceFunction = std::function<void(InferenceContext&)>;

// Registration by family: each shape_inference/*.cc adds its ops.
void RegisterShapeInference(const std::string& op_type, InferenceFunction function);
// An op of another domain (ai.onnx.preview, com.microsoft, ...).
void RegisterShapeInference(const std::string& domain, const std::string& op_type,
                            InferenceFunction function);
// The registered function of an op (domain "" for ai.onnx), or nullptr: for ops whose shapes are
// another op's (the com.microsoft.nchwc ops are Conv's and the pools').
const InferenceFunction* FindShapeInference(const std::string& domain, const std::string& op_type);

// Helpers shared by families.
Dim KnownDim(int64_t value);
// Arithmetic on dims and counts a model gives (hostile ones included): nullopt, or an unknown
// dim, when an operand is unknown or negative or the result does not fit int64; never undefined
// behaviour.
std::optional<int64_t> CheckedMul(int64_t a, int64_t b);
Dim MulDim(const Dim& a, int64_t factor);
Dim AddDims(const Dim& a, const Dim& b);
// Geometry formulas (pads, strides, kernels, dilations from attributes) are evaluated in 128
// bits, where a few int64 terms and one product cannot overflow; the result is a dim only when it
// fits int64 and is not negative (WideDim: else an unknown dim; WideValue: else nullopt).
using WideInt = __int128;
Dim WideDim(WideInt value);
std::optional<int64_t> WideValue(WideInt value);
// Numpy broadcasting of two shapes; fails naming the node when two known dims differ and neither
// is 1.
SymbolicShape Broadcast(const InferenceContext& context, const SymbolicShape& a,
                        const SymbolicShape& b);
bool SameDim(const Dim& a, const Dim& b);

}  // namespace prism
