// The Parquet footer: FileMetaData and everything under it, read with the
// bounded Thrift compact reader. Fields pqfast does not model are skipped
// without being decoded into anything.
#include <algorithm>
#include <cstring>
#include <string>

#include "pqfast/parquet.h"
#include "parquet/schema_tree.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

// ---- names ------------------------------------------------------------------------

const char* encoding_name(int32_t e) {
  switch (e) {
    case 0: return "PLAIN";
    case 1: return "GROUP_VAR_INT";
    case 2: return "PLAIN_DICTIONARY";
    case 3: return "RLE";
    case 4: return "BIT_PACKED";
    case 5: return "DELTA_BINARY_PACKED";
    case 6: return "DELTA_LENGTH_BYTE_ARRAY";
    case 7: return "DELTA_BYTE_ARRAY";
    case 8: return "RLE_DICTIONARY";
    case 9: return "BYTE_STREAM_SPLIT";
    default: return nullptr;
  }
}

const char* codec_name(int32_t c) {
  static const char* const kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                       "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return c >= 0 && c < 8 ? kNames[c] : nullptr;
}

const char* converted_type_name(int32_t t) {
  static const char* const kNames[] = {
      "UTF8",       "MAP",         "MAP_KEY_VALUE",    "LIST",             "ENUM",
      "DECIMAL",    "DATE",        "TIME_MILLIS",      "TIME_MICROS",      "TIMESTAMP_MILLIS",
      "TIMESTAMP_MICROS", "UINT_8", "UINT_16",         "UINT_32",          "UINT_64",
      "INT_8",      "INT_16",      "INT_32",           "INT_64",           "JSON",
      "BSON",       "INTERVAL"};
  return t >= 0 && t < 22 ? kNames[t] : nullptr;
}

const char* page_type_name(int32_t t) {
  static const char* const kNames[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
  return t >= 0 && t < 4 ? kNames[t] : nullptr;
}

std::string logical_type_to_string(const LogicalType& t) {
  static const char* const kUnits[] = {"MILLIS", "MICROS", "NANOS"};
  switch (t.kind) {
    case LogicalType::kNone: return "";
    case LogicalType::kString: return "STRING";
    case LogicalType::kMap: return "MAP";
    case LogicalType::kList: return "LIST";
    case LogicalType::kEnum: return "ENUM";
    case LogicalType::kDecimal:
      return "DECIMAL(" + std::to_string(t.decimal_precision) + "," +
             std::to_string(t.decimal_scale) + ")";
    case LogicalType::kDate: return "DATE";
    case LogicalType::kTime:
      return std::string("TIME(") + kUnits[t.unit] + "," + (t.adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::kTimestamp:
      return std::string("TIMESTAMP(") + kUnits[t.unit] + "," +
             (t.adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::kInteger:
      return "INTEGER(" + std::to_string(t.bit_width) + "," + (t.is_signed ? "true" : "false") + ")";
    case LogicalType::kUnknown: return "UNKNOWN";
    case LogicalType::kJson: return "JSON";
    case LogicalType::kBson: return "BSON";
    case LogicalType::kUuid: return "UUID";
    case LogicalType::kFloat16: return "FLOAT16";
    case LogicalType::kVariant: return "VARIANT";
    case LogicalType::kGeometry: return "GEOMETRY";
    case LogicalType::kGeography: return "GEOGRAPHY";
    case LogicalType::kOther: return "OTHER";
  }
  return "";
}

int FileMetaData::find_column(std::string_view dotted) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].dotted_path == dotted) return static_cast<int>(i);
  }
  return -1;
}

