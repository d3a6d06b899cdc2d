#include "common/content_hash.h"

#include <cstring>

namespace prism {
namespace {

constexpr uint64_t kPrime = 1099511628211ull;  // FNV-1a's 64-bit prime

uint64_t Step(uint64_t lane, uint64_t word) {
  lane = (lane ^ word) * kPrime;
  return lane ^ (lane >> 29);
}

// A final avalanche (the splitmix64 finaliser's constants), so that every input bit reaches
// every output bit.
uint64_t Avalanche(uint64_t value) {
  value ^= value >> 30;
  value *= 0xbf58476d1ce4e5b9ull;
  value ^= value >> 27;
  value *= 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

}  // namespace

ContentHash HashContent(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  uint64_t lanes[4] = {14695981039346656037ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                       0x165667b19e3779f9ull};
  size_t offset = 0;
  for (; offset + 32 <= size; offset += 32) {
    uint64_t words[4];
    std::memcpy(words, bytes + offset, sizeof words);
    for (int lane = 0; lane < 4; ++lane) lanes[lane] = Step(lanes[lane], words[lane]);
  }
  // The tail, a byte at a time, spread over the lanes.
  for (size_t lane = 0; offset < size; ++offset, lane = (lane + 1) % 4)
    lanes[lane] = Step(lanes[lane], bytes[offset]);
  const uint64_t length = static_cast<uint64_t>(size);
  ContentHash hash;
  hash.first = Avalanche(lanes[0] ^ Avalanche(lanes[1] + length) ^ Avalanche(lanes[2] ^ lanes[3]));
  hash.second = Avalanche(lanes[3] + Avalanche(lanes[2] ^ length) + Avalanche(lanes[1] - lanes[0]));
  return hash;
}

}  // namespace prism
