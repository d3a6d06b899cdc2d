// Col2Im (opset 18): PyTorch's fold in N-D. input [N, C * prod(block_shape), L] holds, per
// channel and kernel tap, one value per sliding block (L blocks, row-major over the block grid
// that image_shape, pads, dilations and strides give); each value is added to the image pixel
// its tap covers (pixels in the pads are dropped). Numbers are summed in double (integers in
// 64-bit wrapping arithmetic) and complex numbers per part; strings and bool have no sum, so
// they are moved and refused where two blocks overlap. Uncovered pixels are zero ("", false).
#include <complex>
#include <string>
#include <vector>

#include "providers/cpu/common/compute_type.h"
#include "providers/cpu/cpu_kernel_families.h"
#include "providers/cpu/tensor/element_copy.h"
#include "providers/cpu/tensor/int_list_input.h"
#include "providers/cpu/tensor/spec_type_sets.h"
#include "providers/cpu/type_dispatch.h"

namespace prism::cpu {
namespace {

// For every (tap, block) pair: the image pixel it adds to, or -1 in the pads.
std::vector<int64_t> Targets(const std::vector<int64_t>& image, const std::vector<int64_t>& block,
                             const std::vector<int64_t>& grid, const std::vector<int64_t>& pads,
                             const std::vector<int64_t>& dilations,
                             const std::vector<int64_t>& strides, int64_t taps, int64_t blocks) {
  const size_t rank = image.size();
  std::vector<int64_t> targets(static_cast<size_t>(taps * blocks));
  std::vector<int64_t> tap(rank, 0);
  for (int64_t t = 0; t < taps; ++t) {
    std::vector<int64_t> position(rank, 0);
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t flat = 0;
      bool inside = true;
      for (size_t a = 0; a < rank; ++a) {
        const int64_t i = position[a] * strides[a] - pads[a] + tap[a] * dilations[a];
        inside = inside && i >= 0 && i < image[a];
        flat = flat * image[a] + i;
      }
      targets[t * blocks + b] = inside ? flat : -1;
      for (size_t a = rank; a-- > 0;) {
        if (++position[a] < grid[a]) break;
        position[a] = 0;
      }
    }
    for (size_t a = rank; a-- > 0;) {
      if (++tap[a] < block[a]) break;
      tap[a] = 0;
    }
  }
  return targets;
}

template <typename T>
struct SumImpl {
  void operator()(const Tensor& x, Tensor& y, const std::vector<int64_t>& targets, int64_t planes,
                  int64_t taps, int64_t blocks, int64_t pixels) const {
    using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    std::vector<Acc> sums(static_cast<size_t>(pixels));
    for (int64_t p = 0; p < planes; ++p) {
      std::fill(sums.begin(), sums.end(), Acc(0));
      for (int64_t i = 0; i < taps * blocks; ++i) {
        if (targets[i] < 0) continue;
        if constexpr (std::is_integral_v<T>)
          sums[targets[i]] +=
              static_cast<uint64_t>(static_cast<int64_t>(in[p * taps * blocks + i]));
        else
          sums[targets[i]] += ToDouble(in[p * taps * blocks + i]);
      }
      for (int64_t i = 0; i < pixels; ++i) {
        if constexpr (std::is_integral_v<T>)
          out[p * pixels + i] = static_cast<T>(sums[i]);
        else
          out[p * pixels + i] = FromCompute<T>(sums[i]);
      }
    }
  }
};

template <typename T>
void SumComplex(const Tensor& x, Tensor& y, const std::vector<int64_t>& targets, int64_t planes,
                int64_t taps, int64_t blocks, int64_t pixels) {
  const auto* in = static_cast<const std::complex<T>*>(x.RawData());
  auto* out = static_cast<std::complex<T>*>(y.MutableRawData());
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < pixels; ++i) out[p * pixels + i] = 0;
    for (int64_t i = 0; i < taps * blocks; ++i)
      if (targets[i] >= 0) out[p * pixels + targets[i]] += in[p * taps * blocks + i];
  }
}

class Col2Im final : public OpKernel {
 public:
  explicit Col2Im(const OpKernelInfo& info)
      : OpKernel(info),
        dilations_(info.IntsOr("dilations", {})),
        pads_(info.IntsOr("pads", {})),
        strides_(info.IntsOr("strides", {})) {}

