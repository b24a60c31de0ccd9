// prune()'s result table as an Arrow record batch made in C++ (see verdict_batch.cc).
#pragma once

#include <optional>
#include <vector>

#include "common.h"
#include "pqfast/parquet.h"

namespace pqfast::py {

// (schema capsule, array capsule) of a struct array with the columns path
// (utf8), row_group (int32), verdict (utf8) and reason (utf8): one row per
// row group of each file that did not fail, in order. nullopt when a string
// column would pass Arrow's 2 GiB (32-bit offsets).
std::optional<nb::tuple> verdict_batch(const std::vector<parquet::FilePruneResult>& rs, size_t nv);

}  // namespace pqfast::py
