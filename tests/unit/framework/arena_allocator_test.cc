// The arena: best fit, coalescing, growth strategies, shrink, limits, statistics, threads.
#include "framework/arena_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "common/status.h"
#include "framework/counting_allocator.h"

namespace prism {
namespace {

std::shared_ptr<CountingAllocator> System() {
  return std::make_shared<CountingAllocator>(GetCpuAllocator());
}

AllocatorStats StatsOf(const IAllocator& allocator) {
  AllocatorStats stats;
  EXPECT_TRUE(allocator.GetStats(&stats));
  return stats;
}

TEST(ArenaAllocatorTest, ReusesFreedChunksWithoutGrowing) {
  auto system = System();
  ArenaAllocator arena(system, ArenaOptions{});
  std::vector<void*> first;
  for (int i = 0; i < 8; ++i) first.push_back(arena.Alloc(10000));
  for (void* p : first) arena.Free(p);
  const int64_t reserves = StatsOf(*system).num_allocs;
  EXPECT_EQ(reserves, 1);  // 8 x 10 KB fit the first 1 MiB region
  for (int run = 0; run < 5; ++run) {
    std::vector<void*> again;
    for (int i = 0; i < 8; ++i) again.push_back(arena.Alloc(10000));
    for (void* p : again) arena.Free(p);
  }
  EXPECT_EQ(StatsOf(*system).num_allocs, reserves);
  const AllocatorStats stats = StatsOf(arena);
  EXPECT_EQ(stats.num_allocs, 48);
  EXPECT_EQ(stats.num_frees, 48);
  EXPECT_EQ(stats.bytes_in_use, 0);
  EXPECT_EQ(stats.max_bytes_in_use, 8 * 10240);  // 10000 rounded up to 256-byte chunks
  EXPECT_EQ(stats.max_alloc_size, 10000);
  EXPECT_EQ(stats.num_arena_extensions, 1);
  EXPECT_EQ(stats.total_reserved_bytes, 1 << 20);
}

// What a captured device graph relies on: memory a run used and freed is never handed out again
// once reserved, and comes back to circulation when the reservations are freed.
TEST(ArenaAllocatorTest, ReserveFreeKeepsFreedMemoryOutOfCirculation) {
  auto system = System();
  ArenaAllocator arena(system, ArenaOptions{});
  std::vector<char*> run;
  for (int i = 0; i < 4; ++i) run.push_back(static_cast<char*>(arena.Alloc(4096)));
  for (char* p : run) arena.Free(p);
  const std::vector<void*> reserved = arena.ReserveFree();
  ASSERT_FALSE(reserved.empty());
  EXPECT_EQ(StatsOf(arena).bytes_in_use, 1 << 20);  // the whole first region
  const int64_t regions = StatsOf(arena).num_arena_extensions;
  char* later = static_cast<char*>(arena.Alloc(4096));
  EXPECT_EQ(StatsOf(arena).num_arena_extensions, regions + 1);  // a new region, not the run's
  for (char* p : run) EXPECT_TRUE(later + 4096 <= p || p + 4096 <= later);
  arena.Free(later);
  for (void* p : reserved) arena.Free(p);
  EXPECT_EQ(StatsOf(arena).bytes_in_use, 0);
  EXPECT_EQ(arena.Alloc(4096), run.front());  // back in circulation, best fit again
  EXPECT_TRUE(arena.ReserveFree().size() >= 1);
}

TEST(ArenaAllocatorTest, BestFitPicksTheSmallestFreeChunkThatFits) {
  ArenaAllocator arena(System(), ArenaOptions{});
  // Free chunks of 4 KB and 2 KB, separated by chunks in use so they cannot merge.
  void* big = arena.Alloc(4096);
  void* guard1 = arena.Alloc(256);
  void* small = arena.Alloc(2048);
  void* guard2 = arena.Alloc(256);
  arena.Free(big);
  arena.Free(small);
  EXPECT_EQ(arena.Alloc(2000), small);
  EXPECT_EQ(arena.Alloc(3000), big);
  arena.Free(guard1);
  arena.Free(guard2);
}

TEST(ArenaAllocatorTest, FreedNeighboursCoalesce) {
  ArenaOptions options;
  options.extend_strategy = ArenaExtendStrategy::kSameAsRequested;
  auto system = System();
  ArenaAllocator arena(system, options);
  // One region of exactly 3 KB, cut into three 1 KB chunks.
  void* region = arena.Alloc(3072);
  arena.Free(region);
  void* a = arena.Alloc(1024);
  void* b = arena.Alloc(1024);
  void* c = arena.Alloc(1024);
  EXPECT_EQ(a, region);
  arena.Free(a);
  arena.Free(c);
  arena.Free(b);  // merges with both neighbours: one 3 KB chunk again
  EXPECT_EQ(arena.Alloc(3072), region);
  EXPECT_EQ(StatsOf(*system).num_allocs, 1);
}

TEST(ArenaAllocatorTest, ExtendStrategies) {
  {
    ArenaOptions options;
    options.initial_region_bytes = 1 << 16;
    auto system = System();
    ArenaAllocator arena(system, options);
    void* a = arena.Alloc(60000);  // the first region: 64 KiB
    void* b = arena.Alloc(60000);  // the second doubles: 128 KiB
    void* c = arena.Alloc(60000);  // fits the second region's rest
    EXPECT_EQ(StatsOf(arena).total_reserved_bytes, (1 << 16) + (1 << 17));
    EXPECT_EQ(StatsOf(arena).num_arena_extensions, 2);
    EXPECT_EQ(StatsOf(*system).max_alloc_size, 1 << 17);
    for (void* p : {a, b, c}) arena.Free(p);
  }
  {
    ArenaOptions options;
    options.extend_strategy = ArenaExtendStrategy::kSameAsRequested;
    ArenaAllocator arena(System(), options);
    void* a = arena.Alloc(1000);
    void* b = arena.Alloc(5000);
    EXPECT_EQ(StatsOf(arena).total_reserved_bytes, 1024 + 5120);
    EXPECT_EQ(StatsOf(arena).num_arena_extensions, 2);
    arena.Free(a);
    arena.Free(b);
  }
}

TEST(ArenaAllocatorTest, ShrinkReturnsOnlyEmptyRegions) {
  ArenaOptions options;
  options.extend_strategy = ArenaExtendStrategy::kSameAsRequested;
  auto system = System();
  ArenaAllocator arena(system, options);
  void* kept = arena.Alloc(4096);
  void* dropped = arena.Alloc(8192);
  arena.Free(dropped);
  EXPECT_EQ(arena.Shrink(), 8192);
  EXPECT_EQ(StatsOf(*system).bytes_in_use, 4096);
  AllocatorStats stats = StatsOf(arena);
  EXPECT_EQ(stats.total_reserved_bytes, 4096);
  EXPECT_EQ(stats.num_arena_shrinkages, 1);
  EXPECT_EQ(arena.Shrink(), 0);  // the region in use stays
  arena.Free(kept);
  EXPECT_EQ(arena.Shrink(), 4096);
  EXPECT_EQ(StatsOf(*system).bytes_in_use, 0);
  EXPECT_EQ(StatsOf(arena).num_arena_shrinkages, 2);
}

TEST(ArenaAllocatorTest, PointersAreAlignedAndDisjoint) {
  ArenaAllocator arena(System(), ArenaOptions{});
  std::mt19937 random(7);
  std::vector<std::pair<uint8_t*, size_t>> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && random() % 3 == 0) {
      const size_t victim = random() % live.size();
      const auto [data, bytes] = live[victim];
      for (size_t k = 0; k < bytes; ++k)
        ASSERT_EQ(data[k], static_cast<uint8_t>(reinterpret_cast<uintptr_t>(data) >> 6));
      arena.Free(data);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
      continue;
    }
    const size_t bytes = 1 + random() % 50000;
    auto* data = static_cast<uint8_t*>(arena.Alloc(bytes));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
    // Each chunk holds a byte derived from its address: an overlap would overwrite another's.
    std::memset(data, static_cast<uint8_t>(reinterpret_cast<uintptr_t>(data) >> 6), bytes);
    live.emplace_back(data, bytes);
  }
  for (const auto& [data, bytes] : live) arena.Free(data);
  EXPECT_EQ(StatsOf(arena).bytes_in_use, 0);
}

