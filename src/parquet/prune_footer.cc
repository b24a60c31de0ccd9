// The one-pass footer walk for pruning (see prune_footer.h), and its checked
// twin built on parse_file_metadata.
//
// Rule of the walk: every function returns false where the checked parser
// would do anything but decode the value plainly (error, skip of a field
// with an unexpected wire type, a repeated field with merge semantics, a long
// field id, a varint of 10 bytes, nesting the fast skip does not take).
// False is never an error by itself: the footer then goes to the checked
// parser, which words the error or returns the same values.
#include "parquet/prune_footer.h"

#include "parquet/internal.h"

#include <cstring>
#include <string>
#include <utility>

#include "parquet/schema_tree.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet {

namespace {

// Wire types of the compact protocol (thrift::CType), as bytes.
constexpr uint8_t kBoolTrue = 1, kBoolFalse = 2, kI16 = 4, kI32 = 5, kI64 = 6, kBinary = 8,
                  kList = 9, kStruct = 12;

bool is_int_wire(uint8_t t) { return t == kI16 || t == kI32 || t == kI64; }
// i64 fields: some writers send i32 (the same zigzag varint).
bool is_i64_wire(uint8_t t) { return t == kI64 || t == kI32; }

int64_t unzigzag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

class Walk {
 public:
  Walk(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}
  const uint8_t* pos() const { return p_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  void advance(size_t n) { p_ += n; }

  // A field header with a short id (delta from *last, wrapping like the
  // checked reader's int16). *type 0: the struct's stop byte.
  bool field(int16_t* last, uint8_t* type, int16_t* id) {
    if (p_ >= end_) return false;
    const uint8_t b = *p_++;
    *type = b & 0x0f;
    if (*type == 0) return true;
    if (*type > kStruct || (b >> 4) == 0) return false;
    *last = static_cast<int16_t>(*last + (b >> 4));
    *id = *last;
    return true;
  }
  // ULEB128 of at most 9 bytes (the checked reader takes 10 with an overflow test).
  bool varint(uint64_t* v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (p_ >= end_) return false;
      const uint8_t b = *p_++;
      x |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = x;
        return true;
      }
    }
    return false;
  }
  bool i64(int64_t* v) {
    uint64_t u;
    if (!varint(&u)) return false;
    *v = unzigzag(u);
    return true;
  }
  // A zigzag varint fits i32 exactly when the varint fits 32 bits.
  bool i32(int32_t* v) {
    uint64_t u;
    if (!varint(&u) || u > 0xffffffffu) return false;
    *v = static_cast<int32_t>(unzigzag(u));
    return true;
  }
  bool i16() {
    uint64_t u;
    return varint(&u) && u <= 0xffffu;
  }
  bool binary(std::string_view* s) {
    uint64_t n;
    if (!varint(&n) || n > remaining()) return false;
    *s = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  bool skip(uint8_t type) {
    const uint8_t* q = thrift::skip_fast(p_, end_, static_cast<thrift::CType>(type));
    if (q == nullptr) return false;
    p_ = q;
    return true;
  }
  // A list header of elements of wire type `want` (integer types stand for
  // one another, as in the checked reader); an empty list may say any type.
  bool list(uint8_t want, uint32_t* n) {
    if (p_ >= end_) return false;
    const uint8_t b = *p_++;
    const uint8_t et = b & 0x0f;
    if (et == 0 || et > kStruct) return false;
    uint64_t size = b >> 4;
    if (size == 15 && !varint(&size)) return false;
    if (size > remaining()) return false;
    if (size > 0 && et != want && !(is_int_wire(want) && is_int_wire(et))) return false;
    *n = static_cast<uint32_t>(size);
    return true;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// Calls field(type, id) -> bool for each field of the struct at the cursor,
// up to its stop byte. False, from a header or from `field`, defers.
template <class Field>
bool walk_struct(Walk& w, Field&& field) {
  int16_t last = 0;
  while (true) {
    uint8_t t;
    int16_t id;
    if (!w.field(&last, &t, &id)) return false;
    if (t == 0) return true;
    if (!field(t, id)) return false;
  }
}

// ---- the probed chunk ------------------------------------------------------------

bool walk_statistics(Walk& w, PruneChunk* c) {
  std::string_view legacy_min, legacy_max, new_min, new_max;
  bool has_legacy_min = false, has_legacy_max = false, has_new_min = false, has_new_max = false;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    int64_t distinct;
    switch (id) {
      case 1: has_legacy_max = true; return t == kBinary && w.binary(&legacy_max);
      case 2: has_legacy_min = true; return t == kBinary && w.binary(&legacy_min);
      case 3: c->has_null_count = true; return is_i64_wire(t) && w.i64(&c->null_count);
      case 4: return is_i64_wire(t) && w.i64(&distinct);
      case 5: has_new_max = true; return t == kBinary && w.binary(&new_max);
      case 6: has_new_min = true; return t == kBinary && w.binary(&new_min);
      case 7:
      case 8: return t == kBoolTrue || t == kBoolFalse;  // is_*_value_exact
      default: return w.skip(t);
    }
  });
  if (!ok) return false;
  // min_value/max_value win over the deprecated fields.
  if (has_new_min) { c->has_min = true; c->min = new_min; }
  else if (has_legacy_min) { c->has_min = true; c->min_is_legacy = true; c->min = legacy_min; }
  if (has_new_max) { c->has_max = true; c->max = new_max; }
  else if (has_legacy_max) { c->has_max = true; c->max_is_legacy = true; c->max = legacy_max; }
  return true;
}

bool walk_column_meta_data(Walk& w, PruneChunk* c) {
  bool have_type = false, have_codec = false, have_num_values = false, have_dpo = false;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    int32_t i32v = 0;
    int64_t i64v = 0;
    uint32_t n = 0;
    std::string_view s;
    bool good;
    switch (id) {
      case 1:  // type
        have_type = true;
        return t == kI32 && w.i32(&i32v) && i32v >= 0 && i32v <= 7;
      case 2:  // encodings
        good = t == kList && w.list(kI32, &n);
        for (uint32_t i = 0; good && i < n; ++i) good = w.i32(&i32v);
        return good;
      case 3:  // path_in_schema
        good = t == kList && w.list(kBinary, &n);
        for (uint32_t i = 0; good && i < n; ++i) good = w.binary(&s);
        return good;
      case 4: have_codec = true; return t == kI32 && w.i32(&i32v);
      case 5: have_num_values = true; return is_i64_wire(t) && w.i64(&c->num_values);
      case 6:
      case 7:
      case 10: return is_i64_wire(t) && w.i64(&i64v);
      case 9: have_dpo = true; return is_i64_wire(t) && w.i64(&c->data_page_offset);
      case 11: return is_i64_wire(t) && w.i64(&c->dictionary_page_offset);
      case 12:
        // A repeated statistics field merges in the checked parser: defer.
        good = t == kStruct && !c->has_statistics;
        c->has_statistics = true;
        return good && walk_statistics(w, c);
      case 14: return is_i64_wire(t) && w.i64(&c->bloom_filter_offset) && c->bloom_filter_offset >= 0;
      case 15: return t == kI32 && w.i32(&c->bloom_filter_length) && c->bloom_filter_length >= 0;
      default: return w.skip(t);
    }
  });
  return ok && have_type && have_codec && have_num_values && have_dpo;
}

