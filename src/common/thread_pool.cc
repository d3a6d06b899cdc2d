#include "common/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/denormal.h"
#include "common/logging.h"

namespace prism {
namespace {

// Below this many basic operations a range runs inline: waking a thread costs microseconds.
constexpr double kMinParallelCost = 40000.0;
// The pool whose task this thread is running: a ParallelFor on that same pool runs inline (its
// workers may all be waiting on this task), one on another pool splits as usual (an inter-op
// worker running a kernel uses the intra-op pool).
thread_local const ThreadPool* running_task_of = nullptr;

// Polls between yields of the CPU while spinning: about 7 us of pause instructions here (27 ns
// each on the Zen 3 machine; a sched_yield takes about 0.7 us). When the thread a spinner waits
// for is queued on the spinner's own CPU (a busy neighbour took the other one and the scheduler
// moved it), polling without yielding kept it off until the polling window or the time slice
// ended: mobilenetv2 at 2 threads beside a process busy 3 ms of every 6 on one CPU took 12.6 ms
// (median of 6 alternating rounds), 9.3 ms with these yields; without the neighbour 6.26 and
// 6.13 ms.
constexpr int kPollsPerYield = 256;

// Polls ready() for up to `microseconds`; whether it became true. The clock is read every 64
// polls, and the CPU is told it is spinning (pause) between polls.
template <typename Ready>
bool SpinUntil(Ready ready, int microseconds) {
  if (microseconds <= 0) return ready();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(microseconds);
  for (int polls = 1;; ++polls) {
    if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (polls % 64 == 0) {
      if (std::chrono::steady_clock::now() >= deadline) return ready();
      if (polls % kPollsPerYield == 0) sched_yield();
    }
  }
}

}  // namespace

struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t total = 0;
  // Guided self-scheduling: a thread claims a share of what is left, left / divisor, but at
  // least min_chunk units: large chunks first, small ones at the end, so that threads finish
  // within a small chunk of each other (equal chunks leave a caller waiting up to one). The
  // caller claims from the start of the range and the helpers from its end, so that on two
  // threads each one's units are one run that the next node's split mostly repeats: a node
  // reads what its own core wrote (claims alternating from the start interleaved the two
  // threads' rows, and the next node read half of its input from the other core's cache).
  int64_t min_chunk = 1;
  int64_t divisor = 1;
  // The unclaimed units [front, back), packed as front | back << 32 (ParallelFor splits
  // larger totals into passes of at most 2^31 units).
  std::atomic<uint64_t> unclaimed{0};
  std::atomic<int64_t> done{0};  // units finished
  // Set by the caller before it sleeps on `finished`: only then does the thread that finishes
  // the last unit take the mutex to wake it (both sides sequentially consistent: either that
  // thread sees the flag, or the caller sees every unit done before it sleeps).
  std::atomic<bool> caller_sleeping{false};
  std::mutex mutex;
  std::condition_variable finished;
  std::exception_ptr error;
  // The caller's floating-point denormal mode and logging settings, for the workers' chunks.
  uint64_t denormal_mode = 0;
  const LogSettings* log_settings = nullptr;
};

ThreadPool::ThreadPool(int threads, int spin_microseconds)
    : spin_microseconds_(std::max(spin_microseconds, 0)) {
  for (int i = 1; i < std::max(threads, 1); ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::RunChunks(Job& job, bool from_back) {
  const ThreadPool* outer = running_task_of;
  running_task_of = this;
  for (;;) {
    uint64_t range = job.unclaimed.load(std::memory_order_relaxed);
    int64_t begin = 0, end = 0;
    for (;;) {
      const auto front = static_cast<int64_t>(range & 0xffffffffu);
      const auto back = static_cast<int64_t>(range >> 32);
      if (front >= back) break;
      const int64_t left = back - front;
      const int64_t size = std::min(left, std::max(job.min_chunk, left / job.divisor));
      begin = from_back ? back - size : front;
      end = begin + size;
      const uint64_t rest = from_back ? (static_cast<uint64_t>(back - size) << 32) | front
                                      : (static_cast<uint64_t>(back) << 32) | (front + size);
      if (job.unclaimed.compare_exchange_weak(range, rest)) break;
      begin = end = 0;
    }
    if (begin >= end) break;
    try {
      (*job.fn)(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mutex);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.done.fetch_add(end - begin) + (end - begin) == job.total &&
        job.caller_sleeping.load()) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.finished.notify_all();
    }
  }
  running_task_of = outer;
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::shared_ptr<Job> job;
    SpinUntil([this] { return queued_.load() > 0 || stopping_.load(); }, spin_microseconds_);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!stopping_ && queue_.empty()) ++worker_sleeps_;
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping with nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
      --queued_;
    }
    ScopedDenormalMode denormal_mode(job->denormal_mode);
    ScopedLogSettings log_settings(job->log_settings);
    RunChunks(*job, /*from_back=*/true);
  }
}

