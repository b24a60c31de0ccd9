// pqfast error model.
//
// Kernels never fail and never throw. Everything that reads bytes from the
// outside world (headers, footers, pages, encoded streams) returns a
// Result<T>: either a value or an Error with a code and a message that says
// what went wrong and where (offset, field, limit).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace pqfast {

enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // the caller passed something the API does not accept
  kTruncated,        // input ends before a structure it announces
  kCorrupt,          // bytes that no conforming writer produces
  kUnsupported,      // legal per the spec but not handled (e.g. encryption)
  kLimitExceeded,    // a size or depth beyond what pqfast accepts
  kIoError,          // the operating system refused a read
  kMemoryLimit,      // decoding would pass the read's memory budget (or memory ran out)
  // A read of bytes a staged reader has not fetched yet (RandomAccessFile
  // implementations that collect what a scan needs, then fetch it in one
  // round: the scan engine over object storage). Not an error to users: the
  // scan records the range and is run again once the bytes are in.
  kNotFetched,
};

// Short stable name of an error code ("truncated", "corrupt", ...).
const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInvalidArgument;
  std::string message;

  // "<code>: <message>", the form shown to users.
  std::string to_string() const;
};

// A value or an Error. Small by design: no exceptions cross the API.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}         // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// The result of an operation with no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  static Status Ok() { return Status(); }
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_{ErrorCode::kOk, {}};
  bool ok_ = true;
};

// Builds an Error; the message should say what and where.
inline Error make_error(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

}  // namespace pqfast

// Propagates an error from an expression that yields a Status or Result.
#define PQFAST_RETURN_IF_ERROR(expr)              \
  do {                                            \
    auto&& pqfast_status_ = (expr);               \
    if (!pqfast_status_.ok()) {                   \
      return pqfast_status_.error();              \
    }                                             \
  } while (0)
