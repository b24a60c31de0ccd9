// The column-chunk reader: pages -> decompression -> definition levels
// (straight into the validity bitmap) -> values decoded densely at their
// place in the output, then spread over the nulls. One output per chunk,
// grown page by page (never sized from a header beyond the page's values).
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <type_traits>
#include <cstring>

#include "parquet/chunk_extent.h"
#include "pqfast/delta.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/parquet_read.h"
#include "parquet/codec.h"
#include "parquet/decode.h"
#include "parquet/dictionary_indices.h"
#include "parquet/encodings.h"
#include "parquet/nested_page.h"
#include "parquet/rle.h"
#include "parquet/snappy_range.h"
#include "parquet/stats_trust.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {

std::string enc_name(int32_t e) {
  const char* n = encoding_name(e);
  return n ? n : "UNKNOWN(" + std::to_string(e) + ")";
}

enum class Family { kFixed, kBinary, kView, kBool, kNull };

Family family_of(ArrowLayout l) {
  switch (l) {
    case ArrowLayout::kBool: return Family::kBool;
    case ArrowLayout::kBinary: case ArrowLayout::kLargeBinary: return Family::kBinary;
    case ArrowLayout::kBinaryView: return Family::kView;
    case ArrowLayout::kNull: return Family::kNull;
    default: return Family::kFixed;
  }
}

// Runs a DELTA string decoder into Arrow offsets + bytes, growing the bytes
// buffer when the decoder stops early; a page's decoded bytes are limited.
template <class Dec, class Offset>
Status delta_strings(Dec& dec, const uint8_t* page, size_t page_len, size_t n, Offset* offsets, ReadBuffer& data,
                     size_t first_guess, int64_t limit, const std::string& where) {
  if (dec.total_values() < n) {
    return make_error(ErrorCode::kCorrupt, where + ": the DELTA stream holds " + std::to_string(dec.total_values()) +
                                               " values, the page " + std::to_string(n));
  }
  const size_t start = static_cast<size_t>(offsets[0]);
  data.reserve(start + first_guess + 64);
  size_t done = 0;
  while (done < n) {
    auto k = dec.decode(offsets + done, data.data(), data.capacity(), n - done);
    if (!k.ok()) return make_error(k.error().code, where + ": " + k.error().message);
    done += *k;
    if (done < n) {
      const size_t used = static_cast<size_t>(offsets[done]);
      if (sizeof(Offset) == 4 && used >= 0x7fffffffu - 64) {
        return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB");
      }
      if (static_cast<int64_t>(data.capacity() - start) > limit) {
        return make_error(ErrorCode::kLimitExceeded, where + ": a page's DELTA strings decode to more than " +
                                                         std::to_string(limit) + " bytes");
      }
      data.resize(used);  // keeps the bytes written so far across the growth
      if constexpr (std::is_same_v<Dec, DeltaByteArrayDecoder>) {
        // Values rebuilt from prefixes can grow quadratically: the exact
        // size, from the length streams, is checked and allocated once.
        auto total = DeltaByteArrayDecoder::decoded_size(page, page_len, static_cast<uint64_t>(limit));
        if (!total.ok()) return make_error(total.error().code, where + ": " + total.error().message);
        if (*total > static_cast<uint64_t>(limit)) {
          return make_error(ErrorCode::kLimitExceeded, where + ": a page's DELTA strings decode to more than " +
                                                           std::to_string(limit) + " bytes");
        }
        data.reserve(start + static_cast<size_t>(*total) + 64);
      } else {
        data.reserve(data.capacity() * 2 + 4096);
      }
    }
  }
  data.resize(static_cast<size_t>(offsets[n]));
  return Status::Ok();
}

class ChunkReader {
 public:
  ChunkReader(const ColumnDescriptor& d, int32_t codec, const ColumnReadOptions& o, std::string where)
      : d_(d), codec_(codec), opts_(o), where_(std::move(where)) {}

  Result<ColumnArray> run(const uint8_t* chunk, size_t len, uint64_t file_offset, int64_t num_rows);

  // Page by page: begin(), then feed() runs of pages back to back (the
  // dictionary page first, if any), then finish(). Pages holding no row of
  // `keep` (when set) are skipped by their headers: not decompressed, not
  // decoded. `decoded` receives the row ranges whose values the output holds.
  Status begin(size_t len_hint, int64_t num_rows, const std::vector<RowRange>* keep);
  Status feed(const uint8_t* run, size_t len, uint64_t file_offset, int64_t first_row, bool whole_chunk);
  ColumnArray finish(std::vector<RowRange>* decoded);
  // finish(), or under ColumnReadOptions::dictionary_indices the dictionary
  // array (dictionary_indices.h).
  Result<ColumnArray> result(std::vector<RowRange>* decoded);
  void add_counts(int64_t* decoded, int64_t* skipped) const {
    *decoded += pages_decoded_;
    *skipped += pages_skipped_;
  }
  // The dictionary page's values (after begin() and feed() of the page) as
  // an array of the reader's layout (fixed-width and binary layouts only).
  Result<ColumnArray> dictionary_array();
  // A leaf of a nested field (before begin()): each page's levels are kept,
  // the output holds a slot per level entry with def >= slot_def (null
  // where def < max_def), rows are counted as records (repetition level 0).
  // `levels_hint`: the chunk's level count as its metadata says (a
  // reservation hint only, bounded by the chunk's bytes).
  void keep_levels(int16_t slot_def, int64_t levels_hint) {
    levels_mode_ = true;
    slot_def_ = slot_def;
    levels_hint_ = levels_hint;
  }
  // Whether a nested leaf holds as many levels as its chunk's metadata
  // announces (none announced: never).
  bool levels_complete() const { return levels_hint_ > 0 && nlevels_ >= levels_hint_; }
  // After finish(): the levels kept.
  std::shared_ptr<LevelBuffers> take_levels(int64_t* n) {
    *n = nlevels_;
    return std::move(levels_);
  }

 private:
  Status dictionary_page(const PageHeader& h, const uint8_t* body, const std::string& where);
  void reserve_gathered_bytes(size_t n);
  bool wanted(int64_t first, int64_t count);
  Status sparse_dictionary_page(const uint8_t* levels, size_t levels_len, bool levels_bit_packed, const uint8_t* vals,
                                size_t vals_len, size_t count, const std::string& where);
  Result<std::string_view> lazy_entry(uint32_t idx, const std::string& where);
  Status emit_sparse(const uint32_t* idx, const std::string& where);
  Status data_page(const PageHeader& h, const uint8_t* body, const std::string& where);
  Status nested_data_page(const PageHeader& h, const uint8_t* body, const std::string& where);
  // Whether a v1 data page can inflate straight into the output (see data_page).
  bool plain_into_place(int32_t enc, int64_t count64, size_t count, size_t csize, size_t usize) const;
  // A v2 page's values (after its uncompressed levels), decompressed when
  // the page says so.
  Status v2_values(const PageHeader& h, const uint8_t* body, const uint8_t** vals, size_t* vals_len,
                   const std::string& where);
  Status level_stream(int32_t enc, int width, const uint8_t* p, size_t len, size_t* at, size_t n, uint8_t* out,
                      const std::string& what);
  Status values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  Status begin_indices();
  Status index_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  Status fixed_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  Status physical_values(int32_t enc, const uint8_t* p, size_t len, size_t n, uint8_t* out, const std::string& where);
  template <class Offset>
  Status binary_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  Status view_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  Status bool_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull, const std::string& where);
  // BYTE_ARRAY values (any encoding but dictionary) into int64 offsets + bytes.
  Status binary_dense(int32_t enc, const uint8_t* p, size_t len, size_t n, ReadBuffer& offsets, ReadBuffer& bytes,
                      const std::string& where);
  template <class Offset>
  Status delta_binary(int32_t enc, const uint8_t* p, size_t len, size_t n, Offset* offsets, ReadBuffer& data,
                      const std::string& where);
  Result<const uint8_t*> decompressed(const uint8_t* src, size_t csize, size_t usize, const std::string& where);
  Status check_inflated_size(size_t usize, size_t count, const std::string& where) const;
  Status check_codec_inflation(size_t csize, size_t usize, const std::string& where) const;

  const ColumnDescriptor& d_;
  int32_t codec_;
  const ColumnReadOptions& opts_;
  std::string where_;
  ArrowLayout layout_ = ArrowLayout::kDefault;
  Family family_ = Family::kFixed;
  int32_t phys_width_ = 0;
  bool nullable_ = false;
  std::unique_ptr<ColumnArray::Impl> out_;
  int64_t pos_ = 0;        // values in the output
  int64_t row_ = 0;        // the row group's rows walked (decoded or skipped)
  bool saw_data_ = false;  // a data page was walked
  int64_t num_rows_ = 0;
  size_t chunk_len_ = 0;   // the bytes begin() was told the pages take
  const std::vector<RowRange>* keep_ = nullptr;
  size_t keep_at_ = 0;
  std::vector<RowRange> decoded_;
  int64_t pages_decoded_ = 0, pages_skipped_ = 0;
  // Sparse reads (few rows of `keep`): dictionary pages are kept undecoded
  // and their entries fetched one by one for the kept rows only.
  bool sparse_ = false;
  bool last_page_sparse_ = false;
  struct LazyDictionary {
    bool present = false;
    const uint8_t* body = nullptr;  // the compressed page body (valid while the runs are)
    size_t csize = 0, usize = 0, size = 0;
    bool whole = false;             // `bytes` holds the decompressed page
    ReadBuffer bytes;
    std::optional<SnappyIndex> snappy;
    bool snappy_tried = false;
    std::vector<int64_t> offsets;   // BYTE_ARRAY: where entry i's bytes start (size + 1)
    uint8_t entry[64];              // a fixed-width entry extracted from snappy
  } lazy_;
  ReadBuffer sparse_valid_, sparse_idx_;
  int32_t sparse_view_buffer_ = -1;
  // Nested leaves (keep_levels).
  bool levels_mode_ = false;
  int16_t slot_def_ = 0;
  int64_t levels_hint_ = 0;
  int64_t nlevels_ = 0;
  std::shared_ptr<LevelBuffers> levels_;
  std::vector<uint64_t> mask_a_;
  ReadBuffer page_;      // a decompressed page
  ReadBuffer scratch_;   // physical values before conversion, dense bits
  ReadBuffer scratch2_;  // binary bytes before conversion
  Dictionary dict_;
  // ColumnReadOptions::dictionary_indices: the indices and the dictionary
  // built; `side_` while a fallback page's values decode on their own.
  std::unique_ptr<DictionaryIndexOutput> indices_;
  bool side_ = false;
};

// A page of `count` fixed-width values fits in a bounded number of bytes
// however a writer encodes them: levels in RLE runs of one value (2 bytes
// each), dictionary indices of 32 bits, DELTA miniblocks of 64 bits, and
// headers. A compressed page that says it inflates to more is a bomb (a few
// KB of zstd announcing 256 MiB for no values): refused before it is
// inflated. BYTE_ARRAY values have no such bound; the budget holds them.
Status ChunkReader::check_inflated_size(size_t usize, size_t count, const std::string& where) const {
  if (codec_ == 0 || d_.physical_type == PhysicalType::kByteArray) return Status::Ok();
  const uint64_t width = static_cast<uint64_t>(std::max(phys_width_, 1));
  const uint64_t most = 4096 + static_cast<uint64_t>(count) * (width + 16);
  if (usize <= most) return Status::Ok();
  return make_error(ErrorCode::kCorrupt, where + ": uncompressed page size " + std::to_string(usize) + " for " +
                                             std::to_string(count) + " values of " + std::to_string(width) +
                                             " bytes (no encoding needs more than " + std::to_string(most) + ")");
}

// What a compressed page may say it inflates to: at most the reader's page
// limit, and at most what its codec can make of its bytes.
Status ChunkReader::check_codec_inflation(size_t csize, size_t usize, const std::string& where) const {
  if (static_cast<int64_t>(usize) > opts_.max_page_bytes) {
    return make_error(ErrorCode::kLimitExceeded, where + ": uncompressed page size " + std::to_string(usize) +
                                                     " exceeds the limit of " + std::to_string(opts_.max_page_bytes));
  }
  if (usize > max_inflated_size(codec_, csize)) {
    const char* name = codec_name(codec_);
    return make_error(ErrorCode::kCorrupt, where + ": " + std::to_string(csize) + " compressed bytes cannot inflate to " +
                                               std::to_string(usize) + " under " + (name ? name : "this codec"));
  }
  return Status::Ok();
}

