// Process-wide logging with onnxruntime's severities (0 verbose .. 4 fatal).
#pragma once

#include <string>

#include "common/status.h"

namespace prism {

enum class Severity : int { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// The default minimum is kWarning, overridable with PRISM_LOG_LEVEL=0..4.
Severity MinLogSeverity();
void SetMinLogSeverity(Severity severity);
void LogMessage(Severity severity, const std::string& message);
// A warning logged the first time key is seen in this process only (settings without effect).
void LogWarningOnce(const std::string& key, const std::string& message);

}  // namespace prism

#define PRISM_LOG(severity, ...)                                                          \
  do {                                                                                    \
    if (static_cast<int>(::prism::Severity::severity) >=                                  \
        static_cast<int>(::prism::MinLogSeverity()))                                      \
      ::prism::LogMessage(::prism::Severity::severity, ::prism::MakeString(__VA_ARGS__)); \
  } while (0)
