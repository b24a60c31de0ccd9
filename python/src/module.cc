// The extension module pqfast._pqfast. Each kernel family binds itself in its
// own bind_<family>.cc; this file only assembles them.
#include "common.h"

namespace pqfast::py {

ByteView byte_view(nb::handle obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    throw nb::python_error();
  }
  ByteView out{static_cast<const uint8_t*>(view.buf), static_cast<size_t>(view.len)};
  // The caller keeps `obj` alive for the duration of the call.
  PyBuffer_Release(&view);
  return out;
}

}  // namespace pqfast::py

NB_MODULE(_pqfast, m) {
  using namespace pqfast::py;
  m.doc() = "pqfast native core";
  nb::exception<FormatError>(m, "FormatError", PyExc_ValueError);
  // Kept for the life of the process (never decref'd after finalization).
  static auto* memory_limit_error = new nb::exception<MemoryLimitError>(m, "MemoryLimitError", PyExc_MemoryError);
  // An allocation that failed anywhere in the bindings is a pqfast error
  // that says so, not a bare MemoryError.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const std::bad_alloc&) {
      PyErr_SetString(memory_limit_error->ptr(), "memory limit: out of memory (an allocation failed)");
    }
  });
  bind_core(m);
  bind_sbbf(m);
  bind_local_bloom(m);
  bind_delta(m);
  bind_bench(m);
  bind_parquet(m);
  bind_read(m);
  bind_scan(m);
  bind_stream(m);
  bind_sansio(m);
  bind_index(m);
}
