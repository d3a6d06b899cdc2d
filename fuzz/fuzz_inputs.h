// Helpers shared by the fuzz targets: a deterministic generator, feeds for a session's inputs,
// and a reader that turns the fuzzer's bytes into arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "framework/value.h"
#include "session/inference_session.h"

namespace prism::fuzz {

// SplitMix64: the same seed gives the same values everywhere (replays are deterministic).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // A value in [low, high].
  int64_t Between(int64_t low, int64_t high);

 private:
  uint64_t state_;
};

// FNV-1a over the bytes: the seed of a model's feeds.
uint64_t HashBytes(const uint8_t* data, size_t size);

// A feed for one graph input as the session declares it. Known dims are kept, a symbolic dim
// takes one value (1 or 2) per name across the inputs, an unknown dim 1 or 2, an unknown rank
// [2]; values are small numbers (indices, axes and shapes are then mostly valid), and in one
// numeric feed of eight half of them are edge values (limits, -1, NaN, infinities). Sequences
// hold one tensor, optionals hold a tensor or nothing. nullopt when the input cannot be fed
// (maps, sparse tensors) or would exceed *element_budget, which is reduced by what is made.
std::optional<Value> MakeFeed(const ValueInfo& input, Random& random,
                              std::map<std::string, int64_t>& symbols, int64_t* element_budget);

// Reads the fuzzer's bytes as arguments; past the end every read gives 0 (and Done() is true).
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool Done() const { return position_ >= size_; }
  uint8_t Byte();
  uint16_t U16();
  uint32_t U32();
  uint64_t U64();
  // A byte string of up to max_length bytes (its length comes first).
  std::string String(size_t max_length);
  // One of count choices (count > 0).
  size_t Choose(size_t count) { return Byte() % count; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

}  // namespace prism::fuzz