Result<const uint8_t*> ChunkReader::decompressed(const uint8_t* src, size_t csize, size_t usize,
                                                 const std::string& where) {
  if (csize == 0 && usize == 0) return src;  // an empty page (no codec frame at all)
  if (codec_ == 0) {
    // Uncompressed: the body is the page (a smaller uncompressed size is
    // tolerated; the body's own length bounds every read).
    return src;
  }
  PQFAST_RETURN_IF_ERROR(check_codec_inflation(csize, usize, where));
  page_.reserve_exact(usize);
  PQFAST_RETURN_IF_ERROR(decompress(codec_, src, csize, page_.data(), usize, where));
  return static_cast<const uint8_t*>(page_.data());
}

Result<ColumnArray> ChunkReader::run(const uint8_t* chunk, size_t len, uint64_t file_offset, int64_t num_rows) {
  PQFAST_RETURN_IF_ERROR(begin(len, num_rows, nullptr));
  if ((out_->layout == ArrowLayout::kNull || family_ == Family::kNull) && !levels_mode_) return finish(nullptr);
  PQFAST_RETURN_IF_ERROR(feed(chunk, len, file_offset, 0, true));
  return result(nullptr);
}

// Dictionary output: the dictionary keeps the layout asked for; BYTE_ARRAY
// values decode internally as large_binary (int64 offsets + bytes, what the
// dictionary page decodes to), converted once when the dictionary is built.
Status ChunkReader::begin_indices() {
  const Family f = family_of(layout_);
  // (A nested leaf's indices take its slots as its values would: the
  // levels place them, decode_leaf_chunk returns the dictionary array.)
  if (f == Family::kBool || f == Family::kNull) {
    return make_error(ErrorCode::kInvalidArgument, where_ + ": a " + std::string(physical_type_name(d_.physical_type)) +
                                                       " column cannot be read as dictionary indices over " +
                                                       arrow_layout_name(layout_));
  }
  const bool binary = f == Family::kBinary || f == Family::kView;
  const std::string format = opts_.format.empty() ? default_format(layout_, d_.type_length, d_) : opts_.format;
  indices_ = std::make_unique<DictionaryIndexOutput>(layout_, format, layout_width(layout_, d_.type_length), binary);
  if (binary) layout_ = ArrowLayout::kLargeBinary;
  return Status::Ok();
}

// A page's values as dictionary indices at pos_: unpacked from a
// dictionary-encoded page; a page of another encoding decodes into an
// output of its own (the reader's decoders, unchanged), hashed into the
// dictionary value by value.
Status ChunkReader::index_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                                 const std::string& where) {
  int32_t* out = indices_->grow(pos_, count);
  if (enc == kPlainDictionary || enc == kRleDictionary) {
    PQFAST_RETURN_IF_ERROR(DictionaryIndexOutput::page_indices(dict_, p, len, nonnull, out, where));
  } else {
    auto side = std::make_unique<ColumnArray::Impl>();
    side->layout = out_->layout;
    side->format = out_->format;
    side->width = out_->width;
    if (family_ == Family::kBinary) side->values.resize_zeroed(8);
    std::swap(out_, side);
    const int64_t pos = pos_;
    pos_ = 0;
    side_ = true;
    const Status s = values(enc, p, len, nonnull, nonnull, where);
    side_ = false;
    pos_ = pos;
    std::swap(out_, side);
    PQFAST_RETURN_IF_ERROR(s);
    out = indices_->grow(pos_, count);  // (the decoders above never touch it; the pointer is refreshed all the same)
    PQFAST_RETURN_IF_ERROR(indices_->value_indices(dict_, *side, nonnull, out, where));
  }
  if (nonnull != count) spread_fixed(reinterpret_cast<uint8_t*>(out), 4, out_->validity.data(), pos_, count, nonnull);
  return Status::Ok();
}

Result<ColumnArray> ChunkReader::result(std::vector<RowRange>* decoded) {
  if (!indices_) return finish(decoded);
  if (decoded) *decoded = std::move(decoded_);
  PQFAST_ASSIGN_OR_RETURN(auto impl, indices_->finish(std::move(out_), pos_, dict_, where_));
  return ColumnArray(std::move(impl));
}

Status ChunkReader::begin(size_t len, int64_t num_rows, const std::vector<RowRange>* keep) {
  layout_ = read_layout(opts_.layout, d_.physical_type);
  if (opts_.dictionary_values) {
    // One byte per dictionary entry, gathered by the pages' indices.
    layout_ = ArrowLayout::kUInt8;
    const auto& v = *opts_.dictionary_values;
    dict_.fixed.resize(v.size());
    if (!v.empty()) std::memcpy(dict_.fixed.data(), v.data(), v.size());
    dict_.size = v.size();
    dict_.present = true;
  } else if (!layout_fits(layout_, d_)) {
    return make_error(ErrorCode::kInvalidArgument, where_ + ": a " + std::string(physical_type_name(d_.physical_type)) +
                                                       " column cannot be read as " + arrow_layout_name(layout_));
  }
  // (A filter's evaluation over dictionary_values wins: its output is the bytes it evaluates.)
  if (opts_.dictionary_indices && !opts_.dictionary_values) PQFAST_RETURN_IF_ERROR(begin_indices());
  if (num_rows < 0) return make_error(ErrorCode::kCorrupt, where_ + ": negative row count " + std::to_string(num_rows));
  num_rows_ = num_rows;
  chunk_len_ = len;
  keep_ = keep;
  family_ = family_of(layout_);
  phys_width_ = physical_width(d_.physical_type, d_.type_length);
  if (d_.physical_type == PhysicalType::kFixedLenByteArray && d_.type_length <= 0) {
    return make_error(ErrorCode::kCorrupt, where_ + ": FIXED_LEN_BYTE_ARRAY column with type_length " +
                                               std::to_string(d_.type_length));
  }
  // A nested leaf's slot is null where its levels stop short of the leaf.
  nullable_ = d_.max_definition_level > (levels_mode_ ? slot_def_ : 0);
  if (levels_mode_) levels_ = std::make_shared<LevelBuffers>();
  out_ = std::make_unique<ColumnArray::Impl>();
  out_->layout = layout_;
  out_->format = opts_.format.empty() ? default_format(layout_, d_.type_length, d_) : opts_.format;
  out_->width = opts_.dictionary_values ? 1 : layout_width(layout_, d_.type_length);
  out_->nullable = nullable_ || family_ == Family::kNull;
  if (family_ == Family::kBinary) {
    out_->values.resize_zeroed(layout_ == ArrowLayout::kBinary ? 4 : 8);
  }
  if (family_ == Family::kNull && !levels_mode_) {
    // Every value is null: nothing to decode (the UNKNOWN logical type).
    int64_t n = num_rows;
    if (keep) {
      n = 0;
      for (const auto& r : *keep) n += r.end - r.begin;
      decoded_ = *keep;
    } else if (num_rows > 0) {
      decoded_.push_back({0, num_rows});
    }
    out_->length = n;
    out_->null_count = n;
    row_ = pos_ = n;
    return Status::Ok();
  }
  // Room for the row group's values up front (growth copies and page
  // faults cost more than the decoding), but never more than the chunk's
  // bytes could plausibly hold: a hostile row count reserves nothing big.
  {
    int64_t want = num_rows;
    if (keep) {
      want = 0;
      for (const auto& r : *keep) want += r.end - r.begin;
    }
    // The output holds `want` values whatever the pages say (a flat column
    // has a value or a null per row): when that cannot fit in the budget, the
    // read is refused now rather than after gigabytes of decoding.
    if (const auto& budget = current_budget()) {
      const double per_row = family_ == Family::kFixed ? out_->width
                             : family_ == Family::kView ? 16.0
                             : family_ == Family::kBool ? 0.125
                             : family_ == Family::kBinary ? (layout_ == ArrowLayout::kBinary ? 4.0 : 8.0) : 0.0;
      const double need = static_cast<double>(want) * per_row;
      if (need > static_cast<double>(budget->limit() - budget->used())) {
        MemoryLimitExceeded e;
        e.asked = need > 9.0e18 ? INT64_MAX : static_cast<int64_t>(need);
        e.limit = budget->reported_limit();
        e.used = budget->reported_used();
        throw e;
      }
    }
    // A nested leaf has a slot per level entry at most: reserve for the
    // chunk's levels (the budget check above stays at one per row).
    if (levels_mode_ && levels_hint_ > want) want = levels_hint_;
    const uint64_t n0 = std::min<uint64_t>(static_cast<uint64_t>(want), uint64_t{len} * 8 + 65536);
    if (levels_mode_) {
      if (d_.max_repetition_level > 0) levels_->rep.reserve(static_cast<size_t>(n0));
      if (d_.max_definition_level > 0) levels_->def.reserve(static_cast<size_t>(n0));
    }
    // A few rows (at most 1/64 of the row group's): their dictionary
    // entries are fetched alone.
    sparse_ = keep && !opts_.dictionary_values && !indices_ && want * 64 <= num_rows &&
              (family_ == Family::kFixed || family_ == Family::kBinary || family_ == Family::kView);
    if (nullable_) out_->validity.reserve(static_cast<size_t>(n0 / 8 + 8));
    if (indices_) indices_->reserve(static_cast<size_t>(n0));
    switch (indices_ ? Family::kNull : family_) {  // (indices: the values are not kept)
      case Family::kFixed: out_->values.reserve(static_cast<size_t>(n0) * static_cast<size_t>(out_->width)); break;
      case Family::kView: out_->values.reserve(static_cast<size_t>(n0) * 16); break;
      case Family::kBool: out_->values.reserve(static_cast<size_t>(n0 / 8 + 8)); break;
      case Family::kBinary:
        out_->values.reserve(static_cast<size_t>(n0 + 1) * (layout_ == ArrowLayout::kBinary ? 4 : 8));
        if (!keep) out_->data.reserve(codec_ == 0 ? len : len * 3);
        break;
      case Family::kNull: break;
    }
  }
  if (!codec_supported(codec_)) {
    const char* name = codec_name(codec_);
    return make_error(ErrorCode::kUnsupported,
                      where_ + ": compression codec " + (name ? std::string(name) : "UNKNOWN(" + std::to_string(codec_) + ")") +
                          " is not supported by this build of pqfast");
  }
  return Status::Ok();
}

