// Page headers: DATA_PAGE (v1), DICTIONARY_PAGE and DATA_PAGE_V2, for the
// decoders. INDEX_PAGE headers parse but carry nothing.
#include <string>

#include "pqfast/parquet.h"
#include "parquet/thrift_util.h"
#include "parquet/chunk_extent.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {
// Wire types per field id: a field arriving with another one is skipped, as
// Thrift-generated readers (Arrow's, parquet-java's) skip it; a required
// field so skipped is then reported missing.
constexpr FieldTypes kPageHeaderTypes{{1,CType::kI32},{2,CType::kI32},{3,CType::kI32},{4,CType::kI32},{5,CType::kStruct},{6,CType::kStruct},{7,CType::kStruct},{8,CType::kStruct}};
constexpr FieldTypes kDataPageHeaderTypes{{1,CType::kI32},{2,CType::kI32},{3,CType::kI32},{4,CType::kI32},{5,CType::kStruct}};
constexpr FieldTypes kDictionaryPageHeaderTypes{{1,CType::kI32},{2,CType::kI32},{3,CType::kBoolTrue}};
constexpr FieldTypes kDataPageHeaderV2Types{{1,CType::kI32},{2,CType::kI32},{3,CType::kI32},{4,CType::kI32},{5,CType::kI32},{6,CType::kI32},{7,CType::kBoolTrue},{8,CType::kStruct}};
}  // namespace

Result<PageHeader> parse_page_header(const uint8_t* data, size_t len, size_t base_offset) {
  CompactReader r(data, len, "PageHeader", base_offset);
  PageHeader h;
  bool have_type = false, have_usize = false, have_csize = false;
  unsigned have_sub = 0;  // bit i: field i of the page's own header struct
  PQFAST_RETURN_IF_ERROR(read_struct(r, kPageHeaderTypes, [&](const FieldHeader& f) -> Status {
    switch (f.id) {
      case 1: {
        PQFAST_ASSIGN_OR_RETURN(int32_t t, read_i32_field(r, f, "PageHeader.type"));
        if (t < 0 || t > 3) {
          return r.error(ErrorCode::kCorrupt, "page type " + std::to_string(t) + " is not 0..3");
        }
        h.type = static_cast<PageType>(t);
        have_type = true;
        return Status::Ok();
      }
      case 2: { PQFAST_ASSIGN_OR_RETURN(h.uncompressed_page_size, read_i32_field(r, f, "PageHeader.uncompressed_page_size")); have_usize = true; return Status::Ok(); }
      case 3: { PQFAST_ASSIGN_OR_RETURN(h.compressed_page_size, read_i32_field(r, f, "PageHeader.compressed_page_size")); have_csize = true; return Status::Ok(); }
      case 4: { PQFAST_ASSIGN_OR_RETURN(int32_t crc, read_i32_field(r, f, "PageHeader.crc")); h.crc = crc; return Status::Ok(); }
      case 5:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "PageHeader.data_page_header"));
        h.has_data_page_header = true;
        return read_struct(r, kDataPageHeaderTypes, [&](const FieldHeader& g) -> Status {
          if (g.id > 0 && g.id < 16) have_sub |= 1u << g.id;
          auto& d = h.data_page;
          switch (g.id) {
            case 1: { PQFAST_ASSIGN_OR_RETURN(d.num_values, read_i32_field(r, g, "DataPageHeader.num_values")); return Status::Ok(); }
            case 2: { PQFAST_ASSIGN_OR_RETURN(d.encoding, read_i32_field(r, g, "DataPageHeader.encoding")); return Status::Ok(); }
            case 3: { PQFAST_ASSIGN_OR_RETURN(d.definition_level_encoding, read_i32_field(r, g, "DataPageHeader.definition_level_encoding")); return Status::Ok(); }
            case 4: { PQFAST_ASSIGN_OR_RETURN(d.repetition_level_encoding, read_i32_field(r, g, "DataPageHeader.repetition_level_encoding")); return Status::Ok(); }
            default: return r.skip(g.type);  // 5: statistics
          }
        });
      case 7:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "PageHeader.dictionary_page_header"));
        h.has_dictionary_page_header = true;
        return read_struct(r, kDictionaryPageHeaderTypes, [&](const FieldHeader& g) -> Status {
          if (g.id > 0 && g.id < 16) have_sub |= 1u << g.id;
          auto& d = h.dictionary_page;
          switch (g.id) {
            case 1: { PQFAST_ASSIGN_OR_RETURN(d.num_values, read_i32_field(r, g, "DictionaryPageHeader.num_values")); return Status::Ok(); }
            case 2: { PQFAST_ASSIGN_OR_RETURN(d.encoding, read_i32_field(r, g, "DictionaryPageHeader.encoding")); return Status::Ok(); }
            case 3: { PQFAST_ASSIGN_OR_RETURN(d.is_sorted, read_bool_field(r, g, "DictionaryPageHeader.is_sorted")); return Status::Ok(); }
            default: return r.skip(g.type);
          }
        });
      case 8:
        PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kStruct, "PageHeader.data_page_header_v2"));
        h.has_data_page_header_v2 = true;
        return read_struct(r, kDataPageHeaderV2Types, [&](const FieldHeader& g) -> Status {
          if (g.id > 0 && g.id < 16) have_sub |= 1u << g.id;
          auto& d = h.data_page_v2;
          switch (g.id) {
            case 1: { PQFAST_ASSIGN_OR_RETURN(d.num_values, read_i32_field(r, g, "DataPageHeaderV2.num_values")); return Status::Ok(); }
            case 2: { PQFAST_ASSIGN_OR_RETURN(d.num_nulls, read_i32_field(r, g, "DataPageHeaderV2.num_nulls")); return Status::Ok(); }
            case 3: { PQFAST_ASSIGN_OR_RETURN(d.num_rows, read_i32_field(r, g, "DataPageHeaderV2.num_rows")); return Status::Ok(); }
            case 4: { PQFAST_ASSIGN_OR_RETURN(d.encoding, read_i32_field(r, g, "DataPageHeaderV2.encoding")); return Status::Ok(); }
            case 5: { PQFAST_ASSIGN_OR_RETURN(d.definition_levels_byte_length, read_i32_field(r, g, "DataPageHeaderV2.definition_levels_byte_length")); return Status::Ok(); }
            case 6: { PQFAST_ASSIGN_OR_RETURN(d.repetition_levels_byte_length, read_i32_field(r, g, "DataPageHeaderV2.repetition_levels_byte_length")); return Status::Ok(); }
            case 7: { PQFAST_ASSIGN_OR_RETURN(d.is_compressed, read_bool_field(r, g, "DataPageHeaderV2.is_compressed")); return Status::Ok(); }
            default: return r.skip(g.type);  // 8: statistics
          }
        });
      default:  // 6: index_page_header
        return r.skip(f.type);
    }
  }));
  auto fail = [&](const std::string& msg) {
    return make_error(ErrorCode::kCorrupt, "PageHeader at byte " + std::to_string(base_offset) + ": " + msg);
  };
  if (!have_type) return fail("lacks its type (field 1)");
  if (!have_usize || !have_csize) return fail("lacks its page sizes (fields 2 and 3)");
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) {
    return fail("negative page size (" + std::to_string(h.uncompressed_page_size) + " uncompressed, " +
                std::to_string(h.compressed_page_size) + " compressed)");
  }
  switch (h.type) {
    case PageType::kDataPage:
      if (!h.has_data_page_header) return fail("DATA_PAGE without data_page_header (field 5)");
      if ((have_sub & 0x1e) != 0x1e) return fail("DataPageHeader lacks a required field (1-4)");
      if (h.data_page.num_values < 0) return fail("negative num_values");
      break;
    case PageType::kDictionaryPage:
      if (!h.has_dictionary_page_header) return fail("DICTIONARY_PAGE without dictionary_page_header (field 7)");
      if ((have_sub & 0x6) != 0x6) return fail("DictionaryPageHeader lacks a required field (1-2)");
      if (h.dictionary_page.num_values < 0) return fail("negative num_values");
      break;
    case PageType::kDataPageV2: {
      if (!h.has_data_page_header_v2) return fail("DATA_PAGE_V2 without data_page_header_v2 (field 8)");
      if ((have_sub & 0x7e) != 0x7e) return fail("DataPageHeaderV2 lacks a required field (1-6)");
      const auto& d = h.data_page_v2;
      if (d.num_values < 0 || d.num_nulls < 0 || d.num_rows < 0 || d.num_nulls > d.num_values) {
        return fail("DATA_PAGE_V2 counts out of range (num_values " + std::to_string(d.num_values) +
                    ", num_nulls " + std::to_string(d.num_nulls) + ", num_rows " +
                    std::to_string(d.num_rows) + ")");
      }
      if (d.definition_levels_byte_length < 0 || d.repetition_levels_byte_length < 0 ||
          int64_t{d.definition_levels_byte_length} + d.repetition_levels_byte_length >
              int64_t{h.compressed_page_size}) {
        return fail("DATA_PAGE_V2 level lengths (" + std::to_string(d.definition_levels_byte_length) +
                    " + " + std::to_string(d.repetition_levels_byte_length) +
                    ") exceed the page's " + std::to_string(h.compressed_page_size) + " bytes");
      }
      break;
    }
    case PageType::kIndexPage:
      break;
  }
  h.header_size = static_cast<uint32_t>(r.position());
  return h;
}

