// EmbedLayerNormalization (com.microsoft, version 1): BERT's embedding layer.
//   inputs: input_ids [B, S], segment_ids [B, S]?, word_embedding [V, H],
//           position_embedding [P, H], segment_embedding [G, H]?, gamma [H], beta [H],
//           mask [B, S]?, position_ids [B, S] or [1, S]? (absent: position s)
//   e = word[input_ids] + position[position_ids] + segment[segment_ids]
//   output = LayerNormalization(e) over H with gamma, beta and epsilon (default 1e-12)
//   mask_index [B] (int32): per batch entry, the number of mask values equal to 1 (zeros without
//   a mask), as onnxruntime computes it; embedding_sum: e.
// Ids are int32 and must index their table (an id outside it is an error naming the input).
// Tokens are split over the intra-op pool; float16 computes in float.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/thread_pool.h"
#include "providers/cpu/contrib/contrib_common.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu::contrib {
namespace {

struct EmbedJob {
  const Tensor* input_ids;
  const Tensor* segment_ids;   // nullptr: none
  const Tensor* position_ids;  // nullptr: position s
  const Tensor* word;
  const Tensor* position;
  const Tensor* segment;  // nullptr: none
  const Tensor* gamma;
  const Tensor* beta;
  Tensor* output;
  Tensor* sum;  // nullptr: not requested
  int64_t batch;
  int64_t sequence;
  int64_t hidden;
  double epsilon;
  std::string node;
  ThreadPool* pool;
};

// The table row an id selects, or an error naming the input and the offending value.
int64_t RowOf(int32_t id, int64_t rows, const char* name, const std::string& node) {
  PRISM_ENFORCE(id >= 0 && id < rows, kInvalidArgument, node, ": ", name, " value ", id,
                " is out of range [0, ", rows, ") of its embedding table");
  return id;
}

template <typename T>
struct EmbedImpl {
  void operator()(const EmbedJob& job) const {
    const std::vector<float> gamma = Widen<T, float>(*job.gamma);
    const std::vector<float> beta = Widen<T, float>(*job.beta);
    const int32_t* ids = job.input_ids->Data<int32_t>();
    const int32_t* segment_ids =
        job.segment_ids != nullptr ? job.segment_ids->Data<int32_t>() : nullptr;
    const int32_t* position_ids =
        job.position_ids != nullptr ? job.position_ids->Data<int32_t>() : nullptr;
    const bool shared_positions =
        job.position_ids != nullptr && job.position_ids->Shape()[0] == 1 && job.batch != 1;
    const T* word = job.word->Data<T>();
    const T* position = job.position->Data<T>();
    const T* segment = job.segment != nullptr ? job.segment->Data<T>() : nullptr;
    const int64_t word_rows = job.word->Shape()[0], position_rows = job.position->Shape()[0];
    const int64_t segment_rows = job.segment != nullptr ? job.segment->Shape()[0] : 0;
    T* output = job.output->MutableData<T>();
    T* sum_out = job.sum != nullptr ? job.sum->MutableData<T>() : nullptr;
    const int64_t hidden = job.hidden;
    ThreadPool::TryParallelFor(
        job.pool, job.batch * job.sequence, 12.0 * static_cast<double>(hidden),
        [&](int64_t first, int64_t last) {
          std::vector<float> e(static_cast<size_t>(hidden));
          for (int64_t token = first; token < last; ++token) {
            const int64_t s = token % job.sequence;
            const T* w =
                word + RowOf(ids[token], word_rows, "input 0 (input_ids)", job.node) * hidden;
            const int64_t pos_id =
                position_ids == nullptr ? s : position_ids[shared_positions ? s : token];
            PRISM_ENFORCE(pos_id >= 0 && pos_id < position_rows, kInvalidArgument, job.node, ": ",
                          position_ids == nullptr ? "position " : "input 8 (position_ids) value ",
                          pos_id, " is out of range [0, ", position_rows,
                          ") of input 3 (position_embedding)");
            const T* p = position + pos_id * hidden;
            for (int64_t c = 0; c < hidden; ++c) e[c] = ToCompute(w[c]) + ToCompute(p[c]);
            if (segment != nullptr) {
              const T* g = segment + RowOf(segment_ids[token], segment_rows,
                                           "input 1 (segment_ids)", job.node) *
                                         hidden;
              for (int64_t c = 0; c < hidden; ++c) e[c] += ToCompute(g[c]);
            }
            if (sum_out != nullptr)
              for (int64_t c = 0; c < hidden; ++c)
                sum_out[token * hidden + c] = FromCompute<T>(e[c]);
            double mean = 0;
            for (int64_t c = 0; c < hidden; ++c) mean += e[c];
            mean /= static_cast<double>(hidden);
            double squares = 0;
            for (int64_t c = 0; c < hidden; ++c) {
              const double d = e[c] - mean;
              squares += d * d;
            }
            const float inv_std = static_cast<float>(
                1.0 / std::sqrt(squares / static_cast<double>(hidden) + job.epsilon));
            const float mean_f = static_cast<float>(mean);
            T* out = output + token * hidden;
            for (int64_t c = 0; c < hidden; ++c)
              out[c] = FromCompute<T>((e[c] - mean_f) * inv_std * gamma[c] + beta[c]);
          }
        });
  }
};

class EmbedLayerNormalization final : public OpKernel {
 public:
  explicit EmbedLayerNormalization(const OpKernelInfo& info)
      : OpKernel(info), epsilon_(info.FloatOr("epsilon", 1e-12f)) {}

