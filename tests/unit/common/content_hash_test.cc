// HashContent (the prepacked-weights container's key): equal bytes hash equal wherever they lie,
// and a change of any single bit, of the length, or of a byte in the tail past the last whole
// 32-byte chunk changes both halves.
#include "common/content_hash.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>
#include <vector>

namespace prism::testing {
namespace {

std::vector<uint8_t> RandomBytes(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<uint8_t> bytes(count);
  for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(generator());
  return bytes;
}

TEST(ContentHashTest, EqualBytesAtAnotherAddressHashEqual) {
  const std::vector<uint8_t> bytes = RandomBytes(1000, 1);
  std::vector<uint8_t> shifted(bytes.size() + 3);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 3);  // unaligned copy
  const ContentHash a = HashContent(bytes.data(), bytes.size());
  const ContentHash b = HashContent(shifted.data() + 3, bytes.size());
  EXPECT_EQ(a.first, b.first);
  EXPECT_EQ(a.second, b.second);
}

TEST(ContentHashTest, EverySingleBitFlipChangesBothHalves) {
  // 77 bytes: two whole 32-byte chunks and a 13-byte tail.
  std::vector<uint8_t> bytes = RandomBytes(77, 2);
  const ContentHash original = HashContent(bytes.data(), bytes.size());
  std::set<std::pair<uint64_t, uint64_t>> seen{{original.first, original.second}};
  for (size_t byte = 0; byte < bytes.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      bytes[byte] ^= static_cast<uint8_t>(1u << bit);
      const ContentHash changed = HashContent(bytes.data(), bytes.size());
      EXPECT_NE(changed.first, original.first) << "byte " << byte << " bit " << bit;
      EXPECT_NE(changed.second, original.second) << "byte " << byte << " bit " << bit;
      seen.insert({changed.first, changed.second});
      bytes[byte] ^= static_cast<uint8_t>(1u << bit);
    }
  }
  EXPECT_EQ(seen.size(), 1 + 77 * 8u) << "two flips gave the same hash";
}

TEST(ContentHashTest, LengthCounts) {
  // Zeros of different lengths, and words swapped between lanes, must not collide.
  const std::vector<uint8_t> zeros(96, 0);
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (size_t size = 0; size <= zeros.size(); ++size) {
    const ContentHash hash = HashContent(zeros.data(), size);
    seen.insert({hash.first, hash.second});
  }
  EXPECT_EQ(seen.size(), zeros.size() + 1);
  std::vector<uint8_t> bytes = RandomBytes(64, 3);
  const ContentHash before = HashContent(bytes.data(), bytes.size());
  std::swap_ranges(bytes.begin(), bytes.begin() + 8, bytes.begin() + 8);  // lanes 0 and 1
  const ContentHash after = HashContent(bytes.data(), bytes.size());
  EXPECT_NE(before.first, after.first);
  EXPECT_NE(before.second, after.second);
}

}  // namespace
}  // namespace prism::testing
