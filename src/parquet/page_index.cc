// ColumnIndex and OffsetIndex: bounded Thrift reads (see page_index.h).
#include "pqfast/page_index.h"

#include "parquet/thrift_util.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {
// Wire types per field id: a field arriving with another one is skipped, as
// Thrift-generated readers skip it (a required one is then reported missing).
constexpr FieldTypes kColumnIndexTypes{{1,CType::kList},{2,CType::kList},{3,CType::kList},{4,CType::kI32},{5,CType::kList},{6,CType::kList},{7,CType::kList}};
constexpr FieldTypes kOffsetIndexTypes{{1,CType::kList},{2,CType::kList}};
constexpr FieldTypes kPageLocationTypes{{1,CType::kI64},{2,CType::kI32},{3,CType::kI64}};
}  // namespace

Result<ColumnIndex> parse_column_index(const uint8_t* data, size_t len, size_t base_offset) {
  CompactReader r(data, len, "ColumnIndex", base_offset);
  ColumnIndex ci;
  bool have[4] = {false, false, false, false};
  PQFAST_RETURN_IF_ERROR(read_struct(r, kColumnIndexTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        have[0] = true;
        ci.null_pages.clear();
        // Bool list elements are typed 1 or 2 depending on the writer.
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kList, "ColumnIndex.null_pages"));
        PQFAST_ASSIGN_OR_RETURN(thrift::ListHeader h, r.read_list_header());
        if (h.size > 0 && h.elem_type != CType::kBoolTrue && h.elem_type != CType::kBoolFalse) {
          return r.error(ErrorCode::kCorrupt, "list ColumnIndex.null_pages does not hold bools");
        }
        for (uint32_t i = 0; i < h.size; ++i) {
          PQFAST_ASSIGN_OR_RETURN(bool b, r.read_bool_element());
          ci.null_pages.push_back(b);
        }
        return Status::Ok();
      }
      case 2:
      case 3: {
        have[f.id - 1] = true;
        auto& v = f.id == 2 ? ci.min_values : ci.max_values;
        v.clear();
        return read_list(r, f, CType::kBinary, f.id == 2 ? "ColumnIndex.min_values" : "ColumnIndex.max_values",
                         nullptr, [&](uint32_t) -> Status {
                           PQFAST_ASSIGN_OR_RETURN(std::string_view s, r.read_binary());
                           v.emplace_back(s);
                           return Status::Ok();
                         });
      }
      case 4: {
        have[3] = true;
        PQFAST_ASSIGN_OR_RETURN(ci.boundary_order, read_i32_field(r, f, "ColumnIndex.boundary_order"));
        return Status::Ok();
      }
      case 5: {
        ci.null_counts.clear();
        return read_list(r, f, CType::kI64, "ColumnIndex.null_counts", nullptr, [&](uint32_t) -> Status {
          PQFAST_ASSIGN_OR_RETURN(int64_t n, r.read_i64());
          ci.null_counts.push_back(n);
          return Status::Ok();
        });
      }
      default:  // 6, 7: level histograms
        return r.skip(f.type);
    }
  }));
  auto fail = [&](const std::string& m) {
    return make_error(ErrorCode::kCorrupt, "ColumnIndex at byte " + std::to_string(base_offset) + ": " + m);
  };
  if (!have[0] || !have[1] || !have[2] || !have[3]) return fail("lacks a required field (1-4)");
  const size_t n = ci.null_pages.size();
  if (ci.min_values.size() != n || ci.max_values.size() != n || (!ci.null_counts.empty() && ci.null_counts.size() != n)) {
    return fail("lists of different lengths (" + std::to_string(n) + " null_pages, " +
                std::to_string(ci.min_values.size()) + " min_values, " + std::to_string(ci.max_values.size()) +
                " max_values, " + std::to_string(ci.null_counts.size()) + " null_counts)");
  }
  return ci;
}

