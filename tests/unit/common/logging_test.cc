// Logging scopes (a session's or a run's severity, verbosity and id on the threads working for
// it), the log sink, and the floating-point denormal mode handed to pool threads.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/denormal.h"
#include "common/logging.h"
#include "common/thread_pool.h"

namespace prism {
namespace {

struct Collected {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> messages;  // (log id, message)

  static void Sink(void* param, Severity, const char* log_id, const char* message) {
    auto* self = static_cast<Collected*>(param);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->messages.emplace_back(log_id, message);
  }
};

TEST(Logging, ScopesSetSeverityVerbosityAndIdPerThread) {
  Collected collected;
  const uint64_t token = InstallLogSink(&Collected::Sink, &collected);
  const Severity process = MinLogSeverity();
  SetMinLogSeverity(Severity::kWarning);
  PRISM_LOG(kVerbose, "dropped: the process is at warning");
  LogSettings verbose{0, 1, "scope"};
  {
    ScopedLogSettings scope(&verbose);
    EXPECT_TRUE(LogEnabled(Severity::kVerbose));
    PRISM_LOG(kVerbose, "kept");
    PRISM_VLOG(1, "kept at verbosity 1");
    PRISM_VLOG(2, "dropped at verbosity 2");
    LogSettings quiet{3, -1, "inner"};
    {
      ScopedLogSettings inner(&quiet);
      PRISM_LOG(kWarning, "dropped: the inner scope is at error");
    }
    // Another thread is outside the scope unless it takes it on.
    std::thread([] { PRISM_LOG(kVerbose, "dropped on another thread"); }).join();
    const LogSettings* settings = CurrentLogSettings();
    std::thread([settings] {
      ScopedLogSettings adopted(settings);
      PRISM_LOG(kVerbose, "kept on another thread");
    }).join();
    // Pool workers take the caller's settings for its ParallelFor.
    ThreadPool pool(3);
    std::atomic<int> chunks{0};
    pool.ParallelFor(64, 1e6, [&](int64_t, int64_t) {
      EXPECT_EQ(CurrentLogSettings(), &verbose);
      ++chunks;
    });
    EXPECT_GT(chunks.load(), 0);
  }
  EXPECT_FALSE(LogEnabled(Severity::kVerbose));
  RemoveLogSink(token);
  SetMinLogSeverity(process);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"scope", "kept"}, {"scope", "kept at verbosity 1"}, {"scope", "kept on another thread"}};
  EXPECT_EQ(collected.messages, expected);
}

TEST(Logging, DefaultVerbosityAppliesOutsideScopes) {
  const Severity process = MinLogSeverity();
  SetMinLogSeverity(Severity::kVerbose);
  EXPECT_FALSE(VerboseLogEnabled(1));
  SetDefaultLogVerbosity(1);
  EXPECT_TRUE(VerboseLogEnabled(1));
  LogSettings own{-1, 0, "own"};
  {
    ScopedLogSettings scope(&own);
    EXPECT_FALSE(VerboseLogEnabled(1));  // the scope's verbosity wins
    EXPECT_TRUE(VerboseLogEnabled(0));
  }
  SetDefaultLogVerbosity(0);
  SetMinLogSeverity(process);
}

TEST(Logging, RemovingAnOlderSinkKeepsTheNewer) {
  Collected first, second;
  const uint64_t a = InstallLogSink(&Collected::Sink, &first);
  const uint64_t b = InstallLogSink(&Collected::Sink, &second);
  RemoveLogSink(a);  // no longer the current sink: nothing changes
  LogMessage(Severity::kError, "to the second");
  RemoveLogSink(b);
  EXPECT_TRUE(first.messages.empty());
  ASSERT_EQ(second.messages.size(), 1u);
  EXPECT_EQ(second.messages[0].second, "to the second");
}

// A denormal float the compiler cannot fold: read through a volatile.
float DenormalTimesLarge() {
  volatile float denormal = 1e-39f;
  volatile float large = 1e30f;
  return denormal * large;
}

TEST(Denormal, ScopedModeFlushesAndRestores) {
  if (!DenormalAsZeroSupported()) GTEST_SKIP() << "no denormal mode control on this CPU";
  EXPECT_GT(DenormalTimesLarge(), 0.0f);
  {
    ScopedDenormalMode zero(ScopedDenormalMode::AsZero());
    EXPECT_EQ(CurrentDenormalMode(), ScopedDenormalMode::AsZero());
    EXPECT_EQ(DenormalTimesLarge(), 0.0f);
    // Pool workers compute with the caller's mode.
    ThreadPool pool(3);
    std::vector<float> products(4096, -1.0f);
    pool.ParallelFor(static_cast<int64_t>(products.size()), 1e4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) products[i] = DenormalTimesLarge();
    });
    for (float product : products) EXPECT_EQ(product, 0.0f);
  }
  EXPECT_EQ(CurrentDenormalMode(), 0u);
  EXPECT_GT(DenormalTimesLarge(), 0.0f);
}

TEST(TaskQueue, RunsEveryTaskOnItsThreads) {
  std::atomic<int> done{0};
  std::mutex mutex;
  std::vector<std::thread::id> threads;
  {
    TaskQueue queue(2);
    EXPECT_EQ(queue.Threads(), 2);
    for (int i = 0; i < 20; ++i)
      queue.Submit([&] {
        std::lock_guard<std::mutex> lock(mutex);
        threads.push_back(std::this_thread::get_id());
        ++done;
      });
  }  // the destructor runs what is queued, then joins
  EXPECT_EQ(done.load(), 20);
  for (const std::thread::id& id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

}  // namespace
}  // namespace prism