  void Compute(OpKernelContext& context) const override {
    const Node& node = GetNode();
    const Tensor& x = context.RequiredInput(0);
    const std::vector<int64_t> image =
        ReadIntList(context.RequiredInput(1), node.Describe() + " image_shape");
    const std::vector<int64_t> block =
        ReadIntList(context.RequiredInput(2), node.Describe() + " block_shape");
    const size_t rank = image.size();
    PRISM_ENFORCE(rank >= 1 && block.size() == rank, kInvalidArgument, node.Describe(),
                  ": image_shape and block_shape must have the same nonzero length, got ",
                  image.size(), " and ", block.size());
    const std::vector<int64_t> dilations =
        dilations_.empty() ? std::vector<int64_t>(rank, 1) : dilations_;
    const std::vector<int64_t> strides =
        strides_.empty() ? std::vector<int64_t>(rank, 1) : strides_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * rank, 0) : pads_;
    PRISM_ENFORCE(dilations.size() == rank && strides.size() == rank && pads.size() == 2 * rank,
                  kInvalidArgument, node.Describe(), ": dilations, strides and pads must have ",
                  rank, ", ", rank, " and ", 2 * rank, " values");
    PRISM_ENFORCE(x.Shape().Rank() == 3, kInvalidArgument, node.Describe(),
                  ": input must be [N, C * prod(block_shape), L], got ", x.Shape().ToString());
    int64_t taps = 1, blocks = 1, pixels = 1;
    std::vector<int64_t> grid(rank);
    for (size_t a = 0; a < rank; ++a) {
      PRISM_ENFORCE(image[a] >= 0 && block[a] > 0 && dilations[a] > 0 && strides[a] > 0 &&
                        pads[a] >= 0 && pads[a + rank] >= 0,
                    kInvalidArgument, node.Describe(),
                    ": image_shape, block_shape, dilations and strides must be positive and "
                    "pads not negative");
      // Sizes come from run-time inputs: every step is checked so that a huge image_shape or
      // block_shape is an error rather than a wrapped count.
      int64_t span = 0, padded = 0;
      const bool overflow = __builtin_mul_overflow(dilations[a], block[a] - 1, &span) ||
                            __builtin_add_overflow(span, 1, &span) ||
                            __builtin_add_overflow(image[a], pads[a], &padded) ||
                            __builtin_add_overflow(padded, pads[a + rank], &padded) ||
                            __builtin_mul_overflow(taps, block[a], &taps) ||
                            __builtin_mul_overflow(pixels, image[a], &pixels);
      PRISM_ENFORCE(!overflow, kInvalidArgument, node.Describe(), ": image_shape ", image[a],
                    ", block_shape ", block[a], ", dilation ", dilations[a], " and pads on axis ",
                    a, " overflow 64-bit sizes");
      grid[a] = (padded - span) / strides[a] + 1;
      PRISM_ENFORCE(padded >= span && grid[a] >= 1, kInvalidArgument, node.Describe(),
                    ": the block of ", span, " pixels does not fit the padded image on axis ", a);
      PRISM_ENFORCE(!__builtin_mul_overflow(blocks, grid[a], &blocks), kInvalidArgument,
                    node.Describe(), ": the number of sliding blocks overflows 64 bits");
    }
    const int64_t batch = x.Shape()[0];
    PRISM_ENFORCE(x.Shape()[1] % taps == 0 && x.Shape()[2] == blocks, kInvalidArgument,
                  node.Describe(), ": input ", x.Shape().ToString(), " must be [N, C * ", taps,
                  ", ", blocks, "] (", blocks, " sliding blocks)");
    const int64_t channels = x.Shape()[1] / taps;
    std::vector<int64_t> dims = {batch, channels};
    dims.insert(dims.end(), image.begin(), image.end());
    Tensor& y = context.Output(0, TensorShape(dims), x.Type());
    if (y.NumElements() == 0) return;
    const std::vector<int64_t> targets =
        Targets(image, block, grid, pads, dilations, strides, taps, blocks);
    const int64_t planes = batch * channels;
    if (x.Type() == ElementType::kComplex64) {
      SumComplex<float>(x, y, targets, planes, taps, blocks, pixels);
    } else if (x.Type() == ElementType::kComplex128) {
      SumComplex<double>(x, y, targets, planes, taps, blocks, pixels);
    } else if (x.Type() == ElementType::kString || x.Type() == ElementType::kBool) {
      // No sum: each pixel takes the one value that covers it.
      std::vector<int> covered(static_cast<size_t>(pixels));
      for (int64_t i = 0; i < taps * blocks; ++i)
        if (targets[i] >= 0)
          PRISM_ENFORCE(++covered[targets[i]] == 1, kInvalidArgument, node.Describe(),
                        ": blocks overlap, and ", ElementTypeName(x.Type()),
                        " values cannot be added");
      Tensor zero(x.Type(), TensorShape({1}), GetCpuAllocator());
      if (x.Type() == ElementType::kBool) zero.MutableData<bool>()[0] = false;
      FillElements(y, 0, y.NumElements(), zero);
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t i = 0; i < taps * blocks; ++i)
          if (targets[i] >= 0)
            CopyElements(x, p * taps * blocks + i, y, p * pixels + targets[i], 1);
    } else {
      DispatchByType<SumImpl>(x.Type(), node.OpType(), x, y, targets, planes, taps, blocks, pixels);
    }
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

void RegisterCol2ImKernels(KernelRegistry& registry) {
  registry.Register(
      KernelDefBuilder("Col2Im")
          .Versions(18)
          .Constraint("T", AllTensorTypesWithComplexOf(TensorTypeGeneration::kBfloat16), {0}, {0})
          .CpuInput(1)
          .CpuInput(2)
          .Build(),
      MakeKernelFactory<Col2Im>());
}

}  // namespace

PRISM_CPU_KERNEL_FAMILY(tensor_col2im, RegisterCol2ImKernels);

}  // namespace prism::cpu