  void Compute(OpKernelContext& context) const override {
    ComputeWithTables(context, context.RequiredInput(2), context.RequiredInput(3), context.Input(4),
                      context.RequiredInput(5), context.RequiredInput(6),
                      context.InputCount() > 8 ? context.Input(8) : nullptr, epsilon_);
  }

  // The float (or float16) tables, gamma and beta; ids and mask are inputs 0, 1 and 7 in both
  // EmbedLayerNormalization and QEmbedLayerNormalization.
  static void ComputeWithTables(OpKernelContext& context, const Tensor& word,
                                const Tensor& position, const Tensor* segment, const Tensor& gamma,
                                const Tensor& beta, const Tensor* position_ids, double epsilon) {
    const Node& node = context.GetNode();
    const std::string where = node.Describe();
    const Tensor& input_ids = context.RequiredInput(0);
    const Tensor* segment_ids = context.Input(1);
    const Tensor* mask = context.InputCount() > 7 ? context.Input(7) : nullptr;

    const TensorShape& ids_shape = input_ids.Shape();
    PRISM_ENFORCE(ids_shape.Rank() == 2, kInvalidArgument, where,
                  ": input 0 (input_ids) must be 2-D [batch, sequence], got ",
                  ids_shape.ToString());
    const int64_t batch = ids_shape[0], sequence = ids_shape[1];
    PRISM_ENFORCE((segment_ids == nullptr) == (segment == nullptr), kInvalidArgument, where,
                  ": input 1 (segment_ids) and input 4 (segment_embedding) must be given "
                  "together, got ",
                  segment_ids == nullptr ? "only segment_embedding" : "only segment_ids");
    const auto same_as_ids = [&](const Tensor* t, const char* name) {
      PRISM_ENFORCE(t == nullptr || t->Shape() == ids_shape, kInvalidArgument, where, ": ", name,
                    " must have input_ids' shape ", ids_shape.ToString(), ", got ",
                    t == nullptr ? std::string() : t->Shape().ToString());
    };
    same_as_ids(segment_ids, "input 1 (segment_ids)");
    same_as_ids(mask, "input 7 (mask)");
    if (position_ids != nullptr)
      PRISM_ENFORCE(position_ids->Shape() == ids_shape ||
                        (position_ids->Shape().Rank() == 2 && position_ids->Shape()[0] == 1 &&
                         position_ids->Shape()[1] == sequence),
                    kInvalidArgument, where, ": input 8 (position_ids) must be ",
                    ids_shape.ToString(), " or [1, ", sequence, "], got ",
                    position_ids->Shape().ToString());
    PRISM_ENFORCE(word.Shape().Rank() == 2, kInvalidArgument, where,
                  ": input 2 (word_embedding) must be 2-D [vocabulary, hidden], got ",
                  word.Shape().ToString());
    const int64_t hidden = word.Shape()[1];
    for (const auto& [table, name] :
         {std::pair{&position, "input 3 (position_embedding)"},
          std::pair{static_cast<const Tensor*>(segment), "input 4 (segment_embedding)"}})
      PRISM_ENFORCE(table == nullptr || (table->Shape().Rank() == 2 && table->Shape()[1] == hidden),
                    kInvalidArgument, where, ": ", name, " must be 2-D [rows, ", hidden,
                    "] (word_embedding's hidden size), got ",
                    table == nullptr ? std::string() : table->Shape().ToString());
    const TensorShape out_shape({batch, sequence, hidden});
    EnforceChannelVector(node, gamma, "input 5 (gamma)", hidden, out_shape);
    EnforceChannelVector(node, beta, "input 6 (beta)", hidden, out_shape);
    for (const Tensor* t : {&position, segment, &gamma, &beta})
      PRISM_ENFORCE(t == nullptr || t->Type() == word.Type(), kInvalidArgument, where,
                    ": embeddings, gamma and beta must have word_embedding's type ",
                    ElementTypeName(word.Type()), ", got ", t->Describe());

    Tensor& output = context.Output(0, out_shape, word.Type());
    if (context.OutputCount() > 1 && context.IsOutputRequested(1)) {
      Tensor& mask_index = context.Output(1, TensorShape({batch}), ElementType::kInt32);
      int32_t* counts = mask_index.MutableData<int32_t>();
      const int32_t* mask_values = mask != nullptr ? mask->Data<int32_t>() : nullptr;
      for (int64_t b = 0; b < batch; ++b) {
        int32_t count = 0;
        if (mask_values != nullptr)
          for (int64_t s = 0; s < sequence; ++s) count += mask_values[b * sequence + s] == 1;
        counts[b] = count;
      }
    }
    Tensor* sum = context.OutputCount() > 2 && context.IsOutputRequested(2)
                      ? &context.Output(2, out_shape, word.Type())
                      : nullptr;
    if (output.NumElements() == 0) return;
    const EmbedJob job{&input_ids, segment_ids, position_ids, &word,
                       &position,  segment,     &gamma,       &beta,
                       &output,    sum,         batch,        sequence,
                       hidden,     epsilon,     where,        context.IntraOpThreadPool()};
    DispatchByType<EmbedImpl, TypeList<float, Float16>>(word.Type(), node.OpType(), job);
  }

