// What a compiled kernel sees while it runs: its inputs, its outputs to allocate, scratch memory
// and the session's intra-op threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "prism/ep/element_type.h"
#include "prism/ep/tensor_view.h"

namespace prism::ep {

class KernelContext {
 public:
  virtual ~KernelContext() = default;

  // Inputs in the order of the compiled subgraph's GraphView::Inputs(). nullptr for an omitted
  // optional input. They lie in the EP's memory (on_device) when the EP has device memory.
  virtual size_t InputCount() const = 0;
  virtual const TensorView* Input(size_t index) const = 0;

  // Outputs in the order of GraphView::Outputs(). Allocates output index with this shape and
  // type in the EP's memory and returns its data (null when it has no elements). Call once per
  // output; every output must be allocated before Compute returns.
  virtual size_t OutputCount() const = 0;
  virtual void* AllocateOutput(size_t index, const std::vector<int64_t>& shape,
                               ElementType type) = 0;

  // Memory in the EP's memory space that lives until Compute returns.
  virtual void* AllocateScratch(size_t bytes) = 0;

  // The session's intra-op threads: how many, and fn(begin, end) over disjoint ranges covering
  // [0, total) on them (inline when the session has one thread). cost_per_unit: a rough count of
  // basic operations per unit, so that small work is not split. Exceptions from fn reach the
  // caller.
  virtual int ThreadCount() const = 0;
  virtual void ParallelFor(int64_t total, double cost_per_unit,
                           const std::function<void(int64_t begin, int64_t end)>& fn) = 0;
};

}  // namespace prism::ep
