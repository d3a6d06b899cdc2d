// Environments, process-wide logging and the list of available providers.
#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"
#include "common/logging.h"
#include "session/global_thread_pools.h"
#include "session/provider_library.h"

namespace prism::capi {

PrismStatus* CreateEnv(PrismLoggingLevel logging_level, const char* log_id,
                       PrismEnv** out) noexcept {
  return Guard(__func__, [&] {
    Require(log_id, "log_id");
    Require(out, "out");
    const Severity severity = CheckedSeverity(logging_level, "logging_level");
    auto env = std::make_unique<PrismEnv>();
    env->log_id = log_id;
    SetMinLogSeverity(severity);
    *out = env.release();
  });
}

PrismStatus* CreateThreadingOptions(PrismThreadingOptions** out) noexcept {
  return Guard(__func__, [&] { *Require(out, "out") = new PrismThreadingOptions(); });
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
    const Severity severity = CheckedSeverity(logging_level, "logging_level");
    CreateGlobalThreadPools(Require(threading_options, "threading_options")->sizes);
    auto env = std::make_unique<PrismEnv>();
    env->log_id = log_id;
    SetMinLogSeverity(severity);
    *out = env.release();
  });
}

void ReleaseEnv(PrismEnv* env) noexcept {
  delete env;
}

PrismStatus* SetLogSeverityLevel(PrismEnv* env, PrismLoggingLevel logging_level) noexcept {
  return Guard(__func__, [&] {
    Require(env, "env");
    SetMinLogSeverity(CheckedSeverity(logging_level, "logging_level"));
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
