// Environments, process-wide logging, the random seed, build information and the list of
// available providers.
#include <memory>
#include <mutex>
#include <vector>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"
#include "common/logging.h"
#include "framework/random_seed.h"
#include "session/global_thread_pools.h"
#include "session/provider_library.h"

#define PRISM_STRINGIFY_INNER(x) #x
#define PRISM_STRINGIFY(x) PRISM_STRINGIFY_INNER(x)

namespace prism::capi {

PrismStatus* CreateEnv(PrismLoggingLevel logging_level, const char* log_id,
                       PrismEnv** out) noexcept {
  return Guard(__func__, [&] {
    Require(log_id, "log_id");
    Require(out, "out");
    const Severity severity = CheckedSeverity(EnumArgument(logging_level), "logging_level");
    auto env = std::make_unique<PrismEnv>();
    env->log_id = log_id;
    SetMinLogSeverity(severity);
    *out = env.release();
  });
}

PrismStatus* CreateThreadingOptions(PrismThreadingOptions** out) noexcept {
  return Guard(__func__, [&] {
    PrismThreadingOptions** target = Require(out, "out");  // before allocating: NULL leaks nothing
    *target = new PrismThreadingOptions();
  });
}

void ReleaseThreadingOptions(PrismThreadingOptions* options) noexcept {
  delete options;
}

PrismStatus* SetGlobalIntraOpNumThreads(PrismThreadingOptions* options, int threads) noexcept {
  return Guard(__func__, [&] {
    PRISM_ENFORCE(threads >= 0, kInvalidArgument, "threads must be >= 0, got ", threads);
    Require(options, "options")->sizes.intra_op_threads = threads;
  });
}

PrismStatus* SetGlobalInterOpNumThreads(PrismThreadingOptions* options, int threads) noexcept {
  return Guard(__func__, [&] {
    PRISM_ENFORCE(threads >= 0, kInvalidArgument, "threads must be >= 0, got ", threads);
    Require(options, "options")->sizes.inter_op_threads = threads;
  });
}

PrismStatus* CreateEnvWithGlobalThreadPools(PrismLoggingLevel logging_level, const char* log_id,
                                            const PrismThreadingOptions* threading_options,
                                            PrismEnv** out) noexcept {
  return Guard(__func__, [&] {
    Require(log_id, "log_id");
    Require(out, "out");
    const Severity severity = CheckedSeverity(EnumArgument(logging_level), "logging_level");
    CreateGlobalThreadPools(Require(threading_options, "threading_options")->sizes);
    auto env = std::make_unique<PrismEnv>();
    env->log_id = log_id;
    SetMinLogSeverity(severity);
    *out = env.release();
  });
}

namespace {

// One custom logger: the function and its parameter, for the core's log sink.
struct CustomLogger {
  PrismLoggingFunction function = nullptr;
  void* param = nullptr;
};

void ForwardToCustomLogger(void* param, Severity severity, const char* log_id,
                           const char* message) {
  const auto* logger = static_cast<const CustomLogger*>(param);
  logger->function(logger->param, static_cast<PrismLoggingLevel>(severity), "prism", log_id, "",
                   message);
}

// Loggers installed so far (a few per process at most); kept so that a message in flight never
// reads a freed one.
std::mutex logger_mutex;
std::vector<std::unique_ptr<CustomLogger>>& CustomLoggers() {
  static std::vector<std::unique_ptr<CustomLogger>> loggers;
  return loggers;
}

}  // namespace

PrismStatus* CreateEnvWithCustomLogger(PrismLoggingFunction logging_function, void* logger_param,
                                       PrismLoggingLevel logging_level, const char* log_id,
                                       PrismEnv** out) noexcept {
  return Guard(__func__, [&] {
    Require(logging_function, "logging_function");
    Require(log_id, "log_id");
    Require(out, "out");
    const Severity severity = CheckedSeverity(EnumArgument(logging_level), "logging_level");
    auto env = std::make_unique<PrismEnv>();
    env->log_id = log_id;
    CustomLogger* logger = nullptr;
    {
      std::lock_guard<std::mutex> lock(logger_mutex);
      CustomLoggers().push_back(
          std::make_unique<CustomLogger>(CustomLogger{logging_function, logger_param}));
      logger = CustomLoggers().back().get();
    }
    SetMinLogSeverity(severity);
    env->log_sink = InstallLogSink(ForwardToCustomLogger, logger);
    *out = env.release();
  });
}

PrismStatus* SetLogVerbosityLevel(PrismEnv* env, int verbosity) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    PRISM_ENFORCE(verbosity >= 0, kInvalidArgument, "log verbosity level must be >= 0, got ",
                  verbosity);
    SetDefaultLogVerbosity(verbosity);
  });
}

PrismStatus* SetRandomSeed(int64_t seed) noexcept {
  return Guard(__func__, [&] { prism::SetRandomSeed(seed); });
}

const char* GetBuildInfoString() noexcept {
#if defined(__clang__)
#define PRISM_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define PRISM_COMPILER "gcc " __VERSION__
#else
#define PRISM_COMPILER "unknown"
#endif
  return "Prism Build Info: version=" PRISM_VERSION_STRING ", build type=" PRISM_BUILD_TYPE
         ", compiler=" PRISM_COMPILER ", c-api-version=" PRISM_STRINGIFY(PRISM_API_VERSION);
#undef PRISM_COMPILER
}

void ReleaseEnv(PrismEnv* env) noexcept {
  if (env == nullptr) return;
  if (env->log_sink != 0) RemoveLogSink(env->log_sink);
  delete env;
}

PrismStatus* SetLogSeverityLevel(PrismEnv* env, PrismLoggingLevel logging_level) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    SetMinLogSeverity(CheckedSeverity(EnumArgument(logging_level), "logging_level"));
  });
}

PrismStatus* GetAvailableProviders(char*** names, size_t* count) noexcept {
  return Guard(__func__, [&] {
    Require(names, "names");
    Require(count, "count");
    CopyToCStringArray(AvailableProviders(), names, count);
  });
}

}  // namespace prism::capi
