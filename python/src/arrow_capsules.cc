#include "arrow_capsules.h"

namespace pqfast::py {

namespace {

// A capsule's destructor: releases the struct unless its importer moved it
// out (release set to null), then frees it.
template <class T>
void free_capsule(PyObject* cap, const char* name) {
  auto* p = static_cast<T*>(PyCapsule_GetPointer(cap, name));
  if (p == nullptr) {
    PyErr_Clear();
    return;
  }
  if (p->release) p->release(p);
  delete p;
}

void schema_capsule_free(PyObject* cap) { free_capsule<ArrowSchema>(cap, "arrow_schema"); }
void array_capsule_free(PyObject* cap) { free_capsule<ArrowArray>(cap, "arrow_array"); }

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
