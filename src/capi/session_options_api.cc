// Session options: onnxruntime's settings and the execution provider priority list.
#include <memory>

#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

PrismStatus* CreateSessionOptions(PrismSessionOptions** out) noexcept {
  return Guard(__func__, [&] {
    PrismSessionOptions** target = Require(out, "out");  // before allocating: NULL leaks nothing
    *target = new PrismSessionOptions();
  });
}

PrismStatus* CloneSessionOptions(const PrismSessionOptions* options,
                                 PrismSessionOptions** out) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    PrismSessionOptions** target = Require(out, "out");
    *target = new PrismSessionOptions(*options);
  });
}

void ReleaseSessionOptions(PrismSessionOptions* options) noexcept {
  delete options;
}

PrismStatus* SetIntraOpNumThreads(PrismSessionOptions* options, int threads) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    PRISM_ENFORCE(threads >= 0, kInvalidArgument, "intra_op_num_threads must be >= 0, got ",
                  threads);
    options->options.intra_op_num_threads = threads;
  });
}

PrismStatus* SetInterOpNumThreads(PrismSessionOptions* options, int threads) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    PRISM_ENFORCE(threads >= 0, kInvalidArgument, "inter_op_num_threads must be >= 0, got ",
                  threads);
    options->options.inter_op_num_threads = threads;
  });
}

PrismStatus* SetGraphOptimizationLevel(PrismSessionOptions* options,
                                       PrismGraphOptimizationLevel level) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    const int value = EnumArgument(level);
    PRISM_ENFORCE(value == PRISM_DISABLE_ALL || value == PRISM_ENABLE_BASIC ||
                      value == PRISM_ENABLE_EXTENDED || value == PRISM_ENABLE_LAYOUT ||
                      value == PRISM_ENABLE_ALL,
                  kInvalidArgument, "graph optimization level must be 0, 1, 2, 3 or 99, got ",
                  value);
    options->options.graph_optimization_level = static_cast<GraphOptimizationLevel>(value);
  });
}

PrismStatus* SetExecutionMode(PrismSessionOptions* options, PrismExecutionMode mode) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    const int value = EnumArgument(mode);
    PRISM_ENFORCE(value == PRISM_SEQUENTIAL || value == PRISM_PARALLEL, kInvalidArgument,
                  "execution mode must be 0 (sequential) or 1 (parallel), got ", value);
    options->options.execution_mode = static_cast<ExecutionMode>(value);
  });
}

PrismStatus* SetOptimizedModelFilePath(PrismSessionOptions* options, const char* path) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.optimized_model_filepath = Require(path, "path");
  });
}

PrismStatus* DisablePerSessionThreads(PrismSessionOptions* options) noexcept {
  return Guard(__func__,
               [&] { Require(options, "options")->options.use_per_session_threads = false; });
}

PrismStatus* SetDisabledOptimizers(PrismSessionOptions* options, const char* const* names,
                                   size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    if (count > 0) Require(names, "names");
    std::vector<std::string> disabled;
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(names[i] != nullptr, kInvalidArgument, "SetDisabledOptimizers: names[", i,
                    "] is NULL");
      disabled.emplace_back(names[i]);
    }
    options->options.disabled_optimizers = std::move(disabled);
  });
}

PrismStatus* EnableProfiling(PrismSessionOptions* options, const char* prefix) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.profile_file_prefix = Require(prefix, "prefix");
    options->options.enable_profiling = true;
  });
}

PrismStatus* DisableProfiling(PrismSessionOptions* options) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->options.enable_profiling = false; });
}

PrismStatus* SetSessionLogSeverityLevel(PrismSessionOptions* options, int level) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.log_severity_level =
        static_cast<int>(CheckedSeverity(level, "session log severity level"));
  });
}

PrismStatus* SetSessionLogId(PrismSessionOptions* options, const char* log_id) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.log_id = Require(log_id, "log_id");
  });
}

PrismStatus* SetSessionLogVerbosityLevel(PrismSessionOptions* options, int verbosity) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    PRISM_ENFORCE(verbosity >= 0, kInvalidArgument,
                  "session log verbosity level must be >= 0, got ", verbosity);
    options->options.log_verbosity_level = verbosity;
  });
}

PrismStatus* EnableMemReuse(PrismSessionOptions* options, int enable) noexcept {
  return Guard(__func__,
               [&] { Require(options, "options")->options.enable_mem_reuse = enable != 0; });
}

PrismStatus* SetDeterministicCompute(PrismSessionOptions* options, int enable) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options")->options.use_deterministic_compute = enable != 0;
  });
}

PrismStatus* GetSessionConfigEntry(const PrismSessionOptions* options, const char* key,
                                   const char** value) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(key, "key");
    Require(value, "value");
    auto it = options->options.config_entries.find(key);
    *value = it == options->options.config_entries.end() ? nullptr : it->second.c_str();
  });
}

PrismStatus* EnableCpuMemArena(PrismSessionOptions* options, int enable) noexcept {
  return Guard(__func__,
               [&] { Require(options, "options")->options.enable_cpu_mem_arena = enable; });
}

PrismStatus* EnableMemPattern(PrismSessionOptions* options, int enable) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->options.enable_mem_pattern = enable; });
}

PrismStatus* AddSessionConfigEntry(PrismSessionOptions* options, const char* key,
                                   const char* value) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(key, "key");
    Require(value, "value");
    PRISM_ENFORCE(*key != '\0', kInvalidArgument, "session config key must not be empty");
    options->options.config_entries[key] = value;
  });
}

PrismStatus* AppendExecutionProvider(PrismSessionOptions* options, const char* name,
                                     const char* const* option_keys,
                                     const char* const* option_values, size_t count) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(name, "name");
    PRISM_ENFORCE(*name != '\0', kInvalidArgument, "execution provider name must not be empty");
    ProviderSpec spec{name, {}};
    if (count > 0) {
      Require(option_keys, "option_keys");
      Require(option_values, "option_values");
    }
    for (size_t i = 0; i < count; ++i) {
      PRISM_ENFORCE(option_keys[i] != nullptr && option_values[i] != nullptr, kInvalidArgument,
                    "option ", i, " of execution provider '", name, "' has a NULL ",
                    option_keys[i] == nullptr ? "key" : "value");
      spec.options[option_keys[i]] = option_values[i];
    }
    options->providers.push_back(std::move(spec));
  });
}

}  // namespace prism::capi
