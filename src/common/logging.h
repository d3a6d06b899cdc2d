// Process-wide logging with onnxruntime's severities (0 verbose .. 4 fatal) and verbosity.
//
// The process has a minimum severity and a verbosity (the defaults). A session or a run may set
// its own for the work it does (ScopedLogSettings, onnxruntime's session and run loggers): while
// a thread works for it, messages are filtered by its settings and carry its log id. Messages go
// to stderr, or to the sink an application installed (the C ABI's CreateEnvWithCustomLogger).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace prism {

enum class Severity : int { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// The default minimum is kWarning, overridable with PRISM_LOG_LEVEL=0..4.
Severity MinLogSeverity();
void SetMinLogSeverity(Severity severity);
// The default verbosity (0): verbose messages of level v are written only when the effective
// verbosity is at least v (onnxruntime's VLOG levels).
int DefaultLogVerbosity();
void SetDefaultLogVerbosity(int verbosity);

// A session's or a run's logging: severity -1 and verbosity -1 mean the process defaults.
struct LogSettings {
  int severity = -1;
  int verbosity = -1;
  std::string log_id;
};

// Makes settings the calling thread's until destroyed (the previous ones then come back).
// settings must outlive the scope.
class ScopedLogSettings {
 public:
  explicit ScopedLogSettings(const LogSettings* settings);
  ~ScopedLogSettings();
  ScopedLogSettings(const ScopedLogSettings&) = delete;
  ScopedLogSettings& operator=(const ScopedLogSettings&) = delete;

 private:
  const LogSettings* previous_;
};

// The calling thread's settings (nullptr outside any scope), for handing to helper threads.
const LogSettings* CurrentLogSettings();
// Whether a message of this severity is written on the calling thread.
bool LogEnabled(Severity severity);
// Whether a verbose message of this verbosity level is written on the calling thread.
bool VerboseLogEnabled(int level);

void LogMessage(Severity severity, const std::string& message);
// A warning logged the first time key is seen in this process only (settings without effect).
void LogWarningOnce(const std::string& key, const std::string& message);

// Where messages go instead of stderr: sink(param, severity, log id ("" when none), message).
// Installing returns a token; RemoveLogSink(token) restores stderr unless another sink was
// installed since. Calls are serialized; a message logged from inside the sink goes to stderr.
using LogSink = void (*)(void* param, Severity severity, const char* log_id, const char* message);
uint64_t InstallLogSink(LogSink sink, void* param);
void RemoveLogSink(uint64_t token);

}  // namespace prism

#define PRISM_LOG(severity, ...)                                                          \
  do {                                                                                    \
    if (::prism::LogEnabled(::prism::Severity::severity))                                 \
      ::prism::LogMessage(::prism::Severity::severity, ::prism::MakeString(__VA_ARGS__)); \
  } while (0)

// A verbose message shown only at verbosity level or above (onnxruntime's VLOGS).
#define PRISM_VLOG(level, ...)                                                            \
  do {                                                                                    \
    if (::prism::VerboseLogEnabled(level))                                                \
      ::prism::LogMessage(::prism::Severity::kVerbose, ::prism::MakeString(__VA_ARGS__)); \
  } while (0)
