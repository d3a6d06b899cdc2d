// Status codes and the exception type used inside the core. Exceptions never cross the C ABI:
// src/capi converts them into Status objects.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace prism {

// Values match onnxruntime's OrtErrorCode so that bindings can map them one to one.
enum class StatusCode : int {
  kOk = 0,
  kFail = 1,
  kInvalidArgument = 2,
  kNoSuchFile = 3,
  kNoModel = 4,
  kEngineError = 5,
  kRuntimeException = 6,
  kInvalidProtobuf = 7,
  kModelLoaded = 8,
  kNotImplemented = 9,
  kInvalidGraph = 10,
  kEpFail = 11,
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool IsOk() const { return code_ == StatusCode::kOk; }
  StatusCode Code() const { return code_; }
  const std::string& Message() const { return message_; }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

class Exception : public std::runtime_error {
 public:
  Exception(StatusCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  StatusCode Code() const { return code_; }
  Status ToStatus() const { return Status(code_, what()); }

 private:
  StatusCode code_;
};

template <typename... Args>
std::string MakeString(const Args&... args) {
  std::ostringstream stream;
  (stream << ... << args);
  return stream.str();
}

// Runs fn and turns any exception into a Status (used at API boundaries).
template <typename Fn>
Status CatchAsStatus(Fn&& fn) {
  try {
    fn();
    return Status::Ok();
  } catch (const Exception& e) {
    return e.ToStatus();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kRuntimeException, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kRuntimeException, e.what());
  }
}

}  // namespace prism

#define PRISM_THROW(code, ...) \
  throw ::prism::Exception(::prism::StatusCode::code, ::prism::MakeString(__VA_ARGS__))

#define PRISM_ENFORCE(condition, code, ...)           \
  do {                                                \
    if (!(condition)) PRISM_THROW(code, __VA_ARGS__); \
  } while (0)
