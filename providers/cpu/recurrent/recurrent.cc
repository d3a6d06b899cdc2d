// RNN, GRU and LSTM (every opset: 1, 3 (GRU), 7, 14, 22): one layer over a sequence, forward,
// reverse or bidirectional, with the spec's activation functions, clip, sequence_lens, initial
// states, layout 0 ([seq, batch, ...]) and 1 ([batch, seq, ...]), GRU's linear_before_reset and
// LSTM's input_forget and peepholes.
//
// Computed in double for double and in float otherwise (float16 and bfloat16 are widened once
// and rounded once). Per direction, the input projection of every time step is one GEMM
// (X [seq * batch, input] times W^T), and each step multiplies the batch's hidden state by R^T.
// A batch entry stops at its sequence length: Y is zero past it and Y_h / Y_c hold its state
// after its last valid step; the reverse direction starts at step length - 1. An entry of
// length 0 has zero Y_h and Y_c (as onnxruntime; the spec is silent).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "mlas/isa_kernels.h"
#include "mlas/packed_gemm.h"
#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

enum class CellKind { kRnn, kGru, kLstm };

// Gates per cell (rows of W and R are gates * hidden_size) and activation functions per
// direction (f for RNN; f, g for GRU; f, g, h for LSTM).
int GateCount(CellKind kind) {
  return kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
}
int FunctionCount(CellKind kind) {
  return kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 2 : 3;
}

enum class ActivationKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

struct ActivationSpec {
  const char* name;
  ActivationKind kind;
  bool takes_alpha;
  bool takes_beta;
  // When activation_alpha / activation_beta do not reach the function: the defaults of the
  // ONNX operators of the same name, as the spec says (ThresholdedRelu's alpha 1, Affine's 1 and
  // 0, where onnxruntime takes 0 for all three); ScaledTanh's operator had none, so 1 and 1 (as
  // onnxruntime's ScaledTanh operator).
  double default_alpha;
  double default_beta;
};

constexpr ActivationSpec kActivationSpecs[] = {
    {"Relu", ActivationKind::kRelu, false, false, 0.0, 0.0},
    {"Tanh", ActivationKind::kTanh, false, false, 0.0, 0.0},
    {"Sigmoid", ActivationKind::kSigmoid, false, false, 0.0, 0.0},
    {"Affine", ActivationKind::kAffine, true, true, 1.0, 0.0},
    {"LeakyRelu", ActivationKind::kLeakyRelu, true, false, 0.01, 0.0},
    {"ThresholdedRelu", ActivationKind::kThresholdedRelu, true, false, 1.0, 0.0},
    {"ScaledTanh", ActivationKind::kScaledTanh, true, true, 1.0, 1.0},
    {"HardSigmoid", ActivationKind::kHardSigmoid, true, true, 0.2, 0.5},
    {"Elu", ActivationKind::kElu, true, false, 1.0, 0.0},
    {"Softsign", ActivationKind::kSoftsign, false, false, 0.0, 0.0},
    {"Softplus", ActivationKind::kSoftplus, false, false, 0.0, 0.0},
};

