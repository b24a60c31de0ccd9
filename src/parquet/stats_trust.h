// Internal: which of a column chunk's statistics a reader may believe, by
// the writer named in `created_by`.
//
// Some writers ordered min/max wrongly: parquet-mr before 1.10 and
// parquet-cpp before 1.3 compared unsigned integers, strings and
// FIXED_LEN_BYTE_ARRAY as signed; parquet-mr before 1.8 (PARQUET-251) could
// keep min/max of BYTE_ARRAY values that later changed under it. INT96 has no
// defined order at all, and without ColumnOrders a writer never said in which
// order it compared. The rules are those Arrow C++ (pyarrow 26) applies
// (ApplicationVersion::HasCorrectStatistics and the choice of min/max fields),
// with parquet-java's stricter one for a missing created_by (CorruptStatistics,
// PARQUET-297) added where pruning uses them, so that a bound pyarrow or
// parquet-java would not believe never prunes.
#pragma once

#include <string>
#include <string_view>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

// `created_by` parsed as "<application> version <major>.<minor>.<patch>..."
// ("(build ...)" and pre-release suffixes ignored); parts that do not parse
// are 0. An empty string is the application "unknown". The flags that the
// rules need are computed once here (pruning asks per value).
struct WriterVersion {
  std::string application;
  int major = 0, minor = 0, patch = 0;
  bool unknown = false;             // no created_by
  bool signed_stats_only = false;   // parquet-mr < 1.10.0 or parquet-cpp < 1.3.0
  bool binary_stats_broken = false; // parquet-mr < 1.8.0 (PARQUET-251)
  bool v2_always_compressed = false; // parquet-cpp < 2.0.0 (ARROW-10353)
  bool before(std::string_view app, int ma, int mi, int pa) const;
};
WriterVersion parse_created_by(std::string_view created_by);

// What of one chunk's Statistics may be used.
struct StatsTrust {
  bool statistics = true;  // false: none at all (pyarrow's `statistics` is None)
  bool min = true, max = true;  // each bound, when present
};

// The raw statistics of a chunk: min/max as parsed (min_value/max_value win
// over the legacy pair; `*_is_legacy` says which one was there).
struct RawMinMax {
  bool has_min = false, has_max = false, min_is_legacy = false, max_is_legacy = false;
  std::string_view min, max;
  // The deprecated pair was in the footer too (under min_value/max_value).
  bool legacy_min_present = false, legacy_max_present = false;
};

// `has_column_orders`: the footer has ColumnOrders; `type_defined_order`:
// and this leaf's is TYPE_ORDER. Without `for_pruning` the answer is what
// pyarrow 26 reports; with it, what a pruner may compare: min_value/max_value
// also in a file without ColumnOrders (they are in the type's order by
// definition), and parquet-java's rule added (no created_by: no
// BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY bounds).
StatsTrust statistics_trust(const WriterVersion& writer, const ColumnDescriptor& column,
                            bool has_column_orders, bool type_defined_order, const RawMinMax& s,
                            bool for_pruning);

}  // namespace pqfast::parquet
