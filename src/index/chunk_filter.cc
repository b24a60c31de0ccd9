// One chunk's filter: values -> XXH64 of their PLAIN bytes -> an Sbbf sized
// and folded as Arrow C++ does, so the bytes equal what pyarrow writes with
// bloom_filter_options={col: {"ndv": ndv, "fpp": fpp}} for the same values.
//
// Values come from the column reader. INT96 is decoded as
// FIXED_LEN_BYTE_ARRAY(12): both are 12 raw bytes per value in PLAIN and in
// dictionary pages, and the 12 bytes are what the spec hashes (the reader's
// INT96 layout converts to nanoseconds, which loses out-of-range values).
#include "index/chunk_filter.h"

#include "index/dictionary_filter.h"

#include <algorithm>
#include <optional>

#include "parquet/decode.h"
#include "parquet/encodings.h"
#include "parquet/internal.h"
#include "parquet/thrift_util.h"
#include "pqfast/page_index.h"
#include "pqfast/hash.h"
#include "pqfast/sbbf.h"
#include "parquet/chunk_extent.h"

namespace pqfast::parquet::index {
namespace {

using detail::kBitPacked;
using detail::kRle;

// The descriptor and layout the values are decoded with for hashing.
ColumnDescriptor hashing_descriptor(const ColumnDescriptor& d, ColumnReadOptions* opts) {
  ColumnDescriptor h = d;
  switch (d.physical_type) {
    case PhysicalType::kInt32: opts->layout = ArrowLayout::kInt32; break;
    case PhysicalType::kInt64: opts->layout = ArrowLayout::kInt64; break;
    case PhysicalType::kFloat: opts->layout = ArrowLayout::kFloat32; break;
    case PhysicalType::kDouble: opts->layout = ArrowLayout::kFloat64; break;
    case PhysicalType::kInt96:
      h.physical_type = PhysicalType::kFixedLenByteArray;
      h.type_length = 12;
      opts->layout = ArrowLayout::kFixedSizeBinary;
      break;
    case PhysicalType::kFixedLenByteArray: opts->layout = ArrowLayout::kFixedSizeBinary; break;
    case PhysicalType::kByteArray: opts->layout = ArrowLayout::kLargeBinary; break;
    case PhysicalType::kBoolean: break;  // refused by the caller
  }
  // The physical values, not a logical conversion (dates, decimals...).
  h.logical = LogicalType{};
  h.converted_type = -1;
  opts->format.clear();
  return h;
}

// `len` bytes at `offset` (bounds-checked), in a buffer the read fills
// (not zeroed first).
Result<detail::ReadBuffer> read_range(RandomAccessFile& file, uint64_t offset, uint64_t len,
                                        const std::string& where) {
  const uint64_t size = file.size();
  if (offset > size || len > size - offset) {
    return make_error(ErrorCode::kCorrupt, where + ": " + std::to_string(len) + " bytes at " +
                                               std::to_string(offset) + " lie outside the " +
                                               std::to_string(size) + "-byte file");
  }
  detail::ReadBuffer bytes;
  bytes.resize(static_cast<size_t>(len));
  PQFAST_RETURN_IF_ERROR(file.read_at(offset, bytes.size(), bytes.data()));
  return bytes;
}

// Where the chunk's pages start and how many bytes they take, bounds-checked.
Result<std::pair<uint64_t, uint64_t>> chunk_extent(const RandomAccessFile& file, const FileMetaData& meta,
                                                   const ColumnChunk& c, const std::string& where) {
  PQFAST_ASSIGN_OR_RETURN(const ChunkExtent e,
                          parquet::chunk_extent(c, file.size(), parquet_mr_before_1_2_9(meta.created_by), where));
  return std::make_pair(e.begin, e.length);
}

// Bytes read for a data page's header: enough with statistics of short values.
constexpr uint64_t kHeaderRead = 512;

// A chunk's dictionary page (header and body: bytes[0, page_len)), then
// whatever of the next `extra` bytes of the chunk the same read brought.
struct DictionaryPage {
  detail::ReadBuffer bytes;
  size_t page_len = 0;
};

// The chunk's dictionary page, or nullopt when its first page is not a
// dictionary page (the caller then reads the chunk). `extra`: bytes after
// the page wanted in the same read (the next page's header).
Result<std::optional<DictionaryPage>> read_dictionary_page(RandomAccessFile& file, const ColumnChunk& c,
                                                           uint64_t start, uint64_t len, uint64_t extra,
                                                           const std::string& where) {
  // The dictionary page lies in [dictionary_page_offset, data_page_offset)
  // when the footer says so: one read of exactly that (no byte of a data
  // page). Otherwise a probe: a dictionary page header is small, 64 KiB
  // covers it with room for statistics.
  uint64_t probe = std::min<uint64_t>(len, 64 * 1024);
  if (c.dictionary_page_offset >= 0 && static_cast<uint64_t>(c.dictionary_page_offset) == start &&
      c.data_page_offset > c.dictionary_page_offset &&
      static_cast<uint64_t>(c.data_page_offset - c.dictionary_page_offset) <= len) {
    probe = static_cast<uint64_t>(c.data_page_offset - c.dictionary_page_offset);
    probe += std::min(extra, len - probe);
  }
  PQFAST_ASSIGN_OR_RETURN(detail::ReadBuffer head, read_range(file, start, probe, where));
  auto h = parse_page_header(head.data(), head.size(), start);
  if (!h.ok()) return prefix_error(where, h.error());
  if (h->type != PageType::kDictionaryPage) return std::optional<DictionaryPage>();
  const uint64_t page_len = uint64_t{h->header_size} + static_cast<uint64_t>(h->compressed_page_size);
  if (page_len > len) {
    return make_error(ErrorCode::kCorrupt, where + ": the dictionary page (" + std::to_string(page_len) +
                                               " bytes) runs past its chunk (" + std::to_string(len) + " bytes)");
  }
  if (page_len > head.size()) {
    PQFAST_ASSIGN_OR_RETURN(head, read_range(file, start, page_len, where));
  }
  head.resize(static_cast<size_t>(std::min<uint64_t>(head.size(), page_len + extra)));
  return std::optional<DictionaryPage>(DictionaryPage{std::move(head), static_cast<size_t>(page_len)});
}

// The pages' own headers prove the chunk dictionary-only: a dictionary page
// first, then data pages all PLAIN_DICTIONARY / RLE_DICTIONARY. Headers are
// parsed, no page is decompressed. False on anything else (or a bad header:
// the full decode then reports it).
bool pages_prove_dictionary(const uint8_t* chunk, size_t len, uint64_t offset) {
  size_t pos = 0;
  bool first = true, data_pages = false;
  while (pos < len) {
    auto h = parse_page_header(chunk + pos, len - pos, offset + pos);
    if (!h.ok()) return false;
    const uint64_t page_len = uint64_t{h->header_size} + static_cast<uint64_t>(h->compressed_page_size);
    if (page_len > len - pos) return false;
    if (first && h->type != PageType::kDictionaryPage) return false;
    if (h->type == PageType::kDataPage || h->type == PageType::kDataPageV2) {
      const int32_t e = h->type == PageType::kDataPage ? h->data_page.encoding : h->data_page_v2.encoding;
      if (!detail::is_dictionary_encoding(e)) return false;
      data_pages = true;
    }
    first = false;
    pos += static_cast<size_t>(page_len);
  }
  return data_pages;
}

// The same proof from the headers alone, found by the chunk's OffsetIndex
// (polars and arrow-rs write one and no encoding_stats): a few hundred bytes
// per data page instead of the whole chunk. nullopt when there is no usable
// OffsetIndex or a header does not fit the bytes read (the caller then reads
// the chunk); true/false when the headers decide. The caller has read the
// dictionary page (needed anyway when the proof holds) and the bytes after
// it: the data pages must follow it, and the first one's header is read
// from there. The OffsetIndex is taken from the footer's read (`tail`) when
// it lies there, as writers put page indexes just before the footer.
Result<std::optional<bool>> offset_index_proves_dictionary(RandomAccessFile& file, const ColumnChunk& c,
                                                           int64_t num_rows, uint64_t start, uint64_t len,
                                                           const DictionaryPage& dict, const TailBuffer* tail,
                                                           const std::string& where) {
  if (c.offset_index_offset < 0 || c.offset_index_length <= 0 || c.offset_index_length > (1 << 24)) {
    return std::optional<bool>();
  }
  const uint64_t oi_at = static_cast<uint64_t>(c.offset_index_offset);
  const uint64_t oi_len = static_cast<uint64_t>(c.offset_index_length);
  detail::ReadBuffer read;
  const uint8_t* oi_bytes = nullptr;
  if (tail != nullptr && tail->covers(oi_at, oi_len)) {
    oi_bytes = tail->data() + (oi_at - tail->offset);
  } else {
    auto bytes = read_range(file, oi_at, oi_len, where);
    if (!bytes.ok()) return std::optional<bool>();
    read = std::move(*bytes);
    oi_bytes = read.data();
  }
  auto oi = parse_offset_index(oi_bytes, static_cast<size_t>(oi_len), static_cast<size_t>(oi_at));
  if (!oi.ok() || oi->page_locations.empty() || !validate_offset_index(*oi, file.size(), num_rows, where).ok()) {
    return std::optional<bool>();
  }
  // Every page accounted for: the dictionary page at the chunk's start,
  // then the data pages tiling the rest of it exactly (an index that left a
  // PLAIN fallback page out would make the filter miss its values).
  const auto& pages = oi->page_locations;
  detail::ReadBuffer head;
  const uint64_t first = start + dict.page_len;
  uint64_t at = first;
  for (const PageLocation& pl : pages) {
    if (static_cast<uint64_t>(pl.offset) != at || pl.compressed_page_size <= 0) return std::optional<bool>();
    at += static_cast<uint64_t>(pl.compressed_page_size);
  }
  if (at != start + static_cast<uint64_t>(c.total_compressed_size) || at > start + len) return std::optional<bool>();
  for (const PageLocation& pl : pages) {
    const uint64_t n = std::min<uint64_t>(kHeaderRead, static_cast<uint64_t>(std::max(pl.compressed_page_size, 0)));
    const uint8_t* p;
    if (static_cast<uint64_t>(pl.offset) == first && dict.bytes.size() - dict.page_len >= n) {
      p = dict.bytes.data() + dict.page_len;  // read with the dictionary page
    } else {
      PQFAST_ASSIGN_OR_RETURN(head, read_range(file, static_cast<uint64_t>(pl.offset), n, where));
      p = head.data();
    }
    auto h = parse_page_header(p, static_cast<size_t>(n), static_cast<uint64_t>(pl.offset));
    if (!h.ok()) return std::optional<bool>();  // a longer header, or a bad one: the chunk's walk decides
    if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) return std::optional<bool>(false);
    const int32_t e = h->type == PageType::kDataPage ? h->data_page.encoding : h->data_page_v2.encoding;
    if (!detail::is_dictionary_encoding(e)) return std::optional<bool>(false);
  }
  return std::optional<bool>(true);
}

}  // namespace

