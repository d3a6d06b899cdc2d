// The intra-op thread pool: a cost-based parallel-for whose caller works too, with workers that
// sleep on a condition variable when idle. Before sleeping, a worker polls for new work for a
// bounded time (spin_microseconds), and so does a caller waiting for its helpers: the kernels of
// one run follow each other within microseconds, and a sleeping thread takes tens of
// microseconds to wake, which would cost more than small kernels gain from a second thread. Several
// threads may call ParallelFor on one pool at once (concurrent Runs of one session); a ParallelFor
// inside a task of the same pool runs inline, one on another pool splits over that pool. Workers
// run a ParallelFor's chunks with the caller's denormal mode (common/denormal.h) and logging
// settings (common/logging.h).
#pragma once

#include <atomic>
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
  // How long idle threads poll before sleeping, unless told otherwise: enough to bridge the gap
  // between one kernel and the next, and the end of one thread's share of a kernel and the
  // other's; an idle session's workers sleep after that. At 100 us resnet50_qdq at 2 threads
  // slept (and was woken) about 14 times a run (perf stat: 1420 context switches in 103 runs,
  // half of them callers waiting on a helper's last block); at 1000 us 1.6 times (164), and the
  // medians of alternating runs of six models at 2 threads came out 0.96x (geomean).
  static constexpr int kDefaultSpinMicroseconds = 1000;

  // threads: the degree of parallelism, the calling thread included (threads - 1 workers).
  // spin_microseconds: how long an idle worker, or a caller waiting for its helpers, polls before
  // sleeping (0: sleep at once; onnxruntime's session.intra_op.allow_spinning = 0).
  explicit ThreadPool(int threads, int spin_microseconds = kDefaultSpinMicroseconds);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int DegreeOfParallelism() const { return static_cast<int>(workers_.size()) + 1; }
  int SpinMicroseconds() const { return spin_microseconds_; }
  // How many times a worker has gone to sleep waiting for work (for tests).
  int64_t WorkerSleeps() const { return worker_sleeps_.load(); }

  // Calls fn(begin, end) over disjoint ranges covering [0, total). cost_per_unit is a rough
  // number of basic operations per unit: work below a threshold runs inline, larger work is
  // claimed by the threads in shrinking chunks (a share of what is left, down to 1 / (8 *
  // threads) of the whole). Exceptions from fn are rethrown on the caller (the first one).
  void ParallelFor(int64_t total, double cost_per_unit,
                   const std::function<void(int64_t begin, int64_t end)>& fn);

  // The same with an optional pool: nullptr runs inline.
  static void TryParallelFor(ThreadPool* pool, int64_t total, double cost_per_unit,
                             const std::function<void(int64_t begin, int64_t end)>& fn);

 private:
  struct Job;
  void WorkerLoop();
  // from_back: a helper claims chunks from the end of the range, the caller from the start.
  void RunChunks(Job& job, bool from_back);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per worker invited to help
  std::atomic<int64_t> queued_{0};          // queue_.size(), readable without the mutex
  std::atomic<bool> stopping_{false};
  int spin_microseconds_;
  std::atomic<int64_t> worker_sleeps_{0};
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
