#include "arrow_capsules.h"

namespace pqfast::py {

namespace {

void schema_capsule_free(PyObject* cap) {
  auto* s = static_cast<ArrowSchema*>(PyCapsule_GetPointer(cap, "arrow_schema"));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s);
  delete s;
}

void array_capsule_free(PyObject* cap) {
  auto* a = static_cast<ArrowArray*>(PyCapsule_GetPointer(cap, "arrow_array"));
  if (a == nullptr) {
    PyErr_Clear();
    return;
  }
  if (a->release) a->release(a);
  delete a;
}

}  // namespace

nb::tuple to_capsules(ArrowSchema* schema, ArrowArray* array) {
  nb::object sc = nb::steal(PyCapsule_New(schema, "arrow_schema", schema_capsule_free));
  if (!sc.is_valid()) {
    schema->release(schema);
    delete schema;
    array->release(array);
    delete array;
    throw nb::python_error();
  }
  nb::object ac = nb::steal(PyCapsule_New(array, "arrow_array", array_capsule_free));
  if (!ac.is_valid()) {
    array->release(array);
    delete array;
    throw nb::python_error();
  }
  return nb::make_tuple(sc, ac);
}

}  // namespace pqfast::py