bool dictionary_only(const ColumnChunk& c, const uint8_t* es, size_t es_len) {
  if (es != nullptr && es_len > 0) {
    const int8_t v = all_data_pages_dictionary(es, es_len);
    if (v >= 0) return v == 1;
  }
  // Without stats: PLAIN may be the dictionary page's encoding (Arrow lists
  // it) or a fallback data page's; only lists without it are proof.
  bool dict = false;
  for (int32_t e : c.encodings) {
    if (detail::is_dictionary_encoding(e)) {
      dict = true;
    } else if (e != kRle && e != kBitPacked) {
      return false;  // PLAIN, DELTA_*, BYTE_STREAM_SPLIT: a data page may use it
    }
  }
  return dict;
}

Status hash_non_null_values(const ColumnArray& column, std::vector<uint64_t>* out) {
  const ColumnArray::Impl& c = *column.impl();
  const size_t n = static_cast<size_t>(c.length);
  std::vector<uint64_t> all(n);
  switch (c.layout) {
    case ArrowLayout::kInt32: case ArrowLayout::kFloat32:
      hash_int32(reinterpret_cast<const int32_t*>(c.values.data()), n, all.data());
      break;
    case ArrowLayout::kInt64: case ArrowLayout::kFloat64:
      hash_int64(reinterpret_cast<const int64_t*>(c.values.data()), n, all.data());
      break;
    case ArrowLayout::kFixedSizeBinary:
      if (c.width <= 0) return make_error(ErrorCode::kInvalidArgument, "fixed-size values of width 0");
      hash_fixed_len(c.values.data(), static_cast<size_t>(c.width), n, all.data());
      break;
    case ArrowLayout::kLargeBinary:
      PQFAST_RETURN_IF_ERROR(hash_byte_arrays(c.data.data(), c.data.size(),
                                              reinterpret_cast<const int64_t*>(c.values.data()), n, all.data()));
      break;
    default:
      return make_error(ErrorCode::kInvalidArgument, "no hashing for this layout");
  }
  out->clear();
  if (!c.nullable || c.null_count == 0 || c.validity.size() == 0) {
    *out = std::move(all);
    return Status::Ok();
  }
  out->reserve(n - static_cast<size_t>(c.null_count));
  const uint8_t* bits = c.validity.data();
  for (size_t i = 0; i < n; ++i) {
    if ((bits[i >> 3] >> (i & 7)) & 1) out->push_back(all[i]);
  }
  return Status::Ok();
}

