// Internal: the part of a footer that pruning one column reads, decoded in
// one pass over the Thrift bytes.
//
// Pruning needs, per row group, the row count and the probed column's
// statistics and Bloom filter location: a few fields out of the hundreds a
// footer holds. The general parser (parse_file_metadata) builds the whole
// model, strings and vectors per chunk; on a lake of small files that
// building is most of the cost of a prune. decode_prune_footer() instead
// walks the bytes once, skips every other chunk, keeps min/max as views into
// the footer bytes, and allocates only the row-group array.
//
// The walk takes in stride only the shapes writers produce (short field ids,
// expected wire types, fields at most once). Anything else, malformed or just
// unusual, sends the footer to the checked parser, which either words the
// error or returns the same values: the fast walk accepts a subset of what
// the checked parser accepts and must agree with it wherever it accepts
// (tests/cpp/prune_footer_test.cc and the footer fuzz target check this).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/stats_trust.h"
#include "pqfast/parquet.h"

namespace pqfast::parquet {

// The probed column's chunk in one row group.
struct PruneChunk {
  bool has_meta_data = false;  // false: encrypted column metadata (or none)
  bool encrypted = false;      // crypto_metadata / encrypted_column_metadata present
  bool in_other_file = false;  // ColumnChunk.file_path is set
  int64_t num_values = 0;
  bool has_statistics = false;
  bool has_null_count = false;
  int64_t null_count = 0;
  // min/max as in Statistics (min_value/max_value win over the legacy pair),
  // views into the footer bytes the PruneFooter keeps alive.
  bool has_min = false, has_max = false;
  bool min_is_legacy = false, max_is_legacy = false;
  std::string_view min, max;
  int64_t bloom_filter_offset = -1;  // -1: absent
  int32_t bloom_filter_length = -1;  // -1: absent
  int64_t data_page_offset = 0;
  int64_t dictionary_page_offset = -1;
  int64_t column_index_offset = -1;
  int64_t offset_index_offset = -1;
};

struct PruneRowGroup {
  int64_t num_rows = 0;
  PruneChunk chunk;
};

struct PruneFooter {
  ColumnDescriptor column;          // the probed leaf
  bool type_defined_order = true;   // min/max may be compared in the type's order
  bool column_orders = false;       // the footer has ColumnOrders (type_defined_order is this leaf's)
  WriterVersion writer;             // created_by, for the statistics rules (stats_trust.h)
  int64_t num_rows = 0;
  uint32_t footer_length = 0;
  std::vector<PruneRowGroup> row_groups;
  // Owns the bytes min/max point into: a copy of the footer, or the parsed
  // FileMetaData of the checked path. Null when they point into the
  // caller's buffer (valid only as long as that buffer).
  std::shared_ptr<const void> backing;
  // A kept footer's (see FilePruner::keep_footer) Bloom filter layouts,
  // learned from the headers read by block probes: per row group,
  // header size << 32 | number of blocks, 0 until learned. Later probes of
  // the file, which the footer cache has found unchanged (same size and
  // mtime), then read the blocks without the header first. Shared by the
  // threads that probe the file: each entry is written once, whole.
  std::shared_ptr<std::atomic<uint64_t>[]> bloom_layouts;
};

// What pruning `column` needs from the serialized FileMetaData in
// [data, data + len) (at file offset `base_offset`, for messages). Errors
// are the checked parser's; a column the file lacks is kInvalidArgument
// "no column 'x' (leaf columns: ...)". With `copy`, the result owns its
// min/max, packed in one buffer (for the footer cache); otherwise they may
// point into `data`.
Result<PruneFooter> decode_prune_footer(const uint8_t* data, size_t len, size_t base_offset,
                                        std::string_view column, const ParseLimits& limits,
                                        bool copy);

// The two halves, for tests: the fast walk alone (nullopt where it defers),
// and the checked parser's answer in the same shape.
std::optional<PruneFooter> decode_prune_footer_fast(const uint8_t* data, size_t len,
                                                    std::string_view column,
                                                    const ParseLimits& limits);
Result<PruneFooter> decode_prune_footer_checked(const uint8_t* data, size_t len,
                                                size_t base_offset, std::string_view column,
                                                const ParseLimits& limits);

// Where two decodes differ ("" when equal, field by field, the bytes of
// min/max included): the tests and the fuzz target hold the fast walk to
// the checked parser with it.
std::string prune_footer_difference(const PruneFooter& a, const PruneFooter& b);

// min/max exclusion of one value for the probed column (see stats_exclude).
bool prune_stats_exclude(const PruneFooter& footer, const PruneChunk& chunk, std::string_view value);

}  // namespace pqfast::parquet
