// Gemm: Y = alpha * A' * B' + beta * C with A' = transA ? A^T : A, B' = transB ? B^T : B, and C
// unidirectionally broadcast to (M, N). Before opset 7 C is required and only broadcast when
// the "broadcast" attribute is set; from opset 11 C is optional.
// com.microsoft FusedGemm (onnxruntime's contrib op, float) is the same kernel followed by an
// activation on Y: activation (Relu, LeakyRelu, Tanh, Sigmoid, HardSigmoid, Elu, Selu, Softplus,
// Softsign, ThresholdedRelu) with its parameters as activation_alpha / _beta / _gamma (the ONNX
// op's defaults when absent), applied by contrib/fused_activation.cc.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/thread_pool.h"
#include "mlas/gemm.h"
#include "mlas/packed_gemm.h"
#include "mlas/sgemm.h"
#include "providers/cpu/contrib/fused_activation.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/math/packed_b_weight.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

struct GemmPlan {
  ThreadPool* pool = nullptr;  // the session's intra-op pool (nullptr: this thread)
  bool trans_a = false;
  bool trans_b = false;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  float alpha = 1.f;
  float beta = 1.f;
  const Tensor* c = nullptr;  // nullptr when absent or when beta == 0 makes it irrelevant
};

// Writes C broadcast to (m, n) into y (row-major, leading dimension n).
template <typename T>
void BroadcastC(const T* c, const TensorShape& c_shape, int64_t m, int64_t n, T* y) {
  const int64_t c_rows = c_shape.Rank() == 2 ? c_shape[0] : 1;
  const int64_t c_cols = c_shape.Rank() >= 1 ? c_shape[c_shape.Rank() - 1] : 1;
  for (int64_t i = 0; i < m; ++i) {
    const T* c_row = c + (c_rows == 1 ? 0 : i * c_cols);
    T* y_row = y + i * n;
    if (c_cols == 1) {
      for (int64_t j = 0; j < n; ++j) y_row[j] = c_row[0];
    } else {
      for (int64_t j = 0; j < n; ++j) y_row[j] = c_row[j];
    }
  }
}

// Y's blocks finished while they are still in cache, after the packed-B product alpha A B:
// + beta C (broadcast as BroadcastC does) and FusedGemm's activation, instead of a pass that
// copied C into Y before the product and another over Y for the activation, both on one thread.
struct PackedGemmEpilogue {
  const float* c = nullptr;  // null: no C term
  int64_t c_rows = 1, c_cols = 1;
  float beta = 0.0f;
  const FusedActivation* activation = nullptr;  // null: none

  static void Apply(const void* context, int64_t row, int64_t rows, int64_t column, int64_t columns,
                    float* block, int64_t ldc) {
    const auto& e = *static_cast<const PackedGemmEpilogue*>(context);
    for (int64_t r = 0; r < rows; ++r) {
      float* y = block + r * ldc;
      if (e.c != nullptr) {
        const float* c_row = e.c + (e.c_rows == 1 ? 0 : (row + r) * e.c_cols);
        if (e.c_cols == 1) {
          const float term = e.beta * c_row[0];
          for (int64_t j = 0; j < columns; ++j) y[j] += term;
        } else {
          for (int64_t j = 0; j < columns; ++j) y[j] += e.beta * c_row[column + j];
        }
      }
      if (e.activation != nullptr) ApplyFusedActivation(*e.activation, y, columns);
    }
  }
};

template <typename T>
void RunFloatGemm(const GemmPlan& plan, const T* a, const T* b, const T* c,
                  const TensorShape& c_shape, T* y) {
  const int64_t lda = plan.trans_a ? plan.m : plan.k;
  const int64_t ldb = plan.trans_b ? plan.k : plan.n;
  T beta = T(0);
  if (c != nullptr) {
    BroadcastC(c, c_shape, plan.m, plan.n, y);
    beta = static_cast<T>(plan.beta);
  }
  mlas::Gemm<T>(plan.trans_a, plan.trans_b, plan.m, plan.n, plan.k, static_cast<T>(plan.alpha), a,
                lda, b, ldb, beta, y, plan.n, plan.pool);
}

// An integral float attribute as the integer type T (wrapping like the integer product does),
// or false when the value has a fractional part or is out of range.
template <typename T>
bool IntegralScalar(float value, T* out) {
  if (!std::isfinite(value) || std::trunc(value) != value || std::fabs(value) >= 9.2e18f) {
    return false;
  }
  *out = static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<int64_t>(value)));
  return true;
}

