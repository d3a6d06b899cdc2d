// The intra-op thread pool: a cost-based parallel-for whose caller works too, with workers that
// sleep on a condition variable (never spin while idle). Several threads may call ParallelFor on
// one pool at once (concurrent Runs of one session); a ParallelFor inside a task of the same pool
// runs inline, one on another pool splits over that pool. Workers run a ParallelFor's chunks
// with the caller's denormal mode (common/denormal.h) and logging settings (common/logging.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace prism {

class ThreadPool {
 public:
  // threads: the degree of parallelism, the calling thread included (threads - 1 workers).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int DegreeOfParallelism() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) over disjoint ranges covering [0, total). cost_per_unit is a rough
  // number of basic operations per unit: work below a threshold runs inline, larger work is cut
  // into a few chunks per thread. Exceptions from fn are rethrown on the caller (the first one).
  void ParallelFor(int64_t total, double cost_per_unit,
                   const std::function<void(int64_t begin, int64_t end)>& fn);

  // The same with an optional pool: nullptr runs inline.
  static void TryParallelFor(ThreadPool* pool, int64_t total, double cost_per_unit,
                             const std::function<void(int64_t begin, int64_t end)>& fn);

 private:
  struct Job;
  void WorkerLoop();
  void RunChunks(Job& job);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per worker invited to help
  bool stopping_ = false;
};

// Runs tasks on its own threads, in submission order as threads free up (the C ABI's RunAsync
// runs there). Tasks still queued when it is destroyed run before the threads exit.
class TaskQueue {
 public:
  explicit TaskQueue(int threads);
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  void Submit(std::function<void()> task);
  int Threads() const { return static_cast<int>(threads_.size()); }

 private:
  void Loop();

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
};

// The process's queue for asynchronous runs: DefaultIntraOpThreads() threads (at least 2),
// started on first use and kept for the life of the process.
TaskQueue& AsyncRunQueue();

// Threads a session uses by default: the physical cores this process may run on (affinity mask,
// then SMT siblings counted once), capped by the cgroup CPU quota; at least 1.
int DefaultIntraOpThreads();

}  // namespace prism