Status ChunkReader::feed(const uint8_t* chunk, size_t len, uint64_t file_offset, int64_t first_row, bool whole_chunk) {
  if (family_ == Family::kNull && !levels_mode_) return Status::Ok();
  if (first_row < row_ || first_row > num_rows_) {
    return make_error(ErrorCode::kCorrupt, where_ + ": pages at byte " + std::to_string(file_offset) + " start at row " +
                                               std::to_string(first_row) + ", after " + std::to_string(row_) +
                                               " rows were read (of " + std::to_string(num_rows_) + ")");
  }
  row_ = first_row;
  size_t at = 0;
  // A whole chunk is walked until its rows are read (bytes after them are
  // ignored, as other readers do); a run of pages until its bytes end. A
  // nested leaf's last record may go on in the next page (data page v1):
  // its chunk is walked on, to the end of its bytes or until it holds the
  // levels its metadata's num_values counts (where Arrow stops: bytes
  // after may be the next chunk's, read with the PARQUET-816 padding).
  while (whole_chunk ? (row_ < num_rows_ || (levels_mode_ && at < len && !levels_complete())) : at < len) {
    const uint64_t page_off = file_offset + at;
    const std::string where = where_ + ", page at byte " + std::to_string(page_off);
    if (at >= len) {
      return make_error(ErrorCode::kTruncated, where_ + ": the column chunk's pages end after " + std::to_string(row_) +
                                                   " of the row group's " + std::to_string(num_rows_) + " values");
    }
    auto h = parse_page_header(chunk + at, len - at, page_off);
    if (!h.ok() && levels_mode_ && row_ >= num_rows_) break;  // bytes past the last page
    if (!h.ok()) return make_error(h.error().code, where_ + ": " + h.error().message);
    const size_t body = static_cast<size_t>(h->compressed_page_size);
    if (body > len - at - h->header_size) {
      return make_error(ErrorCode::kTruncated, where + ": page body of " + std::to_string(body) +
                                                   " bytes runs past the end of the column chunk");
    }
    const uint8_t* b = chunk + at + h->header_size;
    switch (h->type) {
      case PageType::kDictionaryPage: PQFAST_RETURN_IF_ERROR(dictionary_page(*h, b, where)); break;
      case PageType::kDataPage:
      case PageType::kDataPageV2: {
        saw_data_ = true;
        const int64_t count = h->type == PageType::kDataPageV2 ? h->data_page_v2.num_values : h->data_page.num_values;
        if (keep_ && !wanted(row_, count)) {
          if (count > num_rows_ - row_ && row_ >= num_rows_) {
            return make_error(ErrorCode::kCorrupt, where + ": page of " + std::to_string(count) +
                                                       " values runs past the row group's " + std::to_string(num_rows_) +
                                                       " rows (" + std::to_string(row_) + " read before it)");
          }
          row_ += std::min(count, num_rows_ - row_);  // as data_page clamps it
          ++pages_skipped_;
          break;
        }
        ++pages_decoded_;
        const int64_t first = row_;
        PQFAST_RETURN_IF_ERROR(data_page(*h, b, where));
        if (last_page_sparse_) break;  // it recorded the rows it kept
        if (!decoded_.empty() && decoded_.back().end == first) {
          decoded_.back().end = row_;
        } else if (row_ > first) {
          decoded_.push_back({first, row_});
        }
        break;
      }
      case PageType::kIndexPage: break;
    }
    at += h->header_size + body;
    if (!whole_chunk && row_ >= num_rows_ && saw_data_) break;
  }
  return Status::Ok();
}

ColumnArray ChunkReader::finish(std::vector<RowRange>* decoded) {
  out_->length = pos_;
  if (decoded) *decoded = std::move(decoded_);
  return ColumnArray(std::move(out_));
}

bool ChunkReader::wanted(int64_t first, int64_t count) {
  // keep_ is sorted; pages come in row order, so a cursor walks it once.
  const auto& k = *keep_;
  while (keep_at_ < k.size() && k[keep_at_].end <= first) ++keep_at_;
  return keep_at_ < k.size() && k[keep_at_].begin < first + count;
}

Status ChunkReader::sparse_dictionary_page(const uint8_t* levels, size_t levels_len, bool levels_bit_packed,
                                           const uint8_t* vals, size_t vals_len, size_t count,
                                           const std::string& where) {
  // The page's validity and its indices (cheap: no value is gathered).
  size_t nonnull = count;
  const uint8_t* valid = nullptr;
  if (nullable_) {
    sparse_valid_.resize(0);
    sparse_valid_.resize_zeroed((count + 7) / 8 + 8);
    if (levels_bit_packed) {  // (LSB first, as Arrow reads BIT_PACKED: level_decode.h)
      nonnull = static_cast<size_t>(copy_bits(levels, count, sparse_valid_.data(), 0));
    } else {
      PQFAST_ASSIGN_OR_RETURN(int64_t set, decode_hybrid_bits(levels, levels_len, count, sparse_valid_.data(), 0,
                                                               where + ", definition levels"));
      nonnull = static_cast<size_t>(set);
    }
    valid = sparse_valid_.data();
  }
  sparse_idx_.reserve_exact(nonnull * 4 + 64);
  PQFAST_RETURN_IF_ERROR(dict_indices(lazy_.size, vals, vals_len, nonnull, sparse_idx_.as<uint32_t>(), where));
  const uint32_t* idx = sparse_idx_.as<uint32_t>();
  // The kept rows, with their rank among the page's non-null values.
  const auto& k = *keep_;
  const int64_t page_end = row_ + static_cast<int64_t>(count);
  int64_t j = 0, rank = 0;
  for (size_t ka = keep_at_; ka < k.size() && k[ka].begin < page_end; ++ka) {
    const int64_t b = std::max(k[ka].begin, row_), e = std::min(k[ka].end, page_end);
    if (b >= e) continue;
    for (; j < b - row_; ++j) rank += valid ? ((valid[j >> 3] >> (j & 7)) & 1) : 1;
    for (int64_t r = b; r < e; ++r, ++j) {
      const bool v = valid ? ((valid[j >> 3] >> (j & 7)) & 1) : true;
      PQFAST_RETURN_IF_ERROR(emit_sparse(v ? idx + rank : nullptr, where));
      if (v) ++rank;
    }
    if (!decoded_.empty() && decoded_.back().end == b) {
      decoded_.back().end = e;
    } else {
      decoded_.push_back({b, e});
    }
  }
  row_ = page_end;
  return Status::Ok();
}

// Entry idx of the undecoded dictionary, as PLAIN bytes (BYTE_ARRAY without
// its length prefix).
Result<std::string_view> ChunkReader::lazy_entry(uint32_t idx, const std::string& where) {
  LazyDictionary& z = lazy_;
  const std::string w = where + " (dictionary)";
  auto whole = [&]() -> Status {
    if (z.whole) return Status::Ok();
    if (codec_ == 0) {
      z.bytes.resize(z.csize);
      if (z.csize) std::memcpy(z.bytes.data(), z.body, z.csize);
    } else {
      PQFAST_RETURN_IF_ERROR(check_codec_inflation(z.csize, z.usize, w));
      z.bytes.resize(z.usize);
      PQFAST_RETURN_IF_ERROR(decompress(codec_, z.body, z.csize, z.bytes.data(), z.usize, w));
    }
    z.whole = true;
    return Status::Ok();
  };
  const char* base;
  if (d_.physical_type == PhysicalType::kByteArray) {
    PQFAST_RETURN_IF_ERROR(whole());
    if (z.offsets.empty()) {
      // One walk over the lengths (no byte is copied).
      z.offsets.resize(z.size + 1);
      size_t at = 0;
      const size_t len = z.bytes.size();
      for (size_t i = 0; i < z.size; ++i) {
        if (len - at < 4) return make_error(ErrorCode::kTruncated, w + ": value " + std::to_string(i) + " lacks its length");
        uint32_t l;
        std::memcpy(&l, z.bytes.data() + at, 4);
        if (l > len - at - 4) return make_error(ErrorCode::kTruncated, w + ": value " + std::to_string(i) + " runs past the page");
        z.offsets[i] = static_cast<int64_t>(at + 4);
        at += 4 + l;
      }
      z.offsets[z.size] = static_cast<int64_t>(at) + 4;  // (entry i ends at offsets[i + 1] - 4)
    }
    base = reinterpret_cast<const char*>(z.bytes.data());
    const int64_t b = z.offsets[idx];
    return std::string_view(base + b, static_cast<size_t>(z.offsets[idx + 1] - 4 - b));
  }
  const size_t pw = static_cast<size_t>(phys_width_);
  const size_t off = static_cast<size_t>(idx) * pw;
  if (codec_ == 0) return std::string_view(reinterpret_cast<const char*>(z.body) + off, pw);  // checked at the stash
  if (!z.whole && codec_ == 1 /* SNAPPY */ && pw <= sizeof z.entry) {
    // Mostly literals (incompressible values): a walk of the tags beats
    // decompressing the page.
    if (!z.snappy_tried) {
      z.snappy_tried = true;
      if (z.csize * 8 >= z.usize * 7) {
        auto x = SnappyIndex::build(z.body, z.csize, w);
        if (x.ok() && x->uncompressed_size() == z.usize) z.snappy = std::move(x).value();
      }
    }
    if (z.snappy) {
      if (z.snappy->read(off, pw, z.entry).ok()) return std::string_view(reinterpret_cast<const char*>(z.entry), pw);
      z.snappy.reset();  // copies chained too deep: decompress the page once instead
    }
  }
  PQFAST_RETURN_IF_ERROR(whole());
  return std::string_view(reinterpret_cast<const char*>(z.bytes.data()) + off, pw);
}

// Appends one value (dictionary index *idx) or a null (idx null) at pos_.
Status ChunkReader::emit_sparse(const uint32_t* idx, const std::string& where) {
  const int64_t at = pos_;
  if (nullable_) {
    out_->validity.resize_zeroed(static_cast<size_t>((at + 1 + 7) / 8));
    if (idx) {
      out_->validity.data()[at >> 3] |= static_cast<uint8_t>(1u << (at & 7));
    } else {
      ++out_->null_count;
    }
  }
  std::string_view v;
  if (idx) {
    PQFAST_ASSIGN_OR_RETURN(v, lazy_entry(*idx, where));
  }
  switch (family_) {
    case Family::kFixed: {
      const size_t e = static_cast<size_t>(out_->width);
      out_->values.resize(static_cast<size_t>(at + 1) * e);
      uint8_t* dst = out_->values.data() + static_cast<size_t>(at) * e;
      if (!idx) {
        std::memset(dst, 0, e);
      } else if (d_.physical_type == PhysicalType::kByteArray) {  // decimals
        const int64_t o[2] = {0, static_cast<int64_t>(v.size())};
        PQFAST_RETURN_IF_ERROR(convert_binary_to_decimal(layout_, o, reinterpret_cast<const uint8_t*>(v.data()), 1, dst, where));
      } else if (is_identity(layout_, d_.physical_type, d_.type_length)) {
        std::memcpy(dst, v.data(), e);
      } else {
        PQFAST_RETURN_IF_ERROR(convert_fixed(d_, layout_, reinterpret_cast<const uint8_t*>(v.data()), 1, dst, where));
      }
      break;
    }
    case Family::kBinary: {
      const bool large = layout_ == ArrowLayout::kLargeBinary;
      const size_t ow = large ? 8 : 4;
      out_->values.resize(static_cast<size_t>(at + 2) * ow);
      const int64_t start = large ? out_->values.as<int64_t>()[at] : out_->values.as<int32_t>()[at];
      const int64_t end = start + static_cast<int64_t>(v.size());
      if (!large && end > 0x7fffffff) {
        return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB (read it as large_binary)");
      }
      out_->data.resize(static_cast<size_t>(end));
      if (!v.empty()) std::memcpy(out_->data.data() + start, v.data(), v.size());
      if (large) {
        out_->values.as<int64_t>()[at + 1] = end;
      } else {
        out_->values.as<int32_t>()[at + 1] = static_cast<int32_t>(end);
      }
      break;
    }
    case Family::kView: {
      out_->values.resize(static_cast<size_t>(at + 1) * 16);
      BinaryViewElem view;
      std::memset(&view, 0, sizeof view);
      if (idx) {
        view.inlined.size = static_cast<int32_t>(v.size());
        if (v.size() <= 12) {
          std::memcpy(view.inlined.data, v.data(), v.size());
        } else {
          if (sparse_view_buffer_ < 0) {
            sparse_view_buffer_ = static_cast<int32_t>(out_->view_buffers.size());
            out_->view_buffers.emplace_back();
          }
          ReadBuffer& buf = out_->view_buffers[static_cast<size_t>(sparse_view_buffer_)];
          const size_t o = buf.size();
          if (o + v.size() > 0x7fffffff) return make_error(ErrorCode::kLimitExceeded, where + ": view buffer passes 2 GiB");
          buf.resize(o + v.size());
          std::memcpy(buf.data() + o, v.data(), v.size());
          std::memcpy(view.ref.prefix, v.data(), 4);
          view.ref.buffer_index = sparse_view_buffer_;
          view.ref.offset = static_cast<int32_t>(o);
        }
      }
      std::memcpy(out_->values.data() + static_cast<size_t>(at) * 16, &view, 16);
      break;
    }
    default:
      return make_error(ErrorCode::kCorrupt, where + ": a dictionary-encoded page in a column without dictionaries");
  }
  ++pos_;
  return Status::Ok();
}

