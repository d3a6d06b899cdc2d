#include "framework/ep_sdk/sdk_kernel.h"

#include <optional>
#include <vector>

#include "common/thread_pool.h"
#include "framework/ep_sdk/sdk_graph_view.h"
#include "prism/ep/kernel_context.h"

namespace prism::ep_sdk {
namespace {

class SdkKernelContext final : public ep::KernelContext {
 public:
  SdkKernelContext(OpKernelContext& context, const std::string& provider)
      : context_(context),
        provider_(provider),
        inputs_(context.InputCount()),
        allocated_(context.OutputCount(), false) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Value* value = context.InputValue(i);
      if (value == nullptr || !value->HasValue()) continue;
      PRISM_ENFORCE(value->IsTensor(), kEpFail, Where(), ": input ", i, " is ", value->Describe(),
                    ", but an SDK EP takes tensors only");
      inputs_[i] = ToTensorView(value->GetTensor());
    }
  }
  ~SdkKernelContext() override {
    for (void* pointer : scratch_) context_.TempAllocator()->Free(pointer);
  }

  size_t InputCount() const override { return inputs_.size(); }
  const ep::TensorView* Input(size_t index) const override {
    return index < inputs_.size() && inputs_[index] ? &*inputs_[index] : nullptr;
  }
  size_t OutputCount() const override { return allocated_.size(); }
  void* AllocateOutput(size_t index, const std::vector<int64_t>& shape,
                       ep::ElementType type) override {
    PRISM_ENFORCE(index < allocated_.size(), kEpFail, Where(), ": output ", index,
                  " requested, the node has ", allocated_.size());
    PRISM_ENFORCE(!allocated_[index], kEpFail, Where(), ": output ", index, " allocated twice");
    const auto element = static_cast<ElementType>(type);
    PRISM_ENFORCE(
        element != ElementType::kUndefined && static_cast<int32_t>(element) <= kMaxElementType,
        kEpFail, Where(), ": output ", index, " has unknown element type ",
        static_cast<int32_t>(type));
    for (int64_t dim : shape)
      PRISM_ENFORCE(dim >= 0, kEpFail, Where(), ": output ", index, " has a negative dim ", dim);
    Tensor& output = context_.Output(index, TensorShape(shape), element);
    allocated_[index] = true;
    return output.NumElements() > 0 ? output.MutableRawData() : nullptr;
  }
  void* AllocateScratch(size_t bytes) override {
    if (bytes == 0) return nullptr;
    scratch_.reserve(scratch_.size() + 1);  // so that push_back cannot throw after Alloc
    void* pointer = context_.TempAllocator()->Alloc(bytes);
    scratch_.push_back(pointer);
    return pointer;
  }
  int ThreadCount() const override {
    const ThreadPool* pool = context_.IntraOpThreadPool();
    return pool ? pool->DegreeOfParallelism() : 1;
  }
  void ParallelFor(int64_t total, double cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    ThreadPool::TryParallelFor(context_.IntraOpThreadPool(), total, cost_per_unit, fn);
  }

  // Every output must be produced: a missing one is the EP's bug, named here rather than left
  // for a consumer to trip over.
  void CheckOutputsAllocated() const {
    for (size_t i = 0; i < allocated_.size(); ++i)
      PRISM_ENFORCE(allocated_[i], kEpFail, Where(), " did not produce its output ", i);
  }

 private:
  std::string Where() const {
    return MakeString(context_.GetNode().Describe(), " (", provider_, ")");
  }

  OpKernelContext& context_;
  const std::string& provider_;
  std::vector<std::optional<ep::TensorView>> inputs_;
  std::vector<bool> allocated_;
  std::vector<void*> scratch_;
};

}  // namespace

SdkKernel::SdkKernel(const OpKernelInfo& info, std::string provider,
                     std::unique_ptr<ep::CompiledKernel> kernel)
    : OpKernel(info), provider_(std::move(provider)), kernel_(std::move(kernel)) {}

void SdkKernel::Compute(OpKernelContext& context) const {
  SdkKernelContext sdk_context(context, provider_);
  try {
    kernel_->Compute(sdk_context);
  } catch (const Exception&) {
    throw;
  } catch (const std::exception& error) {
    PRISM_THROW(kEpFail, GetNode().Describe(), " (", provider_, ") failed: ", error.what());
  }
  sdk_context.CheckOutputsAllocated();
}

}  // namespace prism::ep_sdk
