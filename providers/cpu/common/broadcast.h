// Multidirectional (numpy-style) broadcasting for elementwise kernels with any number of
// inputs. A Broadcaster computes the output shape once per Compute call and then walks the
// output in contiguous spans: within a span every input either advances by one element or
// repeats one element, so inner loops stay simple and fast.
//
//   Broadcaster plan({a.Shape(), b.Shape()}, node.Describe());
//   Tensor& out = context.Output(0, plan.OutputShape(), a.Type());
//   BroadcastBinary(plan, a.Data<float>(), b.Data<float>(), out.MutableData<float>(),
//                   [](float x, float y) { return x + y; });
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_pool.h"
#include "framework/tensor_shape.h"

namespace prism::cpu {

// The numpy broadcast of shapes (dims aligned from the right; each dim must be equal or 1).
// Throws kInvalidArgument naming every shape, prefixed by `what` (e.g. the node), when they
// are incompatible.
TensorShape BroadcastShapes(const std::vector<TensorShape>& shapes, std::string_view what = "");

class Broadcaster {
 public:
  // Throws like BroadcastShapes when the shapes are incompatible.
  explicit Broadcaster(const std::vector<TensorShape>& input_shapes, std::string_view what = "");

  const TensorShape& OutputShape() const { return output_shape_; }
  size_t InputCount() const { return input_count_; }

  // Calls fn(output_offset, count, input_offsets, input_steps) for consecutive spans covering
  // the whole output in order. input_offsets[i] is input i's element offset at the span start;
  // input_steps[i] is 1 when input i advances along the span and 0 when it repeats one
  // element. Nothing is called for an empty output.
  template <typename Fn>
  void ForEachSpan(Fn&& fn) const {
    const size_t n = input_count_;
    if (output_shape_.Size() == 0) return;
    std::vector<int64_t> offsets(n, 0);
    std::vector<int64_t> steps(n, 0);
    if (dims_.empty()) {  // every input holds one element
      fn(int64_t{0}, int64_t{1}, offsets.data(), steps.data());
      return;
    }
    const size_t rank = dims_.size();
    const int64_t span = dims_.back();
    for (size_t i = 0; i < n; ++i) steps[i] = strides_[(rank - 1) * n + i];
    std::vector<int64_t> counter(rank - 1, 0);
    int64_t output_offset = 0;
    while (true) {
      fn(output_offset, span, offsets.data(), steps.data());
      output_offset += span;
      // Odometer over the outer dims, updating each input's offset incrementally.
      size_t d = rank - 1;
      while (d > 0) {
        --d;
        const int64_t* stride = &strides_[d * n];
        if (++counter[d] < dims_[d]) {
          for (size_t i = 0; i < n; ++i) offsets[i] += stride[i];
          break;
        }
        for (size_t i = 0; i < n; ++i) offsets[i] -= stride[i] * (dims_[d] - 1);
        counter[d] = 0;
        if (d == 0) return;
      }
      if (rank == 1) return;
    }
  }

 private:
  TensorShape output_shape_;
  size_t input_count_ = 0;
  // Output dims after dropping 1s and merging neighbours that every input treats alike
  // (all broadcast or all present); the last one is the span walked by the inner loop.
  std::vector<int64_t> dims_;
  // strides_[d * input_count_ + i]: elements input i moves per step along dims_[d] (0 when
  // it is broadcast along that dim).
  std::vector<int64_t> strides_;
};

// out[k] = fn(a[..], b[..]) over the broadcast of two inputs. pool: long spans are split over
// it (fn must then be safe to call from several threads, as a pure function is).
template <typename A, typename B, typename Out, typename Fn>
void BroadcastBinary(const Broadcaster& plan, const A* a, const B* b, Out* out, Fn&& fn,
                     ThreadPool* pool = nullptr) {
  plan.ForEachSpan(
      [&](int64_t output_offset, int64_t count, const int64_t* offsets, const int64_t* steps) {
        const A* pa = a + offsets[0];
        const B* pb = b + offsets[1];
        Out* po = out + output_offset;
        const bool a_moves = steps[0] != 0;
        const bool b_moves = steps[1] != 0;
        ThreadPool::TryParallelFor(pool, count, 1.0, [&](int64_t begin, int64_t end) {
          if (a_moves && b_moves) {
            for (int64_t k = begin; k < end; ++k) po[k] = fn(pa[k], pb[k]);
          } else if (b_moves) {
            const A av = *pa;
            for (int64_t k = begin; k < end; ++k) po[k] = fn(av, pb[k]);
          } else if (a_moves) {
            const B bv = *pb;
            for (int64_t k = begin; k < end; ++k) po[k] = fn(pa[k], bv);
          } else {
            const A av = *pa;
            const B bv = *pb;
            for (int64_t k = begin; k < end; ++k) po[k] = fn(av, bv);
          }
        });
      });
}

// The shape B takes under the legacy (opset < 7) broadcast of Add/Sub/Mul/Div/Pow with
// broadcast=1: B is a single element, or its shape matches the dims of A starting at `axis`
// (suffix matching when axis is absent). Returns B's dims padded with 1s to A's rank, so that
// a Broadcaster over {A, result} yields A's shape. Throws kInvalidArgument naming both shapes
// when B does not fit.
TensorShape LegacyBroadcastShape(const TensorShape& a, const TensorShape& b,
                                 std::optional<int64_t> axis, std::string_view what = "");

}  // namespace prism::cpu