TEST(ArenaAllocatorTest, ConcurrentThreadsShareOneArena) {
  ArenaAllocator arena(System(), ArenaOptions{});
  std::vector<std::thread> threads;
  std::atomic<int> corrupted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&arena, &corrupted, t] {
      std::mt19937 random(static_cast<unsigned>(t));
      for (int i = 0; i < 2000; ++i) {
        const size_t bytes = 64 + random() % 20000;
        auto* data = static_cast<uint8_t*>(arena.Alloc(bytes));
        std::memset(data, t + 1, bytes);
        for (size_t k = 0; k < bytes; k += 97)
          if (data[k] != t + 1) corrupted++;
        arena.Free(data);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(corrupted.load(), 0);
  const AllocatorStats stats = StatsOf(arena);
  EXPECT_EQ(stats.num_allocs, 8000);
  EXPECT_EQ(stats.bytes_in_use, 0);
}

TEST(ArenaAllocatorTest, LimitAndForeignPointersAreClearErrors) {
  ArenaOptions options;
  options.max_bytes = 1 << 20;
  ArenaAllocator arena(System(), options);
  void* a = arena.Alloc(600000);
  try {
    arena.Alloc(600000);
    FAIL() << "the second allocation exceeds the limit";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("limited to 1048576 bytes"), std::string::npos)
        << e.what();
  }
  int local = 0;
  EXPECT_THROW(arena.Free(&local), Exception);
  arena.Free(a);
}

TEST(ArenaAllocatorTest, OptionsFromConfig) {
  EXPECT_EQ(ArenaOptionsFromConfig({}).extend_strategy, ArenaExtendStrategy::kNextPowerOfTwo);
  const ArenaOptions options =
      ArenaOptionsFromConfig({{"session.arena_extend_strategy", "kSameAsRequested"},
                              {"session.arena_initial_chunk_size_bytes", "4096"},
                              {"session.arena_max_mem", "1000000"}});
  EXPECT_EQ(options.extend_strategy, ArenaExtendStrategy::kSameAsRequested);
  EXPECT_EQ(options.initial_region_bytes, 4096u);
  EXPECT_EQ(options.max_bytes, 1000000u);
  EXPECT_EQ(ArenaOptionsFromConfig({{"session.arena_extend_strategy", "1"}}).extend_strategy,
            ArenaExtendStrategy::kSameAsRequested);
  try {
    ArenaOptionsFromConfig({{"session.arena_extend_strategy", "grow"}});
    FAIL();
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("got 'grow'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ArenaOptionsFromConfig({{"session.arena_max_mem", "-5"}}), Exception);
  EXPECT_THROW(ArenaOptionsFromConfig({{"session.arena_initial_chunk_size_bytes", "1k"}}),
               Exception);
}

}  // namespace
}  // namespace prism