Result<ColumnArray> ChunkReader::dictionary_array() {
  if (!dict_.present) return make_error(ErrorCode::kInvalidArgument, where_ + ": the chunk has no dictionary page");
  auto a = std::make_unique<ColumnArray::Impl>();
  a->layout = layout_;
  a->format = out_->format;
  a->width = out_->width;
  a->length = static_cast<int64_t>(dict_.size);
  const size_t n = dict_.size;
  // The reader ends here: the dictionary's buffers move into the array.
  if (family_ == Family::kFixed) {
    a->values = std::move(dict_.fixed);
  } else if (family_ == Family::kBinary && d_.physical_type == PhysicalType::kByteArray) {
    const int64_t* o = dict_.offsets.as<int64_t>();
    if (layout_ == ArrowLayout::kBinary) {
      if (o[n] > 0x7fffffff) return make_error(ErrorCode::kLimitExceeded, where_ + ": dictionary passes 2 GiB");
      a->values.resize((n + 1) * 4);
      auto* o32 = a->values.as<int32_t>();
      for (size_t i = 0; i <= n; ++i) o32[i] = static_cast<int32_t>(o[i]);
    } else {
      a->values = std::move(dict_.offsets);
    }
    a->data = std::move(dict_.bytes);
  } else {
    return make_error(ErrorCode::kUnsupported, where_ + ": dictionary values in layout " + arrow_layout_name(layout_));
  }
  return ColumnArray(std::move(a));
}

Status ChunkReader::dictionary_page(const PageHeader& h, const uint8_t* body, const std::string& where) {
  if (opts_.dictionary_values) {
    if (h.dictionary_page.num_values != static_cast<int32_t>(dict_.size)) {
      return make_error(ErrorCode::kCorrupt, where + ": the dictionary page holds " +
                                                 std::to_string(h.dictionary_page.num_values) + " values, " +
                                                 std::to_string(dict_.size) + " were evaluated");
    }
    return Status::Ok();  // replaced: not decoded
  }
  if (family_ == Family::kNull) return Status::Ok();  // every value is null: the dictionary is never used
  if (dict_.present || lazy_.present) {
    return make_error(ErrorCode::kCorrupt, where + ": a second dictionary page in the column chunk");
  }
  if (sparse_) {
    if (saw_data_) return make_error(ErrorCode::kCorrupt, where + ": dictionary page after data pages");
    const int32_t enc = h.dictionary_page.encoding;
    if (enc != kPlain && enc != kPlainDictionary) {
      return make_error(ErrorCode::kUnsupported, where + ": dictionary page encoded as " + enc_name(enc));
    }
    if (family_ == Family::kBool) return make_error(ErrorCode::kCorrupt, where + ": a BOOLEAN column with a dictionary page");
    lazy_.present = true;
    lazy_.body = body;
    lazy_.csize = static_cast<size_t>(h.compressed_page_size);
    lazy_.usize = static_cast<size_t>(h.uncompressed_page_size);
    lazy_.size = static_cast<size_t>(h.dictionary_page.num_values);
    const size_t len = codec_ == 0 ? lazy_.csize : lazy_.usize;
    PQFAST_RETURN_IF_ERROR(check_inflated_size(lazy_.usize, lazy_.size, where + " (dictionary)"));
    if (codec_ != 0) PQFAST_RETURN_IF_ERROR(check_codec_inflation(lazy_.csize, lazy_.usize, where));
    const size_t need = d_.physical_type == PhysicalType::kByteArray ? 4 : static_cast<size_t>(phys_width_);
    if (lazy_.size > len / need) {
      return make_error(ErrorCode::kTruncated, where + " (dictionary): " + std::to_string(lazy_.size) +
                                                   " values cannot fit " + std::to_string(len) + " bytes");
    }
    return Status::Ok();
  }
  if (saw_data_) return make_error(ErrorCode::kCorrupt, where + ": dictionary page after data pages");
  const int32_t enc = h.dictionary_page.encoding;
  if (enc != kPlain && enc != kPlainDictionary) {
    return make_error(ErrorCode::kUnsupported, where + ": dictionary page encoded as " + enc_name(enc));
  }
  if (family_ == Family::kBool) return make_error(ErrorCode::kCorrupt, where + ": a BOOLEAN column with a dictionary page");
  const size_t csize = static_cast<size_t>(h.compressed_page_size);
  const size_t usize = static_cast<size_t>(h.uncompressed_page_size);
  const size_t n = static_cast<size_t>(h.dictionary_page.num_values);
  PQFAST_RETURN_IF_ERROR(check_inflated_size(usize, n, where + " (dictionary)"));
  if (codec_ != 0 && family_ == Family::kFixed && d_.physical_type != PhysicalType::kByteArray &&
      is_identity(layout_, d_.physical_type, d_.type_length)) {
    // Fixed-width values kept as stored: the page inflates straight into
    // the dictionary, not into the page buffer and then a copy (an 800 KB
    // dictionary per row group a lookup checks).
    const size_t pw = static_cast<size_t>(phys_width_);
    if (n > usize / pw) {
      return make_error(ErrorCode::kTruncated, where + " (dictionary): " + std::to_string(n) + " values of " +
                                                   std::to_string(pw) + " bytes cannot fit " + std::to_string(usize) +
                                                   " bytes");
    }
    PQFAST_RETURN_IF_ERROR(check_codec_inflation(csize, usize, where));
    dict_.fixed.resize(usize);
    PQFAST_RETURN_IF_ERROR(decompress(codec_, body, csize, dict_.fixed.data(), usize, where));
    dict_.fixed.resize(n * pw);
    dict_.size = n;
    dict_.present = true;
    return Status::Ok();
  }
  PQFAST_ASSIGN_OR_RETURN(const uint8_t* p, decompressed(body, csize, usize, where));
  const size_t len = codec_ == 0 ? csize : usize;
  const std::string w = where + " (dictionary)";
  if (family_ == Family::kView && d_.physical_type == PhysicalType::kByteArray) {
    // Views of the entries straight from the page (the decompressed page
    // becomes a view buffer, as a PLAIN data page's does): no copy of the
    // entries into the dictionary's bytes and a second into a view buffer.
    if (n > len / 4) {
      return make_error(ErrorCode::kTruncated, w + ": " + std::to_string(n) + " values cannot fit " +
                                                   std::to_string(len) + " bytes");
    }
    const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
    const bool own_page = codec_ != 0 && p == page_.data();
    dict_.views.resize(n * 16);
    bool refers = false;
    PQFAST_RETURN_IF_ERROR(plain_binary_views(p, len, n, dict_.views.as<BinaryViewElem>(), index, 0, &refers, w));
    if (refers && own_page) {
      page_.resize(len);  // (within its capacity: the bytes stay where they are)
      out_->view_buffers.push_back(std::move(page_));
    } else if (refers) {
      ReadBuffer copy;
      copy.resize(len);
      if (len) std::memcpy(copy.data(), p, len);
      out_->view_buffers.push_back(std::move(copy));
    }
    dict_.size = n;
    dict_.present = true;
    return Status::Ok();
  }
  if (d_.physical_type == PhysicalType::kByteArray) {
    if (n > len / 4) {
      return make_error(ErrorCode::kTruncated, w + ": " + std::to_string(n) + " values cannot fit " +
                                                   std::to_string(len) + " bytes");
    }
    dict_.offsets.resize_zeroed((n + 1) * 8);
    PQFAST_RETURN_IF_ERROR(plain_binary<int64_t>(p, len, n, dict_.offsets.as<int64_t>(), dict_.bytes, nullptr, w));
    {
      // The longest entry bounds what a batch of indices gathers (dictionary.cc).
      const int64_t* o = dict_.offsets.as<int64_t>();
      int64_t m = 0, least = INT64_MAX;
      for (size_t i = 0; i < n; ++i) {
        m = std::max(m, o[i + 1] - o[i]);
        least = std::min(least, o[i + 1] - o[i]);
      }
      dict_.max_len = static_cast<size_t>(m);
      dict_.same_len = n > 0 && least == m && (m == 1 || m == 2 || m == 4 || m == 8) ? static_cast<size_t>(m) : 0;
    }
    if (family_ == Family::kBinary && !keep_ && !indices_) reserve_gathered_bytes(n);
    if (family_ == Family::kFixed) {  // decimals
      dict_.fixed.resize(n * static_cast<size_t>(out_->width));
      PQFAST_RETURN_IF_ERROR(convert_binary_to_decimal(layout_, dict_.offsets.as<int64_t>(), dict_.bytes.data(), n,
                                                       dict_.fixed.data(), w));
    } else if (family_ == Family::kView) {
      const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
      ReadBuffer copy;
      copy.resize(dict_.bytes.size());
      if (dict_.bytes.size()) std::memcpy(copy.data(), dict_.bytes.data(), dict_.bytes.size());
      out_->view_buffers.push_back(std::move(copy));
      dict_.views.resize(n * 16);
      auto* views = dict_.views.as<BinaryViewElem>();
      const int64_t* o = dict_.offsets.as<int64_t>();
      const uint8_t* bytes = dict_.bytes.data();
      for (size_t i = 0; i < n; ++i) {
        views[i] = make_view_exact(bytes + o[i], static_cast<size_t>(o[i + 1] - o[i]), index, static_cast<int32_t>(o[i]));
      }
    }
  } else {
    const size_t pw = static_cast<size_t>(phys_width_);
    if (n > len / pw) {
      return make_error(ErrorCode::kTruncated, w + ": " + std::to_string(n) + " values of " + std::to_string(pw) +
                                                   " bytes cannot fit " + std::to_string(len) + " bytes");
    }
    dict_.fixed.resize(n * static_cast<size_t>(out_->width));
    PQFAST_RETURN_IF_ERROR(convert_fixed(d_, layout_, p, n, dict_.fixed.data(), w));
  }
  dict_.size = n;
  dict_.present = true;
  return Status::Ok();
}

// Room for the bytes a chunk's dictionary-encoded strings gather into:
// the rows left times the dictionary's mean entry (and a sixteenth more).
// begin() reserved three times the chunk's compressed bytes, which a
// dictionary of short strings outgrows many times over (TPC-H's
// l_shipinstruct: 31 KB of indices gather 1.6 MB), each growth a copy of
// everything gathered so far. Only a hint, and at most 64 times the
// chunk's bytes: a hostile row count or entry length reserves nothing big
// (long runs of one index can make more; the gathers grow the buffer as
// before when it runs out).
void ChunkReader::reserve_gathered_bytes(size_t n) {
  if (n == 0 || num_rows_ <= row_) return;
  const double mean = static_cast<double>(dict_.bytes.size()) / static_cast<double>(n);
  const double want = static_cast<double>(num_rows_ - row_) * mean * (17.0 / 16.0);
  const double cap = static_cast<double>(chunk_len_) * 64.0 + 65536.0;
  const double bytes = std::min({want, cap, static_cast<double>(layout_ == ArrowLayout::kBinary ? 0x7fffffff : 1ll << 40)});
  out_->data.reserve(out_->data.size() + static_cast<size_t>(bytes));
}

