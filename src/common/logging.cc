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

}  // namespace

Severity MinLogSeverity() {
  return static_cast<Severity>(MinSeverityStorage().load());
}

void SetMinLogSeverity(Severity severity) {
  MinSeverityStorage() = static_cast<int>(severity);
}

void LogWarningOnce(const std::string& key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!seen.insert(key).second) return;
  }
  if (static_cast<int>(Severity::kWarning) >= static_cast<int>(MinLogSeverity()))
    LogMessage(Severity::kWarning, message);
}

void LogMessage(Severity severity, const std::string& message) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "[prism %s] %s\n", SeverityTag(severity), message.c_str());
}

}  // namespace prism
