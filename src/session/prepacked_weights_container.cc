#include "session/prepacked_weights_container.h"

#include "common/content_hash.h"

namespace prism {
namespace {

std::string KeyOf(const std::string& format, const Tensor& weight) {
  const ContentHash hash = HashContent(weight.RawData(), weight.SizeInBytes());
  return MakeString(format, "|", ElementTypeName(weight.Type()), weight.Shape().ToString(), "|",
                    hash.first, ":", hash.second);
}

}  // namespace

PrePackedWeight PrepackedWeightsContainer::GetOrPack(const std::string& format,
                                                     const Tensor& weight,
                                                     const std::function<PrePackedWeight()>& pack) {
  const std::string key = KeyOf(format, weight);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = packed_.find(key);
    if (found != packed_.end()) {
      ++hits_;
      return found->second;
    }
  }
  // Packed outside the lock; if another thread packed the same key meanwhile, its copy wins.
  PrePackedWeight packed = pack();
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = packed_.emplace(key, std::move(packed));
  if (!inserted) ++hits_;
  return it->second;
}

size_t PrepackedWeightsContainer::Count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return packed_.size();
}

size_t PrepackedWeightsContainer::Bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t total = 0;
  for (const auto& [key, packed] : packed_) total += packed.bytes;
  return total;
}

int64_t PrepackedWeightsContainer::Hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

}  // namespace prism