namespace detail {

// ---- LogicalType ------------------------------------------------------------------

static Status read_time_unit(CompactReader& r, LogicalType* t) {
  // union TimeUnit { 1: MILLIS, 2: MICROS, 3: NANOS } of empty structs.
  return read_struct(r, [&](const FieldHeader& f) -> Status {
    if (f.id >= 1 && f.id <= 3) t->unit = static_cast<LogicalType::TimeUnit>(f.id - 1);
    return r.skip(f.type);
  });
}

// Field wire types of the LogicalType members (a mismatch is skipped).
constexpr FieldTypes kDecimalTypeTypes{{1,CType::kI32},{2,CType::kI32}};
constexpr FieldTypes kTimeTypeTypes{{1,CType::kBoolTrue},{2,CType::kStruct}};
constexpr FieldTypes kIntTypeTypes{{1,CType::kByte},{2,CType::kBoolTrue}};

Status read_logical_type(CompactReader& r, LogicalType* t) {
  return read_struct(r, [&](const FieldHeader& f) -> Status {
    if (f.type != CType::kStruct) return r.skip(f.type);
    switch (f.id) {
      case 5:  // DecimalType { 1: scale, 2: precision }
        t->kind = LogicalType::kDecimal;
        return read_struct(r, kDecimalTypeTypes, [&](const FieldHeader& g) -> Status {
          if (g.id == 1) { PQFAST_ASSIGN_OR_RETURN(t->decimal_scale, read_i32_field(r, g, "DecimalType.scale")); return Status::Ok(); }
          if (g.id == 2) { PQFAST_ASSIGN_OR_RETURN(t->decimal_precision, read_i32_field(r, g, "DecimalType.precision")); return Status::Ok(); }
          return r.skip(g.type);
        });
      case 7:
      case 8:  // TimeType / TimestampType { 1: isAdjustedToUTC, 2: unit }
        t->kind = f.id == 7 ? LogicalType::kTime : LogicalType::kTimestamp;
        return read_struct(r, kTimeTypeTypes, [&](const FieldHeader& g) -> Status {
          if (g.id == 1) { PQFAST_ASSIGN_OR_RETURN(t->adjusted_to_utc, read_bool_field(r, g, "TimestampType.isAdjustedToUTC")); return Status::Ok(); }
          if (g.id == 2 && g.type == CType::kStruct) return read_time_unit(r, t);
          return r.skip(g.type);
        });
      case 10:  // IntType { 1: bitWidth i8, 2: isSigned }
        t->kind = LogicalType::kInteger;
        return read_struct(r, kIntTypeTypes, [&](const FieldHeader& g) -> Status {
          if (g.id == 1) {
            PQFAST_RETURN_IF_ERROR(expect_type(r, g, CType::kByte, "IntType.bitWidth"));
            PQFAST_ASSIGN_OR_RETURN(t->bit_width, r.read_byte());
            return Status::Ok();
          }
          if (g.id == 2) { PQFAST_ASSIGN_OR_RETURN(t->is_signed, read_bool_field(r, g, "IntType.isSigned")); return Status::Ok(); }
          return r.skip(g.type);
        });
      default: {
        switch (f.id) {
          case 1: t->kind = LogicalType::kString; break;
          case 2: t->kind = LogicalType::kMap; break;
          case 3: t->kind = LogicalType::kList; break;
          case 4: t->kind = LogicalType::kEnum; break;
          case 6: t->kind = LogicalType::kDate; break;
          case 11: t->kind = LogicalType::kUnknown; break;
          case 12: t->kind = LogicalType::kJson; break;
          case 13: t->kind = LogicalType::kBson; break;
          case 14: t->kind = LogicalType::kUuid; break;
          case 15: t->kind = LogicalType::kFloat16; break;
          case 16: t->kind = LogicalType::kVariant; break;
          case 17: t->kind = LogicalType::kGeometry; break;
          case 18: t->kind = LogicalType::kGeography; break;
          default: t->kind = LogicalType::kOther; break;
        }
        return r.skip(f.type);
      }
    }
  });
}

ColumnDescriptor leaf_descriptor(std::vector<std::string> path, const SchemaElement& e,
                                 int16_t max_def, int16_t max_rep, int32_t schema_index) {
  ColumnDescriptor d;
  d.path = std::move(path);
  for (size_t k = 0; k < d.path.size(); ++k) {
    if (k) d.dotted_path += '.';
    d.dotted_path += d.path[k];
  }
  d.physical_type = e.type;
  d.type_length = e.type_length;
  d.logical = e.logical;
  d.converted_type = e.converted_type;
  d.scale = e.scale;
  d.precision = e.precision;
  // A DECIMAL given only as ConvertedType still has its scale/precision.
  if (d.logical.kind == LogicalType::kNone && e.converted_type == 5) {
    d.logical.kind = LogicalType::kDecimal;
    d.logical.decimal_scale = e.scale;
    d.logical.decimal_precision = e.precision;
  }
  d.repetition = e.repetition;
  d.max_definition_level = max_def;
  d.max_repetition_level = max_rep;
  d.schema_index = schema_index;
  return d;
}

}  // namespace detail

