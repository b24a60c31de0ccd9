// Page indexes from page headers (locations, row counts) and the decoded
// values (per-page min/max and null counts).
//
// min/max follow the column's sort order (parquet/value_order.h); NaN never
// becomes a bound; a zero minimum is written as -0.0 and a zero maximum as
// +0.0 (as parquet-java and Arrow do, so a probe of either zero is never
// excluded). A page holding only nulls has null_pages set and empty bounds.
// A page with values but no bound (all NaN), or an undefined order (INT96,
// unordered logical types), leaves the chunk without ColumnIndex; its
// OffsetIndex is written all the same.
#include "index/page_index_build.h"

#include <cstring>
#include <string>
#include <string_view>

#include "parquet/decode.h"
#include "parquet/value_order.h"
#include "thrift/compact.h"

namespace pqfast::parquet::index {
namespace {

using thrift::CType;

void append_varint(std::vector<uint8_t>* out, uint64_t u) {
  while (u >= 0x80) {
    out->push_back(static_cast<uint8_t>(u | 0x80));
    u >>= 7;
  }
  out->push_back(static_cast<uint8_t>(u));
}

void append_zigzag(std::vector<uint8_t>* out, int64_t v) {
  append_varint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void list_header(thrift::CompactWriter& w, std::vector<uint8_t>* out, int16_t id, CType elem, size_t n) {
  w.field_header(CType::kList, id);
  if (n < 15) {
    out->push_back(static_cast<uint8_t>((n << 4) | static_cast<uint8_t>(elem)));
  } else {
    out->push_back(static_cast<uint8_t>(0xf0 | static_cast<uint8_t>(elem)));
    append_varint(out, n);
  }
}

// Value i's PLAIN bytes in a decoded column (fixed layouts, large_binary).
std::string_view plain_value(const ColumnArray::Impl& c, size_t i) {
  if (c.layout == ArrowLayout::kLargeBinary) {
    const auto* o = reinterpret_cast<const int64_t*>(c.values.data());
    return {reinterpret_cast<const char*>(c.data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i])};
  }
  const size_t w = static_cast<size_t>(c.width);
  return {reinterpret_cast<const char*>(c.values.data()) + i * w, w};
}

bool is_zero_float(PhysicalType t, std::string_view v) {
  if (t == PhysicalType::kFloat && v.size() == 4) return load_plain<float>(v) == 0.0f;
  if (t == PhysicalType::kDouble && v.size() == 8) return load_plain<double>(v) == 0.0;
  return false;
}

std::string signed_zero(PhysicalType t, bool negative) {
  std::string s;
  if (t == PhysicalType::kFloat) {
    const float z = negative ? -0.0f : 0.0f;
    s.assign(reinterpret_cast<const char*>(&z), 4);
  } else {
    const double z = negative ? -0.0 : 0.0;
    s.assign(reinterpret_cast<const char*>(&z), 8);
  }
  return s;
}

}  // namespace

Result<ChunkPageIndex> build_chunk_page_index(const uint8_t* chunk, size_t len, uint64_t offset,
                                              const ColumnDescriptor& d, int64_t num_rows,
                                              const ColumnArray& values, const std::string& where) {
  ChunkPageIndex out;
  std::vector<int64_t> page_rows;
  size_t pos = 0;
  int64_t rows = 0;
  while (pos < len && rows < num_rows) {
    auto h = parse_page_header(chunk + pos, len - pos, offset + pos);
    if (!h.ok()) return Error{h.error().code, where + ": " + h.error().message};
    const uint64_t page_len = uint64_t{h->header_size} + static_cast<uint64_t>(h->compressed_page_size);
    if (page_len > len - pos) {
      return make_error(ErrorCode::kCorrupt, where + ": page at byte " + std::to_string(offset + pos) +
                                                 " runs past its column chunk");
    }
    int64_t n = -1;  // stays -1 for dictionary and index pages
    if (h->type == PageType::kDataPage) n = h->data_page.num_values;
    if (h->type == PageType::kDataPageV2) n = h->data_page_v2.num_rows;
    if (n < 0) {
      if (h->type == PageType::kDataPage || h->type == PageType::kDataPageV2) {
        return make_error(ErrorCode::kCorrupt, where + ": page at byte " + std::to_string(offset + pos) +
                                                   " announces " + std::to_string(n) + " rows");
      }
    } else if (n > 0) {
      // Pages of no rows (writers emit empty v2 pages) hold nothing to
      // locate; readers want strictly increasing first rows.
      if (page_len > 0x7fffffffu) return make_error(ErrorCode::kCorrupt, where + ": page larger than 2 GiB");
      out.offset_index.page_locations.push_back(
          PageLocation{static_cast<int64_t>(offset + pos), static_cast<int32_t>(page_len), rows});
      page_rows.push_back(n);
      rows += n;
    }
    pos += static_cast<size_t>(page_len);
  }
  if (rows != num_rows) {
    return make_error(ErrorCode::kCorrupt, where + ": the data pages hold " + std::to_string(rows) +
                                               " rows, the row group " + std::to_string(num_rows));
  }

  const Order order = sort_order(d);
  const ColumnArray::Impl& c = *values.impl();
  if (order == Order::kNone || c.length != num_rows) return out;
  const bool floating = d.physical_type == PhysicalType::kFloat || d.physical_type == PhysicalType::kDouble;
  const uint8_t* validity = c.nullable && c.validity.size() ? c.validity.data() : nullptr;
  ColumnIndex ci;
  int64_t row = 0;
  for (int64_t n : page_rows) {
    int64_t nulls = 0;
    std::string_view lo, hi;
    bool have = false, values_seen = false;
    for (int64_t i = row; i < row + n; ++i) {
      if (validity && !((validity[i >> 3] >> (i & 7)) & 1)) {
        ++nulls;
        continue;
      }
      values_seen = true;
      const std::string_view v = plain_value(c, static_cast<size_t>(i));
      if (!have) {
        // The first value that compares (NaN does not) starts the bounds.
        if (!compare(order, d.physical_type, v, v).has_value()) continue;
        lo = hi = v;
        have = true;
        continue;
      }
      auto a = compare(order, d.physical_type, v, lo);
      if (!a) continue;
      if (*a < 0) lo = v;
      if (*compare(order, d.physical_type, v, hi) > 0) hi = v;
    }
    if (values_seen && !have) return out;  // only NaN: no bound to give
    ci.null_pages.push_back(!values_seen);
    ci.null_counts.push_back(nulls);
    if (!values_seen) {
      ci.min_values.emplace_back();
      ci.max_values.emplace_back();
    } else {
      ci.min_values.emplace_back(floating && is_zero_float(d.physical_type, lo) ? signed_zero(d.physical_type, true)
                                                                                 : std::string(lo));
      ci.max_values.emplace_back(floating && is_zero_float(d.physical_type, hi) ? signed_zero(d.physical_type, false)
                                                                                 : std::string(hi));
    }
    row += n;
  }
  // Boundary order: ascending when neither bound ever goes down from one
  // non-null page to the next, descending when neither goes up.
  bool asc = true, desc = true;
  std::string_view prev_lo, prev_hi;
  bool first = true;
  for (size_t p = 0; p < ci.null_pages.size(); ++p) {
    if (ci.null_pages[p]) continue;
    if (!first) {
      const int a = *compare(order, d.physical_type, ci.min_values[p], prev_lo);
      const int b = *compare(order, d.physical_type, ci.max_values[p], prev_hi);
      if (a < 0 || b < 0) asc = false;
      if (a > 0 || b > 0) desc = false;
    }
    prev_lo = ci.min_values[p];
    prev_hi = ci.max_values[p];
    first = false;
  }
  // No page with a value: nothing is ordered (as Arrow C++ writes it).
  ci.boundary_order = first ? 0 : (asc ? 1 : (desc ? 2 : 0));
  out.column_index = std::move(ci);
  return out;
}

std::vector<uint8_t> serialize_offset_index(const OffsetIndex& oi) {
  std::vector<uint8_t> out;
  thrift::CompactWriter w(&out);
  w.begin_struct();
  list_header(w, &out, 1, CType::kStruct, oi.page_locations.size());
  for (const PageLocation& p : oi.page_locations) {
    thrift::CompactWriter e(&out);
    e.begin_struct();
    e.write_i64_field(1, p.offset);
    e.write_i32_field(2, p.compressed_page_size);
    e.write_i64_field(3, p.first_row_index);
    e.end_struct();
  }
  w.end_struct();
  return out;
}

std::vector<uint8_t> serialize_column_index(const ColumnIndex& ci) {
  std::vector<uint8_t> out;
  thrift::CompactWriter w(&out);
  w.begin_struct();
  list_header(w, &out, 1, CType::kBoolTrue, ci.null_pages.size());
  for (bool b : ci.null_pages) out.push_back(b ? 1 : 2);
  for (int16_t id : {int16_t{2}, int16_t{3}}) {
    const auto& v = id == 2 ? ci.min_values : ci.max_values;
    list_header(w, &out, id, CType::kBinary, v.size());
    for (const std::string& s : v) {
      append_varint(&out, s.size());
      out.insert(out.end(), s.begin(), s.end());
    }
  }
  w.write_i32_field(4, ci.boundary_order);
  if (!ci.null_counts.empty()) {
    list_header(w, &out, 5, CType::kI64, ci.null_counts.size());
    for (int64_t n : ci.null_counts) append_zigzag(&out, n);
  }
  w.end_struct();
  return out;
}

}  // namespace pqfast::parquet::index
