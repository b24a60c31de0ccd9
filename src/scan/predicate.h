// Internal: a filter atom resolved against one file's column, and what the
// scan asks of it: can min/max (of a chunk or a page) rule it out, and
// which decoded rows make it TRUE.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/value_order.h"
#include "pqfast/parquet_read.h"
#include "pqfast/scan.h"

namespace pqfast::parquet::scan {

// min/max and null counts of a chunk or of a page, in PLAIN bytes.
struct MinMaxView {
  bool has_min = false, has_max = false;
  bool min_trusted = false, max_trusted = false;  // in the column's order (legacy rules applied)
  std::string_view min, max;
  int64_t null_count = -1;  // -1: unknown
  int64_t num_values = -1;  // -1: unknown
  bool all_null = false;    // known to hold only nulls
};

class AtomPlan {
 public:
  // Resolves `atom` against `meta`: the leaf, its order, how its values are
  // decoded for evaluation and compared. Errors: no such column, a nested
  // column, values of another physical type or width.
  static Result<AtomPlan> make(const FilterAtom& atom, const FileMetaData& meta, const std::string& file);

  int leaf() const { return leaf_; }
  const FilterAtom& atom() const { return *atom_; }
  // The layout the column is decoded in to be evaluated.
  const ColumnReadOptions& eval_options() const { return eval_options_; }
  // True for `=` and `in` atoms (not negated, no null member): the Bloom
  // filter can rule them out.
  bool bloom_usable() const;
  // For an `=`/`in` atom (bloom_usable) on an INT32 or INT64 column, where
  // a value matches exactly when its PLAIN bytes equal one of these: those
  // values (none when no value can match). Null otherwise.
  const std::vector<std::string>* plain_equal_values() const;
  // Whether evaluate() runs the compare kernels over values decoded in
  // `layout` (fixed-width numbers against one literal or a small set).
  bool compares_values_in_simd(ArrowLayout layout) const;
  // Whether a row holding only nulls can make the atom TRUE.
  bool null_row_true() const { return null_result_; }

  // False when min/max or null counts prove no row of the chunk or page
  // makes the atom TRUE.
  bool may_match(const MinMaxView& s) const;

  // Clears the bits of `selection` (over the row group's rows) of rows
  // where the atom is not TRUE; `array` holds the rows `decoded` lists.
  // Rows outside `decoded` are cleared too.
  void evaluate(const ColumnArray& array, const std::vector<RowRange>& decoded, int64_t num_rows,
                uint64_t* selection) const;

  // For each value of `dictionary` (no nulls), whether the atom is TRUE;
  // *true_count (when given) gets how many are.
  std::vector<uint8_t> evaluate_dictionary(const ColumnArray& dictionary, int64_t* true_count = nullptr) const;
  // evaluate() over rows decoded as their dictionary entry's byte of
  // evaluate_dictionary() (ColumnReadOptions::dictionary_values).
  void evaluate_hits(const ColumnArray& hits, const std::vector<RowRange>& decoded, int64_t num_rows,
                     uint64_t* selection) const;

 private:
  bool value_true(std::string_view v) const;  // a non-null value, negate applied
  bool equal(std::string_view a, std::string_view b, bool bitwise) const;

  const FilterAtom* atom_ = nullptr;
  int leaf_ = -1;
  const ColumnDescriptor* column_ = nullptr;
  Order order_ = Order::kNone;
  PhysicalType compare_type_ = PhysicalType::kInt64;
  bool is_float_ = false;
  bool stats_usable_ = false;  // min/max may be compared with the values
  bool null_result_ = false;   // the atom's value on a null row (as TRUE or not)
  bool never_equal_ = false;   // `=`/`!=` of a decimal out of this file's range
  std::vector<std::string> values_;  // in the evaluation layout's bytes, sorted for kIn
  ColumnReadOptions eval_options_;
};

}  // namespace pqfast::parquet::scan
