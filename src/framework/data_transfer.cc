#include "framework/data_transfer.h"

#include <cstring>

namespace prism {

bool CpuDataTransfer::CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const {
  return source.IsCpuAccessible() && destination.IsCpuAccessible();
}

void CpuDataTransfer::CopyTensor(const Tensor& source, Tensor& destination) const {
  PRISM_ENFORCE(source.Type() == destination.Type() && source.Shape() == destination.Shape(),
                kInvalidArgument, "copy from ", source.Describe(), " to ", destination.Describe());
  if (source.Type() == ElementType::kString) {
    const auto* src = source.Data<std::string>();
    auto* dst = destination.MutableData<std::string>();
    for (int64_t i = 0; i < source.NumElements(); ++i) dst[i] = src[i];
    return;
  }
  if (source.SizeInBytes() > 0 && source.RawData() != destination.RawData())
    std::memcpy(destination.MutableRawData(), source.RawData(), source.SizeInBytes());
}

DataTransferManager::DataTransferManager() {
  Register(std::make_shared<CpuDataTransfer>());
}

void DataTransferManager::Register(std::shared_ptr<IDataTransfer> transfer) {
  transfers_.push_back(std::move(transfer));
}

const IDataTransfer* DataTransferManager::Find(const MemoryInfo& source,
                                               const MemoryInfo& destination) const {
  for (const auto& transfer : transfers_)
    if (transfer->CanCopy(source, destination)) return transfer.get();
  return nullptr;
}

void DataTransferManager::CopyTensor(const Tensor& source, Tensor& destination) const {
  const IDataTransfer* transfer = Find(source.Location(), destination.Location());
  PRISM_ENFORCE(transfer != nullptr, kEpFail, "no data transfer registered from ",
                source.Location().ToString(), " to ", destination.Location().ToString());
  transfer->CopyTensor(source, destination);
}

}  // namespace prism