namespace {

constexpr int kAllLeaves = -2;  // no projection (-1: the projected column is absent)

// ---- SchemaElement ---------------------------------------------------------------

constexpr FieldTypes kSchemaElementTypes{{1,CType::kI32},{2,CType::kI32},{3,CType::kI32},{4,CType::kBinary},{5,CType::kI32},{6,CType::kI32},{7,CType::kI32},{8,CType::kI32},{9,CType::kI32},{10,CType::kStruct}};

Status read_schema_element(CompactReader& r, SchemaElement* e) {
  bool have_name = false;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kSchemaElementTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        PQFAST_ASSIGN_OR_RETURN(int32_t t, read_i32_field(r, f, "SchemaElement.type"));
        if (t < 0 || t > 7) {
          return r.error(ErrorCode::kCorrupt, "SchemaElement.type " + std::to_string(t) +
                                                  " is not a physical type (0..7)");
        }
        e->has_type = true;
        e->type = static_cast<PhysicalType>(t);
        return Status::Ok();
      }
      case 2: { PQFAST_ASSIGN_OR_RETURN(e->type_length, read_i32_field(r, f, "SchemaElement.type_length")); return Status::Ok(); }
      case 3: {
        PQFAST_ASSIGN_OR_RETURN(int32_t v, read_i32_field(r, f, "SchemaElement.repetition_type"));
        if (v < 0 || v > 2) {
          return r.error(ErrorCode::kCorrupt, "SchemaElement.repetition_type " + std::to_string(v) +
                                                  " is not 0..2");
        }
        e->repetition = static_cast<Repetition>(v);
        return Status::Ok();
      }
      case 4: {
        PQFAST_ASSIGN_OR_RETURN(std::string_view v, read_binary_field(r, f, "SchemaElement.name"));
        e->name.assign(v);
        have_name = true;
        return Status::Ok();
      }
      case 5: { PQFAST_ASSIGN_OR_RETURN(e->num_children, read_i32_field(r, f, "SchemaElement.num_children")); return Status::Ok(); }
      case 6: { PQFAST_ASSIGN_OR_RETURN(e->converted_type, read_i32_field(r, f, "SchemaElement.converted_type")); return Status::Ok(); }
      case 7: { PQFAST_ASSIGN_OR_RETURN(e->scale, read_i32_field(r, f, "SchemaElement.scale")); return Status::Ok(); }
      case 8: { PQFAST_ASSIGN_OR_RETURN(e->precision, read_i32_field(r, f, "SchemaElement.precision")); return Status::Ok(); }
      case 9: {
        PQFAST_ASSIGN_OR_RETURN(e->field_id, read_i32_field(r, f, "SchemaElement.field_id"));
        e->has_field_id = true;
        return Status::Ok();
      }
      case 10:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "SchemaElement.logicalType"));
        return read_logical_type(r, &e->logical);
      default:
        return r.skip(f.type);
    }
  }));
  if (!have_name) return r.error(ErrorCode::kCorrupt, "SchemaElement without a name (field 4)");
  return Status::Ok();
}

// ---- Statistics -------------------------------------------------------------------

constexpr FieldTypes kStatisticsTypes{{1,CType::kBinary},{2,CType::kBinary},{3,CType::kI64},{4,CType::kI64},{5,CType::kBinary},{6,CType::kBinary},{7,CType::kBoolTrue},{8,CType::kBoolTrue}};

Status read_statistics(CompactReader& r, Statistics* s) {
  bool legacy_min = false, legacy_max = false, new_min = false, new_max = false;
  std::string_view lmin, lmax, nmin, nmax;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kStatisticsTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: { PQFAST_ASSIGN_OR_RETURN(lmax, read_binary_field(r, f, "Statistics.max")); legacy_max = true; return Status::Ok(); }
      case 2: { PQFAST_ASSIGN_OR_RETURN(lmin, read_binary_field(r, f, "Statistics.min")); legacy_min = true; return Status::Ok(); }
      case 3: {
        PQFAST_ASSIGN_OR_RETURN(s->null_count, read_i64_field(r, f, "Statistics.null_count"));
        s->has_null_count = true;
        return Status::Ok();
      }
      case 4: {
        PQFAST_ASSIGN_OR_RETURN(s->distinct_count, read_i64_field(r, f, "Statistics.distinct_count"));
        s->has_distinct_count = true;
        return Status::Ok();
      }
      case 5: { PQFAST_ASSIGN_OR_RETURN(nmax, read_binary_field(r, f, "Statistics.max_value")); new_max = true; return Status::Ok(); }
      case 6: { PQFAST_ASSIGN_OR_RETURN(nmin, read_binary_field(r, f, "Statistics.min_value")); new_min = true; return Status::Ok(); }
      case 7: { PQFAST_ASSIGN_OR_RETURN(bool b, read_bool_field(r, f, "Statistics.is_max_value_exact")); s->is_max_exact = b; return Status::Ok(); }
      case 8: { PQFAST_ASSIGN_OR_RETURN(bool b, read_bool_field(r, f, "Statistics.is_min_value_exact")); s->is_min_exact = b; return Status::Ok(); }
      default: return r.skip(f.type);
    }
  }));
  // min_value/max_value win over the deprecated fields when both exist.
  if (new_min) { s->has_min = true; s->min.assign(nmin); }
  else if (legacy_min) { s->has_min = true; s->min_is_legacy = true; s->min.assign(lmin); }
  if (new_max) { s->has_max = true; s->max.assign(nmax); }
  else if (legacy_max) { s->has_max = true; s->max_is_legacy = true; s->max.assign(lmax); }
  s->legacy_min_present = legacy_min;
  s->legacy_max_present = legacy_max;
  return Status::Ok();
}

