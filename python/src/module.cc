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
  bind_core(m);
  bind_sbbf(m);
  bind_local_bloom(m);
  bind_delta(m);
  bind_bench(m);
  bind_parquet(m);
  bind_read(m);
  bind_scan(m);
  bind_sansio(m);
  bind_index(m);
}
