#include "common/logging.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace prism {
namespace {

int InitialSeverity() {
  const char* env = std::getenv("PRISM_LOG_LEVEL");
  if (env != nullptr && env[0] >= '0' && env[0] <= '4' && env[1] == '\0') return env[0] - '0';
  return static_cast<int>(Severity::kWarning);
}

std::atomic<int>& MinSeverityStorage() {
  static std::atomic<int> severity{InitialSeverity()};
  return severity;
}

std::atomic<int>& VerbosityStorage() {
  static std::atomic<int> verbosity{0};
  return verbosity;
}

thread_local const LogSettings* current_settings = nullptr;

const char* SeverityTag(Severity severity) {
  switch (severity) {
    case Severity::kVerbose:
      return "V";
    case Severity::kInfo:
      return "I";
    case Severity::kWarning:
      return "W";
    case Severity::kError:
      return "E";
    case Severity::kFatal:
      return "F";
  }
  return "?";
}

// The installed sink; calls hold the mutex, so removing a sink waits for calls in progress.
struct SinkState {
  std::mutex mutex;
  LogSink sink = nullptr;
  void* param = nullptr;
  uint64_t token = 0;
  uint64_t next_token = 1;
};

SinkState& Sink() {
  static SinkState state;
  return state;
}

thread_local bool inside_sink = false;

int EffectiveSeverity() {
  const LogSettings* settings = current_settings;
  if (settings != nullptr && settings->severity >= 0) return settings->severity;
  return MinSeverityStorage().load(std::memory_order_relaxed);
}

int EffectiveVerbosity() {
  const LogSettings* settings = current_settings;
  if (settings != nullptr && settings->verbosity >= 0) return settings->verbosity;
  return VerbosityStorage().load(std::memory_order_relaxed);
}

}  // namespace

Severity MinLogSeverity() {
  return static_cast<Severity>(MinSeverityStorage().load());
}

void SetMinLogSeverity(Severity severity) {
  MinSeverityStorage() = static_cast<int>(severity);
}

int DefaultLogVerbosity() {
  return VerbosityStorage().load();
}

void SetDefaultLogVerbosity(int verbosity) {
  VerbosityStorage() = verbosity < 0 ? 0 : verbosity;
}

ScopedLogSettings::ScopedLogSettings(const LogSettings* settings) : previous_(current_settings) {
  current_settings = settings;
}

ScopedLogSettings::~ScopedLogSettings() {
  current_settings = previous_;
}

const LogSettings* CurrentLogSettings() {
  return current_settings;
}

bool LogEnabled(Severity severity) {
  return static_cast<int>(severity) >= EffectiveSeverity();
}

bool VerboseLogEnabled(int level) {
  return LogEnabled(Severity::kVerbose) && EffectiveVerbosity() >= level;
}

void LogWarningOnce(const std::string& key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!seen.insert(key).second) return;
  }
  if (LogEnabled(Severity::kWarning)) LogMessage(Severity::kWarning, message);
}

void LogMessage(Severity severity, const std::string& message) {
  const LogSettings* settings = current_settings;
  const std::string log_id = settings != nullptr ? settings->log_id : std::string();
  if (!inside_sink) {
    SinkState& state = Sink();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.sink != nullptr) {
      inside_sink = true;
      state.sink(state.param, severity, log_id.c_str(), message.c_str());
      inside_sink = false;
      return;
    }
  }
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (log_id.empty())
    std::fprintf(stderr, "[prism %s] %s\n", SeverityTag(severity), message.c_str());
  else
    std::fprintf(stderr, "[prism %s %s] %s\n", SeverityTag(severity), log_id.c_str(),
                 message.c_str());
}

uint64_t InstallLogSink(LogSink sink, void* param) {
  SinkState& state = Sink();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.sink = sink;
  state.param = param;
  state.token = state.next_token++;
  return state.token;
}

void RemoveLogSink(uint64_t token) {
  SinkState& state = Sink();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.token != token) return;
  state.sink = nullptr;
  state.param = nullptr;
  state.token = 0;
}

}  // namespace prism
