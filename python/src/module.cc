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

namespace {

// Sets the Python error `type(message)` with `.code = code_name` (the GIL is
// held: exception translators run with it).
void set_with_code(PyObject* type, const char* message, const char* code_name) {
  nb::object exc = nb::steal(PyObject_CallOneArg(type, nb::str(message).ptr()));
  if (!exc.is_valid()) return;  // (the call set its own error)
  if (PyObject_SetAttrString(exc.ptr(), "code", nb::str(code_name).ptr()) != 0) return;
  PyErr_SetObject(type, exc.ptr());
}

}  // namespace

}  // namespace pqfast::py

NB_MODULE(_pqfast, m) {
  using namespace pqfast::py;
  m.doc() = "pqfast native core";
  // Kept for the life of the process (never decref'd after finalization).
  static auto* format_error = new nb::exception<FormatError>(m, "FormatError", PyExc_ValueError);
  static auto* memory_limit_error = new nb::exception<MemoryLimitError>(m, "MemoryLimitError", PyExc_MemoryError);
  // Every pqfast error has a `.code` (the ErrorCode's name; None on an error
  // raised by Python code that gave none), so callers branch on it.
  nb::handle(format_error->ptr()).attr("code") = nb::none();
  nb::handle(memory_limit_error->ptr()).attr("code") = nb::str(pqfast::error_code_name(pqfast::ErrorCode::kMemoryLimit));
  // Registered after nb::exception's own translators, so tried before them:
  // errors carry their code; an allocation that failed anywhere in the
  // bindings is a pqfast error that says so, not a bare MemoryError.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const FormatError& e) {
      set_with_code(format_error->ptr(), e.what(), pqfast::error_code_name(e.code));
    } catch (const MemoryLimitError& e) {
      set_with_code(memory_limit_error->ptr(), e.what(), pqfast::error_code_name(pqfast::ErrorCode::kMemoryLimit));
    } catch (const std::bad_alloc&) {
      set_with_code(memory_limit_error->ptr(), "memory limit: out of memory (an allocation failed)",
                    pqfast::error_code_name(pqfast::ErrorCode::kMemoryLimit));
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
