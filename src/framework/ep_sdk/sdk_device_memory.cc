#include "framework/ep_sdk/sdk_device_memory.h"

#include <cstring>
#include <exception>

#include "common/status.h"
#include "framework/tensor.h"

namespace prism::ep_sdk {
namespace {

DeviceType ToDeviceType(ep::DeviceKind kind) {
  switch (kind) {
    case ep::DeviceKind::kGpu:
      return DeviceType::kGpu;
    case ep::DeviceKind::kFpga:
      return DeviceType::kFpga;
    case ep::DeviceKind::kNpu:
      return DeviceType::kNpu;
  }
  return DeviceType::kNpu;
}

}  // namespace

SdkDeviceAllocator::SdkDeviceAllocator(std::shared_ptr<ep::DeviceMemory> memory)
    : memory_(std::move(memory)) {
  info_.name = memory_->Name();
  info_.device = ToDeviceType(memory_->Kind());
  info_.device_id = memory_->DeviceId();
  PRISM_ENFORCE(!info_.name.empty() && info_.name != CpuMemoryInfo().name, kInvalidArgument,
                "an EP's device memory needs a name of its own, not '", info_.name, "'");
}

void* SdkDeviceAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  try {
    pointer = memory_->Allocate(bytes);
  } catch (const std::exception& error) {
    PRISM_THROW(kRuntimeException, info_.ToString(), ": allocating ", bytes,
                " bytes failed: ", error.what());
  }
  PRISM_ENFORCE(pointer != nullptr, kRuntimeException, info_.ToString(), ": allocating ", bytes,
                " bytes returned null");
  return pointer;
}

void SdkDeviceAllocator::Free(void* pointer) {
  if (pointer != nullptr) memory_->Free(pointer);
}

SdkDataTransfer::SdkDataTransfer(std::shared_ptr<ep::DeviceMemory> memory, MemoryInfo device)
    : memory_(std::move(memory)), device_(std::move(device)) {}

bool SdkDataTransfer::CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const {
  const bool source_device = source.SameSpace(device_);
  const bool destination_device = destination.SameSpace(device_);
  return (source_device || source.IsCpuAccessible()) &&
         (destination_device || destination.IsCpuAccessible()) &&
         (source_device || destination_device);
}

void SdkDataTransfer::CopyTensor(const Tensor& source, Tensor& destination) const {
  PRISM_ENFORCE(source.Type() == destination.Type() && source.Shape() == destination.Shape(),
                kInvalidArgument, device_.name, " copy from ", source.Describe(), " to ",
                destination.Describe());
  PRISM_ENFORCE(source.Type() != ElementType::kString, kInvalidArgument,
                "string tensors cannot live in ", device_.name, " memory");
  const size_t bytes = source.SizeInBytes();
  if (bytes == 0) return;
  const bool from_device = source.Location().SameSpace(device_);
  const bool to_device = destination.Location().SameSpace(device_);
  try {
    if (from_device && to_device)
      memory_->CopyDeviceToDevice(destination.MutableRawData(), source.RawData(), bytes);
    else if (to_device)
      memory_->CopyHostToDevice(destination.MutableRawData(), source.RawData(), bytes);
    else
      memory_->CopyDeviceToHost(destination.MutableRawData(), source.RawData(), bytes);
  } catch (const std::exception& error) {
    PRISM_THROW(kRuntimeException, device_.name, ": copying ", source.Describe(),
                " failed: ", error.what());
  }
}

}  // namespace prism::ep_sdk