// ---- ColumnMetaData / ColumnChunk --------------------------------------------------

constexpr FieldTypes kColumnMetaDataTypes{{1,CType::kI32},{2,CType::kList},{3,CType::kList},{4,CType::kI32},{5,CType::kI64},{6,CType::kI64},{7,CType::kI64},{9,CType::kI64},{10,CType::kI64},{11,CType::kI64},{12,CType::kStruct},{13,CType::kList},{14,CType::kI64},{15,CType::kI32}};

Status read_column_meta_data(CompactReader& r, ColumnChunk* c) {
  bool have_type = false, have_codec = false, have_num_values = false, have_dpo = false;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kColumnMetaDataTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        PQFAST_ASSIGN_OR_RETURN(int32_t t, read_i32_field(r, f, "ColumnMetaData.type"));
        if (t < 0 || t > 7) {
          return r.error(ErrorCode::kCorrupt,
                         "ColumnMetaData.type " + std::to_string(t) + " is not a physical type (0..7)");
        }
        c->type = static_cast<PhysicalType>(t);
        have_type = true;
        return Status::Ok();
      }
      case 2: {
        uint32_t n = 0;
        c->encodings.clear();  // a repeated field replaces, as Thrift readers do
        return read_list(r, f, CType::kI32, "ColumnMetaData.encodings", &n, [&](uint32_t i) -> Status {
          if (i == 0) c->encodings.reserve(n);
          PQFAST_ASSIGN_OR_RETURN(int32_t e, r.read_i32());
          c->encodings.push_back(e);
          return Status::Ok();
        });
      }
      case 3: {
        uint32_t n = 0;
        c->path_in_schema.clear();
        return read_list(r, f, CType::kBinary, "ColumnMetaData.path_in_schema", &n,
                         [&](uint32_t i) -> Status {
                           if (i == 0) c->path_in_schema.reserve(n);
                           PQFAST_ASSIGN_OR_RETURN(std::string_view s, r.read_binary());
                           c->path_in_schema.emplace_back(s);
                           return Status::Ok();
                         });
      }
      case 4: { PQFAST_ASSIGN_OR_RETURN(c->codec, read_i32_field(r, f, "ColumnMetaData.codec")); have_codec = true; return Status::Ok(); }
      case 5: { PQFAST_ASSIGN_OR_RETURN(c->num_values, read_i64_field(r, f, "ColumnMetaData.num_values")); have_num_values = true; return Status::Ok(); }
      case 6: { PQFAST_ASSIGN_OR_RETURN(c->total_uncompressed_size, read_i64_field(r, f, "ColumnMetaData.total_uncompressed_size")); return Status::Ok(); }
      case 7: { PQFAST_ASSIGN_OR_RETURN(c->total_compressed_size, read_i64_field(r, f, "ColumnMetaData.total_compressed_size")); return Status::Ok(); }
      case 9: { PQFAST_ASSIGN_OR_RETURN(c->data_page_offset, read_i64_field(r, f, "ColumnMetaData.data_page_offset")); have_dpo = true; return Status::Ok(); }
      case 10: { PQFAST_ASSIGN_OR_RETURN(c->index_page_offset, read_i64_field(r, f, "ColumnMetaData.index_page_offset")); return Status::Ok(); }
      case 11: { PQFAST_ASSIGN_OR_RETURN(c->dictionary_page_offset, read_i64_field(r, f, "ColumnMetaData.dictionary_page_offset")); return Status::Ok(); }
      case 12:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "ColumnMetaData.statistics"));
        c->has_statistics = true;
        return read_statistics(r, &c->statistics);
      case 14: {
        PQFAST_ASSIGN_OR_RETURN(c->bloom_filter_offset, read_i64_field(r, f, "ColumnMetaData.bloom_filter_offset"));
        if (c->bloom_filter_offset < 0) {
          return r.error(ErrorCode::kCorrupt, "negative bloom_filter_offset " +
                                                  std::to_string(c->bloom_filter_offset));
        }
        return Status::Ok();
      }
      case 15: {
        PQFAST_ASSIGN_OR_RETURN(c->bloom_filter_length, read_i32_field(r, f, "ColumnMetaData.bloom_filter_length"));
        if (c->bloom_filter_length < 0) {
          return r.error(ErrorCode::kCorrupt, "negative bloom_filter_length " +
                                                  std::to_string(c->bloom_filter_length));
        }
        return Status::Ok();
      }
      case 13: {
        // encoding_stats: located here, decoded only when a scan asks.
        const size_t at = r.position();
        PQFAST_RETURN_IF_ERROR(r.skip(f.type));
        if (f.type == CType::kList && r.position() - at <= (1u << 20)) {
          c->encoding_stats_offset = static_cast<int64_t>(r.base_offset() + at);
          c->encoding_stats_length = static_cast<int32_t>(r.position() - at);
        }
        return Status::Ok();
      }
      default:  // 8 key_value_metadata, 16 size_statistics, 17 geospatial
        return r.skip(f.type);
    }
  }));
  if (!have_type || !have_codec || !have_num_values || !have_dpo) {
    return r.error(ErrorCode::kCorrupt, std::string("ColumnMetaData lacks required field ") +
                                            (!have_type ? "type (1)" : !have_codec ? "codec (4)"
                                             : !have_num_values ? "num_values (5)"
                                                                : "data_page_offset (9)"));
  }
  return Status::Ok();
}