template <typename T>
T SaturatingCast(double value) {
  if (std::isnan(value)) return T(0);
  if (value <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (value >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(value);
}

template <typename T>
void RunIntegerGemm(const GemmPlan& plan, const T* a, const T* b, const T* c,
                    const TensorShape& c_shape, T* y) {
  const int64_t lda = plan.trans_a ? plan.m : plan.k;
  const int64_t ldb = plan.trans_b ? plan.k : plan.n;
  T alpha{};
  T beta{};
  const bool exact = IntegralScalar(plan.alpha, &alpha) && IntegralScalar(plan.beta, &beta);
  if (exact) {
    // Exact integer arithmetic (the common case: alpha = beta = 1).
    if (c != nullptr) BroadcastC(c, c_shape, plan.m, plan.n, y);
    mlas::Gemm<T>(plan.trans_a, plan.trans_b, plan.m, plan.n, plan.k, alpha, a, lda, b, ldb,
                  c != nullptr ? beta : T(0), y, plan.n, plan.pool);
    return;
  }
  // Fractional alpha or beta: exact integer product, then scale in double and truncate toward
  // zero as numpy's astype does (saturating instead of overflowing).
  mlas::Gemm<T>(plan.trans_a, plan.trans_b, plan.m, plan.n, plan.k, T(1), a, lda, b, ldb, T(0), y,
                plan.n, plan.pool);
  std::vector<T> c_full;
  if (c != nullptr) {
    c_full.resize(static_cast<size_t>(plan.m * plan.n));
    BroadcastC(c, c_shape, plan.m, plan.n, c_full.data());
  }
  for (int64_t i = 0; i < plan.m * plan.n; ++i) {
    double value = static_cast<double>(plan.alpha) * static_cast<double>(y[i]);
    if (c != nullptr) value += static_cast<double>(plan.beta) * static_cast<double>(c_full[i]);
    y[i] = SaturatingCast<T>(std::trunc(value));
  }
}

template <typename T>
struct GemmImpl {
  void operator()(const GemmPlan& plan, const Tensor& a, const Tensor& b, Tensor& y) const {
    const T* c = plan.c != nullptr ? plan.c->Data<T>() : nullptr;
    const TensorShape c_shape = plan.c != nullptr ? plan.c->Shape() : TensorShape();
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      // Half types compute in float and round once at the end.
      const auto widen = [](const T* src, int64_t count) {
        std::vector<float> out(static_cast<size_t>(count));
        for (size_t i = 0; i < out.size(); ++i) out[i] = src[i].ToFloat();
        return out;
      };
      const std::vector<float> a_float = widen(a.Data<T>(), a.NumElements());
      const std::vector<float> b_float = widen(b.Data<T>(), b.NumElements());
      std::vector<float> c_float;
      if (c != nullptr) c_float = widen(c, plan.c->NumElements());
      std::vector<float> y_float(static_cast<size_t>(y.NumElements()));
      RunFloatGemm<float>(plan, a_float.data(), b_float.data(),
                          c != nullptr ? c_float.data() : nullptr, c_shape, y_float.data());
      T* out = y.MutableData<T>();
      for (size_t i = 0; i < y_float.size(); ++i) out[i] = T(y_float[i]);
    } else if constexpr (std::is_floating_point_v<T>) {
      RunFloatGemm<T>(plan, a.Data<T>(), b.Data<T>(), c, c_shape, y.MutableData<T>());
    } else {
      RunIntegerGemm<T>(plan, a.Data<T>(), b.Data<T>(), c, c_shape, y.MutableData<T>());
    }
  }
};

using GemmTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

class Gemm final : public OpKernel {
 public:
  explicit Gemm(const OpKernelInfo& info)
      : OpKernel(info),
        trans_a_(info.IntOr("transA", 0) != 0),
        trans_b_(info.IntOr("transB", 0) != 0),
        alpha_(info.FloatOr("alpha", 1.f)),
        beta_(info.FloatOr("beta", 1.f)),
        // Only opsets 1-6 have the attribute; later C always broadcasts.
        // FusedGemm (com.microsoft version 1) follows the latest Gemm: C optional, broadcast.
        fused_(info.GetNode().Domain() == "com.microsoft"),
        broadcast_(fused_ || info.GetNode().OpsetVersion() >= 7 || info.IntOr("broadcast", 0) != 0),
        c_required_(!fused_ && info.GetNode().OpsetVersion() < 11),
        activation_(fused_ ? FusedGemmActivation(info) : FusedActivation{}) {}

  // A constant 2-D float B is packed once (packed_b_weight.h), as op(B).
  std::string PrePackFormat(int input_index, const Tensor& weight) const override {
    return input_index == 1 ? PackedBFormat(weight, trans_b_) : "";
  }
  PrePackedWeight PrePack(int /*input_index*/, const Tensor& weight) const override {
    return PackB(weight, trans_b_);
  }
  void UsePrePacked(int /*input_index*/, PrePackedWeight packed) override {
    packed_b_ = PackedBOf(packed);
    packed_b_shape_ = packed.shape;
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& a = context.RequiredInput(0);
    if (packed_b_ != nullptr) return ComputeWithPackedB(context, a);
    const Tensor& b = context.RequiredInput(1);
    // C is required before opset 11; RequiredInput names the node when it is missing.
    const Tensor* c = c_required_ ? &context.RequiredInput(2) : context.Input(2);
    PRISM_ENFORCE(a.Type() == b.Type() && (c == nullptr || c->Type() == a.Type()), kInvalidArgument,
                  node.Describe(), ": Gemm inputs must share one element type, got A ",
                  ElementTypeName(a.Type()), ", B ", ElementTypeName(b.Type()),
                  c != nullptr ? MakeString(", C ", ElementTypeName(c->Type())) : "");
    PRISM_ENFORCE(a.Shape().Rank() == 2 && b.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                  ": Gemm needs 2-D A and B, got A ", a.Shape().ToString(), " and B ",
                  b.Shape().ToString());

    GemmPlan plan;
    plan.pool = context.IntraOpThreadPool();
    plan.trans_a = trans_a_;
    plan.trans_b = trans_b_;
    plan.alpha = alpha_;
    plan.beta = beta_;
    plan.m = trans_a_ ? a.Shape()[1] : a.Shape()[0];
    plan.k = trans_a_ ? a.Shape()[0] : a.Shape()[1];
    const int64_t b_k = trans_b_ ? b.Shape()[1] : b.Shape()[0];
    plan.n = trans_b_ ? b.Shape()[0] : b.Shape()[1];
    PRISM_ENFORCE(plan.k == b_k, kInvalidArgument, node.Describe(),
                  ": Gemm inner dimensions differ: A", trans_a_ ? "^T" : "", " ",
                  a.Shape().ToString(), " has K = ", plan.k, " but B", trans_b_ ? "^T" : "", " ",
                  b.Shape().ToString(), " has K = ", b_k);
    if (c != nullptr) CheckC(c->Shape(), plan.m, plan.n);
    // With beta == 0, C does not contribute (not even its NaNs), as in the ONNX reference.
    plan.c = beta_ != 0.f ? c : nullptr;

    Tensor& y = context.Output(0, TensorShape({plan.m, plan.n}), a.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<GemmImpl, GemmTypes>(a.Type(), "Gemm", plan, a, b, y);
    Activate(y);
  }

 private:
  void ComputeWithPackedB(OpKernelContext& context, const Tensor& a) const {
    const Node& node = GetNode();
    const Tensor* c = c_required_ ? &context.RequiredInput(2) : context.Input(2);
    PRISM_ENFORCE(a.Type() == ElementType::kFloat && (c == nullptr || c->Type() == a.Type()),
                  kInvalidArgument, node.Describe(),
                  ": Gemm inputs must share one element type, got A ", ElementTypeName(a.Type()),
                  ", B float", c != nullptr ? MakeString(", C ", ElementTypeName(c->Type())) : "");
    PRISM_ENFORCE(a.Shape().Rank() == 2, kInvalidArgument, node.Describe(),
                  ": Gemm needs 2-D A and B, got A ", a.Shape().ToString(), " and B ",
                  packed_b_shape_.ToString());
    const int64_t m = trans_a_ ? a.Shape()[1] : a.Shape()[0];
    const int64_t k = trans_a_ ? a.Shape()[0] : a.Shape()[1];
    const int64_t n = packed_b_->N();
    PRISM_ENFORCE(k == packed_b_->K(), kInvalidArgument, node.Describe(),
                  ": Gemm inner dimensions differ: A", trans_a_ ? "^T" : "", " ",
                  a.Shape().ToString(), " has K = ", k, " but B", trans_b_ ? "^T" : "", " ",
                  packed_b_shape_.ToString(), " has K = ", packed_b_->K());
    if (c != nullptr) CheckC(c->Shape(), m, n);
    Tensor& y = context.Output(0, TensorShape({m, n}), a.Type());
    if (y.NumElements() == 0) return;
    // With beta == 0, C does not contribute (not even its NaNs), as in the ONNX reference.
    PackedGemmEpilogue finish;
    if (c != nullptr && beta_ != 0.f) {
      const TensorShape& c_shape = c->Shape();
      finish.c = c->Data<float>();
      finish.c_rows = c_shape.Rank() == 2 ? c_shape[0] : 1;
      finish.c_cols = c_shape.Rank() >= 1 ? c_shape[c_shape.Rank() - 1] : 1;
      finish.beta = beta_;
    }
    if (activation_.kind != FusedActivation::Kind::kNone) finish.activation = &activation_;
    const mlas::SgemmEpilogue epilogue{&PackedGemmEpilogue::Apply, &finish};
    const bool any = finish.c != nullptr || finish.activation != nullptr;
    mlas::GemmPackedB(trans_a_, m, a.Data<float>(), trans_a_ ? m : k, alpha_, *packed_b_, 0.0f,
                      y.MutableData<float>(), n, context.IntraOpThreadPool(),
                      any ? &epilogue : nullptr);
  }

  // FusedGemm's activation and its parameters; a name it does not know is refused when the
  // session is built.
  static FusedActivation FusedGemmActivation(const OpKernelInfo& info) {
    using Kind = FusedActivation::Kind;
    const std::string name = info.StringOr("activation", "");
    const std::optional<Kind> kind = FusedActivationKind(name);
    PRISM_ENFORCE(kind && *kind != Kind::kClip, kInvalidArgument, info.GetNode().Describe(),
                  ": FusedGemm activation '", name,
                  "' is not one of Relu, LeakyRelu, Tanh, Sigmoid, HardSigmoid, Elu, Selu, "
                  "Softplus, Softsign, ThresholdedRelu");
    FusedActivation activation;
    activation.kind = *kind;
    // The defaults are the ONNX ops' (opset 6 on for Selu).
    float alpha = 0.0f, beta = 0.0f, gamma = 0.0f;
    switch (*kind) {
      case Kind::kLeakyRelu:
        alpha = 0.01f;
        break;
      case Kind::kHardSigmoid:
        alpha = 0.2f;
        beta = 0.5f;
        break;
      case Kind::kElu:
      case Kind::kThresholdedRelu:
        alpha = 1.0f;
        break;
      case Kind::kSelu:
        alpha = 1.67326319217681884765625f;
        gamma = 1.05070102214813232421875f;
        break;
      default:
        break;
    }
    activation.alpha = info.FloatOr("activation_alpha", alpha);
    activation.beta = info.FloatOr("activation_beta", beta);
    activation.gamma = info.FloatOr("activation_gamma", gamma);
    return activation;
  }

  void Activate(Tensor& y) const {
    if (activation_.kind == FusedActivation::Kind::kNone) return;
    ApplyFusedActivation(activation_, y.MutableData<float>(), y.NumElements());
  }

  void CheckC(const TensorShape& c_shape, int64_t m, int64_t n) const {
    const std::vector<int64_t>& dims = c_shape.Dims();
    bool ok;
    if (!broadcast_) {
      ok = dims.size() == 2 && dims[0] == m && dims[1] == n;
    } else if (dims.size() == 2) {
      ok = (dims[0] == m || dims[0] == 1) && (dims[1] == n || dims[1] == 1);
    } else if (dims.size() == 1) {
      ok = dims[0] == n || dims[0] == 1;
    } else {
      ok = dims.empty();
    }
    PRISM_ENFORCE(ok, kInvalidArgument, GetNode().Describe(), ": Gemm input C ", c_shape.ToString(),
                  broadcast_ ? " is not unidirectionally broadcastable to "
                             : " must have shape (broadcast=0) ",
                  "[", m, ",", n, "]");
  }

  bool trans_a_;
  bool trans_b_;
  float alpha_;
  float beta_;
  bool fused_;
  bool broadcast_;
  bool c_required_;
  FusedActivation activation_;  // FusedGemm only
  std::shared_ptr<const mlas::PackedMatrixB> packed_b_;
  TensorShape packed_b_shape_;
};

void RegisterGemmKernels(KernelRegistry& registry) {
  using ET = ElementType;
  const std::vector<ET> float_types = {ET::kFloat16, ET::kFloat, ET::kDouble};
  std::vector<ET> types_v9 = float_types;
  types_v9.insert(types_v9.end(), {ET::kUint32, ET::kUint64, ET::kInt32, ET::kInt64});
  std::vector<ET> types_v13 = types_v9;
  types_v13.push_back(ET::kBFloat16);

  const auto factory = MakeKernelFactory<Gemm>();
  const auto add = [&](int since, int end, const std::vector<ET>& types) {
    registry.Register(KernelDefBuilder("Gemm")
                          .Versions(since, end)
                          .Constraint("T", types, {0, 1, 2}, {0})
                          .Build(),
                      factory);
  };
  add(1, 5, float_types);
  add(6, 6, float_types);
  add(7, 8, float_types);
  add(9, 10, types_v9);
  add(11, 12, types_v9);
  add(13, INT_MAX, types_v13);
  registry.Register(KernelDefBuilder("FusedGemm")
                        .Domain("com.microsoft")
                        .Versions(1)
                        .Constraint("T", {ET::kFloat}, {0, 1, 2}, {0})
                        .Build(),
                    factory);
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(math_gemm, RegisterGemmKernels);

}  // namespace prism::cpu
