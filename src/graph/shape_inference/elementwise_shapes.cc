// Elementwise ops: unary ones keep their input's shape; binary ones broadcast (numpy rules).
#include <cstdint>
#include <set>
#include <string>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

void SameAsInput(InferenceContext& context) {
  // The whole type: Identity passes sequences and optionals through too.
  context.SetOutputType(0, context.InputType(0));
  const SymbolicShape* shape = context.InputShape(0);
  if (shape && context.InputType(0).kind == TypeKind::kTensor) context.SetOutputShape(0, *shape);
  if (context.GetNode().OpType() == "Identity")
    if (const PropagatedValues* values = context.InputValues(0))
      context.SetOutputValues(0, *values);
}

// Values a model gives may be anything: a result that does not fit int64 is left unknown.
std::optional<int64_t> Combine(const std::string& op, int64_t a, int64_t b) {
  int64_t result = 0;
  if (op == "Add")
    return __builtin_add_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  if (op == "Sub")
    return __builtin_sub_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  if (op == "Mul")
    return __builtin_mul_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  // Integer division truncates, as the kernel does; INT64_MIN / -1 does not fit.
  if (op == "Div" && b != 0 && !(a == INT64_MIN && b == -1)) return a / b;
  return std::nullopt;
}

void BinaryBroadcast(InferenceContext& context) {
  const SymbolicShape* a = context.InputShape(0);
  const SymbolicShape* b = context.InputShape(1);
  if (context.HasInput(0) && context.HasInput(1) && context.InputElem(0) != context.InputElem(1) &&
      context.InputElem(0) != ElementType::kUndefined &&
      context.InputElem(1) != ElementType::kUndefined && context.GetNode().OpType() != "Pow")
    context.Fail(MakeString("inputs 0 and 1 must have one element type, given ",
                            ElementTypeName(context.InputElem(0)), " and ",
                            ElementTypeName(context.InputElem(1))));
  std::optional<SymbolicShape> shape;
  if (context.Opset() < 7) {
    // Legacy broadcasting (attributes broadcast/axis): B fits into A, the result has A's shape.
    if (a) shape = *a;
  } else if (a && b) {
    shape = Broadcast(context, *a, *b);
  }
  const std::string& op = context.GetNode().OpType();
  const bool arithmetic = op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
  // Comparisons and logic give bools; the others keep the inputs' type.
  static const std::set<std::string> kBoolResults = {
      "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "And", "Or", "Xor"};
  const ElementType output = kBoolResults.count(op) ? ElementType::kBool : context.InputElem(0);
  context.SetOutput(0, output, shape);
  // Shape arithmetic (e.g. a dim times a head count) stays known.
  const PropagatedValues* x = context.InputValues(0);
  const PropagatedValues* y = context.InputValues(1);
  if (x && y && arithmetic &&
      (x->values.size() == y->values.size() || x->values.size() == 1 || y->values.size() == 1)) {
    PropagatedValues result;
    result.is_scalar = x->is_scalar && y->is_scalar;
    // Broadcasting one value against none gives none.
    const size_t count =
        x->values.empty() || y->values.empty() ? 0 : std::max(x->values.size(), y->values.size());
    for (size_t i = 0; i < count; ++i) {
      const SymbolicInt& p = x->values[x->values.size() == 1 ? 0 : i];
      const SymbolicInt& q = y->values[y->values.size() == 1 ? 0 : i];
      SymbolicInt element;
      if (p.value && q.value)
        element.value = Combine(context.GetNode().OpType(), *p.value, *q.value);
      result.values.push_back(element);
    }
    context.SetOutputValues(0, std::move(result));
  }
}

// Where: X's type, the three inputs broadcast together.
void WhereShape(InferenceContext& context) {
  const ElementType elem = context.InputElem(1);
  if (context.InputElem(1) != ElementType::kUndefined &&
      context.InputElem(2) != ElementType::kUndefined &&
      context.InputElem(1) != context.InputElem(2))
    context.Fail(MakeString("X and Y must have one element type, given ",
                            ElementTypeName(context.InputElem(1)), " and ",
                            ElementTypeName(context.InputElem(2))));
  std::optional<SymbolicShape> shape;
  const SymbolicShape* c = context.InputShape(0);
  const SymbolicShape* x = context.InputShape(1);
  const SymbolicShape* y = context.InputShape(2);
  if (c && x && y) shape = Broadcast(context, Broadcast(context, *c, *x), *y);
  context.SetOutput(0, elem, shape);
}

// IsNaN, IsInf: bools of the input's shape.
void BoolOfInputShape(InferenceContext& context) {
  const SymbolicShape* shape = context.InputShape(0);
  context.SetOutput(0, ElementType::kBool, shape ? std::optional(*shape) : std::nullopt);
}

// Max, Min, Sum, Mean: every input broadcast together from opset 8, one shape before.
void VariadicBroadcast(InferenceContext& context) {
  std::optional<SymbolicShape> shape;
  bool known = true;
  for (size_t i = 0; i < context.InputCount() && known; ++i) {
    const SymbolicShape* input = context.InputShape(i);
    if (input == nullptr) {
      known = false;
    } else if (!shape || context.Opset() < 8) {
      if (!shape) shape = *input;
    } else {
      shape = Broadcast(context, *shape, *input);
    }
  }
  context.SetOutput(0, context.InputElem(0), known ? shape : std::nullopt);
}

}  // namespace

void RegisterElementwiseShapes() {
  for (const char* op : {"Relu",      "Sigmoid",  "Tanh",       "Sqrt",        "Exp",
                         "Erf",       "Identity", "Neg",        "Abs",         "Sign",
                         "Ceil",      "Floor",    "Round",      "Reciprocal",  "Log",
                         "Sin",       "Cos",      "Tan",        "Asin",        "Acos",
                         "Atan",      "Sinh",     "Cosh",       "Asinh",       "Acosh",
                         "Atanh",     "Softsign", "Softplus",   "Softmax",     "Clip",
                         "Celu",      "Elu",      "Gelu",       "HardSigmoid", "HardSwish",
                         "LeakyRelu", "Mish",     "Selu",       "Shrink",      "ThresholdedRelu",
                         "Swish",     "PRelu",    "BitwiseNot", "LogSoftmax",  "Hardmax",
                         "CumSum",    "CumProd"})
    RegisterShapeInference(op, SameAsInput);
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "GreaterOrEqual",
                         "Less", "LessOrEqual", "And", "Or", "Xor", "BitwiseAnd", "BitwiseOr",
                         "BitwiseXor", "Mod", "BitShift"})
    RegisterShapeInference(op, BinaryBroadcast);
  RegisterShapeInference("Not", SameAsInput);  // bool to bool
  for (const char* op : {"Max", "Min", "Sum", "Mean"})
    RegisterShapeInference(op, VariadicBroadcast);
  for (const char* op : {"IsNaN", "IsInf"}) RegisterShapeInference(op, BoolOfInputShape);
  RegisterShapeInference("Where", WhereShape);
}

}  // namespace prism