bool walk_column_chunk(Walk& w, PruneChunk* c) {
  return walk_struct(w, [&](uint8_t t, int16_t id) {
    int32_t i32v = 0;
    int64_t i64v = 0;
    std::string_view path;
    bool good;
    switch (id) {
      case 1:
        good = t == kBinary && w.binary(&path);
        c->in_other_file = !path.empty();
        return good;
      case 2: return is_i64_wire(t) && w.i64(&i64v);
      case 3:
        good = t == kStruct && !c->has_meta_data;
        c->has_meta_data = true;
        return good && walk_column_meta_data(w, c);
      case 4: return is_i64_wire(t) && w.i64(&c->offset_index_offset);
      case 6: return is_i64_wire(t) && w.i64(&c->column_index_offset);
      case 5:
      case 7: return t == kI32 && w.i32(&i32v);
      case 8:
      case 9:  // crypto_metadata, encrypted_column_metadata
        c->encrypted = true;
        return w.skip(t);
      default: return w.skip(t);
    }
  });
}

bool walk_row_group(Walk& w, size_t num_leaves, size_t leaf, PruneRowGroup* g) {
  bool have_columns = false, have_num_rows = false;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    int64_t i64v = 0;
    uint32_t n = 0;
    bool good;
    switch (id) {
      case 1:
        good = t == kList && !have_columns && w.list(kStruct, &n) && n == num_leaves;
        have_columns = true;
        for (uint32_t j = 0; good && j < n; ++j) good = j == leaf ? walk_column_chunk(w, &g->chunk) : w.skip(kStruct);
        return good;
      case 3:
        have_num_rows = true;
        return is_i64_wire(t) && w.i64(&g->num_rows) && g->num_rows >= 0;
      case 2:
      case 5:
      case 6: return is_i64_wire(t) && w.i64(&i64v);
      case 7: return t == kI16 && w.i16();
      default: return w.skip(t);
    }
  });
  return ok && have_columns && have_num_rows;
}