constexpr FieldTypes kColumnChunkTypes{{1,CType::kBinary},{2,CType::kI64},{3,CType::kStruct},{4,CType::kI64},{5,CType::kI32},{6,CType::kI64},{7,CType::kI32}};

Status read_column_chunk(CompactReader& r, ColumnChunk* c) {
  return read_struct(r, kColumnChunkTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        PQFAST_ASSIGN_OR_RETURN(std::string_view v, read_binary_field(r, f, "ColumnChunk.file_path"));
        c->file_path.assign(v);
        return Status::Ok();
      }
      case 2: { PQFAST_ASSIGN_OR_RETURN(c->file_offset, read_i64_field(r, f, "ColumnChunk.file_offset")); return Status::Ok(); }
      case 3:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "ColumnChunk.meta_data"));
        c->has_meta_data = true;
        return read_column_meta_data(r, c);
      case 4: { PQFAST_ASSIGN_OR_RETURN(c->offset_index_offset, read_i64_field(r, f, "ColumnChunk.offset_index_offset")); return Status::Ok(); }
      case 5: { PQFAST_ASSIGN_OR_RETURN(c->offset_index_length, read_i32_field(r, f, "ColumnChunk.offset_index_length")); return Status::Ok(); }
      case 6: { PQFAST_ASSIGN_OR_RETURN(c->column_index_offset, read_i64_field(r, f, "ColumnChunk.column_index_offset")); return Status::Ok(); }
      case 7: { PQFAST_ASSIGN_OR_RETURN(c->column_index_length, read_i32_field(r, f, "ColumnChunk.column_index_length")); return Status::Ok(); }
      case 8:
      case 9:
        c->encrypted = true;
        return r.skip(f.type);
      default:
        return r.skip(f.type);
    }
  });
}

constexpr FieldTypes kRowGroupTypes{{1,CType::kList},{2,CType::kI64},{3,CType::kI64},{5,CType::kI64},{6,CType::kI64},{7,CType::kI16}};

Status read_row_group(CompactReader& r, RowGroup* g, size_t num_leaves, int only_leaf) {
  bool have_columns = false, have_num_rows = false;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kRowGroupTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        uint32_t n = 0;
        have_columns = true;
        return read_list(r, f, CType::kStruct, "RowGroup.columns", &n, [&](uint32_t i) -> Status {
          if (i == 0) {
            if (n != num_leaves) {
              return r.error(ErrorCode::kCorrupt, "row group has " + std::to_string(n) +
                                                      " column chunks but the schema has " +
                                                      std::to_string(num_leaves) + " leaf columns");
            }
            g->columns.reserve(n);
          }
          // Grown per parsed element: memory follows the bytes actually read.
          g->columns.emplace_back();
          if (only_leaf != kAllLeaves && static_cast<int>(i) != only_leaf) {
            g->columns.back().skipped = true;
            return r.skip(CType::kStruct);
          }
          return read_column_chunk(r, &g->columns.back());
        });
      }
      case 2: { PQFAST_ASSIGN_OR_RETURN(g->total_byte_size, read_i64_field(r, f, "RowGroup.total_byte_size")); return Status::Ok(); }
      case 3: {
        PQFAST_ASSIGN_OR_RETURN(g->num_rows, read_i64_field(r, f, "RowGroup.num_rows"));
        if (g->num_rows < 0) return r.error(ErrorCode::kCorrupt, "negative RowGroup.num_rows");
        have_num_rows = true;
        return Status::Ok();
      }
      case 5: { PQFAST_ASSIGN_OR_RETURN(g->file_offset, read_i64_field(r, f, "RowGroup.file_offset")); return Status::Ok(); }
      case 6: { PQFAST_ASSIGN_OR_RETURN(g->total_compressed_size, read_i64_field(r, f, "RowGroup.total_compressed_size")); return Status::Ok(); }
      case 7: { PQFAST_ASSIGN_OR_RETURN(int16_t o, read_i16_field(r, f, "RowGroup.ordinal")); g->ordinal = o; return Status::Ok(); }
      default:
        return r.skip(f.type);
    }
  }));
  if (!have_columns) return r.error(ErrorCode::kCorrupt, "RowGroup lacks its columns (field 1)");
  if (g->columns.size() != num_leaves) {  // also an empty list, or a repeated field 1
    return r.error(ErrorCode::kCorrupt, "row group has " + std::to_string(g->columns.size()) +
                                            " column chunks but the schema has " +
                                            std::to_string(num_leaves) + " leaf columns");
  }
  if (!have_num_rows) return r.error(ErrorCode::kCorrupt, "RowGroup lacks num_rows (field 3)");
  return Status::Ok();
}

