// Prepacked constant weights by format and content: kernels that pack the same bytes in the same
// format get one shared packed form. Every session has one; sessions given the same container
// (onnxruntime's PrepackedWeightsContainer, through the C ABI and Python) share across sessions.
// Thread-safe: sessions may be created concurrently on one container.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "framework/op_kernel.h"

namespace prism {

class PrepackedWeightsContainer {
 public:
  // by_content: weights are told apart by their bytes, so that sessions sharing the container
  // share the packed forms of equal weights (onnxruntime's container). A session's own container
  // (false) tells them apart by where their bytes are: all of its weights exist, each at its own
  // address, while it plans, and hashing every byte of a model cost a read of all its weights
  // (about 1.1 instructions a byte; bert_base's 420 MB) at every session creation.
  explicit PrepackedWeightsContainer(bool by_content = true) : by_content_(by_content) {}

  // The packed form of `weight` in `format`: the one already held, or pack()'s result, kept.
  // Keys are the format, the type and shape, and two independent 64-bit hashes of the bytes (or,
  // not by content, the bytes' address).
  PrePackedWeight GetOrPack(const std::string& format, const Tensor& weight,
                            const std::function<PrePackedWeight()>& pack);

  size_t Count() const;
  size_t Bytes() const;
  // How many GetOrPack calls found their packed form already held.
  int64_t Hits() const;

 private:
  std::string KeyOf(const std::string& format, const Tensor& weight) const;

  bool by_content_ = true;
  mutable std::mutex mutex_;
  std::map<std::string, PrePackedWeight> packed_;
  int64_t hits_ = 0;
};

}  // namespace prism