Result<std::vector<PageHeader>> read_page_headers(RandomAccessFile& file, const ColumnChunk& chunk) {
  if (!chunk.has_meta_data) {
    return make_error(ErrorCode::kUnsupported, file.name() + ": column chunk without (plaintext) metadata");
  }
  PQFAST_ASSIGN_OR_RETURN(const ChunkExtent extent, chunk_extent(chunk, file.size(), false, file.name()));
  const int64_t start = static_cast<int64_t>(extent.begin);
  const int64_t len = static_cast<int64_t>(extent.length);
  std::vector<uint8_t> buf(static_cast<size_t>(len));
  PQFAST_RETURN_IF_ERROR(file.read_at(static_cast<uint64_t>(start), buf.size(), buf.data()));
  std::vector<PageHeader> out;
  size_t pos = 0;
  while (pos < buf.size()) {
    auto h = parse_page_header(buf.data() + pos, buf.size() - pos, static_cast<size_t>(start) + pos);
    if (!h.ok()) return make_error(h.error().code, file.name() + ": " + h.error().message);
    const uint64_t body = static_cast<uint64_t>(h->compressed_page_size);
    if (body > buf.size() - pos - h->header_size) {
      return make_error(ErrorCode::kCorrupt,
                        file.name() + ": page at byte " + std::to_string(start + static_cast<int64_t>(pos)) +
                            " announces " + std::to_string(body) + " bytes, past the end of its column chunk");
    }
    pos += h->header_size + body;
    out.push_back(*h);
  }
  return out;
}

}  // namespace pqfast::parquet
