// RotaryEmbedding (com.microsoft, version 1), as onnxruntime's CPU EP computes it: input is
// [B, S, hidden] (heads side by side) or [B, N, S, H]; position_ids is [1] (positions start + s
// for every entry) or [B, S]; cos_cache and sin_cache are [max_position, R / 2]. Each head's
// first R dims rotate (pairs (2k, 2k + 1) when interleaved, else (k, k + R / 2)):
//   x1' = x1 cos - x2 sin, x2' = x2 cos + x1 sin; the other dims pass through.
// The head size is hidden / num_heads when num_heads is given (rotary_embedding_dim, which
// needs num_heads, then sets R), else R = 2 * cos_cache's last dim is the head size.
// is_packed_batching is refused. float16 and bfloat16 compute in float.
#include <algorithm>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/contrib/attention_core.h"
#include "providers/cpu/cpu_kernel_families.h"

namespace prism::cpu::contrib {
namespace {

class RotaryEmbedding final : public OpKernel {
 public:
  explicit RotaryEmbedding(const OpKernelInfo& info)
      : OpKernel(info),
        num_heads_(info.IntOr("num_heads", 0)),
        rotary_dim_(info.IntOr("rotary_embedding_dim", 0)),
        interleaved_(info.IntOr("interleaved", 0) != 0) {
    const Node& node = info.GetNode();
    PRISM_ENFORCE(rotary_dim_ == 0 || num_heads_ > 0, kInvalidArgument, node.Describe(),
                  ": num_heads must be given with rotary_embedding_dim");
    PRISM_ENFORCE(num_heads_ >= 0 && rotary_dim_ >= 0 && rotary_dim_ % 2 == 0, kInvalidArgument,
                  node.Describe(), ": num_heads ", num_heads_, " and rotary_embedding_dim ",
                  rotary_dim_, " must be nonnegative, the latter even");
    PRISM_ENFORCE(info.IntOr("is_packed_batching", 0) == 0, kNotImplemented, node.Describe(),
                  ": is_packed_batching is not supported on the CPU EP");
  }

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& input = context.RequiredInput(0);
    const Tensor& position_ids = context.RequiredInput(1);
    const Tensor& cos_cache = context.RequiredInput(2);
    const Tensor& sin_cache = context.RequiredInput(3);
    const TensorShape& xs = input.Shape();
    PRISM_ENFORCE(xs.Rank() == 3 || xs.Rank() == 4, kInvalidArgument, node.Describe(),
                  ": input 0 (input) must be [batch, sequence, hidden] or [batch, heads, "
                  "sequence, head_size], got ",
                  xs.ToString());
    PRISM_ENFORCE(cos_cache.Shape().Rank() == 2 && cos_cache.Shape() == sin_cache.Shape(),
                  kInvalidArgument, node.Describe(),
                  ": inputs 2 (cos_cache) and 3 (sin_cache) must have one 2-D shape, got ",
                  cos_cache.Shape().ToString(), " and ", sin_cache.Shape().ToString());
    for (const Tensor* t : {&cos_cache, &sin_cache})
      PRISM_ENFORCE(t->Type() == input.Type(), kInvalidArgument, node.Describe(),
                    ": cos_cache and sin_cache must have input's type ", input.Describe(), ", got ",
                    t->Describe());
    const int64_t max_position = cos_cache.Shape()[0], half_cache = cos_cache.Shape()[1];
    const bool heads_first = xs.Rank() == 4;
    const int64_t batch = xs[0], seq = heads_first ? xs[2] : xs[1];
    int64_t heads = 0, head = 0;
    if (heads_first) {
      heads = xs[1];
      head = xs[3];
    } else if (num_heads_ > 0) {
      heads = num_heads_;
      head = xs[2] / heads;
      PRISM_ENFORCE(head * heads == xs[2], kInvalidArgument, node.Describe(), ": hidden size ",
                    xs[2], " is not divisible by num_heads ", heads);
    } else {
      head = 2 * half_cache;
      PRISM_ENFORCE(head > 0 && xs[2] % head == 0, kInvalidArgument, node.Describe(),
                    ": hidden size ", xs[2], " is not a multiple of the head size ", head,
                    " (2 * cos_cache's last dim) and num_heads is not given");
      heads = xs[2] / head;
    }
    const int64_t rotary = rotary_dim_ > 0 ? rotary_dim_ : 2 * half_cache;
    PRISM_ENFORCE(rotary <= head && rotary == 2 * half_cache, kInvalidArgument, node.Describe(),
                  ": the rotated dims ", rotary, " must be 2 * cos_cache's last dim (", half_cache,
                  ") and at most the head size ", head);
    const TensorShape& ps = position_ids.Shape();
    const bool per_token = !(ps.Rank() == 1 && ps[0] == 1);
    PRISM_ENFORCE(!per_token || ps == TensorShape({batch, seq}), kInvalidArgument, node.Describe(),
                  ": input 1 (position_ids) must be [1] or [", batch, ", ", seq, "], got ",
                  ps.ToString());
    const int64_t* positions = position_ids.Data<int64_t>();
    const auto position_of = [&](int64_t b, int64_t s) {
      const int64_t p = per_token ? positions[b * seq + s] : positions[0] + s;
      PRISM_ENFORCE(p >= 0 && p < max_position, kInvalidArgument, node.Describe(), ": position ", p,
                    " (batch entry ", b, ", token ", s, ") is outside cos_cache's ", max_position,
                    " rows");
      return p;
    };
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < seq; ++s) position_of(b, s);  // refuse before computing

    const FloatView x(&input), cos(&cos_cache), sin(&sin_cache);
    std::vector<float> y(x.data(), x.data() + xs.Size());
    const int64_t half = rotary / 2;
    ThreadPool::TryParallelFor(
        context.IntraOpThreadPool(), batch * seq, 4.0 * static_cast<double>(heads * rotary),
        [&](int64_t first, int64_t last) {
          for (int64_t token = first; token < last; ++token) {
            const int64_t b = token / seq, s = token % seq;
            const int64_t p = position_of(b, s);
            const float* c = cos.data() + p * half;
            const float* sn = sin.data() + p * half;
            for (int64_t h = 0; h < heads; ++h) {
              float* v = y.data() + (heads_first ? ((b * heads + h) * seq + s) * head
                                                 : ((b * seq + s) * heads + h) * head);
              for (int64_t k = 0; k < half; ++k) {
                const int64_t i = interleaved_ ? 2 * k : k, j = interleaved_ ? 2 * k + 1 : k + half;
                const float x1 = v[i], x2 = v[j];
                v[i] = x1 * c[k] - x2 * sn[k];
                v[j] = x2 * c[k] + x1 * sn[k];
              }
            }
          }
        });
    StoreFloats(y.data(), context.Output(0, xs, input.Type()));
  }

 private:
  int64_t num_heads_, rotary_dim_;
  bool interleaved_;
};

void RegisterRotaryEmbeddingContribKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("RotaryEmbedding")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T", {E::kFloat, E::kFloat16, E::kBFloat16}, {0, 2, 3}, {0})
                        .Constraint("M", {E::kInt64}, {1})
                        .Build(),
                    MakeKernelFactory<RotaryEmbedding>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_rotary_embedding, RegisterRotaryEmbeddingContribKernels);

}  // namespace prism::cpu::contrib
