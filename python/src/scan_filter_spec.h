// A scan filter as Python hands it to the bindings (pqfast/scan.py's
// _encode_filter): an OR of ANDs of atom tuples. The scan engine's binding
// (bind_scan.cc) and the streaming scanner's (bind_stream.cc) take the same.
#pragma once

#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common.h"
#include "pqfast/scan.h"

namespace pqfast::py {

// (column, op, negate, physical type, type_length, data, offsets or None, set_has_null, decimal scale or -1)
using AtomSpec = std::tuple<std::string, std::string, bool, std::string, int32_t, nb::object, nb::object, bool, int32_t>;

// None: no filter (inactive). Unknown operators raise FormatError.
parquet::ScanFilter make_filter(const std::optional<std::vector<std::vector<AtomSpec>>>& dnf);

}  // namespace pqfast::py
