#include "common/status.h"

namespace prism {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kFail:
      return "FAIL";
    case StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case StatusCode::kNoSuchFile:
      return "NO_SUCHFILE";
    case StatusCode::kNoModel:
      return "NO_MODEL";
    case StatusCode::kEngineError:
      return "ENGINE_ERROR";
    case StatusCode::kRuntimeException:
      return "RUNTIME_EXCEPTION";
    case StatusCode::kInvalidProtobuf:
      return "INVALID_PROTOBUF";
    case StatusCode::kModelLoaded:
      return "MODEL_LOADED";
    case StatusCode::kNotImplemented:
      return "NOT_IMPLEMENTED";
    case StatusCode::kInvalidGraph:
      return "INVALID_GRAPH";
    case StatusCode::kEpFail:
      return "EP_FAIL";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (IsOk()) return "OK";
  return MakeString(StatusCodeName(code_), ": ", message_);
}

}  // namespace prism