// ---- the schema --------------------------------------------------------------------

// A SchemaElement as the checked parser decodes it, but for its name, left
// in the footer bytes (*name).
bool walk_schema_element(Walk& w, SchemaElement* e, std::string_view* name) {
  bool have_name = false, have_logical = false;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    int32_t v = 0;
    bool good;
    switch (id) {
      case 1:
        good = t == kI32 && w.i32(&v) && v >= 0 && v <= 7;
        e->has_type = true;
        e->type = static_cast<PhysicalType>(v);
        return good;
      case 2: return t == kI32 && w.i32(&e->type_length);
      case 3:
        good = t == kI32 && w.i32(&v) && v >= 0 && v <= 2;
        e->repetition = static_cast<Repetition>(v);
        return good;
      case 4: have_name = true; return t == kBinary && w.binary(name);
      case 5: return t == kI32 && w.i32(&e->num_children);
      case 6: return t == kI32 && w.i32(&e->converted_type);
      case 7: return t == kI32 && w.i32(&e->scale);
      case 8: return t == kI32 && w.i32(&e->precision);
      case 9:
        e->has_field_id = true;
        return t == kI32 && w.i32(&e->field_id);
      case 10: {
        // The union is small and rare: decoded by the checked reader, set to
        // the depth the checked parser is at here (FileMetaData, SchemaElement).
        if (t != kStruct || have_logical) return false;
        have_logical = true;
        thrift::CompactReader r(w.pos(), w.remaining(), "SchemaElement.logicalType");
        good = r.begin_struct().ok() && r.begin_struct().ok() && detail::read_logical_type(r, &e->logical).ok();
        if (good) w.advance(r.position());
        return good;
      }
      default: return w.skip(t);
    }
  });
  return ok && have_name;
}

bool path_matches(const std::vector<std::string_view>& parents, std::string_view name,
                  std::string_view dotted) {
  size_t len = name.size();
  for (std::string_view p : parents) len += p.size() + 1;
  if (len != dotted.size()) return false;
  size_t at = 0;
  for (std::string_view p : parents) {
    if (dotted.compare(at, p.size(), p) != 0 || dotted[at + p.size()] != '.') return false;
    at += p.size() + 1;
  }
  return dotted.compare(at, name.size(), name) == 0;
}

