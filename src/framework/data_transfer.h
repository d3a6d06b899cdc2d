// Copies between memory spaces. Each EP that owns non-CPU memory supplies an IDataTransfer.
#pragma once

#include <memory>
#include <vector>

#include "framework/tensor.h"

namespace prism {

class IDataTransfer {
 public:
  virtual ~IDataTransfer() = default;
  virtual bool CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const = 0;
  // dst is allocated with src's type and shape in the destination space.
  virtual void CopyTensor(const Tensor& source, Tensor& destination) const = 0;
};

// Copies between CPU buffers (including strings).
class CpuDataTransfer final : public IDataTransfer {
 public:
  bool CanCopy(const MemoryInfo& source, const MemoryInfo& destination) const override;
  void CopyTensor(const Tensor& source, Tensor& destination) const override;
};

class DataTransferManager {
 public:
  DataTransferManager();
  void Register(std::shared_ptr<IDataTransfer> transfer);
  const IDataTransfer* Find(const MemoryInfo& source, const MemoryInfo& destination) const;
  // Throws when no registered transfer can copy between the two spaces.
  void CopyTensor(const Tensor& source, Tensor& destination) const;

 private:
  std::vector<std::shared_ptr<IDataTransfer>> transfers_;
};

}  // namespace prism