struct Activation {
  ActivationKind kind = ActivationKind::kTanh;
  double alpha = 0.0;
  double beta = 0.0;

  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha);
    const C b = static_cast<C>(beta);
    switch (kind) {
      case ActivationKind::kRelu:
        return x > C(0) ? x : C(0);
      case ActivationKind::kTanh:
        return std::tanh(x);
      case ActivationKind::kSigmoid:
        return C(1) / (C(1) + std::exp(-x));
      case ActivationKind::kAffine:
        return a * x + b;
      case ActivationKind::kLeakyRelu:
        return x >= C(0) ? x : a * x;
      case ActivationKind::kThresholdedRelu:
        return x >= a ? x : C(0);
      case ActivationKind::kScaledTanh:
        return a * std::tanh(b * x);
      case ActivationKind::kHardSigmoid:
        return std::min(std::max(a * x + b, C(0)), C(1));
      case ActivationKind::kElu:
        return x >= C(0) ? x : a * (std::exp(x) - C(1));
      case ActivationKind::kSoftsign:
        return x / (C(1) + std::abs(x));
      case ActivationKind::kSoftplus:
        // log(1 + e^x) without overflow for large x.
        return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

// fn over values[0 .. count) in place: float Sigmoid and Tanh through the dispatched vector
// kernels (mlas/isa_kernels.h: within 4 ulp and 3e-7), the rest element by element.
template <typename C>
void ApplyInPlace(const Activation& fn, C* values, int64_t count) {
  if constexpr (std::is_same_v<C, float>) {
    if (fn.kind == ActivationKind::kSigmoid)
      return mlas::ActiveKernels().sigmoid_f32(values, values, count);
    if (fn.kind == ActivationKind::kTanh)
      return mlas::ActiveKernels().tanh_f32(values, values, count);
  }
  for (int64_t k = 0; k < count; ++k) values[k] = fn(values[k]);
}

// A per-thread buffer of at least `count` values, reused across the steps (the gates of one
// batch entry are computed as whole rows before their activations).
template <typename C>
C* ThreadScratch(int64_t count) {
  thread_local std::vector<C> scratch;
  if (scratch.size() < static_cast<size_t>(count)) scratch.resize(static_cast<size_t>(count));
  return scratch.data();
}

bool SameNameIgnoringCase(const std::string& a, const char* b) {
  const std::string other(b);
  return a.size() == other.size() &&
         std::equal(a.begin(), a.end(), other.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Everything the attributes decide, checked once at session creation.
struct CellConfig {
  CellKind kind = CellKind::kRnn;
  int64_t hidden_size = -1;  // -1: taken from R
  int num_directions = 1;
  bool reverse = false;  // direction "reverse" (bidirectional runs direction 1 in reverse)
  std::vector<Activation> activations;  // FunctionCount per direction, direction-major
  std::optional<double> clip;
  int64_t layout = 0;
  bool linear_before_reset = false;
  bool input_forget = false;
};

CellConfig ParseConfig(const OpKernelInfo& info, CellKind kind) {
  const Node& node = info.GetNode();
  CellConfig config;
  config.kind = kind;
  if (info.HasAttr("hidden_size")) {
    config.hidden_size = info.Int("hidden_size");
    PRISM_ENFORCE(config.hidden_size > 0, kInvalidArgument, node.Describe(),
                  ": attribute hidden_size must be positive, got ", config.hidden_size);
  }
  const std::string direction = info.StringOr("direction", "forward");
  if (direction == "bidirectional") {
    config.num_directions = 2;
  } else {
    PRISM_ENFORCE(
        direction == "forward" || direction == "reverse", kInvalidArgument, node.Describe(),
        ": attribute direction must be forward, reverse or bidirectional, got '", direction, "'");
    config.reverse = direction == "reverse";
  }
  config.layout = info.IntOr("layout", 0);
  PRISM_ENFORCE(config.layout == 0 || config.layout == 1, kInvalidArgument, node.Describe(),
                ": attribute layout must be 0 or 1, got ", config.layout);
  if (info.HasAttr("clip")) {
    const float clip = info.Float("clip");
    PRISM_ENFORCE(clip > 0.0f, kInvalidArgument, node.Describe(),
                  ": attribute clip must be positive, got ", clip);
    config.clip = clip;
  }
  if (kind == CellKind::kGru) config.linear_before_reset = info.IntOr("linear_before_reset", 0);
  if (kind == CellKind::kLstm) config.input_forget = info.IntOr("input_forget", 0) != 0;

  const int functions = FunctionCount(kind);
  std::vector<std::string> names;
  if (info.HasAttr("activations")) {
    names = info.Strings("activations");
    // RNN's spec default lists two functions ("Tanh", "Tanh") whatever the direction: a
    // one-direction RNN given two uses the first (as onnxruntime).
    if (kind == CellKind::kRnn && config.num_directions == 1 && names.size() == 2) names.resize(1);
    PRISM_ENFORCE(static_cast<int>(names.size()) == functions * config.num_directions,
                  kInvalidArgument, node.Describe(), ": attribute activations must list ",
                  functions * config.num_directions, " functions (", functions, " per direction, ",
                  config.num_directions, " direction(s)), got ", names.size());
  } else {
    const std::vector<std::string> defaults =
        kind == CellKind::kRnn   ? std::vector<std::string>{"Tanh"}
        : kind == CellKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                 : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int d = 0; d < config.num_directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  const std::vector<float> alphas =
      info.HasAttr("activation_alpha") ? info.Floats("activation_alpha") : std::vector<float>{};
  const std::vector<float> betas =
      info.HasAttr("activation_beta") ? info.Floats("activation_beta") : std::vector<float>{};
  // The values are consumed in the order of the functions, by the functions that take them;
  // a function past the end of a list takes its default.
  size_t next_alpha = 0;
  size_t next_beta = 0;
  for (const std::string& name : names) {
    const ActivationSpec* spec = nullptr;
    for (const ActivationSpec& candidate : kActivationSpecs)
      if (SameNameIgnoringCase(name, candidate.name)) spec = &candidate;
    PRISM_ENFORCE(spec != nullptr, kInvalidArgument, node.Describe(),
                  ": attribute activations has unknown function '", name,
                  "' (expected Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, "
                  "ScaledTanh, HardSigmoid, Elu, Softsign or Softplus)");
    Activation activation{spec->kind, spec->default_alpha, spec->default_beta};
    if (spec->takes_alpha && next_alpha < alphas.size()) activation.alpha = alphas[next_alpha++];
    if (spec->takes_beta && next_beta < betas.size()) activation.beta = betas[next_beta++];
    config.activations.push_back(activation);
  }
  return config;
}

// The checked sizes of one run.
struct RunShape {
  int64_t seq_length = 0;
  int64_t batch = 0;
  int64_t input_size = 0;
  int64_t hidden = 0;
  int64_t gates = 0;
};

void ExpectShape(const Node& node, const char* input, const Tensor& tensor,
                 const std::vector<int64_t>& expected, const char* layout) {
  PRISM_ENFORCE(tensor.Shape().Dims() == expected, kInvalidArgument, node.Describe(), ": input ",
                input, " must have shape ", TensorShape(expected).ToString(), " ", layout, ", got ",
                tensor.Shape().ToString());
}

RunShape CheckShapes(const Node& node, const CellConfig& config, OpKernelContext& context) {
  const Tensor& x = context.RequiredInput(0);
  const Tensor& w = context.RequiredInput(1);
  const Tensor& r = context.RequiredInput(2);
  PRISM_ENFORCE(x.Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                ": input X must have rank 3 (",
                config.layout == 0 ? "[seq_length, batch_size, input_size]"
                                   : "[batch_size, seq_length, input_size]",
                "), got ", x.Shape().ToString());
  // The schema binds every input but sequence_lens to one type T.
  static const char* const kInputNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                            "initial_h", "initial_c", "P"};
  for (size_t i = 1; i < std::min<size_t>(context.InputCount(), 8); ++i) {
    const Tensor* input = i == 4 ? nullptr : context.Input(i);
    PRISM_ENFORCE(input == nullptr || input->Type() == x.Type(), kInvalidArgument, node.Describe(),
                  ": input ", kInputNames[i], " must have X's element type ",
                  ElementTypeName(x.Type()), ", got ", input->Describe());
  }
  RunShape shape;
  shape.seq_length = x.Shape()[config.layout == 0 ? 0 : 1];
  shape.batch = x.Shape()[config.layout == 0 ? 1 : 0];
  shape.input_size = x.Shape()[2];
  shape.gates = GateCount(config.kind);
  PRISM_ENFORCE(r.Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                ": input R must be [num_directions, ", shape.gates,
                " * hidden_size, hidden_size], got ", r.Shape().ToString());
  shape.hidden = config.hidden_size > 0 ? config.hidden_size : r.Shape()[2];
  const int64_t d = config.num_directions;
  // hidden_size is an attribute (any int64): the gate rows (and B's twice as many) must be an
  // int64 before the inputs' shapes are compared with them.
  int64_t rows = 0, bias_rows = 0;
  PRISM_ENFORCE(!__builtin_mul_overflow(shape.gates, shape.hidden, &rows) &&
                    !__builtin_mul_overflow(rows, int64_t{2}, &bias_rows),
                kInvalidArgument, node.Describe(), ": hidden_size ", shape.hidden,
                " is too large (", shape.gates, " gates of it overflow int64)");
  const char* per_direction = "([num_directions, gates * hidden_size, ...])";
  ExpectShape(node, "W", w, {d, rows, shape.input_size}, per_direction);
  ExpectShape(node, "R", r, {d, rows, shape.hidden}, per_direction);
  if (const Tensor* b = context.Input(3))
    ExpectShape(node, "B", *b, {d, bias_rows}, "([num_directions, 2 * gates * hidden_size])");
  if (const Tensor* lens = context.Input(4))
    ExpectShape(node, "sequence_lens", *lens, {shape.batch}, "([batch_size])");
  const std::vector<int64_t> state_shape = config.layout == 0
                                               ? std::vector<int64_t>{d, shape.batch, shape.hidden}
                                               : std::vector<int64_t>{shape.batch, d, shape.hidden};
  const char* state_layout = config.layout == 0 ? "([num_directions, batch_size, hidden_size])"
                                                : "([batch_size, num_directions, hidden_size])";
  if (const Tensor* h0 = context.Input(5))
    ExpectShape(node, "initial_h", *h0, state_shape, state_layout);
  if (config.kind == CellKind::kLstm) {
    if (const Tensor* c0 = context.Input(6))
      ExpectShape(node, "initial_c", *c0, state_shape, state_layout);
    if (const Tensor* p = context.Input(7))
      ExpectShape(node, "P", *p, {d, 3 * shape.hidden}, "([num_directions, 3 * hidden_size])");
  }
  return shape;
}

// Per batch entry, the number of valid steps (sequence_lens, or seq_length for all).
std::vector<int64_t> SequenceLengths(const Node& node, const Tensor* lens, const RunShape& shape) {
  std::vector<int64_t> lengths(static_cast<size_t>(shape.batch), shape.seq_length);
  if (lens == nullptr) return lengths;
  const int32_t* values = lens->Data<int32_t>();
  for (int64_t b = 0; b < shape.batch; ++b) {
    PRISM_ENFORCE(values[b] >= 0 && values[b] <= shape.seq_length, kInvalidArgument,
                  node.Describe(), ": input sequence_lens[", b,
                  "] must be in [0, seq_length = ", shape.seq_length, "], got ", values[b]);
    lengths[b] = values[b];
  }
  return lengths;
}

// The tensor's elements in the compute type (read in place when it is already that type).
template <typename T, typename C>
const C* AsCompute(const Tensor& tensor, std::vector<C>& storage) {
  if constexpr (std::is_same_v<T, C>) {
    return tensor.Data<T>();
  } else {
    const T* data = tensor.Data<T>();
    storage.resize(static_cast<size_t>(tensor.NumElements()));
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = ToCompute(data[i]);
    return storage.data();
  }
}

// Swaps the first two axes of a [a, b, inner] tensor into [b, a, inner] in the compute type.
template <typename T, typename C>
std::vector<C> SwapLeadingAxes(const Tensor& tensor) {
  const int64_t a = tensor.Shape()[0];
  const int64_t b = tensor.Shape()[1];
  const int64_t inner = tensor.Shape()[2];
  const T* data = tensor.Data<T>();
  std::vector<C> out(static_cast<size_t>(tensor.NumElements()));
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < inner; ++k)
        out[(j * a + i) * inner + k] = static_cast<C>(ToCompute(data[(i * b + j) * inner + k]));
  return out;
}

// A layout-0 ([seq or dir, batch, ...]) view of an input in the compute type.
template <typename T, typename C>
const C* SequenceMajor(const Tensor& tensor, int64_t layout, std::vector<C>& storage) {
  if (layout == 0) return AsCompute<T, C>(tensor, storage);
  storage = SwapLeadingAxes<T, C>(tensor);
  return storage.data();
}

template <typename C>
struct CellInputs {
  const C* x = nullptr;   // [seq, batch, input]
  const C* w = nullptr;   // [dirs, gates * hidden, input]
  const C* r = nullptr;   // [dirs, gates * hidden, hidden]
  const C* b = nullptr;   // [dirs, 2 * gates * hidden] or nullptr
  const C* h0 = nullptr;  // [dirs, batch, hidden] or nullptr
  const C* c0 = nullptr;  // [dirs, batch, hidden] or nullptr
  const C* p = nullptr;   // [dirs, 3 * hidden] or nullptr
};

template <typename C>
struct CellOutputs {
  std::vector<C> y;    // [seq, dirs, batch, hidden], zero past each entry's length
  std::vector<C> y_h;  // [dirs, batch, hidden]
  std::vector<C> y_c;  // [dirs, batch, hidden] (LSTM)
};

// Rows [first, first + n) of one direction's R, as the B of the per-step products H R^T. Floats
// are packed once per run, so each step streams the panels instead of re-packing B.
template <typename C>
class RecurrentWeights {
 public:
  RecurrentWeights(const C* r, int64_t first, int64_t n, int64_t hidden)
      : b_(r + first * hidden), n_(n), hidden_(hidden) {
    if constexpr (std::is_same_v<C, float>)
      if (n > 0 && hidden > 0)
        packed_.emplace(mlas::PackedMatrixB::Pack(true, hidden, n, b_, hidden));
  }

  // c (m x n, leading dimension ldc) = a (m x hidden) times the rows' transpose.
  void Multiply(const C* a, int64_t m, C* c, int64_t ldc, ThreadPool* pool) const {
    if (m == 0 || n_ == 0) return;
    if constexpr (std::is_same_v<C, float>) {
      if (packed_)
        return mlas::GemmPackedB(false, m, a, hidden_, 1.0f, *packed_, 0.0f, c, ldc, pool);
    }
    mlas::Gemm<C>(false, true, m, n_, hidden_, C(1), a, hidden_, b_, hidden_, C(0), c, ldc, pool);
  }

 private:
  const C* b_;
  int64_t n_;
  int64_t hidden_;
  std::optional<mlas::PackedMatrixB> packed_;  // float only
};

template <typename C>
class DirectionRunner {
 public:
  DirectionRunner(const CellConfig& config, const RunShape& shape, const CellInputs<C>& in,
                  const std::vector<int64_t>& lengths, ThreadPool* pool)
      : config_(config), shape_(shape), in_(in), lengths_(lengths), pool_(pool) {}

  void Run(int direction, CellOutputs<C>& out) const {
    const int64_t hidden = shape_.hidden;
    const int64_t batch = shape_.batch;
    const int64_t rows = shape_.gates * hidden;
    const bool reverse = config_.reverse || direction == 1;
    const Activation* functions =
        &config_.activations[static_cast<size_t>(direction * FunctionCount(config_.kind))];
    const C* w = in_.w + direction * rows * shape_.input_size;
    const C* r = in_.r + direction * rows * hidden;
    const C* wb = in_.b ? in_.b + direction * 2 * rows : nullptr;
    const C* rb = wb ? wb + rows : nullptr;
    const C* peephole = in_.p ? in_.p + direction * 3 * hidden : nullptr;

    // Input projection of every step at once, with the biases that add outside the gates.
    const int64_t steps_by_batch = shape_.seq_length * batch;
    std::vector<C> projected(static_cast<size_t>(steps_by_batch * rows));
    if (steps_by_batch > 0)
      mlas::Gemm<C>(false, true, steps_by_batch, rows, shape_.input_size, C(1), in_.x,
                    shape_.input_size, w, shape_.input_size, C(0), projected.data(), rows, pool_);
    if (wb != nullptr) {
      // GRU with linear_before_reset keeps Rbh inside the reset gate's product.
      const bool keep_rbh = config_.kind == CellKind::kGru && config_.linear_before_reset;
      std::vector<C> bias(static_cast<size_t>(rows));
      for (int64_t g = 0; g < rows; ++g)
        bias[g] = wb[g] + ((keep_rbh && g >= 2 * hidden) ? C(0) : rb[g]);
      for (int64_t i = 0; i < steps_by_batch; ++i)
        for (int64_t g = 0; g < rows; ++g) projected[i * rows + g] += bias[g];
    }

    std::vector<C> h(static_cast<size_t>(batch * hidden), C(0));
    std::vector<C> c(config_.kind == CellKind::kLstm ? h.size() : 0, C(0));
    if (in_.h0) std::copy_n(in_.h0 + direction * batch * hidden, h.size(), h.begin());
    if (in_.c0 && !c.empty()) std::copy_n(in_.c0 + direction * batch * hidden, c.size(), c.begin());

    // H_{t-1} R^T for the gates whose product does not wait for the reset gate (GRU without
    // linear_before_reset multiplies (r . H) by Rh separately).
    const bool gru_reset_first = config_.kind == CellKind::kGru && !config_.linear_before_reset;
    const RecurrentWeights<C> early_rows(r, 0, gru_reset_first ? 2 * hidden : rows, hidden);
    const RecurrentWeights<C> reset_rows(r, 2 * hidden, gru_reset_first ? hidden : 0, hidden);
    std::vector<C> recurrent(static_cast<size_t>(batch * rows));
    std::vector<C> reset_hidden;  // GRU without linear_before_reset: (r . H) and its product
    std::vector<C> reset_product;
    const int64_t max_length =
        lengths_.empty() ? 0 : *std::max_element(lengths_.begin(), lengths_.end());
    for (int64_t step = 0; step < max_length; ++step) {
      early_rows.Multiply(h.data(), batch, recurrent.data(), rows, pool_);
      auto time_of = [&](int64_t b) { return reverse ? lengths_[b] - 1 - step : step; };
      auto active = [&](int64_t b) { return step < lengths_[b]; };
      switch (config_.kind) {
        case CellKind::kRnn:
          ForEachEntry([&](int64_t b) {
            if (!active(b)) return;
            const C* x_gate = &projected[(time_of(b) * batch + b) * rows];
            const C* h_gate = &recurrent[b * rows];
            C* state = &h[b * hidden];
            for (int64_t k = 0; k < hidden; ++k) state[k] = Clip(x_gate[k] + h_gate[k]);
            ApplyInPlace(functions[0], state, hidden);
          });
          break;
        case CellKind::kGru:
          GruStep(step, reverse, functions, reset_rows, rb, projected, recurrent, reset_hidden,
                  reset_product, h);
          break;
        case CellKind::kLstm:
          ForEachEntry([&](int64_t b) {
            if (!active(b)) return;
            LstmEntry(functions, peephole, &projected[(time_of(b) * batch + b) * rows],
                      &recurrent[b * rows], &h[b * hidden], &c[b * hidden]);
          });
          break;
      }
      for (int64_t b = 0; b < batch; ++b) {
        if (!active(b)) continue;
        C* y_row = &out.y[((time_of(b) * config_.num_directions + direction) * batch + b) * hidden];
        std::copy_n(&h[b * hidden], hidden, y_row);
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      if (lengths_[b] == 0) continue;  // stays zero
      const int64_t offset = (direction * batch + b) * hidden;
      std::copy_n(&h[b * hidden], hidden, &out.y_h[offset]);
      if (!c.empty()) std::copy_n(&c[b * hidden], hidden, &out.y_c[offset]);
    }
  }

 private:
  // fn(b) for every batch entry; entries write disjoint rows, so they may run in parallel.
  template <typename Fn>
  void ForEachEntry(const Fn& fn) const {
    const double cost = 30.0 * static_cast<double>(shape_.gates * shape_.hidden);
    ThreadPool::TryParallelFor(pool_, shape_.batch, cost, [&](int64_t first, int64_t last) {
      for (int64_t b = first; b < last; ++b) fn(b);
    });
  }

  C Clip(C value) const {
    if (!config_.clip) return value;
    const C limit = static_cast<C>(*config_.clip);
    return std::min(std::max(value, -limit), limit);
  }

  // z = f(Xz + Hz), r = f(Xr + Hr); the candidate n = g(Xn + (r . H) Rn^T + Rbn) or, with
  // linear_before_reset, g(Xn + r . (H Rn^T + Rbn)); H = (1 - z) n + z H.
  void GruStep(int64_t step, bool reverse, const Activation* functions,
               const RecurrentWeights<C>& reset_rows, const C* rb, const std::vector<C>& projected,
               std::vector<C>& recurrent, std::vector<C>& reset_hidden,
               std::vector<C>& reset_product, std::vector<C>& h) const {
    const int64_t hidden = shape_.hidden;
    const int64_t batch = shape_.batch;
    const int64_t rows = 3 * hidden;
    auto time_of = [&](int64_t b) { return reverse ? lengths_[b] - 1 - step : step; };
    // The gates z and r go in place into `recurrent` (columns 0 and hidden).
    ForEachEntry([&](int64_t b) {
      if (step >= lengths_[b]) return;
      const C* x_gate = &projected[(time_of(b) * batch + b) * rows];
      C* gate = &recurrent[b * rows];
      for (int64_t k = 0; k < 2 * hidden; ++k) gate[k] = Clip(x_gate[k] + gate[k]);
      ApplyInPlace(functions[0], gate, 2 * hidden);
    });
    if (!config_.linear_before_reset) {
      reset_hidden.assign(static_cast<size_t>(batch * hidden), C(0));
      reset_product.resize(reset_hidden.size());
      for (int64_t b = 0; b < batch; ++b) {
        if (step >= lengths_[b]) continue;
        for (int64_t k = 0; k < hidden; ++k)
          reset_hidden[b * hidden + k] = recurrent[b * rows + hidden + k] * h[b * hidden + k];
      }
      reset_rows.Multiply(reset_hidden.data(), batch, reset_product.data(), hidden, pool_);
    }
    ForEachEntry([&](int64_t b) {
      if (step >= lengths_[b]) return;
      const C* x_gate = &projected[(time_of(b) * batch + b) * rows];
      const C* gate = &recurrent[b * rows];
      C* candidate = ThreadScratch<C>(hidden);
      for (int64_t k = 0; k < hidden; ++k) {
        const C reset = gate[hidden + k];
        C candidate_input;
        if (config_.linear_before_reset) {
          const C rbn = rb ? rb[2 * hidden + k] : C(0);
          candidate_input = x_gate[2 * hidden + k] + reset * (gate[2 * hidden + k] + rbn);
        } else {
          candidate_input = x_gate[2 * hidden + k] + reset_product[b * hidden + k];
        }
        candidate[k] = Clip(candidate_input);
      }
      ApplyInPlace(functions[1], candidate, hidden);
      for (int64_t k = 0; k < hidden; ++k) {
        const C z = gate[k];
        C& state = h[b * hidden + k];
        state = (C(1) - z) * candidate[k] + z * state;
      }
    });
  }

  // Gates in W/R/B order i, o, f, c; peepholes in order i, o, f.
  //   i = f(Xi + Hi + Pi . C), f = f(Xf + Hf + Pf . C) (1 - i with input_forget),
  //   c~ = g(Xc + Hc), C = f . C + i . c~, o = f(Xo + Ho + Po . C_new), H = o . h(C_new).
  void LstmEntry(const Activation* functions, const C* peephole, const C* x_gate, const C* h_gate,
                 C* h, C* c) const {
    const int64_t hidden = shape_.hidden;
    // Each gate's pre-activations as a row, then the activation over the row.
    C* input_gate = ThreadScratch<C>(4 * hidden);
    C* forget_gate = input_gate + hidden;
    C* cell_input = forget_gate + hidden;
    C* output_gate = cell_input + hidden;
    for (int64_t k = 0; k < hidden; ++k) {
      const C pi = peephole ? peephole[k] : C(0);
      input_gate[k] = Clip(x_gate[k] + h_gate[k] + pi * c[k]);
      cell_input[k] = Clip(x_gate[3 * hidden + k] + h_gate[3 * hidden + k]);
    }
    ApplyInPlace(functions[0], input_gate, hidden);
    ApplyInPlace(functions[1], cell_input, hidden);
    if (config_.input_forget) {
      for (int64_t k = 0; k < hidden; ++k) forget_gate[k] = C(1) - input_gate[k];
    } else {
      for (int64_t k = 0; k < hidden; ++k) {
        const C pf = peephole ? peephole[2 * hidden + k] : C(0);
        forget_gate[k] = Clip(x_gate[2 * hidden + k] + h_gate[2 * hidden + k] + pf * c[k]);
      }
      ApplyInPlace(functions[0], forget_gate, hidden);
    }
    for (int64_t k = 0; k < hidden; ++k) {
      const C po = peephole ? peephole[hidden + k] : C(0);
      c[k] = forget_gate[k] * c[k] + input_gate[k] * cell_input[k];
      output_gate[k] = Clip(x_gate[hidden + k] + h_gate[hidden + k] + po * c[k]);
    }
    ApplyInPlace(functions[0], output_gate, hidden);
    C* cell_output = cell_input;  // no longer needed: h(C_new) goes there
    std::copy_n(c, hidden, cell_output);
    ApplyInPlace(functions[2], cell_output, hidden);
    for (int64_t k = 0; k < hidden; ++k) h[k] = output_gate[k] * cell_output[k];
  }

  const CellConfig& config_;
  const RunShape& shape_;
  const CellInputs<C>& in_;
  const std::vector<int64_t>& lengths_;
  ThreadPool* pool_;
};

// Writes a [a, b, inner] compute buffer to a T tensor, swapping the first two axes when asked.
template <typename T, typename C>
void WriteOutput(const std::vector<C>& values, int64_t a, int64_t b, int64_t inner, bool swap,
                 Tensor& out) {
  T* data = out.MutableData<T>();
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j) {
      const int64_t target = swap ? (j * a + i) : (i * b + j);
      for (int64_t k = 0; k < inner; ++k)
        data[target * inner + k] = FromCompute<T>(values[(i * b + j) * inner + k]);
    }
}

template <typename T>
struct CellImpl {
  void operator()(const Node& node, const CellConfig& config, OpKernelContext& context) const {
    using C = FloatComputeTypeOf<T>;
    const RunShape shape = CheckShapes(node, config, context);
    const std::vector<int64_t> lengths = SequenceLengths(node, context.Input(4), shape);
    const int64_t dirs = config.num_directions;
    const int64_t layout = config.layout;

    std::vector<C> x_storage, w_storage, r_storage, b_storage, h0_storage, c0_storage, p_storage;
    CellInputs<C> in;
    in.x = SequenceMajor<T, C>(context.RequiredInput(0), layout, x_storage);
    in.w = AsCompute<T, C>(context.RequiredInput(1), w_storage);
    in.r = AsCompute<T, C>(context.RequiredInput(2), r_storage);
    if (const Tensor* b = context.Input(3)) in.b = AsCompute<T, C>(*b, b_storage);
    if (const Tensor* h0 = context.Input(5)) in.h0 = SequenceMajor<T, C>(*h0, layout, h0_storage);
    if (config.kind == CellKind::kLstm) {
      if (const Tensor* c0 = context.Input(6)) in.c0 = SequenceMajor<T, C>(*c0, layout, c0_storage);
      if (const Tensor* p = context.Input(7)) in.p = AsCompute<T, C>(*p, p_storage);
    }

    const int64_t hidden = shape.hidden;
    const int64_t state_size = dirs * shape.batch * hidden;
    CellOutputs<C> out;
    out.y.assign(static_cast<size_t>(shape.seq_length * state_size), C(0));
    out.y_h.assign(static_cast<size_t>(state_size), C(0));
    out.y_c.assign(config.kind == CellKind::kLstm ? out.y_h.size() : 0, C(0));
    // The two directions of a bidirectional cell are independent (they write disjoint parts of
    // the outputs): one thread each when the pool has two, else each GEMM uses the pool.
    ThreadPool* pool = context.IntraOpThreadPool();
    const bool by_direction = pool != nullptr && dirs == 2 && pool->DegreeOfParallelism() >= 2;
    const DirectionRunner<C> runner(config, shape, in, lengths, by_direction ? nullptr : pool);
    const double cost = 2.0 * static_cast<double>(shape.seq_length * shape.batch * shape.gates *
                                                  hidden * (shape.input_size + hidden));
    ThreadPool::TryParallelFor(by_direction ? pool : nullptr, dirs, cost,
                               [&](int64_t first, int64_t last) {
                                 for (int64_t direction = first; direction < last; ++direction)
                                   runner.Run(static_cast<int>(direction), out);
                               });

    const ElementType type = context.RequiredInput(0).Type();
    const bool swap = layout == 1;
    if (context.IsOutputRequested(0)) {
      const TensorShape y_shape = layout == 0
                                      ? TensorShape({shape.seq_length, dirs, shape.batch, hidden})
                                      : TensorShape({shape.batch, shape.seq_length, dirs, hidden});
      // Layout 1 moves the batch axis of [seq, dirs, batch, hidden] to the front.
      Tensor& y = context.Output(0, y_shape, type);
      if (!swap) {
        WriteOutput<T, C>(out.y, 1, 1, out.y.size(), false, y);
      } else {
        T* data = y.MutableData<T>();
        for (int64_t t = 0; t < shape.seq_length; ++t)
          for (int64_t d = 0; d < dirs; ++d)
            for (int64_t b = 0; b < shape.batch; ++b)
              for (int64_t k = 0; k < hidden; ++k)
                data[((b * shape.seq_length + t) * dirs + d) * hidden + k] =
                    FromCompute<T>(out.y[((t * dirs + d) * shape.batch + b) * hidden + k]);
      }
    }
    const TensorShape state_shape = layout == 0 ? TensorShape({dirs, shape.batch, hidden})
                                                : TensorShape({shape.batch, dirs, hidden});
    if (context.OutputCount() > 1 && context.IsOutputRequested(1))
      WriteOutput<T, C>(out.y_h, dirs, shape.batch, hidden, swap,
                        context.Output(1, state_shape, type));
    if (config.kind == CellKind::kLstm && context.OutputCount() > 2 && context.IsOutputRequested(2))
      WriteOutput<T, C>(out.y_c, dirs, shape.batch, hidden, swap,
                        context.Output(2, state_shape, type));
  }
};

template <CellKind kKind>
class RecurrentCell final : public OpKernel {
 public:
  explicit RecurrentCell(const OpKernelInfo& info)
      : OpKernel(info), config_(ParseConfig(info, kKind)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    DispatchByType<CellImpl, TypeList<float, double, Float16, BFloat16>>(x.Type(), node.OpType(),
                                                                         node, config_, context);
  }

 private:
  CellConfig config_;
};

void RegisterRecurrentKernels(KernelRegistry& registry) {
  using E = ElementType;
  const std::vector<E> floats = {E::kFloat16, E::kFloat, E::kDouble};
  const std::vector<E> floats_and_bfloat16 = {E::kBFloat16, E::kFloat16, E::kFloat, E::kDouble};
  struct Range {
    int since;
    int end;
  };
  const auto add = [&](const char* op, CellKind kind, const std::vector<Range>& ranges) {
    const int last_input = kind == CellKind::kLstm ? 7 : 5;
    const int last_output = kind == CellKind::kLstm ? 2 : 1;
    std::vector<int> t_inputs;
    for (int i = 0; i <= last_input; ++i)
      if (i != 4) t_inputs.push_back(i);
    std::vector<int> t_outputs;
    for (int o = 0; o <= last_output; ++o) t_outputs.push_back(o);
    for (const Range& range : ranges) {
      KernelFactory factory =
          kind == CellKind::kRnn   ? MakeKernelFactory<RecurrentCell<CellKind::kRnn>>()
          : kind == CellKind::kGru ? MakeKernelFactory<RecurrentCell<CellKind::kGru>>()
                                   : MakeKernelFactory<RecurrentCell<CellKind::kLstm>>();
      registry.Register(KernelDefBuilder(op)
                            .Versions(range.since, range.end)
                            .Constraint("T", range.since >= 22 ? floats_and_bfloat16 : floats,
                                        t_inputs, t_outputs)
                            .Constraint("T1", {E::kInt32}, {4})
                            .Build(),
                        std::move(factory));
    }
  };
  add("RNN", CellKind::kRnn, {{1, 6}, {7, 13}, {14, 21}, {22, INT_MAX}});
  add("GRU", CellKind::kGru, {{1, 2}, {3, 6}, {7, 13}, {14, 21}, {22, INT_MAX}});
  add("LSTM", CellKind::kLstm, {{1, 6}, {7, 13}, {14, 21}, {22, INT_MAX}});
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(recurrent, RegisterRecurrentKernels);

}  // namespace prism::cpu