// Walks the flattened schema (depth-first, num_children per group) and
// builds the leaf descriptors. Errors on a tree that does not add up.
Status build_leaves(FileMetaData* m, size_t base_offset) {
  auto err = [&](const std::string& msg) {
    return make_error(ErrorCode::kCorrupt, "FileMetaData schema (footer at byte " +
                                               std::to_string(base_offset) + "): " + msg);
  };
  std::string leaf_error;
  const SchemaWalk walk = walk_schema_tree(
      m->schema, [&](size_t i) { return std::string_view(m->schema[i].name); },
      [&](size_t i, const std::vector<std::string_view>& parents, int16_t def, int16_t rep) {
        const SchemaElement& e = m->schema[i];
        std::vector<std::string> path(parents.begin(), parents.end());
        path.push_back(e.name);
        ColumnDescriptor d = leaf_descriptor(std::move(path), e, def, rep, static_cast<int32_t>(i));
        if (e.type == PhysicalType::kFixedLenByteArray && e.type_length <= 0) {
          leaf_error = "FIXED_LEN_BYTE_ARRAY column " + d.dotted_path + " has type_length " +
                       std::to_string(e.type_length);
          return false;
        }
        m->columns.push_back(std::move(d));
        return true;
      });
  const size_t i = walk.index, n = m->schema.size();
  const std::string name = i < n ? m->schema[i].name : std::string();
  switch (walk.fault) {
    case SchemaFault::kNone: return Status::Ok();
    case SchemaFault::kNoElements: return err("no schema elements");
    case SchemaFault::kNegativeRootChildren: return err("root has a negative num_children");
    case SchemaFault::kTooFewElements:
      return err("num_children announces more elements than the " + std::to_string(n) + " the schema holds");
    case SchemaFault::kTooDeep: return err("schema nested deeper than 1000 levels");
    case SchemaFault::kChildrenPastEnd:
      return err("element " + std::to_string(i) + " (" + name + ") announces " +
                 std::to_string(m->schema[i].num_children) + " children, more than the elements that follow");
    case SchemaFault::kLeafWithoutType:
      return err("leaf element " + std::to_string(i) + " (" + name + ") has no type");
    case SchemaFault::kLeafRejected: return err(leaf_error);
    case SchemaFault::kTrailingElements:
      return err("the schema tree ends after " + std::to_string(i) + " of " + std::to_string(n) + " elements");
  }
  return Status::Ok();
}

}  // namespace

namespace {
constexpr FieldTypes kKeyValueTypes{{1,CType::kBinary},{2,CType::kBinary}};
constexpr FieldTypes kFileMetaDataTypes{{1,CType::kI32},{2,CType::kList},{3,CType::kI64},{4,CType::kList},{5,CType::kList},{6,CType::kBinary},{7,CType::kList}};
}  // namespace

