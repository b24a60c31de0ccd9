// The page index of a column chunk (parquet.thrift ColumnIndex and
// OffsetIndex): per data page, its min/max, whether it holds only nulls and
// its null count; its location in the file and its first row. Readers use
// them to skip pages a predicate cannot match and to read only the pages
// that hold the rows they want.
//
//   auto oi = pqfast::parquet::read_offset_index(file, chunk, num_rows);
//   for (const auto& p : oi->page_locations) { ... p.offset, p.first_row_index ... }
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

struct ColumnIndex {
  std::vector<bool> null_pages;          // page i holds only nulls (its min/max are empty)
  std::vector<std::string> min_values;   // PLAIN bytes, as Statistics.min_value
  std::vector<std::string> max_values;
  int32_t boundary_order = 0;            // 0 unordered, 1 ascending, 2 descending
  std::vector<int64_t> null_counts;      // empty when the writer gave none
  size_t num_pages() const { return null_pages.size(); }
};

struct PageLocation {
  int64_t offset = 0;                // of the page header in the file
  int32_t compressed_page_size = 0;  // header included
  int64_t first_row_index = 0;       // in the row group
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;
};

// Parses the Thrift bytes. The counts are bounded by the input; the lists of
// a ColumnIndex must all have one entry per page.
Result<ColumnIndex> parse_column_index(const uint8_t* data, size_t len, size_t base_offset = 0);
Result<OffsetIndex> parse_offset_index(const uint8_t* data, size_t len, size_t base_offset = 0);

// Checks an OffsetIndex against its chunk: pages in file order inside the
// file, first rows strictly increasing from 0 and below the row group's
// `num_rows`. Returns an error naming the page otherwise.
Status validate_offset_index(const OffsetIndex& index, uint64_t file_size, int64_t num_rows,
                             const std::string& where);

// Whether a ColumnIndex may prune: false when it contradicts itself or its
// column, as some writers' indexes do (parquet-mr with statistics off marks
// every page "only nulls" with a null count of -1, in a required column):
// a page said to hold only nulls in a column without nulls
// (`max_definition_level` 0), or with a null count unknown (negative) or,
// in a flat column, below the page's rows (from `offsets`, the row group
// holding `num_rows`). Such an index is ignored, not an error: the pages
// are read and the predicate decides.
bool column_index_usable(const ColumnIndex& columns, const OffsetIndex& offsets, int64_t num_rows,
                         int16_t max_definition_level, int16_t max_repetition_level);

}  // namespace pqfast::parquet