uint64_t count_distinct(std::vector<uint64_t>* hashes) {
  // An open-addressing set of the hashes themselves (already uniform: the
  // top bits pick the slot), twice the input's size: one pass, a few ns per
  // value, where sorting costs log n passes. Slot value 0 means empty; a zero
  // hash is kept apart. The distinct hashes replace the input.
  std::vector<uint64_t>& h = *hashes;
  const size_t n = h.size();
  if (n == 0) return 0;
  int bits = 1;
  while ((size_t{1} << bits) < 2 * n) ++bits;
  const size_t mask = (size_t{1} << bits) - 1;
  std::vector<uint64_t> table(mask + 1, 0);
  bool zero = false;
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = h[i];
    if (v == 0) {
      if (!zero) h[out++] = 0;
      zero = true;
      continue;
    }
    size_t slot = static_cast<size_t>(v >> (64 - bits));
    while (true) {
      if (table[slot] == 0) {
        table[slot] = v;
        h[out++] = v;  // out <= i: writes behind the read position
        break;
      }
      if (table[slot] == v) break;
      slot = (slot + 1) & mask;
    }
  }
  h.resize(out);
  return out;
}

std::string unsupported_reason(const FileMetaData& meta, int row_group, int leaf) {
  const ColumnDescriptor& d = meta.columns[static_cast<size_t>(leaf)];
  if (d.physical_type == PhysicalType::kBoolean) return "BOOLEAN columns have no Bloom filter";
  std::string problem = flat_column_problem(meta, leaf);
  if (!problem.empty()) return problem;
  const RowGroup& rg = meta.row_groups[static_cast<size_t>(row_group)];
  if (static_cast<size_t>(leaf) >= rg.columns.size()) return "the row group lacks this column chunk";
  const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
  if (c.encrypted || !c.has_meta_data) return "encrypted column chunk";
  if (!c.file_path.empty()) return "column chunk in another file (" + c.file_path + ")";
  if (c.type != d.physical_type) return "chunk type differs from the schema's";
  return "";
}

