// Reading nested columns (lists, structs, maps) of a Parquet file into Arrow.
//
// A top-level field that is a group or repeated maps to an Arrow tree the way
// Arrow C++ (pyarrow) maps it: a LIST group to list (3-level, and the legacy
// 2-level forms parquet-java, Spark and Hive write), a MAP group to map
// (key_value with one child: a list of keys), an unannotated repeated field
// to a non-null list of required elements, any other group to a struct.
//
// Each leaf below it is read by the column reader (pqfast/parquet_read.h),
// which keeps the page's repetition and definition levels beside the leaf's
// values; the levels then give every ancestor its validity bitmap and list
// offsets, in blocks of 64 levels compared against the node's thresholds.
//
//   auto shape = pqfast::parquet::nested_field(meta, 2);        // the root's third field
//   std::vector<pqfast::parquet::ColumnReadOptions> leaves(shape->leaf_count());
//   auto col = pqfast::parquet::read_nested_chunk(*file, meta, 0, *shape, leaves);
//   std::move(*col).export_to(&array, &schema, shape->name);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

// One node of the Arrow tree of a nested field, with the level thresholds
// that place it: a level entry (rep, def) of a leaf below the node makes a
// slot in the node when def >= slot_def and rep <= slot_rep; the slot is
// valid when def >= def_valid. A list's (or map's) child has its slots
// where the list has elements.
struct NestedNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  std::string name;       // the Arrow field name
  bool nullable = false;  // the Arrow field's nullability
  int16_t def_valid = 0;
  int16_t slot_def = 0;
  int16_t slot_rep = 0;
  int leaf = -1;          // kLeaf: the leaf column (FileMetaData::columns index)
  std::vector<NestedNode> children;  // kMap: one non-null struct of key and value

  // Leaves below (or at) this node, in schema order.
  int leaf_count() const;
  void leaves(std::vector<int>* out) const;
};

// The Arrow tree of the root's `field`-th child (0-based). Errors for
// schemas Arrow refuses too ("LIST-annotated groups must have a single
// child", "Map keys must be annotated as required", ...).
Result<NestedNode> nested_field(const FileMetaData& meta, int field);

// The top-level field (root child) holding leaf `leaf`; -1 when out of range.
int top_level_field_of(const FileMetaData& meta, int leaf);

// The root's children in schema order, each with the leaves below it: a
// group with no leaves (struct<>) and names given twice are kept, as pyarrow
// gives them.
struct TopLevelField {
  std::string name;
  bool group = false;
  Repetition repetition = Repetition::kUnset;
  std::vector<int> leaves;  // FileMetaData::columns indices
};
std::vector<TopLevelField> top_level_fields(const FileMetaData& meta);

// Whether leaf `leaf` is read as part of a nested field (below a group, or
// repeated) rather than as a flat column.
bool is_nested_leaf(const FileMetaData& meta, int leaf);

// The leaf values of one column chunk with their levels: the column reader's
// output for a leaf of a nested field (`values` holds one slot per level
// entry whose def reaches the leaf's slot_def, null where def < max_def).
struct LeafChunk {
  ColumnArray values;
  int64_t levels = 0;
  const uint8_t* rep = nullptr;  // `levels` bytes, or null when max_rep is 0 (all 0)
  const uint8_t* def = nullptr;  // `levels` bytes, or null when max_def is 0 (all 0)
  std::shared_ptr<const void> owner;  // keeps rep and def alive
};

// Reads leaf `leaf` of row group `row_group` with its levels; `slot_def` is
// the leaf node's NestedNode::slot_def.
Result<LeafChunk> read_leaf_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf,
                                  int16_t slot_def, const ColumnReadOptions& options = {});

// The same over a chunk's bytes in memory (as decode_column_chunk takes
// them); `levels_hint`: the chunk's num_values (buffers are reserved for it,
// within what the bytes can hold), or 0.
Result<LeafChunk> decode_leaf_chunk(const uint8_t* chunk_bytes, size_t len, uint64_t file_offset,
                                    const ColumnDescriptor& column, int32_t codec, int64_t num_rows, int16_t slot_def,
                                    int64_t levels_hint = 0, const ColumnReadOptions& options = {},
                                    const std::string& where = "");

// Builds the Arrow array of `shape` from its leaves' chunks (one per leaf of
// shape.leaves(), in that order; moved from). `num_rows`: the row group's.
Result<ColumnArray> assemble_nested(const NestedNode& shape, std::vector<LeafChunk>& leaves, int64_t num_rows,
                                    const std::string& where = "");

// The top-level rows of an assembled nested field (assemble_nested's
// array, moved from) that `selection` names (a bitmap over its rows, LSB
// first; `selected` of them set): validity, list and map offsets and every
// child's entries reduced to those rows' (a filtered scan keeps the rows
// the scan engine selected on the flat filter columns). Offsets that leave
// their child's entries are kCorrupt, naming `where`.
Result<ColumnArray> take_nested_rows(ColumnArray&& column, const uint64_t* selection, int64_t selected,
                                     const std::string& where = "");

// read_leaf_chunk of every leaf, then assemble_nested. `leaf_options`: one
// per leaf of shape.leaves() (layout and format of its values), or empty.
Result<ColumnArray> read_nested_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                      const NestedNode& shape, const std::vector<ColumnReadOptions>& leaf_options);

}  // namespace pqfast::parquet
