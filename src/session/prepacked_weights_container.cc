#include "session/prepacked_weights_container.h"

#include <cstring>

namespace prism {
namespace {

// An FNV-1a-style hash over 8-byte words (then the tail bytes), with two offset bases:
// independent enough that sharing by mistake would need both 64-bit hashes (and the type,
// shape and format) to collide. Words keep it at memory speed for weights of hundreds of MB.
uint64_t HashBytes(const uint8_t* data, size_t size, uint64_t basis) {
  uint64_t hash = basis;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, data + i, sizeof word);
    hash = (hash ^ word) * 1099511628211ull;
    hash ^= hash >> 29;
  }
  for (; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  return hash;
}

std::string KeyOf(const std::string& format, const Tensor& weight) {
  const auto* bytes = static_cast<const uint8_t*>(weight.RawData());
  const size_t size = weight.SizeInBytes();
  return MakeString(format, "|", ElementTypeName(weight.Type()), weight.Shape().ToString(), "|",
                    HashBytes(bytes, size, 14695981039346656037ull), ":",
                    HashBytes(bytes, size, 0x9e3779b97f4a7c15ull));
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