// The schema list: finds the leaf `column` (first match, as find_column)
// through the same tree walk as build_leaves. Fills out->column; *leaf and
// *num_leaves count leaves.
bool walk_schema(Walk& w, std::string_view column, const ParseLimits& limits, PruneFooter* out,
                 int* leaf, size_t* num_leaves) {
  uint32_t n = 0;
  if (!w.list(kStruct, &n) || n > limits.max_schema_elements || n == 0) return false;
  std::vector<SchemaElement> elems;
  std::vector<std::string_view> names;
  const size_t expect = std::min<size_t>(n, w.remaining() / 2 + 1);  // an element takes >= 2 bytes
  elems.reserve(expect);
  names.reserve(expect);
  for (uint32_t i = 0; i < n; ++i) {
    elems.emplace_back();
    names.emplace_back();
    if (!walk_schema_element(w, &elems.back(), &names.back())) return false;
  }
  size_t leaves = 0;
  *leaf = -1;
  const detail::SchemaWalk walk = detail::walk_schema_tree(
      elems, [&](size_t i) { return names[i]; },
      [&](size_t i, const std::vector<std::string_view>& parents, int16_t def, int16_t rep) {
        const SchemaElement& e = elems[i];
        if (e.type == PhysicalType::kFixedLenByteArray && e.type_length <= 0) return false;
        if (*leaf < 0 && path_matches(parents, names[i], column)) {
          *leaf = static_cast<int>(leaves);
          std::vector<std::string> path(parents.begin(), parents.end());
          path.emplace_back(names[i]);
          out->column = detail::leaf_descriptor(std::move(path), e, def, rep, static_cast<int32_t>(i));
        }
        ++leaves;
        return true;
      });
  *num_leaves = leaves;
  return walk.fault == detail::SchemaFault::kNone;
}

// ---- FileMetaData --------------------------------------------------------------------

bool walk_key_value(Walk& w) {
  bool have_key = false;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    std::string_view s;
    if (id != 1 && id != 2) return w.skip(t);
    have_key |= id == 1;
    return t == kBinary && w.binary(&s);
  });
  return ok && have_key;
}

bool walk_column_order(Walk& w, bool* type_order) {
  *type_order = false;
  return walk_struct(w, [&](uint8_t t, int16_t id) {
    if (id == 1 && t == kStruct) *type_order = true;  // TYPE_ORDER
    return w.skip(t);
  });
}

}  // namespace

std::optional<PruneFooter> decode_prune_footer_fast(const uint8_t* data, size_t len,
                                                    std::string_view column,
                                                    const ParseLimits& limits) {
  if (len > limits.max_footer_bytes) return std::nullopt;
  Walk w(data, data + len);
  PruneFooter out;
  out.writer = parse_created_by({});  // "unknown" until the footer names it
  out.footer_length = static_cast<uint32_t>(len);
  bool have_version = false, have_schema = false, have_num_rows = false, have_row_groups = false,
       have_orders = false;
  int leaf = -1;
  size_t num_leaves = 0;
  const bool ok = walk_struct(w, [&](uint8_t t, int16_t id) {
    uint32_t n = 0;
    bool good;
    switch (id) {
      case 1: {
        int32_t version;
        have_version = true;
        return t == kI32 && w.i32(&version);
      }
      case 2:
        // An absent column defers too: the checked parser lists the leaves.
        good = t == kList && !have_schema;
        have_schema = true;
        return good && walk_schema(w, column, limits, &out, &leaf, &num_leaves) && leaf >= 0;
      case 3:
        have_num_rows = true;
        return is_i64_wire(t) && w.i64(&out.num_rows) && out.num_rows >= 0;
      case 4:
        // Row groups before the schema are legal but unheard of: defer.
        good = t == kList && have_schema && !have_row_groups && w.list(kStruct, &n) && n <= limits.max_row_groups;
        have_row_groups = true;
        // Grown per row group read: memory follows the bytes, not the header
        // (a row group takes at least 6 bytes).
        if (good) out.row_groups.reserve(std::min<size_t>(n, w.remaining() / 6 + 1));
        for (uint32_t g = 0; good && g < n; ++g) {
          out.row_groups.emplace_back();
          good = walk_row_group(w, num_leaves, static_cast<size_t>(leaf), &out.row_groups.back());
        }
        return good;
      case 5:
        good = t == kList && w.list(kStruct, &n);
        for (uint32_t i = 0; good && i < n; ++i) good = walk_key_value(w);
        return good;
      case 6: {
        std::string_view created_by;
        if (!(t == kBinary && w.binary(&created_by))) return false;
        out.writer = parse_created_by(created_by);
        return true;
      }
      case 7: {
        good = t == kList && have_schema && !have_orders && w.list(kStruct, &n);
        have_orders = true;
        bool leaf_order = false;
        for (uint32_t i = 0; good && i < n; ++i) {
          bool type_order;
          good = walk_column_order(w, &type_order);
          if (i == static_cast<uint32_t>(leaf)) leaf_order = type_order;
        }
        // A list that does not match the leaves is unusable: no order known.
        out.type_defined_order = n == num_leaves && leaf_order;
        out.column_orders = true;
        return good;
      }
      default: return w.skip(t);  // 8 encryption_algorithm, 9 footer_signing_key_metadata, ...
    }
  });
  if (!ok) return std::nullopt;
  if (!have_version || !have_schema || !have_num_rows || !have_row_groups) return std::nullopt;
  return out;
}