std::string chunk_where(const RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf) {
  return file.name() + ": row group " + std::to_string(row_group) + ", column '" +
         meta.columns[static_cast<size_t>(leaf)].dotted_path + "'";
}

Result<DecodedChunk> read_decoded_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf) {
  const RowGroup& rg = meta.row_groups[static_cast<size_t>(row_group)];
  const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
  const std::string where = chunk_where(file, meta, row_group, leaf);
  ColumnReadOptions opts;
  opts.v2_always_compressed = v2_pages_always_compressed(meta.created_by);
  const ColumnDescriptor hd = hashing_descriptor(meta.columns[static_cast<size_t>(leaf)], &opts);
  DecodedChunk out;
  if (rg.num_rows == 0) {
    auto col = decode_column_chunk(nullptr, 0, 0, hd, c.codec, 0, opts, where);
    if (!col.ok()) return col.error();
    out.values = std::move(*col);
    return out;
  }
  PQFAST_ASSIGN_OR_RETURN(auto extent, chunk_extent(file, meta, c, where));
  PQFAST_ASSIGN_OR_RETURN(out.bytes, read_range(file, extent.first, extent.second, where));
  out.offset = extent.first;
  auto col = decode_column_chunk(out.bytes.data(), out.bytes.size(), extent.first, hd, c.codec, rg.num_rows, opts, where);
  if (!col.ok()) return col.error();
  out.values = std::move(*col);
  return out;
}

