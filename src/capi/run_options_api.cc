// Run options: per-run log level, tag, and the terminate flag.
#include "capi/api_convert.h"
#include "capi/api_functions.h"
#include "capi/api_guard.h"
#include "capi/api_objects.h"

namespace prism::capi {

PrismStatus* CreateRunOptions(PrismRunOptions** out) noexcept {
  return Guard(__func__, [&] { *Require(out, "out") = new PrismRunOptions(); });
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

PrismStatus* RunOptionsSetTerminate(PrismRunOptions* options) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->terminate.store(true); });
}

PrismStatus* RunOptionsUnsetTerminate(PrismRunOptions* options) noexcept {
  return Guard(__func__, [&] { Require(options, "options")->terminate.store(false); });
}

}  // namespace prism::capi
