// Shared helpers of the Python bindings: error translation and array types.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <stdexcept>
#include <string>

#include "pqfast/status.h"

namespace pqfast::py {

namespace nb = nanobind;

// Raised to Python as pqfast.FormatError (a ValueError) whose `.code` is the
// ErrorCode's stable name (error_code_name: "invalid argument", "truncated",
// "unsupported", ...): Python branches on the code, never on the message.
class FormatError : public std::runtime_error {
 public:
  explicit FormatError(const std::string& what, ErrorCode code = ErrorCode::kInvalidArgument)
      : std::runtime_error(what), code(code) {}
  ErrorCode code;
};

// Raised to Python as pqfast.MemoryLimitError (a MemoryError, `.code` "memory
// limit"): a read that would pass its memory budget, or an allocation that failed.
class MemoryLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Error messages may quote bytes from the input (names, values): replace
// anything that is not valid UTF-8 so Python can always decode them.
inline std::string printable_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  static const char* const kHex = "0123456789abcdef";
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
    if (ok && len == 1 && c < 0x20 && c != '\n' && c != '\t') ok = false;
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  return out;
}

[[noreturn]] inline void raise(const Error& e) {
  if (e.code == ErrorCode::kMemoryLimit) throw MemoryLimitError(printable_utf8(e.to_string()));
  throw FormatError(printable_utf8(e.to_string()), e.code);
}

inline void throw_if_error(const Status& s) {
  if (!s.ok()) raise(s.error());
}

template <class T>
T unwrap(Result<T>&& r) {
  if (!r.ok()) raise(r.error());
  return std::move(r).value();
}

// Contiguous 1-D input arrays (nanobind converts or rejects other layouts).
template <class T>
using In1D = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A fresh 1-D numpy array owning `n` elements of T.
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> new_array(size_t n) {
  T* data = new T[n > 0 ? n : 1];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {n}, owner);
}

// Hashes keys given in Arrow layout (bytes + n + 1 int64 offsets) with
// hash_fn(data, data_len, offsets, n, out) -> Status, without the GIL.
template <class HashFn>
nb::ndarray<nb::numpy, uint64_t, nb::ndim<1>> hash_offset_keys(In1D<uint8_t> data,
                                                             In1D<int64_t> offsets, HashFn hash_fn) {
  const size_t n = offsets.shape(0) > 0 ? offsets.shape(0) - 1 : 0;
  auto out = new_array<uint64_t>(n);
  Status st;
  {
    nb::gil_scoped_release release;
    st = hash_fn(data.data(), data.shape(0), offsets.data(), n, out.data());
  }
  throw_if_error(st);
  return out;
}

// Bytes-like input (bytes, bytearray, memoryview, numpy uint8) as a view.
struct ByteView {
  const uint8_t* data;
  size_t size;
};
ByteView byte_view(nb::handle obj);

// Registration functions, one per binding file.
void bind_core(nb::module_& m);
void bind_sbbf(nb::module_& m);
void bind_local_bloom(nb::module_& m);
void bind_delta(nb::module_& m);
void bind_bench(nb::module_& m);
void bind_parquet(nb::module_& m);
void bind_read(nb::module_& m);
void bind_scan(nb::module_& m);
void bind_stream(nb::module_& m);
void bind_sansio(nb::module_& m);
void bind_index(nb::module_& m);

}  // namespace pqfast::py