Status ChunkReader::data_page(const PageHeader& h, const uint8_t* body, const std::string& where) {
  if (levels_mode_) return nested_data_page(h, body, where);
  const bool v2 = h.type == PageType::kDataPageV2;
  const int64_t count64 = v2 ? h.data_page_v2.num_values : h.data_page.num_values;
  const int32_t enc = v2 ? h.data_page_v2.encoding : h.data_page.encoding;
  if (count64 > opts_.max_page_values) {
    return make_error(ErrorCode::kLimitExceeded, where + ": page of " + std::to_string(count64) +
                                                     " values exceeds the limit of " + std::to_string(opts_.max_page_values));
  }
  // A page announcing more values than the row group has left: its first
  // ones are read and the chunk ends there, as pyarrow reads num_rows records
  // and stops (BYTE_STREAM_SPLIT streams depend on the whole count: refused).
  if (count64 > num_rows_ - row_ && (enc == kByteStreamSplit || num_rows_ - row_ <= 0)) {
    return make_error(ErrorCode::kCorrupt, where + ": page of " + std::to_string(count64) + " values runs past the row group's " +
                                               std::to_string(num_rows_) + " rows (" + std::to_string(row_) + " read before it)");
  }
  const size_t count = static_cast<size_t>(std::min(count64, num_rows_ - row_));
  const size_t csize = static_cast<size_t>(h.compressed_page_size);
  const size_t usize = static_cast<size_t>(h.uncompressed_page_size);
  PQFAST_RETURN_IF_ERROR(check_inflated_size(usize, static_cast<size_t>(count64), where));
  const uint8_t* levels = nullptr;
  size_t levels_len = 0;
  bool levels_bit_packed = false;
  const uint8_t* vals = nullptr;
  size_t vals_len = 0;
  if (!v2 && plain_into_place(enc, count64, count, csize, usize)) {
    // A required fixed-width PLAIN page (v1: no levels, the page is its
    // values) inflates straight into its place in the output: no scratch
    // page, no copy of it.
    PQFAST_RETURN_IF_ERROR(check_codec_inflation(csize, usize, where));
    const size_t e = static_cast<size_t>(out_->width);
    out_->values.resize((static_cast<size_t>(pos_) + count) * e);
    PQFAST_RETURN_IF_ERROR(decompress(codec_, body, csize, out_->values.data() + static_cast<size_t>(pos_) * e, usize, where));
    last_page_sparse_ = false;
    pos_ += static_cast<int64_t>(count);
    row_ += static_cast<int64_t>(count);
    return Status::Ok();
  }
  if (!v2) {
    PQFAST_ASSIGN_OR_RETURN(const uint8_t* p, decompressed(body, csize, usize, where));
    const size_t len = codec_ == 0 ? csize : usize;
    size_t at = 0;
    if (nullable_) {
      const int32_t le = h.data_page.definition_level_encoding;
      if (le == kRle) {
        if (len < 4) return make_error(ErrorCode::kTruncated, where + ": page lacks its definition levels' length");
        uint32_t l;
        std::memcpy(&l, p, 4);
        if (l > len - 4) {
          return make_error(ErrorCode::kTruncated, where + ": definition levels of " + std::to_string(l) +
                                                       " bytes run past the " + std::to_string(len) + "-byte page");
        }
        levels = p + 4;
        levels_len = l;
        at = 4 + l;
      } else if (le == kBitPacked) {
        const size_t l = (count + 7) / 8;
        if (l > len) return make_error(ErrorCode::kTruncated, where + ": BIT_PACKED definition levels run past the page");
        levels = p;
        levels_len = l;
        levels_bit_packed = true;
        at = l;
      } else {
        return make_error(ErrorCode::kUnsupported, where + ": definition levels encoded as " + enc_name(le));
      }
    }
    vals = p + at;
    vals_len = len - at;
  } else {
    const auto& v = h.data_page_v2;
    // parse_page_header checked the level lengths against the page.
    levels = body + v.repetition_levels_byte_length;
    levels_len = static_cast<size_t>(v.definition_levels_byte_length);
    PQFAST_RETURN_IF_ERROR(v2_values(h, body, &vals, &vals_len, where));
  }
  if (count > static_cast<size_t>(INT64_MAX - pos_)) return make_error(ErrorCode::kCorrupt, where + ": value count overflows");
  last_page_sparse_ = false;
  if (lazy_.present && (enc == kPlainDictionary || enc == kRleDictionary)) {
    last_page_sparse_ = true;
    return sparse_dictionary_page(levels, levels_len, levels_bit_packed, vals, vals_len, count, where);
  }
  size_t nonnull = count;
  if (nullable_) {
    out_->validity.resize_zeroed(static_cast<size_t>((pos_ + static_cast<int64_t>(count) + 7) / 8));
    if (levels_bit_packed) {  // (LSB first, as Arrow reads BIT_PACKED: level_decode.h)
      nonnull = static_cast<size_t>(copy_bits(levels, count, out_->validity.data(), pos_));
    } else {
      PQFAST_ASSIGN_OR_RETURN(int64_t set, decode_hybrid_bits(levels, levels_len, count, out_->validity.data(), pos_,
                                                               where + ", definition levels"));
      nonnull = static_cast<size_t>(set);
    }
  }
  PQFAST_RETURN_IF_ERROR(values(enc, vals, vals_len, count, nonnull, where));
  pos_ += static_cast<int64_t>(count);
  row_ += static_cast<int64_t>(count);
  out_->null_count += static_cast<int64_t>(count - nonnull);
  return Status::Ok();
}

bool ChunkReader::plain_into_place(int32_t enc, int64_t count64, size_t count, size_t csize, size_t usize) const {
  // Under dictionary_indices a plain page's values are hashed into the
  // dictionary (index_values): never written as values into the output.
  if (enc != kPlain || codec_ == 0 || nullable_ || family_ != Family::kFixed || opts_.dictionary_values ||
      opts_.dictionary_indices)
    return false;
  if (d_.physical_type == PhysicalType::kByteArray || d_.physical_type == PhysicalType::kBoolean) return false;
  if (!is_identity(layout_, d_.physical_type, d_.type_length) || phys_width_ != out_->width) return false;
  // Exactly the page's values, none past the row group's end (a clamped
  // page decodes its first values only) and no empty frame.
  if (csize == 0 || usize == 0 || count != static_cast<size_t>(count64)) return false;
  return usize / static_cast<size_t>(out_->width) == count && usize % static_cast<size_t>(out_->width) == 0 &&
         count <= static_cast<size_t>(INT64_MAX - pos_);
}

Status ChunkReader::v2_values(const PageHeader& h, const uint8_t* body, const uint8_t** vals, size_t* vals_len,
                              const std::string& where) {
  const auto& v = h.data_page_v2;
  const size_t csize = static_cast<size_t>(h.compressed_page_size);
  const size_t usize = static_cast<size_t>(h.uncompressed_page_size);
  const size_t levels = static_cast<size_t>(v.repetition_levels_byte_length) +
                        static_cast<size_t>(v.definition_levels_byte_length);
  if ((v.is_compressed || opts_.v2_always_compressed) && codec_ != 0) {
    if (usize < levels) {
      return make_error(ErrorCode::kCorrupt, where + ": uncompressed page size " + std::to_string(usize) +
                                                 " is smaller than its levels");
    }
    PQFAST_ASSIGN_OR_RETURN(*vals, decompressed(body + levels, csize - levels, usize - levels, where));
    *vals_len = usize - levels;
  } else {
    *vals = body + levels;
    *vals_len = csize - levels;
  }
  return Status::Ok();
}

// A data page of a nested leaf: its levels are kept (nested_page.h), its
// values fill the leaf's slots, and rows are counted as records begun.
Status ChunkReader::nested_data_page(const PageHeader& h, const uint8_t* body, const std::string& where) {
  const bool v2 = h.type == PageType::kDataPageV2;
  const int64_t count64 = v2 ? h.data_page_v2.num_values : h.data_page.num_values;
  const int32_t enc = v2 ? h.data_page_v2.encoding : h.data_page.encoding;
  if (count64 < 0 || count64 > opts_.max_page_values) {
    return make_error(ErrorCode::kLimitExceeded, where + ": page of " + std::to_string(count64) +
                                                     " values exceeds the limit of " + std::to_string(opts_.max_page_values));
  }
  const size_t n = static_cast<size_t>(count64);
  const size_t csize = static_cast<size_t>(h.compressed_page_size);
  const size_t usize = static_cast<size_t>(h.uncompressed_page_size);
  PQFAST_RETURN_IF_ERROR(check_inflated_size(usize, n, where));
  PageLevels pl;
  const uint8_t* vals = nullptr;
  size_t vals_len = 0;
  if (!v2) {
    PQFAST_ASSIGN_OR_RETURN(const uint8_t* p, decompressed(body, csize, usize, where));
    const size_t len = codec_ == 0 ? csize : usize;
    PQFAST_RETURN_IF_ERROR(page_levels_v1(h, d_, p, len, n, *levels_, nlevels_, &pl, where));
    vals = p + pl.values_at;
    vals_len = len - pl.values_at;
  } else {
    const auto& v = h.data_page_v2;
    const size_t rl = static_cast<size_t>(v.repetition_levels_byte_length);
    const size_t dl = static_cast<size_t>(v.definition_levels_byte_length);
    // parse_page_header checked rl + dl <= compressed size.
    PQFAST_RETURN_IF_ERROR(page_levels_v2(d_, body, rl, body + rl, dl, n, *levels_, nlevels_, &pl, where));
    PQFAST_RETURN_IF_ERROR(v2_values(h, body, &vals, &vals_len, where));
  }
  if (pl.records > num_rows_ - row_) {
    return make_error(ErrorCode::kCorrupt, where + ": page begins " + std::to_string(pl.records) +
                                               " records, past the row group's " + std::to_string(num_rows_) + " rows (" +
                                               std::to_string(row_) + " begun before it)");
  }
  const uint8_t* def = d_.max_definition_level > 0 ? levels_->def.data() + nlevels_ : nullptr;
  detail::leaf_slots(def, n, slot_def_, d_.max_definition_level, nullable_ ? &out_->validity : nullptr, pos_, &pl, mask_a_);
  if (pl.slots > static_cast<size_t>(INT64_MAX - pos_)) return make_error(ErrorCode::kCorrupt, where + ": value count overflows");
  PQFAST_RETURN_IF_ERROR(values(enc, vals, vals_len, pl.slots, pl.nonnull, where));
  pos_ += static_cast<int64_t>(pl.slots);
  row_ += pl.records;
  nlevels_ += static_cast<int64_t>(n);
  out_->null_count += static_cast<int64_t>(family_ == Family::kNull ? pl.slots : pl.slots - pl.nonnull);
  return Status::Ok();
}

Status ChunkReader::values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                           const std::string& where) {
  if (indices_ && !side_) return index_values(enc, p, len, count, nonnull, where);
  switch (family_) {
    case Family::kFixed: return fixed_values(enc, p, len, count, nonnull, where);
    case Family::kBinary:
      return layout_ == ArrowLayout::kBinary ? binary_values<int32_t>(enc, p, len, count, nonnull, where)
                                             : binary_values<int64_t>(enc, p, len, count, nonnull, where);
    case Family::kView: return view_values(enc, p, len, count, nonnull, where);
    case Family::kBool: return bool_values(enc, p, len, count, nonnull, where);
    case Family::kNull: return Status::Ok();
  }
  return Status::Ok();
}

Status ChunkReader::physical_values(int32_t enc, const uint8_t* p, size_t len, size_t n, uint8_t* out,
                                    const std::string& where) {
  const PhysicalType t = d_.physical_type;
  switch (enc) {
    case kPlain: return plain_fixed(p, len, n, phys_width_, out, where);
    case kByteStreamSplit:
      if (t == PhysicalType::kInt96) break;
      return byte_stream_split(p, len, n, phys_width_, out, where);
    case kDeltaBinaryPacked: {
      if (t != PhysicalType::kInt32 && t != PhysicalType::kInt64) break;
      auto decode = [&](auto* typed) -> Status {
        using T = std::remove_pointer_t<decltype(typed)>;
        auto dec = DeltaBinaryPackedDecoder<T>::make(p, len);
        if (!dec.ok()) return make_error(dec.error().code, where + ": " + dec.error().message);
        if (dec->total_values() < n) {
          return make_error(ErrorCode::kCorrupt, where + ": DELTA_BINARY_PACKED stream holds " +
                                                     std::to_string(dec->total_values()) + " values, the page " +
                                                     std::to_string(n));
        }
        auto got = dec->decode(typed, n);
        if (!got.ok()) return make_error(got.error().code, where + ": " + got.error().message);
        if (*got != n) return make_error(ErrorCode::kTruncated, where + ": DELTA_BINARY_PACKED stream ended early");
        return Status::Ok();
      };
      if (t == PhysicalType::kInt32) return decode(reinterpret_cast<int32_t*>(out));
      return decode(reinterpret_cast<int64_t*>(out));
    }
    case kDeltaByteArray:
    {
      if (t != PhysicalType::kFixedLenByteArray) break;
      auto dec = DeltaByteArrayDecoder::make(p, len, d_.type_length);
      if (!dec.ok()) return make_error(dec.error().code, where + ": " + dec.error().message);
      if (dec->total_values() < n) {
        return make_error(ErrorCode::kCorrupt, where + ": the DELTA_BYTE_ARRAY stream holds " +
                                                   std::to_string(dec->total_values()) + " values, the page " +
                                                   std::to_string(n));
      }
      auto got = dec->decode_fixed(out, n);
      if (!got.ok()) return make_error(got.error().code, where + ": " + got.error().message);
      if (*got != n) return make_error(ErrorCode::kTruncated, where + ": DELTA_BYTE_ARRAY stream ended early");
      return Status::Ok();
    }
    default: break;
  }
  return make_error(ErrorCode::kUnsupported, where + ": encoding " + enc_name(enc) + " of a " +
                                                 physical_type_name(t) + " column is not supported");
}