Result<FileMetaData> parse_file_metadata(const uint8_t* data, size_t len, size_t base_offset,
                                         const ParseLimits& limits) {
  if (len > limits.max_footer_bytes) {
    return make_error(ErrorCode::kLimitExceeded, "FileMetaData of " + std::to_string(len) +
                                                     " bytes exceeds the limit of " +
                                                     std::to_string(limits.max_footer_bytes));
  }
  CompactReader r(data, len, "FileMetaData", base_offset);
  FileMetaData m;
  m.footer_length = static_cast<uint32_t>(len);
  bool have_schema = false, have_num_rows = false, have_row_groups = false, have_version = false;
  // Row groups may precede the schema on the wire in theory; they are parsed
  // against the leaf count, so remember where they start and parse them
  // after the schema when needed.
  int only_leaf = kAllLeaves;
  const uint8_t* row_groups_at = nullptr;
  size_t row_groups_pos = 0;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kFileMetaDataTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: { PQFAST_ASSIGN_OR_RETURN(m.version, read_i32_field(r, f, "FileMetaData.version")); have_version = true; return Status::Ok(); }
      case 2: {
        uint32_t n = 0;
        if (have_schema) return r.error(ErrorCode::kCorrupt, "FileMetaData.schema (field 2) appears twice");
        have_schema = true;
        PQFAST_RETURN_IF_ERROR(read_list(r, f, CType::kStruct, "FileMetaData.schema", &n, [&](uint32_t i) -> Status {
          if (i == 0) {
            if (n > limits.max_schema_elements) {
              return r.error(ErrorCode::kLimitExceeded, std::to_string(n) + " schema elements exceed the limit of " +
                                                            std::to_string(limits.max_schema_elements));
            }
            m.schema.reserve(std::min<size_t>(n, r.remaining() / 3 + 1));
          }
          m.schema.emplace_back();
          return read_schema_element(r, &m.schema.back());
        }));
        PQFAST_RETURN_IF_ERROR(build_leaves(&m, base_offset));
        if (!limits.only_column.empty()) only_leaf = m.find_column(limits.only_column);
        return Status::Ok();
      }
      case 3: {
        PQFAST_ASSIGN_OR_RETURN(m.num_rows, read_i64_field(r, f, "FileMetaData.num_rows"));
        if (m.num_rows < 0) return r.error(ErrorCode::kCorrupt, "negative num_rows");
        have_num_rows = true;
        return Status::Ok();
      }
      case 4: {
        if (have_row_groups) {
          return r.error(ErrorCode::kCorrupt, "FileMetaData.row_groups (field 4) appears twice");
        }
        have_row_groups = true;
        if (!have_schema) {  // parse later, once the leaves are known
          PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kList, "FileMetaData.row_groups"));
          row_groups_at = data;
          row_groups_pos = r.position();
          return r.skip(CType::kList);
        }
        uint32_t n = 0;
        return read_list(r, f, CType::kStruct, "FileMetaData.row_groups", &n, [&](uint32_t i) -> Status {
          if (i == 0) {
            if (n > limits.max_row_groups) {
              return r.error(ErrorCode::kLimitExceeded, std::to_string(n) + " row groups exceed the limit");
            }
            m.row_groups.reserve(std::min<size_t>(n, r.remaining() / 8 + 1));
          }
          m.row_groups.emplace_back();
          return read_row_group(r, &m.row_groups.back(), m.columns.size(), only_leaf);
        });
      }
      case 5: {
        uint32_t n = 0;
        m.key_value_metadata.clear();
        return read_list(r, f, CType::kStruct, "FileMetaData.key_value_metadata", &n, [&](uint32_t i) -> Status {
          if (i == 0) m.key_value_metadata.reserve(n);
          KeyValue kv;
          bool have_key = false;
          // fastparquet 0.8 wrote integer values: skipped by their wire type (pyarrow keeps the key).
          PQFAST_RETURN_IF_ERROR(read_struct(r, kKeyValueTypes, [&](const FieldHeader& g) -> Status {
            if (g.id == 1) { PQFAST_ASSIGN_OR_RETURN(std::string_view k, read_binary_field(r, g, "KeyValue.key")); kv.key.assign(k); have_key = true; return Status::Ok(); }
            if (g.id == 2) { PQFAST_ASSIGN_OR_RETURN(std::string_view v, read_binary_field(r, g, "KeyValue.value")); kv.value.emplace(v); return Status::Ok(); }
            return r.skip(g.type);
          }));
          if (!have_key) return r.error(ErrorCode::kCorrupt, "KeyValue without a key");
          m.key_value_metadata.push_back(std::move(kv));
          return Status::Ok();
        });
      }
      case 6: {
        PQFAST_ASSIGN_OR_RETURN(std::string_view v, read_binary_field(r, f, "FileMetaData.created_by"));
        m.created_by.assign(v);
        return Status::Ok();
      }
      case 7: {
        uint32_t n = 0;
        m.has_column_orders = true;
        m.column_type_defined_order.clear();
        return read_list(r, f, CType::kStruct, "FileMetaData.column_orders", &n, [&](uint32_t i) -> Status {
          if (i == 0) m.column_type_defined_order.reserve(n);
          bool type_order = false;
          PQFAST_RETURN_IF_ERROR(read_struct(r, [&](const FieldHeader& g) -> Status {
            if (g.id == 1 && g.type == CType::kStruct) type_order = true;
            return r.skip(g.type);
          }));
          m.column_type_defined_order.push_back(type_order);
          return Status::Ok();
        });
      }
      case 8:
        m.plaintext_footer_encrypted = true;
        return r.skip(f.type);
      default:
        return r.skip(f.type);
    }
  }));
  if (!have_version) return r.error(ErrorCode::kCorrupt, "FileMetaData lacks version (field 1)");
  if (!have_schema) return r.error(ErrorCode::kCorrupt, "FileMetaData lacks its schema (field 2)");
  if (!have_num_rows) return r.error(ErrorCode::kCorrupt, "FileMetaData lacks num_rows (field 3)");
  if (!have_row_groups) return r.error(ErrorCode::kCorrupt, "FileMetaData lacks row_groups (field 4)");
  if (row_groups_at != nullptr) {
    CompactReader r2(data + row_groups_pos, len - row_groups_pos, "FileMetaData.row_groups",
                     base_offset + row_groups_pos);
    auto h = r2.read_list_header();
    if (!h.ok()) return h.error();
    if (h->size > 0 && h->elem_type != CType::kStruct) {
      return r2.error(ErrorCode::kCorrupt, "row_groups is not a list of structs");
    }
    for (uint32_t i = 0; i < h->size; ++i) {
      m.row_groups.emplace_back();
      PQFAST_RETURN_IF_ERROR(read_row_group(r2, &m.row_groups.back(), m.columns.size(), only_leaf));
    }
  }
  if (m.has_column_orders && m.column_type_defined_order.size() != m.columns.size()) {
    // A mismatched list is unusable: treat every order as unknown.
    m.column_type_defined_order.assign(m.columns.size(), false);
  }
  return m;
}

