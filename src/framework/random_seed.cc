#include "framework/random_seed.h"

#include <mutex>

namespace prism {
namespace {

std::mutex seed_mutex;
std::optional<int64_t> seed_value;

}  // namespace

void SetRandomSeed(int64_t seed) {
  std::lock_guard<std::mutex> lock(seed_mutex);
  seed_value = seed;
}

std::optional<int64_t> RandomSeed() {
  std::lock_guard<std::mutex> lock(seed_mutex);
  return seed_value;
}

}  // namespace prism