 private:
  double epsilon_;
};

// QEmbedLayerNormalization (com.microsoft, version 1), as onnxruntime's quantization tools write
// it: the tables, gamma and beta are 8-bit with one scale and zero point each (inputs 8-12 the
// scales, 13-17 the zero points, in the order word, position, segment, gamma, beta); they are
// dequantized, (q - zero_point) * scale, and EmbedLayerNormalization runs in float.
class QEmbedLayerNormalization final : public OpKernel {
 public:
  explicit QEmbedLayerNormalization(const OpKernelInfo& info)
      : OpKernel(info), epsilon_(info.FloatOr("epsilon", 1e-12f)) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const char* const names[] = {"word_embedding", "position_embedding", "segment_embedding",
                                 "layer_norm_weight", "layer_norm_bias"};
    std::vector<Tensor> floats(5);
    for (size_t k = 0; k < 5; ++k) {
      const size_t index = 2 + k;
      const Tensor* quantized = context.Input(index);
      if (quantized == nullptr) {
        PRISM_ENFORCE(k == 2, kInvalidArgument, node.Describe(), ": input ", index, " (", names[k],
                      ") is required");
        continue;
      }
      const Tensor* scale = context.InputCount() > index + 6 ? context.Input(index + 6) : nullptr;
      const Tensor* zero = context.InputCount() > index + 11 ? context.Input(index + 11) : nullptr;
      PRISM_ENFORCE(
          scale != nullptr && scale->NumElements() == 1 && scale->Type() == ElementType::kFloat,
          kInvalidArgument, node.Describe(), ": input ", index + 6, " (", names[k],
          "_scale) must be one float, got ",
          scale == nullptr ? std::string("nothing") : scale->Describe());
      PRISM_ENFORCE(
          zero != nullptr && zero->NumElements() == 1 && zero->Type() == quantized->Type(),
          kInvalidArgument, node.Describe(), ": input ", index + 11, " (", names[k],
          "_zero_point) must be one value of input ", index, "'s type ",
          ElementTypeName(quantized->Type()), ", got ",
          zero == nullptr ? std::string("nothing") : zero->Describe());
      floats[k] = Tensor(ElementType::kFloat, quantized->Shape(), GetCpuAllocator());
      const float s = scale->Data<float>()[0];
      const bool is_signed = quantized->Type() == ElementType::kInt8;
      const int32_t z = is_signed ? zero->Data<int8_t>()[0] : zero->Data<uint8_t>()[0];
      float* out = floats[k].MutableData<float>();
      for (int64_t i = 0; i < quantized->NumElements(); ++i) {
        const int32_t q = is_signed ? quantized->Data<int8_t>()[i] : quantized->Data<uint8_t>()[i];
        out[i] = static_cast<float>(q - z) * s;
      }
    }
    EmbedLayerNormalization::ComputeWithTables(context, floats[0], floats[1],
                                               context.Input(4) ? &floats[2] : nullptr, floats[3],
                                               floats[4], nullptr, epsilon_);
  }

 private:
  double epsilon_;
};

void RegisterEmbedLayerNormKernels(KernelRegistry& registry) {
  using E = ElementType;
  registry.Register(KernelDefBuilder("EmbedLayerNormalization")
                        .Domain(kMsDomain)
                        .Versions(1)
                        .Constraint("T1", {E::kInt32}, {0, 1, 7, 8}, {1})
                        .Constraint("T", {E::kFloat, E::kFloat16}, {2, 3, 4, 5, 6}, {0, 2})
                        .Build(),
                    MakeKernelFactory<EmbedLayerNormalization>());
  registry.Register(
      KernelDefBuilder("QEmbedLayerNormalization")
          .Domain(kMsDomain)
          .Versions(1)
          .Constraint("T1", {E::kInt32}, {0, 1, 7}, {1})
          .Constraint("T2", {E::kInt8, E::kUint8}, {2, 3, 4, 5, 6, 13, 14, 15, 16, 17})
          .Constraint("T", {E::kFloat}, {8, 9, 10, 11, 12}, {0})
          .Build(),
      MakeKernelFactory<QEmbedLayerNormalization>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(contrib_embed_layer_norm, RegisterEmbedLayerNormKernels);

}  // namespace prism::cpu::contrib