Result<PruneFooter> decode_prune_footer_checked(const uint8_t* data, size_t len, size_t base_offset,
                                                std::string_view column, const ParseLimits& limits) {
  ParseLimits only = limits;
  only.only_column = column;
  auto parsed = parse_file_metadata(data, len, base_offset, only);
  if (!parsed.ok()) return parsed.error();
  auto meta = std::make_shared<const FileMetaData>(std::move(*parsed));
  const int leaf = meta->find_column(column);
  if (leaf < 0) return missing_column_error(*meta, column);
  PruneFooter out;
  out.column = meta->columns[leaf];
  out.type_defined_order = !meta->has_column_orders || meta->column_type_defined_order[leaf];
  out.column_orders = meta->has_column_orders;
  out.writer = parse_created_by(meta->created_by);
  out.num_rows = meta->num_rows;
  out.footer_length = meta->footer_length;
  out.row_groups.resize(meta->row_groups.size());
  for (size_t g = 0; g < meta->row_groups.size(); ++g) {
    const ColumnChunk& c = meta->row_groups[g].columns[leaf];
    PruneRowGroup& rg = out.row_groups[g];
    rg.num_rows = meta->row_groups[g].num_rows;
    PruneChunk& p = rg.chunk;
    p.has_meta_data = c.has_meta_data;
    p.encrypted = c.encrypted;
    p.in_other_file = !c.file_path.empty();
    p.num_values = c.num_values;
    p.has_statistics = c.has_statistics;
    p.has_null_count = c.statistics.has_null_count;
    p.null_count = c.statistics.null_count;
    p.has_min = c.statistics.has_min;
    p.has_max = c.statistics.has_max;
    p.min_is_legacy = c.statistics.min_is_legacy;
    p.max_is_legacy = c.statistics.max_is_legacy;
    p.min = c.statistics.min;  // views into the shared FileMetaData
    p.max = c.statistics.max;
    p.bloom_filter_offset = c.bloom_filter_offset;
    p.bloom_filter_length = c.bloom_filter_length;
    p.data_page_offset = c.data_page_offset;
    p.dictionary_page_offset = c.dictionary_page_offset;
    p.column_index_offset = c.column_index_offset;
    p.offset_index_offset = c.offset_index_offset;
  }
  out.backing = std::move(meta);
  return out;
}

