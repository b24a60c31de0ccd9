#include "pqfast/status.h"

namespace pqfast {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kLimitExceeded: return "limit exceeded";
    case ErrorCode::kIoError: return "I/O error";
    case ErrorCode::kMemoryLimit: return "memory limit";
    case ErrorCode::kNotFetched: return "not fetched";
  }
  return "unknown";
}

std::string Error::to_string() const { return std::string(error_code_name(code)) + ": " + message; }

}  // namespace pqfast
