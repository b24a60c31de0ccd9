// Shared by the pruning bindings (bind_parquet.cc, bind_sansio.cc): probe
// values from Python buffers, and per-file results as flat numpy arrays.
#pragma once

#include <string>
#include <vector>

#include "common.h"
#include "pqfast/parquet.h"

namespace pqfast::py {

parquet::ProbeValues probe_values_from_py(const std::string& type_name, int32_t type_length, nb::handle data,
                                          nb::handle offsets);
nb::dict prune_results_to_dict(const std::vector<parquet::FilePruneResult>& rs, size_t nv, bool per_value);

}  // namespace pqfast::py