template <class Offset>
Status ChunkReader::delta_binary(int32_t enc, const uint8_t* p, size_t len, size_t n, Offset* offsets,
                                 ReadBuffer& data, const std::string& where) {
  if (enc == kDeltaLengthByteArray) {
    auto dec = DeltaLengthByteArrayDecoder::make(p, len);
    if (!dec.ok()) return make_error(dec.error().code, where + ": " + dec.error().message);
    return delta_strings(*dec, p, len, n, offsets, data, dec->data_bytes_remaining(), opts_.max_page_bytes, where);
  }
  auto dec = DeltaByteArrayDecoder::make(p, len);
  if (!dec.ok()) return make_error(dec.error().code, where + ": " + dec.error().message);
  return delta_strings(*dec, p, len, n, offsets, data, len, opts_.max_page_bytes, where);
}

Status ChunkReader::fixed_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                                 const std::string& where) {
  const size_t e = static_cast<size_t>(out_->width);
  out_->values.resize((static_cast<size_t>(pos_) + count) * e);
  uint8_t* dst = out_->values.data() + static_cast<size_t>(pos_) * e;
  if (enc == kPlainDictionary || enc == kRleDictionary) {
    PQFAST_RETURN_IF_ERROR(dict_gather_fixed(dict_, out_->width, p, len, nonnull, dst, where));
  } else if (opts_.dictionary_values) {
    return make_error(ErrorCode::kCorrupt, where + ": a page encoded " + enc_name(enc) +
                                               " in a chunk whose encoding_stats say every page is dictionary-encoded");
  } else if (d_.physical_type == PhysicalType::kByteArray) {  // decimals
    PQFAST_RETURN_IF_ERROR(binary_dense(enc, p, len, nonnull, scratch_, scratch2_, where));
    PQFAST_RETURN_IF_ERROR(convert_binary_to_decimal(layout_, scratch_.as<int64_t>(), scratch2_.data(), nonnull, dst, where));
  } else if (is_identity(layout_, d_.physical_type, d_.type_length)) {
    PQFAST_RETURN_IF_ERROR(physical_values(enc, p, len, nonnull, dst, where));
  } else if (enc == kPlain) {
    // Converted straight from the page (decimals widened, INT96 timestamps,
    // narrowed integers): no copy of the page's values into scratch first.
    const size_t pw = static_cast<size_t>(phys_width_);
    if (nonnull > len / pw) return plain_fixed(p, len, nonnull, phys_width_, dst, where);
    PQFAST_RETURN_IF_ERROR(convert_fixed(d_, layout_, p, nonnull, dst, where));
  } else {
    const size_t pw = static_cast<size_t>(phys_width_);
    scratch_.reserve_exact(nonnull * pw);
    PQFAST_RETURN_IF_ERROR(physical_values(enc, p, len, nonnull, scratch_.data(), where));
    PQFAST_RETURN_IF_ERROR(convert_fixed(d_, layout_, scratch_.data(), nonnull, dst, where));
  }
  if (nonnull != count) spread_fixed(dst, e, out_->validity.data(), pos_, count, nonnull);
  return Status::Ok();
}

Status ChunkReader::binary_dense(int32_t enc, const uint8_t* p, size_t len, size_t n, ReadBuffer& offsets,
                                 ReadBuffer& bytes, const std::string& where) {
  if (n > len / 4 + 1 && enc == kPlain) {
    return make_error(ErrorCode::kTruncated, where + ": " + std::to_string(n) + " BYTE_ARRAY values cannot fit " +
                                                 std::to_string(len) + " bytes");
  }
  switch (enc) {
    case kPlain:
      offsets.reserve_exact((n + 1) * 8);
      offsets.as<int64_t>()[0] = 0;
      bytes.resize(0);
      return plain_binary<int64_t>(p, len, n, offsets.as<int64_t>(), bytes, nullptr, where);
    case kDeltaLengthByteArray:
    case kDeltaByteArray:
      offsets.reserve_exact((n + 1) * 8);
      offsets.as<int64_t>()[0] = 0;
      bytes.resize(0);
      return delta_binary(enc, p, len, n, offsets.as<int64_t>(), bytes, where);
    default:
      return make_error(ErrorCode::kUnsupported, where + ": encoding " + enc_name(enc) +
                                                     " of a BYTE_ARRAY column is not supported");
  }
}

template <class Offset>
Status ChunkReader::binary_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                                  const std::string& where) {
  out_->values.resize((static_cast<size_t>(pos_) + count + 1) * sizeof(Offset));
  Offset* offsets = out_->values.as<Offset>() + pos_;
  switch (enc) {
    case kPlain:
      if (nonnull > len / 4) {
        return make_error(ErrorCode::kTruncated, where + ": " + std::to_string(nonnull) +
                                                     " BYTE_ARRAY values cannot fit " + std::to_string(len) + " bytes");
      }
      PQFAST_RETURN_IF_ERROR(plain_binary<Offset>(p, len, nonnull, offsets, out_->data, nullptr, where));
      break;
    case kPlainDictionary:
    case kRleDictionary:
      PQFAST_RETURN_IF_ERROR(dict_gather_binary<Offset>(dict_, p, len, nonnull, offsets, out_->data, where));
      break;
    case kDeltaLengthByteArray:
    case kDeltaByteArray:
      PQFAST_RETURN_IF_ERROR(delta_binary<Offset>(enc, p, len, nonnull, offsets, out_->data, where));
      break;
    default: {
      PQFAST_RETURN_IF_ERROR(binary_dense(enc, p, len, nonnull, scratch_, scratch2_, where));
      const int64_t* o = scratch_.as<int64_t>();
      const uint64_t start = static_cast<uint64_t>(offsets[0]);
      const uint64_t total = static_cast<uint64_t>(o[nonnull]);
      if (sizeof(Offset) == 4 && start + total > 0x7fffffffu) {
        return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB");
      }
      out_->data.resize(start + total);
      if (total) std::memcpy(out_->data.data() + start, scratch2_.data(), total);
      for (size_t i = 1; i <= nonnull; ++i) offsets[i] = static_cast<Offset>(start + static_cast<uint64_t>(o[i]));
    }
  }
  if (nonnull != count) spread_offsets<Offset>(offsets, out_->validity.data(), pos_, count, nonnull);
  return Status::Ok();
}

Status ChunkReader::view_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                                const std::string& where) {
  out_->values.resize((static_cast<size_t>(pos_) + count) * 16);
  auto* views = out_->values.as<BinaryViewElem>() + pos_;
  switch (enc) {
    case kPlain: {
      if (nonnull > len / 4) {
        return make_error(ErrorCode::kTruncated, where + ": " + std::to_string(nonnull) +
                                                     " BYTE_ARRAY values cannot fit " + std::to_string(len) + " bytes");
      }
      const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
      // A page decompressed into page_ gives that buffer itself to the views
      // (page_ starts afresh for the next page): no copy of its bytes. TPC-H
      // l_comment (half of lineitem's bytes, PLAIN, SNAPPY) was copied so.
      const uint8_t* page = page_.data();
      const bool own_page = codec_ != 0 && page != nullptr && p >= page && len <= page_.capacity() &&
                            static_cast<size_t>(p - page) <= page_.capacity() - len &&
                            static_cast<size_t>(p - page) + len <= 0x7fffffff;
      const size_t base = own_page ? static_cast<size_t>(p - page) : 0;
      bool refers = false;
      PQFAST_RETURN_IF_ERROR(plain_binary_views(p, len, nonnull, views, index, base, &refers, where));
      if (refers && own_page) {
        page_.resize(base + len);  // (within its capacity: the bytes stay where they are)
        out_->view_buffers.push_back(std::move(page_));
      } else if (refers) {  // values over 12 bytes point into a copy of the page's bytes
        ReadBuffer copy;
        copy.resize(len);
        if (len) std::memcpy(copy.data(), p, len);
        out_->view_buffers.push_back(std::move(copy));
      }
      break;
    }
    case kPlainDictionary:
    case kRleDictionary:
      PQFAST_RETURN_IF_ERROR(dict_gather_views(dict_, p, len, nonnull, views, where));
      break;
    case kDeltaLengthByteArray: {
      // Views into a copy of the page's bytes: the lengths are decoded, the
      // values never copied again.
      const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
      ReadBuffer copy;
      copy.resize(len);
      if (len) std::memcpy(copy.data(), p, len);
      auto dec = DeltaLengthByteArrayDecoder::make(copy.data(), len);
      if (!dec.ok()) return make_error(dec.error().code, where + ": " + dec.error().message);
      if (dec->total_values() < nonnull) {
        return make_error(ErrorCode::kCorrupt, where + ": the DELTA_LENGTH_BYTE_ARRAY stream holds " +
                                                   std::to_string(dec->total_values()) + " values, the page " +
                                                   std::to_string(nonnull));
      }
      auto got = dec->decode_views(views, index, nonnull);
      if (!got.ok()) return make_error(got.error().code, where + ": " + got.error().message);
      if (*got != nonnull) return make_error(ErrorCode::kTruncated, where + ": DELTA_LENGTH_BYTE_ARRAY stream ended early");
      out_->view_buffers.push_back(std::move(copy));
      break;
    }
    case kDeltaByteArray: {
      // Decoded into offsets + bytes (the decoder's wide-copy path), then
      // views built from them; the bytes become a view buffer only when some
      // value is longer than 12 bytes.
      scratch_.reserve_exact((nonnull + 1) * 4);
      scratch_.as<int32_t>()[0] = 0;
      ReadBuffer& bytes = scratch2_;
      bytes.resize(0);
      PQFAST_RETURN_IF_ERROR(delta_binary<int32_t>(enc, p, len, nonnull, scratch_.as<int32_t>(), bytes, where));
      const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
      const int32_t* o = scratch_.as<int32_t>();
      const uint8_t* b = bytes.data();
      bool any = false;
      for (size_t i = 0; i < nonnull; ++i) {  // ReadBuffer's slack covers the 16-byte loads
        const uint32_t l = static_cast<uint32_t>(o[i + 1] - o[i]);
        views[i] = make_view(b + o[i], l, index, o[i]);
        any |= l > 12;
      }
      if (any) out_->view_buffers.push_back(std::move(bytes));  // scratch2_ starts afresh
      break;
    }
    default: {
      ReadBuffer offsets, bytes;
      PQFAST_RETURN_IF_ERROR(binary_dense(enc, p, len, nonnull, offsets, bytes, where));
      const int32_t index = static_cast<int32_t>(out_->view_buffers.size());
      const int64_t* o = offsets.as<int64_t>();
      for (size_t i = 0; i < nonnull; ++i) {
        BinaryViewElem v;
        std::memset(&v, 0, sizeof v);
        const size_t l = static_cast<size_t>(o[i + 1] - o[i]);
        v.inlined.size = static_cast<int32_t>(l);
        if (l <= 12) {
          std::memcpy(v.inlined.data, bytes.data() + o[i], l);
        } else {
          std::memcpy(v.ref.prefix, bytes.data() + o[i], 4);
          v.ref.buffer_index = index;
          v.ref.offset = static_cast<int32_t>(o[i]);
        }
        views[i] = v;
      }
      out_->view_buffers.push_back(std::move(bytes));
    }
  }
  if (nonnull != count) spread_fixed(reinterpret_cast<uint8_t*>(views), 16, out_->validity.data(), pos_, count, nonnull);
  return Status::Ok();
}