Result<OffsetIndex> parse_offset_index(const uint8_t* data, size_t len, size_t base_offset) {
  CompactReader r(data, len, "OffsetIndex", base_offset);
  OffsetIndex oi;
  bool have = false;
  PQFAST_RETURN_IF_ERROR(read_struct(r, kOffsetIndexTypes, [&](const FieldHeader& f) -> Status {
    if (f.id != 1) return r.skip(f.type);  // 2: unencoded_byte_array_data_bytes
    have = true;
    oi.page_locations.clear();
    return read_list(r, f, CType::kStruct, "OffsetIndex.page_locations", nullptr, [&](uint32_t) -> Status {
      PageLocation loc;
      bool got[3] = {false, false, false};
      PQFAST_RETURN_IF_ERROR(read_struct(r, kPageLocationTypes, [&](const FieldHeader& g) -> Status {
        switch (g.id) {
          case 1: got[0] = true; { PQFAST_ASSIGN_OR_RETURN(loc.offset, read_i64_field(r, g, "PageLocation.offset")); } return Status::Ok();
          case 2: got[1] = true; { PQFAST_ASSIGN_OR_RETURN(loc.compressed_page_size, read_i32_field(r, g, "PageLocation.compressed_page_size")); } return Status::Ok();
          case 3: got[2] = true; { PQFAST_ASSIGN_OR_RETURN(loc.first_row_index, read_i64_field(r, g, "PageLocation.first_row_index")); } return Status::Ok();
          default: return r.skip(g.type);
        }
      }));
      if (!got[0] || !got[1] || !got[2]) return r.error(ErrorCode::kCorrupt, "PageLocation lacks a required field");
      oi.page_locations.push_back(loc);
      return Status::Ok();
    });
  }));
  if (!have) {
    return make_error(ErrorCode::kCorrupt,
                      "OffsetIndex at byte " + std::to_string(base_offset) + ": lacks page_locations (field 1)");
  }
  return oi;
}

Status validate_offset_index(const OffsetIndex& index, uint64_t file_size, int64_t num_rows, const std::string& where) {
  const auto& p = index.page_locations;
  for (size_t i = 0; i < p.size(); ++i) {
    const auto& l = p[i];
    const std::string page = where + ": OffsetIndex page " + std::to_string(i);
    if (l.offset < 0 || l.compressed_page_size <= 0 || static_cast<uint64_t>(l.offset) > file_size ||
        static_cast<uint64_t>(l.compressed_page_size) > file_size - static_cast<uint64_t>(l.offset)) {
      return make_error(ErrorCode::kCorrupt, page + " at byte " + std::to_string(l.offset) + " of " +
                                                 std::to_string(l.compressed_page_size) + " bytes lies outside the " +
                                                 std::to_string(file_size) + "-byte file");
    }
    if (i == 0 ? l.first_row_index != 0 : l.first_row_index <= p[i - 1].first_row_index) {
      return make_error(ErrorCode::kCorrupt, page + ": first_row_index " + std::to_string(l.first_row_index) +
                                                 (i == 0 ? " is not 0" : " does not follow the page before"));
    }
    if (l.first_row_index >= num_rows) {
      return make_error(ErrorCode::kCorrupt, page + ": first_row_index " + std::to_string(l.first_row_index) +
                                                 " is past the row group's " + std::to_string(num_rows) + " rows");
    }
    if (i > 0 && l.offset < p[i - 1].offset + p[i - 1].compressed_page_size) {
      return make_error(ErrorCode::kCorrupt, page + " at byte " + std::to_string(l.offset) +
                                                 " overlaps the page before");
    }
  }
  return Status::Ok();
}

bool column_index_usable(const ColumnIndex& columns, const OffsetIndex& offsets, int64_t num_rows,
                         int16_t max_definition_level, int16_t max_repetition_level) {
  const auto& pages = offsets.page_locations;
  if (columns.num_pages() != pages.size()) return false;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (!columns.null_pages[i]) continue;
    if (max_definition_level == 0) return false;  // no null can be there
    if (columns.null_counts.empty()) continue;    // nothing to check it by
    const int64_t nulls = columns.null_counts[i];
    if (nulls < 0) return false;
    if (max_repetition_level == 0) {  // flat: one value per row
      const int64_t end = i + 1 < pages.size() ? pages[i + 1].first_row_index : num_rows;
      if (nulls < end - pages[i].first_row_index) return false;
    }
  }
  return true;
}

}  // namespace pqfast::parquet
