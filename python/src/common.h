// Shared helpers of the Python bindings: error translation and array types.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <stdexcept>
#include <string>

#include "pqfast/status.h"

namespace pqfast::py {

namespace nb = nanobind;

// Raised to Python as pqfast.FormatError (a ValueError).
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void raise(const Error& e) { throw FormatError(e.to_string()); }

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

}  // namespace pqfast::py