Status ChunkReader::bool_values(int32_t enc, const uint8_t* p, size_t len, size_t count, size_t nonnull,
                                const std::string& where) {
  out_->values.resize_zeroed(static_cast<size_t>((pos_ + static_cast<int64_t>(count) + 7) / 8));
  const bool dense = nonnull == count;
  uint8_t* dst = out_->values.data();
  int64_t bit0 = pos_;
  if (!dense) {
    scratch_.reserve_exact((nonnull + 7) / 8 + 8);
    std::memset(scratch_.data(), 0, (nonnull + 7) / 8 + 8);
    dst = scratch_.data();
    bit0 = 0;
  }
  switch (enc) {
    case kPlain: PQFAST_RETURN_IF_ERROR(plain_bools(p, len, nonnull, dst, bit0, where)); break;
    case kRle: {
      if (len < 4) return make_error(ErrorCode::kTruncated, where + ": RLE booleans lack their length");
      uint32_t l;
      std::memcpy(&l, p, 4);
      if (l > len - 4) return make_error(ErrorCode::kTruncated, where + ": RLE booleans run past the page");
      auto r = decode_hybrid_bits(p + 4, l, nonnull, dst, bit0, where + ", RLE booleans");
      if (!r.ok()) return r.error();
      break;
    }
    default:
      return make_error(ErrorCode::kUnsupported, where + ": encoding " + enc_name(enc) + " of a BOOLEAN column is not supported");
  }
  if (!dense) spread_bits(scratch_.data(), out_->values.data(), out_->validity.data(), pos_, count);
  return Status::Ok();
}

}  // namespace

bool v2_pages_always_compressed(const std::string& created_by) {
  return parse_created_by(created_by).v2_always_compressed;
}

bool parquet_mr_before_1_2_9(const std::string& created_by) {
  const std::string app = "parquet-mr";
  if (created_by.compare(0, app.size(), app) != 0) return false;
  const size_t v = created_by.find("version ");
  if (v == std::string::npos) return true;  // no version: 0.0.0
  int part[3] = {0, 0, 0};
  size_t i = v + 8;
  for (int k = 0; k < 3 && i < created_by.size(); ++k) {
    while (i < created_by.size() && created_by[i] >= '0' && created_by[i] <= '9') {
      part[k] = std::min(part[k] * 10 + (created_by[i] - '0'), 1000000);
      ++i;
    }
    if (i < created_by.size() && created_by[i] == '.') ++i; else break;
  }
  if (part[0] != 1) return part[0] < 1;
  if (part[1] != 2) return part[1] < 2;
  return part[2] < 9;
}

std::string flat_column_problem(const FileMetaData& meta, int leaf) {
  if (leaf < 0 || static_cast<size_t>(leaf) >= meta.columns.size()) return "no leaf column " + std::to_string(leaf);
  const auto& c = meta.columns[leaf];
  if (c.max_repetition_level > 0 || c.path.size() != 1) {
    return "column '" + c.dotted_path + "': nested columns are not read yet";
  }
  return "";
}

Result<ColumnArray> decode_column_chunk(const uint8_t* chunk_bytes, size_t len, uint64_t file_offset,
                                        const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                        const ColumnReadOptions& options, const std::string& where) {
  const std::string at = where.empty() ? "column '" + column.dotted_path + "'" : where;
  return guard_memory(options.budget, at, [&]() -> Result<ColumnArray> {
    ChunkReader r(column, codec, options, at);
    return r.run(chunk_bytes, len, file_offset, num_rows);
  });
}

Result<ColumnArray> decode_column_pages(const std::vector<PageRun>& runs, bool whole_chunk,
                                        const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                        const std::vector<RowRange>& keep, PagesDecoded* decoded,
                                        const ColumnReadOptions& options, const std::string& where) {
  const std::string at = where.empty() ? "column '" + column.dotted_path + "'" : where;
  return guard_memory(options.budget, at, [&]() -> Result<ColumnArray> {
    ChunkReader r(column, codec, options, at);
    size_t len = 0;
    for (const auto& run : runs) len += run.len;
    PQFAST_RETURN_IF_ERROR(r.begin(len, num_rows, &keep));
    for (const auto& run : runs) {
      PQFAST_RETURN_IF_ERROR(r.feed(run.bytes, run.len, run.file_offset, run.first_row, whole_chunk));
    }
    if (decoded) r.add_counts(&decoded->pages_decoded, &decoded->pages_skipped);
    return r.result(decoded ? &decoded->rows : nullptr);
  });
}

Result<ColumnArray> decode_dictionary_page(const uint8_t* bytes, size_t len, uint64_t file_offset,
                                           const ColumnDescriptor& column, int32_t codec,
                                           const ColumnReadOptions& options, const std::string& where) {
  const std::string at = where.empty() ? "column '" + column.dotted_path + "'" : where;
  return guard_memory(options.budget, at, [&]() -> Result<ColumnArray> {
    ChunkReader r(column, codec, options, at);
    PQFAST_RETURN_IF_ERROR(r.begin(len, 0, nullptr));
    PQFAST_RETURN_IF_ERROR(r.feed(bytes, len, file_offset, 0, false));
    return r.dictionary_array();
  });
}

namespace {

// Reads the bytes of leaf `leaf`'s chunk in row group `row_group` (checked
// against the file) and runs decode(bytes, len, file_offset, column, codec,
// num_rows, options, where) on them, under the read's memory budget; the
// options are the caller's with the writer's v2 rule of the footer added.
// With `keep`, the bytes are read into it (they outlive the call: SplitChunk).
template <class T, class Decode>
Result<T> with_chunk_bytes(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf,
                           const ColumnReadOptions& options, Decode&& decode, ReadBuffer* keep = nullptr) {
  if (row_group < 0 || static_cast<size_t>(row_group) >= meta.row_groups.size()) {
    return make_error(ErrorCode::kInvalidArgument, file.name() + ": no row group " + std::to_string(row_group));
  }
  if (leaf < 0 || static_cast<size_t>(leaf) >= meta.columns.size()) {
    return make_error(ErrorCode::kInvalidArgument, file.name() + ": no leaf column " + std::to_string(leaf));
  }
  const RowGroup& rg = meta.row_groups[row_group];
  const ColumnDescriptor& d = meta.columns[leaf];
  const std::string where = file.name() + ": row group " + std::to_string(row_group) + ", column '" + d.dotted_path + "'";
  if (static_cast<size_t>(leaf) < rg.columns.size() && rg.columns[leaf].skipped) {
    return make_error(ErrorCode::kInvalidArgument, where + ": column chunk not decoded (projected footer)");
  }
  PQFAST_RETURN_IF_ERROR(check_column_chunk(rg, leaf, d, where));
  const ColumnChunk& c = rg.columns[leaf];
  ColumnReadOptions o = options;
  o.v2_always_compressed = o.v2_always_compressed || v2_pages_always_compressed(meta.created_by);
  if (rg.num_rows == 0) return decode(nullptr, 0, 0, d, c.codec, int64_t{0}, o, where);
  PQFAST_ASSIGN_OR_RETURN(const ChunkExtent extent,
                          chunk_extent(c, file.size(), parquet_mr_before_1_2_9(meta.created_by), where));
  const int64_t start = static_cast<int64_t>(extent.begin);
  const int64_t read_len = static_cast<int64_t>(extent.length);
  return guard_memory(options.budget, where, [&]() -> Result<T> {
    ReadBuffer local;  // (charged to the read's budget like the decoded pages)
    ReadBuffer& buf = keep ? *keep : local;
    buf.resize(static_cast<size_t>(read_len));
    PQFAST_RETURN_IF_ERROR(file.read_at(static_cast<uint64_t>(start), buf.size(), buf.data()));
    return decode(buf.data(), buf.size(), static_cast<uint64_t>(start), d, c.codec, rg.num_rows, o, where);
  });
}

}  // namespace

Result<ColumnArray> read_column_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf,
                                      const ColumnReadOptions& options) {
  const std::string problem = flat_column_problem(meta, leaf);
  if (!problem.empty()) return make_error(ErrorCode::kUnsupported, file.name() + ": " + problem);
  return with_chunk_bytes<ColumnArray>(
      file, meta, row_group, leaf, options,
      [&](const uint8_t* bytes, size_t len, uint64_t off, const ColumnDescriptor& d, int32_t codec, int64_t rows,
          const ColumnReadOptions& o, const std::string& where) {
        return decode_column_chunk(bytes, len, off, d, codec, rows, o, where);
      });
}

Result<LeafChunk> decode_leaf_chunk(const uint8_t* bytes, size_t len, uint64_t file_offset, const ColumnDescriptor& d,
                                    int32_t codec, int64_t num_rows, int16_t slot_def, int64_t levels_hint,
                                    const ColumnReadOptions& options, const std::string& where) {
  const std::string at = where.empty() ? "column '" + d.dotted_path + "'" : where;
  return guard_memory(options.budget, at, [&]() -> Result<LeafChunk> {
    ChunkReader r(d, codec, options, at);
    r.keep_levels(slot_def, levels_hint);
    PQFAST_RETURN_IF_ERROR(r.begin(len, num_rows, nullptr));
    if (num_rows > 0) PQFAST_RETURN_IF_ERROR(r.feed(bytes, len, file_offset, 0, true));
    LeafChunk out;
    PQFAST_ASSIGN_OR_RETURN(out.values, r.result(nullptr));  // (a dictionary array under dictionary_indices)
    std::shared_ptr<LevelBuffers> lv = r.take_levels(&out.levels);
    if (d.max_repetition_level > 0 && out.levels > 0) out.rep = lv->rep.data();
    if (d.max_definition_level > 0 && out.levels > 0) out.def = lv->def.data();
    out.owner = std::move(lv);
    return out;
  });
}

Result<LeafChunk> read_leaf_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group, int leaf,
                                  int16_t slot_def, const ColumnReadOptions& options) {
  return with_chunk_bytes<LeafChunk>(
      file, meta, row_group, leaf, options,
      [&](const uint8_t* bytes, size_t len, uint64_t off, const ColumnDescriptor& d, int32_t codec, int64_t rows,
          const ColumnReadOptions& o, const std::string& where) {
        const ColumnChunk& c = meta.row_groups[static_cast<size_t>(row_group)].columns[static_cast<size_t>(leaf)];
        return decode_leaf_chunk(bytes, len, off, d, codec, rows, slot_def, c.num_values, o, where);
      });
}


// ---- SplitChunk: one chunk's pages over several threads -------------------

struct SplitChunk::Impl {
  ReadBuffer owned;  // the chunk's bytes when open() read them
  const uint8_t* bytes = nullptr;
  size_t len = 0;
  uint64_t file_offset = 0;
  const ColumnDescriptor* column = nullptr;
  int32_t codec = 0;
  int64_t num_rows = 0;
  ColumnReadOptions options;
  std::string where;
  bool whole = true;              // one range: the chunk decoded as decode_column_chunk does
  size_t dict_at = 0, dict_len = 0;  // the dictionary page (dict_len 0: none)
  struct Part {
    size_t at = 0, len = 0;  // data pages, back to back
    int64_t rows = 0;
    int64_t first = 0;       // the range's first row
    std::optional<Result<ColumnArray>> out;
  };
  std::vector<Part> parts;
  // Fixed-width values: each range copies its values into `values` at its
  // rows as soon as it is decoded (on its thread, while they are in cache),
  // and gives its own buffer back to the pool; the join then only appends
  // validity bits. Sized once by the first range to end: the pages'
  // counts, each checked against the page value limit, under the budget.
  bool direct = false;
  int32_t width = 0;
  std::once_flag values_made;
  ReadBuffer values;

  void cut(int want);
  Result<ColumnArray> join();
};

namespace {

// Whether a chunk read with these options may be cut into ranges: flat
// values whose arrays join by appending (not dictionary indices or values,
// not the null layout, not a nested leaf's levels).
bool splittable(const ColumnDescriptor& d, const ColumnReadOptions& o) {
  if (o.dictionary_indices || o.dictionary_values) return false;
  if (d.max_repetition_level > 0) return false;
  const ArrowLayout l = read_layout(o.layout, d.physical_type);
  return family_of(l) != Family::kNull && layout_fits(l, d);
}

}  // namespace