Result<uint32_t> parse_trailer(const uint8_t* last8, uint64_t file_size) {
  if (file_size < 12) {
    return make_error(ErrorCode::kTruncated, "file of " + std::to_string(file_size) +
                                                 " bytes is too small for Parquet (at least 12: "
                                                 "magic, footer length, magic)");
  }
  if (std::memcmp(last8 + 4, "PARE", 4) == 0) {
    return make_error(ErrorCode::kUnsupported,
                      "encrypted footer (magic PARE), not supported: pqfast reads plaintext "
                      "footers only");
  }
  if (std::memcmp(last8 + 4, "PAR1", 4) != 0) {
    return make_error(ErrorCode::kCorrupt, "bad magic at byte " + std::to_string(file_size - 4) +
                                               ": the file does not end with PAR1");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, last8, 4);  // little-endian
  if (uint64_t{footer_len} > file_size - 12) {
    return make_error(ErrorCode::kCorrupt, "footer length " + std::to_string(footer_len) +
                                               " at byte " + std::to_string(file_size - 8) +
                                               " exceeds the " + std::to_string(file_size) +
                                               "-byte file");
  }
  if (footer_len == 0) {
    return make_error(ErrorCode::kCorrupt, "footer length 0 at byte " + std::to_string(file_size - 8));
  }
  return footer_len;
}

Result<FileMetaData> parse_file_bytes(const uint8_t* data, size_t len, const ParseLimits& limits) {
  if (len >= 4 && std::memcmp(data, "PAR1", 4) != 0 && std::memcmp(data, "PARE", 4) != 0) {
    return make_error(ErrorCode::kCorrupt, "bad magic at byte 0: the file does not start with PAR1");
  }
  if (len < 12) {
    return make_error(ErrorCode::kTruncated, "file of " + std::to_string(len) +
                                                 " bytes is too small for Parquet (at least 12)");
  }
  auto footer_len = parse_trailer(data + len - 8, len);
  if (!footer_len.ok()) return footer_len.error();
  const size_t start = len - 8 - *footer_len;
  return parse_file_metadata(data + start, *footer_len, start, limits);
}

int8_t all_data_pages_dictionary(const uint8_t* data, size_t len) {
  CompactReader r(data, len, "ColumnMetaData.encoding_stats");
  auto h = r.read_list_header();
  if (!h.ok()) return -1;
  if (h->size == 0) return -1;
  if (h->elem_type != CType::kStruct) return -1;
  bool all_dict = true;
  for (uint32_t i = 0; i < h->size; ++i) {
    int32_t page_type = -1, encoding = -1, count = 1;
    bool known = true;
    Status st = read_struct(r, [&](const FieldHeader& g) -> Status {
      if (g.id >= 1 && g.id <= 3 && g.type == CType::kI32) {
        PQFAST_ASSIGN_OR_RETURN(int32_t v, r.read_i32());
        (g.id == 1 ? page_type : g.id == 2 ? encoding : count) = v;
        return Status::Ok();
      }
      if (g.id >= 1 && g.id <= 3) known = false;
      return r.skip(g.type);
    });
    if (!st.ok() || !known || page_type < 0 || encoding < 0) return -1;
    const bool data_page = page_type == 0 || page_type == 3;
    if (data_page && count > 0 && encoding != 2 && encoding != 8) all_dict = false;
  }
  return all_dict ? 1 : 0;
}

}  // namespace pqfast::parquet
