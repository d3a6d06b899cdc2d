#include "session/prepacked_weights_container.h"

#include <cstdint>

#include "common/content_hash.h"

namespace prism {

std::string PrepackedWeightsContainer::KeyOf(const std::string& format,
                                             const Tensor& weight) const {
  const std::string what =
      MakeString(format, "|", ElementTypeName(weight.Type()), weight.Shape().ToString(), "|");
  if (!by_content_) return MakeString(what, "at ", reinterpret_cast<uintptr_t>(weight.RawData()));
  const ContentHash hash = HashContent(weight.RawData(), weight.SizeInBytes());
  return MakeString(what, hash.first, ":", hash.second);
}

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