// Walks the page headers as ChunkReader::feed walks a whole chunk (until the
// row group's rows are counted) and cuts the data pages into `want` ranges
// of similar bytes. Anything irregular leaves the chunk whole: its decode
// then reports what is wrong, exactly as an unsplit read does.
void SplitChunk::Impl::cut(int want) {
  whole = true;
  parts.clear(), parts.emplace_back();
  if (want < 2 || !splittable(*column, options) || num_rows <= 0 || !codec_supported(codec)) return;
  struct Page {
    size_t at, size;
    int64_t rows;
  };
  std::vector<Page> pages;
  size_t at = 0;
  int64_t row = 0;
  bool saw_data = false;
  while (row < num_rows) {
    if (at >= len) return;
    auto h = parse_page_header(bytes + at, len - at, file_offset + at);
    if (!h.ok() || h->compressed_page_size < 0) return;
    const size_t body = static_cast<size_t>(h->compressed_page_size);
    if (body > len - at - h->header_size) return;
    const size_t size = h->header_size + body;
    switch (h->type) {
      case PageType::kDictionaryPage:
        if (saw_data || dict_len != 0) return;
        dict_at = at;
        dict_len = size;
        break;
      case PageType::kDataPage:
      case PageType::kDataPageV2: {
        const int64_t count = h->type == PageType::kDataPageV2 ? h->data_page_v2.num_values : h->data_page.num_values;
        if (count < 0 || count > options.max_page_values) return;
        saw_data = true;
        const int64_t rows = std::min(count, num_rows - row);
        pages.push_back({at, size, rows});
        row += rows;
        break;
      }
      case PageType::kIndexPage:
        if (!pages.empty()) pages.back().size += size;  // walked past inside its range
        else if (dict_len == 0) return;
        else dict_len += size;
        break;
    }
    at += size;
  }
  if (pages.size() < 2) return;
  const size_t k = std::min<size_t>(static_cast<size_t>(want), pages.size());
  const size_t first = pages.front().at, total = pages.back().at + pages.back().size - first;
  parts.clear();
  Part cur;
  cur.at = first;
  size_t i = 0;
  for (const Page& pg : pages) {
    const size_t end_of_range = first + total * (parts.size() + 1) / k;
    if (cur.len > 0 && pg.at >= end_of_range && parts.size() + 1 < k && pages.size() - i >= k - parts.size() - 1) {
      parts.push_back(std::move(cur));
      cur = Part{};
      cur.at = pg.at;
    }
    cur.len = pg.at + pg.size - cur.at;
    cur.rows += pg.rows;
    ++i;
  }
  parts.push_back(std::move(cur));
  whole = parts.size() < 2;
  if (whole) {
    parts.clear(), parts.emplace_back();
    return;
  }
  int64_t first_row = 0;
  for (auto& p : parts) {
    p.first = first_row;
    first_row += p.rows;
  }
  const ArrowLayout l = read_layout(options.layout, column->physical_type);
  direct = family_of(l) == Family::kFixed;
  width = layout_width(l, column->type_length);
}

SplitChunk::SplitChunk(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SplitChunk::~SplitChunk() = default;

std::unique_ptr<SplitChunk> SplitChunk::plan(const uint8_t* chunk_bytes, size_t len, uint64_t file_offset,
                                             const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                             const ColumnReadOptions& options, int parts, const std::string& where) {
  auto m = std::make_unique<Impl>();
  m->bytes = chunk_bytes;
  m->len = len;
  m->file_offset = file_offset;
  m->column = &column;
  m->codec = codec;
  m->num_rows = num_rows;
  m->options = options;
  m->where = where.empty() ? "column '" + column.dotted_path + "'" : where;
  m->cut(parts);
  return std::unique_ptr<SplitChunk>(new SplitChunk(std::move(m)));
}

int SplitChunk::parts() const { return static_cast<int>(impl_->parts.size()); }

void SplitChunk::decode(int part) {
  Impl& m = *impl_;
  if (part < 0 || static_cast<size_t>(part) >= m.parts.size()) return;
  Impl::Part& p = m.parts[static_cast<size_t>(part)];
  if (m.whole) {
    p.out = decode_column_chunk(m.bytes, m.len, m.file_offset, *m.column, m.codec, m.num_rows, m.options, m.where);
    return;
  }
  p.out = guard_memory(m.options.budget, m.where, [&]() -> Result<ColumnArray> {
    ChunkReader r(*m.column, m.codec, m.options, m.where);
    PQFAST_RETURN_IF_ERROR(r.begin(p.len, p.rows, nullptr));
    if (m.dict_len) PQFAST_RETURN_IF_ERROR(r.feed(m.bytes + m.dict_at, m.dict_len, m.file_offset + m.dict_at, 0, false));
    PQFAST_RETURN_IF_ERROR(r.feed(m.bytes + p.at, p.len, m.file_offset + p.at, 0, false));
    ColumnArray a = r.finish(nullptr);
    if (a.length() != p.rows) {
      return make_error(ErrorCode::kCorrupt, m.where + ": the pages at byte " + std::to_string(m.file_offset + p.at) +
                                                 " hold " + std::to_string(a.length()) + " values, their headers " +
                                                 std::to_string(p.rows));
    }
    ColumnArray::Impl& x = *a.impl();
    if (m.direct && x.width == m.width) {
      const size_t w = static_cast<size_t>(m.width);
      std::call_once(m.values_made, [&] {
        const Impl::Part& last = m.parts.back();
        m.values.resize(static_cast<size_t>(last.first + last.rows) * w);
      });
      if (p.rows) std::memcpy(m.values.data() + static_cast<size_t>(p.first) * w, x.values.data(), static_cast<size_t>(p.rows) * w);
      x.values = ReadBuffer();  // back to the pool for the next range or chunk
    }
    return a;
  });
}

Result<ColumnArray> SplitChunk::finish() {
  Impl& m = *impl_;
  for (auto& p : m.parts) {
    if (!p.out) return make_error(ErrorCode::kInvalidArgument, m.where + ": a range of the chunk was not decoded");
    if (!p.out->ok()) return p.out->error();
  }
  if (m.whole) return std::move(*m.parts[0].out);
  return guard_memory(m.options.budget, m.where, [&]() { return m.join(); });
}

// The ranges' arrays appended to the first's buffers, in row order.
Result<ColumnArray> SplitChunk::Impl::join() {
  ColumnArray first = std::move(*parts[0].out).value();
  ColumnArray::Impl& a = *first.impl();
  const Family f = family_of(a.layout);
  int64_t total = 0;
  for (auto& p : parts) total += p.rows;
  const int64_t n0 = a.length;
  if (a.nullable) a.validity.resize_zeroed(static_cast<size_t>((total + 7) / 8) + 8);
  const bool i32 = a.layout == ArrowLayout::kBinary;
  const size_t ow = i32 ? 4 : 8;
  auto offset_at = [&](const ColumnArray::Impl& x, int64_t i) -> int64_t {
    return i32 ? x.values.as<int32_t>()[i] : x.values.as<int64_t>()[i];
  };
  const bool direct = this->direct && a.width == width && f == Family::kFixed;
  switch (f) {
    case Family::kFixed:
      if (direct) {
        a.values = std::move(values);  // every range's values are there
      } else {
        a.values.resize(static_cast<size_t>(total) * static_cast<size_t>(a.width));
      }
      break;
    case Family::kBool: a.values.resize_zeroed(static_cast<size_t>((total + 7) / 8) + 8); break;
    case Family::kView: a.values.resize(static_cast<size_t>(total) * 16); break;
    case Family::kBinary: {
      int64_t bytes = offset_at(a, n0);
      for (size_t k = 1; k < parts.size(); ++k) {
        const auto& x = *parts[k].out->value().impl();
        bytes += offset_at(x, x.length) - offset_at(x, 0);
      }
      if (i32 && bytes > 0x7fffffff) {
        return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB (read it as large_binary)");
      }
      a.values.resize(static_cast<size_t>(total + 1) * ow);
      a.data.resize(static_cast<size_t>(bytes));
      break;
    }
    case Family::kNull: break;
  }
  int64_t pos = n0;
  for (size_t k = 1; k < parts.size(); ++k) {
    ColumnArray part = std::move(*parts[k].out).value();
    const ColumnArray::Impl& x = *part.impl();
    const size_t n = static_cast<size_t>(x.length);
    if (n == 0) continue;
    if (a.nullable) copy_bits(x.validity.data(), n, a.validity.data(), pos);
    a.null_count += x.null_count;
    switch (f) {
      case Family::kFixed: {
        if (direct) break;
        const size_t w = static_cast<size_t>(a.width);
        std::memcpy(a.values.data() + static_cast<size_t>(pos) * w, x.values.data(), n * w);
        break;
      }
      case Family::kBool: copy_bits(x.values.data(), n, a.values.data(), pos); break;
      case Family::kView: {
        auto* dst = a.values.as<BinaryViewElem>() + pos;
        std::memcpy(dst, x.values.data(), n * 16);
        const int32_t shift = static_cast<int32_t>(a.view_buffers.size());
        if (shift) {
          for (size_t i = 0; i < n; ++i) {
            if (dst[i].inlined.size > 12) dst[i].ref.buffer_index += shift;
          }
        }
        for (auto& b : part.impl()->view_buffers) a.view_buffers.push_back(std::move(b));
        break;
      }
      case Family::kBinary: {
        const int64_t base = offset_at(a, pos), from = offset_at(x, 0);
        const int64_t len = offset_at(x, static_cast<int64_t>(n)) - from;
        if (len) std::memcpy(a.data.data() + base, x.data.data() + from, static_cast<size_t>(len));
        if (i32) {
          const int32_t* s = x.values.as<int32_t>();
          int32_t* d = a.values.as<int32_t>() + pos;
          const int32_t delta = static_cast<int32_t>(base - from);
          for (size_t i = 1; i <= n; ++i) d[i] = s[i] + delta;
        } else {
          const int64_t* s = x.values.as<int64_t>();
          int64_t* d = a.values.as<int64_t>() + pos;
          const int64_t delta = base - from;
          for (size_t i = 1; i <= n; ++i) d[i] = s[i] + delta;
        }
        break;
      }
      case Family::kNull: break;
    }
    pos += static_cast<int64_t>(n);
  }
  if (a.nullable) a.validity.resize(static_cast<size_t>((total + 7) / 8));
  if (f == Family::kBool) a.values.resize(static_cast<size_t>((total + 7) / 8));
  a.length = total;
  return first;
}

Result<std::unique_ptr<SplitChunk>> SplitChunk::open(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                                     int leaf, const ColumnReadOptions& options, int parts) {
  const std::string problem = flat_column_problem(meta, leaf);
  if (!problem.empty()) return make_error(ErrorCode::kUnsupported, file.name() + ": " + problem);
  ReadBuffer bytes;
  auto r = with_chunk_bytes<std::unique_ptr<SplitChunk>>(
      file, meta, row_group, leaf, options,
      [&](const uint8_t* b, size_t len, uint64_t off, const ColumnDescriptor& d, int32_t codec, int64_t rows,
          const ColumnReadOptions& o, const std::string& where) -> Result<std::unique_ptr<SplitChunk>> {
        return plan(b, len, off, d, codec, rows, o, parts, where);
      },
      &bytes);
  if (r.ok()) (*r)->impl_->owned = std::move(bytes);  // (moving keeps the data where the ranges point)
  return r;
}

std::vector<int> split_parts(const std::vector<int64_t>& sizes, int threads) {
  std::vector<int> out(sizes.size(), 1);
  if (threads < 2 || sizes.empty()) return out;
  int64_t total = 0;
  for (int64_t s : sizes) total += std::max<int64_t>(s, 0);
  const int64_t n = static_cast<int64_t>(sizes.size());
  // Pieces of half a thread's share. With fewer chunks than threads every
  // chunk over a piece is cut (threads would idle otherwise); else only a
  // chunk over a piece and four times the average, the one that would end
  // the read alone. Cutting costs a copy of the values that are not
  // fixed-width and the dictionary page decoded once per range: on 16 cores
  // (SF2 lineitem, C++ reads) cutting every chunk over a quarter share was
  // up to 16% slower, cutting over 8 MiB 14-24% slower at 2 threads.
  int64_t piece = std::max<int64_t>(int64_t{4} << 20, total / (2 * int64_t{threads}));
  int64_t least = n < threads ? 0 : 4 * (total / n);
  if (const char* e = std::getenv("PQFAST_SPLIT_BYTES")) {
    char* end = nullptr;
    const long long v = std::strtoll(e, &end, 10);
    if (end != e) {
      if (v <= 0) return out;
      piece = v;
      least = 0;
    }
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t s = std::max<int64_t>(sizes[i], 0);
    if (s <= least) continue;
    const int64_t k = (s + piece - 1) / piece;
    out[i] = static_cast<int>(std::clamp<int64_t>(k, 1, threads));
  }
  return out;
}

}  // namespace pqfast::parquet
