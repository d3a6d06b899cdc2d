// Run options: per-run log level and verbosity, tag, config entries, the path to the fetches,
// and the terminate flag.
#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

PrismStatus* CreateRunOptions(PrismRunOptions** out) noexcept {
  return Guard(__func__, [&] {
    PrismRunOptions** target = Require(out, "out");  // before allocating: NULL leaks nothing
    *target = new PrismRunOptions();
  });
}

void ReleaseRunOptions(PrismRunOptions* options) noexcept {
  delete options;
}

PrismStatus* RunOptionsSetRunLogSeverityLevel(PrismRunOptions* options, int level) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.log_severity_level =
        static_cast<int>(CheckedSeverity(level, "run log severity level"));
  });
}

PrismStatus* RunOptionsSetRunTag(PrismRunOptions* options, const char* tag) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    options->options.run_tag = Require(tag, "tag");
  });
}

PrismStatus* AddRunConfigEntry(PrismRunOptions* options, const char* key,
                               const char* value) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    const std::string name = Require(key, "key");
    PRISM_ENFORCE(!name.empty(), kInvalidArgument, "AddRunConfigEntry: the key is empty");
    options->options.config_entries[name] = Require(value, "value");
  });
}

PrismStatus* RunOptionsSetRunLogVerbosityLevel(PrismRunOptions* options, int verbosity) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    PRISM_ENFORCE(verbosity >= 0, kInvalidArgument, "run log verbosity level must be >= 0, got ",
                  verbosity);
    options->options.log_verbosity_level = verbosity;
  });
}

PrismStatus* GetRunConfigEntry(const PrismRunOptions* options, const char* key,
                               const char** value) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options");
    Require(key, "key");
    Require(value, "value");
    auto it = options->options.config_entries.find(key);
    *value = it == options->options.config_entries.end() ? nullptr : it->second.c_str();
  });
}

PrismStatus* RunOptionsSetOnlyExecutePathToFetches(PrismRunOptions* options, int enable) noexcept {
  return Guard(__func__, [&] {
    Require(options, "options")->options.only_execute_path_to_fetches = enable != 0;
  });
}

PrismStatus* RunOptionsSetTerminate(PrismRunOptions* options) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->terminate.store(true); });
}

PrismStatus* RunOptionsUnsetTerminate(PrismRunOptions* options) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->terminate.store(false); });
}

}  // namespace prism::capi
