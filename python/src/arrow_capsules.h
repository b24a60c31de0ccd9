// Arrow C Data Interface structs handed to Python as the PyCapsules of the
// Arrow PyCapsule Interface ("arrow_schema", "arrow_array"), which pyarrow
// imports without a copy (pa.Array/RecordBatch._import_from_c_capsule).
#pragma once

#include "common.h"
#include "pqfast/arrow_c_data.h"

namespace pqfast::py {

// Takes ownership of two heap-allocated, filled structs: the capsules call
// their release callbacks (unless the importer moved them out) and free them.
nb::tuple to_capsules(ArrowSchema* schema, ArrowArray* array);

}  // namespace pqfast::py
