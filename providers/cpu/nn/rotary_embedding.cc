// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim (default: all) features of
// each head of X by the angles of cos_cache/sin_cache. X is [B, heads, S, D] or [B, S, heads * D]
// (num_heads then required). With position_ids [B, S] the caches are [max_position, R / 2] rows
// looked up by position; without, they are [B, S, R / 2]. Pairs are (2i, 2i + 1) when
// interleaved, else (i, i + R / 2): x1' = cos x1 - sin x2, x2' = sin x1 + cos x2. Computed in
// double.
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

struct RotaryShape {
  int64_t batch, heads, seq, head;
  bool heads_first;  // [B, heads, S, D]; else [B, S, heads, D]
  int64_t rotary;
  bool interleaved;
};

template <typename T>
struct RotaryImpl {
  void operator()(const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor* positions,
                  Tensor& y, const RotaryShape& r) const {
    const T* in = x.Data<T>();
    const T* cos_data = cos.Data<T>();
    const T* sin_data = sin.Data<T>();
    T* out = y.MutableData<T>();
    const int64_t half = r.rotary / 2;
    for (int64_t b = 0; b < r.batch; ++b) {
      for (int64_t s = 0; s < r.seq; ++s) {
        const int64_t row =
            positions != nullptr ? positions->Data<int64_t>()[b * r.seq + s] : b * r.seq + s;
        const T* c = cos_data + row * half;
        const T* n = sin_data + row * half;
        for (int64_t h = 0; h < r.heads; ++h) {
          const int64_t base = r.heads_first ? ((b * r.heads + h) * r.seq + s) * r.head
                                             : ((b * r.seq + s) * r.heads + h) * r.head;
          for (int64_t d = r.rotary; d < r.head; ++d) out[base + d] = in[base + d];
          for (int64_t i = 0; i < half; ++i) {
            const int64_t first = r.interleaved ? 2 * i : i;
            const int64_t second = r.interleaved ? 2 * i + 1 : i + half;
            const double x1 = ToDouble(in[base + first]), x2 = ToDouble(in[base + second]);
            const double cv = ToDouble(c[i]), sv = ToDouble(n[i]);
            out[base + first] = FromCompute<T>(cv * x1 - sv * x2);
            out[base + second] = FromCompute<T>(sv * x1 + cv * x2);
          }
        }
      }
    }
  }
};

class RotaryEmbedding final : public OpKernel {
 public:
  explicit RotaryEmbedding(const OpKernelInfo& info)
      : OpKernel(info),
        interleaved_(info.IntOr("interleaved", 0) != 0),
        rotary_dim_(info.IntOr("rotary_embedding_dim", 0)),
        num_heads_(info.IntOr("num_heads", 0)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const Tensor& cos = context.RequiredInput(1);
    const Tensor& sin = context.RequiredInput(2);
    const Tensor* positions = context.Input(3);
    const TensorShape& shape = x.Shape();
    RotaryShape r{};
    if (shape.Rank() == 4) {
      r = {shape[0], shape[1], shape[2], shape[3], true, 0, interleaved_};
    } else {
      PRISM_ENFORCE(shape.Rank() == 3, kInvalidArgument, node.Describe(),
                    ": X must be [B, heads, S, D] or [B, S, hidden], got ", shape.ToString());
      PRISM_ENFORCE(num_heads_ > 0 && shape[2] % num_heads_ == 0, kInvalidArgument, node.Describe(),
                    ": 3-D X needs num_heads dividing its hidden size ", shape[2],
                    ", got num_heads ", num_heads_);
      r = {shape[0], num_heads_, shape[1], shape[2] / num_heads_, false, 0, interleaved_};
    }
    r.rotary = rotary_dim_ > 0 ? rotary_dim_ : r.head;
    PRISM_ENFORCE(r.rotary % 2 == 0 && r.rotary <= r.head, kInvalidArgument, node.Describe(),
                  ": rotary_embedding_dim ", r.rotary, " must be even and at most the head size ",
                  r.head);
    PRISM_ENFORCE(cos.Type() == x.Type() && sin.Type() == x.Type(), kInvalidArgument,
                  node.Describe(), ": cos_cache and sin_cache must have X's type");
    const int64_t half = r.rotary / 2;
    if (positions != nullptr) {
      const std::vector<int64_t> position_dims = {r.batch, r.seq};
      PRISM_ENFORCE(positions->Shape().Dims() == position_dims, kInvalidArgument, node.Describe(),
                    ": position_ids must be [", r.batch, ", ", r.seq, "], got ",
                    positions->Shape().ToString());
      for (const Tensor* cache : {&cos, &sin})
        PRISM_ENFORCE(cache->Shape().Rank() == 2 && cache->Shape()[1] == half, kInvalidArgument,
                      node.Describe(), ": with position_ids the caches must be [max_position, ",
                      half, "], got ", cache->Shape().ToString());
      const int64_t max_position = cos.Shape()[0];
      PRISM_ENFORCE(sin.Shape()[0] == max_position, kInvalidArgument, node.Describe(),
                    ": cos_cache and sin_cache differ in length");
      for (int64_t i = 0; i < positions->NumElements(); ++i) {
        const int64_t p = positions->Data<int64_t>()[i];
        PRISM_ENFORCE(p >= 0 && p < max_position, kInvalidArgument, node.Describe(),
                      ": position_ids value ", p, " is outside [0, ", max_position, ")");
      }
    } else {
      const std::vector<int64_t> cache_dims = {r.batch, r.seq, half};
      for (const Tensor* cache : {&cos, &sin})
        PRISM_ENFORCE(cache->Shape().Dims() == cache_dims, kInvalidArgument, node.Describe(),
                      ": without position_ids the caches must be [", r.batch, ", ", r.seq, ", ",
                      half, "], got ", cache->Shape().ToString());
    }
    Tensor& y = context.Output(0, shape, x.Type());
    if (y.NumElements() == 0) return;
    DispatchByType<RotaryImpl, TypeList<float, Float16, BFloat16>>(x.Type(), node.OpType(), x, cos,
                                                                   sin, positions, y, r);
  }

 private:
  bool interleaved_;
  int64_t rotary_dim_;
  int64_t num_heads_;
};

void RegisterRotaryEmbeddingKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("RotaryEmbedding")
                        .Versions(23)
                        .Constraint("T", {E::kFloat, E::kFloat16, E::kBFloat16}, {0, 1, 2}, {0})
                        .Constraint("M", {E::kInt64}, {3})
                        .Build(),
                    MakeKernelFactory<RotaryEmbedding>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(nn_rotary_embedding, RegisterRotaryEmbeddingKernels);

}  // namespace prism::cpu