Result<ChunkFilter> build_chunk_filter(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf,
                                       const uint8_t* encoding_stats, size_t encoding_stats_len,
                                       const IndexOptions& options, const TailBuffer* tail,
                                       const DecodedChunk* decoded) {
  const RowGroup& rg = meta.row_groups[static_cast<size_t>(row_group)];
  const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
  const std::string where = chunk_where(file, meta, row_group, leaf);
  ColumnReadOptions opts;
  opts.v2_always_compressed = v2_pages_always_compressed(meta.created_by);
  const ColumnDescriptor hd = hashing_descriptor(meta.columns[static_cast<size_t>(leaf)], &opts);

  std::vector<uint64_t> hashes;
  if (decoded != nullptr) {
    PQFAST_RETURN_IF_ERROR(hash_non_null_values(decoded->values, &hashes));
  } else if (rg.num_rows > 0) {
    PQFAST_ASSIGN_OR_RETURN(auto extent, chunk_extent(file, meta, c, where));
    bool proven = dictionary_only(c, encoding_stats, encoding_stats_len);
    std::optional<DictionaryPage> dict;  // once read
    if (!proven && (encoding_stats == nullptr || encoding_stats_len == 0) && c.offset_index_offset >= 0) {
      // No encoding_stats: the data pages' headers, located by the OffsetIndex
      // (the first one's read with the dictionary page).
      PQFAST_ASSIGN_OR_RETURN(dict, read_dictionary_page(file, c, extent.first, extent.second, kHeaderRead, where));
      if (dict) {
        PQFAST_ASSIGN_OR_RETURN(auto by_index, offset_index_proves_dictionary(file, c, rg.num_rows, extent.first,
                                                                              extent.second, *dict, tail, where));
        proven = by_index.value_or(false);
      }
    } else if (proven) {
      PQFAST_ASSIGN_OR_RETURN(dict, read_dictionary_page(file, c, extent.first, extent.second, 0, where));
    }
    if (proven && dict) {
      // The footer (or the headers) prove it: the dictionary page alone.
      return filter_from_dictionary_page(dict->bytes.data(), dict->page_len, extent.first, hd.physical_type,
                                         hd.type_length, c.codec, options, where);
    }
    PQFAST_ASSIGN_OR_RETURN(detail::ReadBuffer bytes, read_range(file, extent.first, extent.second, where));
    if (pages_prove_dictionary(bytes.data(), bytes.size(), extent.first)) {
      // Writers that give no encoding_stats nor OffsetIndex: the page
      // headers prove it; only the dictionary page is inflated and hashed.
      auto h = parse_page_header(bytes.data(), bytes.size(), extent.first);
      const size_t page_len = h->header_size + static_cast<size_t>(h->compressed_page_size);
      return filter_from_dictionary_page(bytes.data(), page_len, extent.first, hd.physical_type, hd.type_length,
                                         c.codec, options, where);
    }
    auto col = decode_column_chunk(bytes.data(), bytes.size(), extent.first, hd, c.codec, rg.num_rows, opts, where);
    if (!col.ok()) return col.error();
    PQFAST_RETURN_IF_ERROR(hash_non_null_values(*col, &hashes));
  }
  // Decoded pages repeat values: the distinct hashes are counted (and
  // inserted: insertion is idempotent per hash, so they set the same bits as
  // the values in row order).
  ChunkFilter out;
  out.ndv = options.ndv > 0 ? options.ndv : count_distinct(&hashes);
  PQFAST_ASSIGN_OR_RETURN(Sbbf filter, Sbbf::for_ndv(out.ndv, options.fpp));
  filter.insert_hashes(hashes.data(), hashes.size());
  finish_filter(filter, options, &out);
  return out;
}

void finish_filter(Sbbf& filter, const IndexOptions& options, ChunkFilter* out) {
  filter.fold(options.fpp);
  if (options.dry_run) {
    out->size = serialize_sbbf_header(static_cast<uint32_t>(filter.num_bytes())).size() + filter.num_bytes();
    return;
  }
  out->bytes = filter.serialize();
  out->size = out->bytes.size();
}

}  // namespace pqfast::parquet::index