std::string prune_footer_difference(const PruneFooter& a, const PruneFooter& b) {
  const ColumnDescriptor& x = a.column;
  const ColumnDescriptor& y = b.column;
  const LogicalType& lx = x.logical;
  const LogicalType& ly = y.logical;
  if (x.path != y.path || x.dotted_path != y.dotted_path) return "column path";
  if (x.physical_type != y.physical_type || x.type_length != y.type_length) return "physical type";
  if (lx.kind != ly.kind || lx.decimal_scale != ly.decimal_scale ||
      lx.decimal_precision != ly.decimal_precision || lx.bit_width != ly.bit_width ||
      lx.is_signed != ly.is_signed || lx.adjusted_to_utc != ly.adjusted_to_utc || lx.unit != ly.unit) {
    return "logical type";
  }
  if (x.converted_type != y.converted_type || x.scale != y.scale || x.precision != y.precision) {
    return "converted type";
  }
  if (x.repetition != y.repetition || x.max_definition_level != y.max_definition_level ||
      x.max_repetition_level != y.max_repetition_level || x.schema_index != y.schema_index) {
    return "repetition or levels";
  }
  if (a.type_defined_order != b.type_defined_order || a.column_orders != b.column_orders) return "column order";
  if (a.writer.application != b.writer.application || a.writer.major != b.writer.major ||
      a.writer.minor != b.writer.minor || a.writer.patch != b.writer.patch) {
    return "created_by";
  }
  if (a.num_rows != b.num_rows || a.footer_length != b.footer_length) return "num_rows or footer length";
  if (a.row_groups.size() != b.row_groups.size()) return "row group count";
  for (size_t g = 0; g < a.row_groups.size(); ++g) {
    const std::string at = "row group " + std::to_string(g) + ": ";
    const PruneRowGroup& r = a.row_groups[g];
    const PruneRowGroup& s = b.row_groups[g];
    const PruneChunk& c = r.chunk;
    const PruneChunk& d = s.chunk;
    if (r.num_rows != s.num_rows) return at + "num_rows";
    if (c.has_meta_data != d.has_meta_data || c.encrypted != d.encrypted ||
        c.in_other_file != d.in_other_file || c.num_values != d.num_values) {
      return at + "chunk flags or num_values";
    }
    if (c.has_statistics != d.has_statistics || c.has_null_count != d.has_null_count ||
        c.null_count != d.null_count) {
      return at + "statistics or null_count";
    }
    if (c.has_min != d.has_min || c.has_max != d.has_max || c.min_is_legacy != d.min_is_legacy ||
        c.max_is_legacy != d.max_is_legacy || c.min != d.min || c.max != d.max) {
      return at + "min/max";
    }
    if (c.bloom_filter_offset != d.bloom_filter_offset || c.bloom_filter_length != d.bloom_filter_length) {
      return at + "bloom filter location";
    }
    if (c.data_page_offset != d.data_page_offset || c.dictionary_page_offset != d.dictionary_page_offset ||
        c.column_index_offset != d.column_index_offset || c.offset_index_offset != d.offset_index_offset) {
      return at + "page or index offsets";
    }
  }
  return "";
}

namespace {

// Repoints min/max at one buffer holding just those bytes, in row-group
// order, and drops whatever backed them before (a copy of the whole footer
// or a parsed FileMetaData). A footer cache then keeps a few hundred bytes
// per file instead of the footer, and a probe of a cached footer reads its
// bounds from consecutive cache lines instead of one line per bound spread
// over the footer: on a call that starts with cold caches (a lookup now
// and then) those misses were most of the time per cached file.
void own_min_max_compactly(PruneFooter& f) {
  size_t total = 0;
  for (const PruneRowGroup& rg : f.row_groups) total += rg.chunk.min.size() + rg.chunk.max.size();
  std::shared_ptr<char[]> arena(new char[total ? total : 1]);
  char* at = arena.get();
  auto move_into_arena = [&at](std::string_view& v) {
    if (!v.empty()) std::memcpy(at, v.data(), v.size());
    v = std::string_view(at, v.size());
    at += v.size();
  };
  for (PruneRowGroup& rg : f.row_groups) {
    move_into_arena(rg.chunk.min);
    move_into_arena(rg.chunk.max);
  }
  f.backing = std::move(arena);
}

}  // namespace

Result<PruneFooter> decode_prune_footer(const uint8_t* data, size_t len, size_t base_offset,
                                        std::string_view column, const ParseLimits& limits,
                                        bool copy) {
  Result<PruneFooter> out = Error{};
  if (auto fast = decode_prune_footer_fast(data, len, column, limits)) {
    out = std::move(*fast);
  } else {
    out = decode_prune_footer_checked(data, len, base_offset, column, limits);
  }
  // With `copy` the result outlives `data`: it owns its bounds.
  if (copy && out.ok()) own_min_max_compactly(*out);
  return out;
}

}  // namespace pqfast::parquet