void ThreadPool::ParallelFor(int64_t total, double cost_per_unit,
                             const std::function<void(int64_t begin, int64_t end)>& fn) {
  if (total <= 0) return;
  const int threads = DegreeOfParallelism();
  if (threads == 1 || running_task_of == this || total == 1 ||
      static_cast<double>(total) * cost_per_unit < kMinParallelCost) {
    fn(0, total);
    return;
  }
  constexpr int64_t kMaxPass = int64_t{1} << 31;  // what Job::unclaimed holds
  if (total > kMaxPass) {
    for (int64_t start = 0; start < total; start += kMaxPass) {
      const int64_t count = std::min(kMaxPass, total - start);
      ParallelFor(count, cost_per_unit,
                  [&](int64_t begin, int64_t end) { fn(start + begin, start + end); });
    }
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->total = total;
  job->unclaimed.store(static_cast<uint64_t>(total) << 32);
  // The first claims take a quarter of what is left per thread pair, the last ones down to one
  // in 8 * threads of the whole (16 on 2 threads). With 4 equal chunks per thread the caller of
  // squeezenet1_1's convolutions at 2 threads spent about 2.6% of the run's samples waiting for
  // its helper's last chunk (perf), 2.0% with these.
  job->min_chunk = std::max<int64_t>(1, (total + 8 * threads - 1) / (8 * threads));
  job->divisor = 2 * threads;
  job->denormal_mode = CurrentDenormalMode();
  job->log_settings = CurrentLogSettings();
  const int64_t chunks_at_most = (total + job->min_chunk - 1) / job->min_chunk;
  const int64_t helpers =
      std::min<int64_t>(chunks_at_most - 1, static_cast<int64_t>(workers_.size()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t i = 0; i < helpers; ++i) queue_.push_back(job);
  }
  // Announced to polling workers only once the mutex is free: a worker that saw the count while
  // the caller still held the mutex slept in the kernel on it (strace, 305 runs of
  // mobilenetv2_qdq at 2 threads: 19941 futex calls, 5340 with this and the mutex-free wait
  // below). The count is a hint; the queue is the truth.
  queued_ += helpers;
  for (int64_t i = 0; i < helpers; ++i) wake_.notify_one();
  RunChunks(*job, /*from_back=*/false);
  // The helpers are usually a chunk away from done: poll before sleeping on the condition, and
  // take the job's mutex only to sleep (the finishing worker takes it only to wake a sleeper).
  const auto all_done = [&] { return job->done.load() == job->total; };
  if (!SpinUntil(all_done, spin_microseconds_)) {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->caller_sleeping.store(true);
    job->finished.wait(lock, all_done);
  }
  if (job->error) std::rethrow_exception(job->error);
}

void ThreadPool::TryParallelFor(ThreadPool* pool, int64_t total, double cost_per_unit,
                                const std::function<void(int64_t begin, int64_t end)>& fn) {
  if (pool != nullptr)
    pool->ParallelFor(total, cost_per_unit, fn);
  else if (total > 0)
    fn(0, total);
}

TaskQueue::TaskQueue(int threads) {
  for (int i = 0; i < std::max(threads, 1); ++i) threads_.emplace_back([this] { Loop(); });
}

TaskQueue::~TaskQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void TaskQueue::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void TaskQueue::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping with nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();  // tasks handle their own errors
  }
}

TaskQueue& AsyncRunQueue() {
  // Never destroyed: a task may still hold a session while the process exits.
  static TaskQueue* queue = new TaskQueue(std::max(2, DefaultIntraOpThreads()));
  return *queue;
}

namespace {

// cgroup v2 "cpu.max": "<quota> <period>" or "max <period>".
int CgroupCpuLimit() {
  std::ifstream file("/sys/fs/cgroup/cpu.max");
  std::string quota;
  int64_t period = 0;
  if (!(file >> quota >> period) || quota == "max" || period <= 0) return 0;
  try {
    const double cpus = std::stod(quota) / static_cast<double>(period);
    return std::max(1, static_cast<int>(std::ceil(cpus)));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

int DefaultIntraOpThreads() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  int logical = static_cast<int>(std::thread::hardware_concurrency());
  std::set<std::string> cores;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    logical = CPU_COUNT(&allowed);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &allowed)) continue;
      std::ifstream siblings("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                             "/topology/thread_siblings_list");
      std::string list;
      cores.insert(siblings >> list ? list : std::to_string(cpu));
    }
  }
  int threads = cores.empty() ? std::max(logical, 1) : static_cast<int>(cores.size());
  if (const int limit = CgroupCpuLimit(); limit > 0) threads = std::min(threads, limit);
  return std::max(threads, 1);
}

}  // namespace prism
