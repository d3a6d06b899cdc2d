// The intra-op pool: every index visited exactly once, work really spread over threads, small
// work inline, exceptions surfacing on the caller, many callers at once, idle workers asleep.
#include <sched.h>

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

// The caller claims from the start of the range and the helper from its end, so on two threads
// each one's units form one run (the next node's split mostly repeats it and reads what its own
// core wrote): the caller's units are a prefix, the helper's the rest.
TEST(ThreadPool, OnTwoThreadsTheCallerTakesAPrefixAndTheHelperTheRest) {
  ThreadPool pool(2);
  bool helper_joined = false;
  for (int attempt = 0; attempt < 3 && !helper_joined; ++attempt) {
    std::vector<std::thread::id> owner(2000);
    std::vector<std::atomic<int>> visits(owner.size());
    const std::thread::id caller = std::this_thread::get_id();
    pool.ParallelFor(static_cast<int64_t>(owner.size()), 1e4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        owner[i] = std::this_thread::get_id();
        visits[i]++;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // let the helper join in
    });
    size_t prefix = 0;
    while (prefix < owner.size() && owner[prefix] == caller) ++prefix;
    for (size_t i = 0; i < owner.size(); ++i) {
      ASSERT_EQ(visits[i].load(), 1) << i;
      if (i >= prefix) {
        ASSERT_NE(owner[i], caller) << "unit " << i << " after the caller's prefix";
      }
    }
    helper_joined = prefix < owner.size();
    if (helper_joined) {
      EXPECT_GT(prefix, 0u) << "the caller took nothing";
    }
  }
  EXPECT_TRUE(helper_joined) << "the helper never joined in 3 tries";
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

// CPU time of the calling thread in seconds.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Keeps this thread busy for `seconds` of its own CPU time.
void BurnCpu(double seconds) {
  const double until = ThreadCpuSeconds() + seconds;
  volatile double sink = 0;
  while (ThreadCpuSeconds() < until) sink = sink + 1.0;
}

// A caller waiting for its helper polls, but when both share one CPU (a busy neighbour took the
// other) the polling must give the CPU up now and then, or it takes the helper's turns: here the
// caller's chunk is short and the worker's long, all on one CPU, and the caller's CPU time after
// its chunk (spent waiting) must stay small. Polling without yielding spends about as much as the
// worker has left (20 ms).
TEST(ThreadPool, WaitingCallerGivesWayToItsHelperOnOneCpu) {
  double waited = -1;
  std::thread test([&] {
    cpu_set_t current;
    CPU_ZERO(&current);
    ASSERT_EQ(sched_getaffinity(0, sizeof(current), &current), 0);
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &current)) ++cpu;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    ThreadPool pool(2, 10000000);  // polls for 10 s: only yielding can hand the CPU over
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> started{0};
    double caller_done = 0;
    pool.ParallelFor(2, 1e9, [&](int64_t begin, int64_t end) {
      ASSERT_EQ(end - begin, 1);
      // Both units start before either works: the worker really holds one.
      ++started;
      while (started.load() < 2) sched_yield();
      if (std::this_thread::get_id() == caller) {
        BurnCpu(0.005);
        caller_done = ThreadCpuSeconds();
      } else {
        BurnCpu(0.030);
      }
    });
    waited = ThreadCpuSeconds() - caller_done;
  });
  test.join();
  ASSERT_GE(waited, 0.0);
  EXPECT_LT(waited, 0.008) << "the caller spent " << waited
                           << " s of CPU waiting for a helper on its own CPU";
}

TEST(ThreadPool, DefaultThreadsIsWithinTheAllowedCpus) {
  const int threads = DefaultIntraOpThreads();
  EXPECT_GE(threads, 1);
  EXPECT_LE(threads, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace prism
