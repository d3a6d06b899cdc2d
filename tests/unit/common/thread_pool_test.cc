// The intra-op pool: every index visited exactly once, work really spread over threads, small
// work inline, exceptions surfacing on the caller, many callers at once, idle workers asleep.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/thread_pool.h"

namespace prism {
namespace {

TEST(ThreadPool, EveryIndexOnceAcrossThreads) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.DegreeOfParallelism(), 4);
  // Whether a worker joins in depends on the scheduler (other processes may hold the cores), so
  // the spread is given a few tries with chunks long enough to wake one; every index must be
  // visited exactly once in every try.
  size_t most_threads = 0;
  for (int attempt = 0; attempt < 3 && most_threads < 2; ++attempt) {
    std::vector<std::atomic<int>> visits(10000);
    std::mutex mutex;
    std::set<std::thread::id> threads;
    pool.ParallelFor(static_cast<int64_t>(visits.size()), 1e4, [&](int64_t begin, int64_t end) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      for (int64_t i = begin; i < end; ++i) visits[i]++;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // let the others join in
    });
    for (size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i].load(), 1) << i;
    most_threads = std::max(most_threads, threads.size());
  }
  EXPECT_GT(most_threads, 1u) << "the work was not spread in 3 tries";
}

TEST(ThreadPool, SmallWorkRunsInlineOnTheCaller) {
  ThreadPool pool(4);
  std::set<std::thread::id> threads;
  int calls = 0;
  pool.ParallelFor(100, 1.0, [&](int64_t begin, int64_t end) {
    ++calls;
    threads.insert(std::this_thread::get_id());
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 100);
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
  int none = 0;
  ThreadPool::TryParallelFor(nullptr, 5, 1e9,
                             [&](int64_t begin, int64_t end) { none += end - begin; });
  EXPECT_EQ(none, 5);
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.ParallelFor(64, 1e6,
                                [](int64_t begin, int64_t) {
                                  if (begin > 0) throw std::runtime_error("chunk failed");
                                }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(64, 1e6, [&](int64_t begin, int64_t end) { sum += end - begin; });
  EXPECT_EQ(sum.load(), 64);
}

TEST(ThreadPool, ManyCallersShareOnePool) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  std::vector<int64_t> sums(6, 0);
  for (size_t t = 0; t < sums.size(); ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(1000, 1e3, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) sum += i;
          // A nested parallel-for inside a task runs inline instead of waiting on the pool.
          pool.ParallelFor(10, 1e9, [](int64_t, int64_t) {});
        });
        sums[t] += sum.load();
      }
    });
  for (auto& caller : callers) caller.join();
  for (int64_t sum : sums) EXPECT_EQ(sum, 20 * (999 * 1000 / 2));
}

// CPU time of this process in seconds.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST(ThreadPool, IdleWorkersDoNotBurnCpu) {
  ThreadPool pool(4);
  pool.ParallelFor(1000, 1e4, [](int64_t, int64_t) {});  // wake them once
  // Past their polling time (spin_microseconds, 1 ms by default) they must all be asleep.
  std::this_thread::sleep_for(std::chrono::microseconds(pool.SpinMicroseconds()) +
                              std::chrono::milliseconds(20));
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double used = ProcessCpuSeconds() - before;
  EXPECT_LT(used, 0.003) << "idle pool used " << used << " s of CPU in 0.3 s (under 1%)";
}

// A worker polls for the next job for a while before it sleeps (spin_microseconds), so that the
// next kernel of a run finds it awake; with 0 it sleeps at once.
TEST(ThreadPool, WorkersPollBeforeSleepingOnlyWhenAllowed) {
  const auto two_jobs = [](ThreadPool& pool) {
    std::atomic<int64_t> sum{0};
    for (int job = 0; job < 2; ++job) {
      pool.ParallelFor(1000, 1e4, [&](int64_t begin, int64_t end) { sum += end - begin; });
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(sum.load(), 2000);
  };
  ThreadPool polling(2, 500000);  // half a second: both jobs come well within it
  two_jobs(polling);
  EXPECT_EQ(polling.WorkerSleeps(), 0);
  ThreadPool sleeping(2, 0);
  two_jobs(sleeping);
  // On a loaded machine the worker may not have been scheduled yet (the caller ran every chunk):
  // it must go to sleep once it runs, within a few seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (sleeping.WorkerSleeps() < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GE(sleeping.WorkerSleeps(), 1);
}

TEST(ThreadPool, DefaultThreadsIsWithinTheAllowedCpus) {
  const int threads = DefaultIntraOpThreads();
  EXPECT_GE(threads, 1);
  EXPECT_LE(threads, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace prism
