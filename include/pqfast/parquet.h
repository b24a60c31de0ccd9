// The Parquet file structure: footer (FileMetaData), page headers, Bloom
// filter location and loading, and pruning of files and row groups.
//
// Everything here reads bytes from outside and treats them as hostile: every
// read is bounds-checked, nesting is depth-limited, and no allocation is sized
// by a count beyond what the input bytes can hold. Failures are Results whose
// Error says what and where (file, byte offset, field).
//
//   auto file = pqfast::parquet::LocalFile::open("x.parquet");
//   auto meta = pqfast::parquet::read_file_metadata(**file);
//   int col = meta->find_column("user_id");                      // leaf index or -1
//   auto bf = pqfast::parquet::load_bloom_filter(**file, meta->row_groups[0].columns[col]);
//   bf->view().check_hash(pqfast::xxh64(&v, 8));
//
//   pqfast::parquet::ProbeValues values = ...;                  // typed PLAIN bytes
//   auto verdicts = pqfast::parquet::prune_files(paths, "user_id", values, {});
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "pqfast/sbbf.h"
#include "pqfast/status.h"
#include "pqfast/types.h"

namespace pqfast::parquet {

// ---- enums of parquet.thrift (numbered as there) ----------------------------

// Encoding: 0 PLAIN, 2 PLAIN_DICTIONARY, 3 RLE, 4 BIT_PACKED, 5 DELTA_BINARY_PACKED,
// 6 DELTA_LENGTH_BYTE_ARRAY, 7 DELTA_BYTE_ARRAY, 8 RLE_DICTIONARY, 9 BYTE_STREAM_SPLIT.
// Full name of an encoding number ("UNKNOWN(<n>)" style names are the caller's job:
// returns nullptr for numbers the spec does not define).
const char* encoding_name(int32_t encoding);
// 0 UNCOMPRESSED, 1 SNAPPY, 2 GZIP, 3 LZO, 4 BROTLI, 5 LZ4, 6 ZSTD, 7 LZ4_RAW; nullptr otherwise.
const char* codec_name(int32_t codec);
// ConvertedType names (UTF8, MAP, ..., INTERVAL); nullptr otherwise.
const char* converted_type_name(int32_t converted_type);
// 0 DATA_PAGE, 1 INDEX_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2; nullptr otherwise.
const char* page_type_name(int32_t page_type);

enum class Repetition : int8_t { kRequired = 0, kOptional = 1, kRepeated = 2, kUnset = -1 };

// The LogicalType union (only what readers of values need).
struct LogicalType {
  enum Kind : int8_t {
    kNone = 0,  // no logical type annotation
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // the "NullType" member, all values null
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
    kOther = 127,  // a member this version does not know
  };
  enum TimeUnit : int8_t { kMillis = 0, kMicros = 1, kNanos = 2 };
  Kind kind = kNone;
  int32_t decimal_scale = 0, decimal_precision = 0;  // kDecimal
  int8_t bit_width = 0;                              // kInteger
  bool is_signed = true;                             // kInteger
  bool adjusted_to_utc = false;                      // kTime, kTimestamp
  TimeUnit unit = kMillis;                           // kTime, kTimestamp
};
// "STRING", "DECIMAL(9,2)", "TIMESTAMP(MICROS,true)", "INTEGER(8,false)", "" for kNone.
std::string logical_type_to_string(const LogicalType& t);

// ---- the footer model ---------------------------------------------------------

struct SchemaElement {
  std::string name;
  bool has_type = false;  // false for groups
  PhysicalType type = PhysicalType::kBoolean;
  int32_t type_length = 0;
  Repetition repetition = Repetition::kUnset;
  int32_t num_children = 0;
  int32_t converted_type = -1;  // -1: none
  int32_t scale = 0, precision = 0;
  bool has_field_id = false;
  int32_t field_id = 0;
  LogicalType logical;
};

// A leaf column of the schema, in schema (= column chunk) order.
struct ColumnDescriptor {
  std::vector<std::string> path;  // path_in_schema
  std::string dotted_path;        // path joined with '.'
  PhysicalType physical_type = PhysicalType::kBoolean;
  int32_t type_length = 0;
  LogicalType logical;
  int32_t converted_type = -1;
  int32_t scale = 0, precision = 0;
  Repetition repetition = Repetition::kUnset;
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  int32_t schema_index = 0;  // index into FileMetaData::schema
};

struct Statistics {
  // min/max as PLAIN bytes (no length prefix for BYTE_ARRAY). `*_is_legacy`
  // says they came from the deprecated fields 1/2 (signed, per physical type)
  // rather than min_value/max_value (5/6, in the column's sort order).
  bool has_min = false, has_max = false;
  bool min_is_legacy = false, max_is_legacy = false;
  // The deprecated fields were there (whichever one won): readers that
  // follow Arrow C++ read only them in a file without ColumnOrders.
  bool legacy_min_present = false, legacy_max_present = false;
  std::string min, max;
  bool has_null_count = false;
  int64_t null_count = 0;
  bool has_distinct_count = false;
  int64_t distinct_count = 0;
  std::optional<bool> is_min_exact, is_max_exact;
};

struct ColumnChunk {
  bool skipped = false;   // not decoded (ParseLimits::only_column)
  std::string file_path;  // set when the chunk lives in another file
  int64_t file_offset = 0;
  bool has_meta_data = false;   // false for encrypted column metadata
  bool encrypted = false;       // crypto_metadata or encrypted_column_metadata present
  // ColumnMetaData
  PhysicalType type = PhysicalType::kBoolean;
  std::vector<int32_t> encodings;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  int64_t index_page_offset = -1;       // -1: absent
  int64_t dictionary_page_offset = -1;  // -1: absent
  bool has_statistics = false;
  Statistics statistics;
  int64_t bloom_filter_offset = -1;  // -1: absent
  int32_t bloom_filter_length = -1;  // -1: absent (parquet-java < 1.14)
  int64_t offset_index_offset = -1;
  int32_t offset_index_length = -1;
  int64_t column_index_offset = -1;
  int32_t column_index_length = -1;
  // Where encoding_stats (a list<PageEncodingStats>) lies in the file, when
  // the writer gave them: read by all_data_pages_dictionary() when needed,
  // skipped by the footer's parse.
  int64_t encoding_stats_offset = -1;
  int32_t encoding_stats_length = 0;
};

// From a chunk's encoding_stats bytes (ColumnChunk::encoding_stats_offset,
// _length): 1 when every data page is dictionary-encoded (PLAIN_DICTIONARY or
// RLE_DICTIONARY), 0 when some page is not, -1 when they say nothing sure.
int8_t all_data_pages_dictionary(const uint8_t* data, size_t len);

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  int64_t file_offset = -1;
  int64_t total_compressed_size = -1;
  int32_t ordinal = -1;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;
  std::vector<ColumnDescriptor> columns;  // the leaves
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::string created_by;
  // column_orders: one per leaf when present; true = TYPE_ORDER (the only
  // defined order), false = an order this reader does not know.
  bool has_column_orders = false;
  std::vector<bool> column_type_defined_order;
  bool plaintext_footer_encrypted = false;  // encryption_algorithm present (PAR1 + encryption)
  uint32_t footer_length = 0;               // serialized FileMetaData bytes

  // Leaf index of a column given as a dotted path ("a.b.c") or a top-level
  // name; -1 when absent.
  int find_column(std::string_view dotted_path) const;
};

// Limits applied while parsing (a hostile footer cannot exceed them), and
// an optional projection.
struct ParseLimits {
  uint32_t max_footer_bytes = 256u << 20;  // serialized FileMetaData
  // Arrow C++'s thrift_container_size_limit: a schema of a million columns
  // is refused at once (its footer would cost seconds and GiBs to walk).
  uint32_t max_schema_elements = 1000000;
  uint32_t max_row_groups = 1u << 24;
  // When set (a dotted leaf path), only that leaf's column chunks are
  // decoded; the others are skipped over without allocating and left
  // default-constructed with ColumnChunk::skipped set. The schema is always
  // complete. Pruning uses this: wide schemas cost a skip, not a decode.
  std::string_view only_column;
};

// Parses serialized FileMetaData (the Thrift bytes before the 8-byte trailer).
// `base_offset` is where `data` starts in the file, for error messages.
Result<FileMetaData> parse_file_metadata(const uint8_t* data, size_t len, size_t base_offset = 0,
                                         const ParseLimits& limits = {});

// The 8-byte trailer: footer length and magic. `file_size` is the file's size.
// Returns the footer length (bytes of FileMetaData before the trailer). Errors:
// too small for a Parquet file, bad magic, encrypted footer (PARE:
// kUnsupported "encrypted footer, not supported"), length beyond the file.
Result<uint32_t> parse_trailer(const uint8_t* last8, uint64_t file_size);

// A whole file in memory: checks the leading magic, the trailer, and parses
// the footer.
Result<FileMetaData> parse_file_bytes(const uint8_t* data, size_t len, const ParseLimits& limits = {});

// ---- page headers (for decoders) -----------------------------------------------

enum class PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  uint32_t header_size = 0;  // bytes the header itself occupies
  // DATA_PAGE (v1)
  bool has_data_page_header = false;
  struct {
    int32_t num_values = 0;
    int32_t encoding = 0;
    int32_t definition_level_encoding = 0;
    int32_t repetition_level_encoding = 0;
  } data_page;
  // DICTIONARY_PAGE
  bool has_dictionary_page_header = false;
  struct {
    int32_t num_values = 0;
    int32_t encoding = 0;
    bool is_sorted = false;
  } dictionary_page;
  // DATA_PAGE_V2
  bool has_data_page_header_v2 = false;
  struct {
    int32_t num_values = 0;
    int32_t num_nulls = 0;
    int32_t num_rows = 0;
    int32_t encoding = 0;
    int32_t definition_levels_byte_length = 0;
    int32_t repetition_levels_byte_length = 0;
    bool is_compressed = true;
  } data_page_v2;
};

// Parses one page header at the start of `data`; the page body follows at
// data + header_size. Checks that the header matches its type (a DATA_PAGE has
// a data_page_header, sizes are non-negative, v2 level lengths fit the page).
Result<PageHeader> parse_page_header(const uint8_t* data, size_t len, size_t base_offset = 0);

// ---- positional reads ----------------------------------------------------------

// A file that can be read at any offset. Implementations must be safe to call
// from one thread at a time (prune_files uses one per thread).
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at `offset` into out (short reads are errors).
  virtual Status read_at(uint64_t offset, size_t n, uint8_t* out) = 0;
  // Names the file in error messages.
  virtual const std::string& name() const = 0;
};

// A local file read with pread(2).
class LocalFile final : public RandomAccessFile {
 public:
  static Result<std::unique_ptr<LocalFile>> open(const std::string& path);
  // The same without fstat(2): the size comes from lseek(2), which costs a
  // quarter as much, and mtime_ns() is -1. For one-shot reads of many files
  // (pruning a lake). Never blocks on a FIFO; a directory or another
  // non-regular file is an error here or at the first read.
  static Result<std::unique_ptr<LocalFile>> open_for_reading(const std::string& path);
  // The same for path.substr(name_offset) under an open directory (openat(2)):
  // a lake's files share a directory, whose path is then walked once per call
  // instead of once per file. `path` names the file in errors.
  static Result<std::unique_ptr<LocalFile>> open_for_reading_at(int dir_fd, const std::string& path,
                                                                size_t name_offset);
  ~LocalFile() override;
  uint64_t size() const override { return size_; }
  int64_t mtime_ns() const { return mtime_ns_; }  // modification time at open
  int fd() const { return fd_; }  // owned by the file: for fstat(2) and the like, never close
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override;
  const std::string& name() const override { return path_; }

 private:
  LocalFile(int fd, uint64_t size, int64_t mtime_ns, std::string path)
      : fd_(fd), size_(size), mtime_ns_(mtime_ns), path_(std::move(path)) {}
  int fd_;
  uint64_t size_;
  int64_t mtime_ns_;
  std::string path_;
};

// Bytes owned elsewhere, read as a file.
class BufferFile final : public RandomAccessFile {
 public:
  BufferFile(const uint8_t* data, size_t len, std::string name = "<buffer>")
      : data_(data), len_(len), name_(std::move(name)) {}
  uint64_t size() const override { return len_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override;
  const std::string& name() const override { return name_; }

 private:
  const uint8_t* data_;
  size_t len_;
  std::string name_;
};

// One piece of a read through an overlay (a file with a tail appended that
// lives elsewhere): `length` bytes at `offset` of the base file, or, when
// `in_tail`, at `offset` of the file that holds the tail.
struct OverlaySpan {
  bool in_tail = false;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Where bytes [offset, offset + n) of a file of `base_size` bytes with a
// tail appended (kept at `tail_offset` of another file) are: one span, or
// two for a read across base_size (the base's first). The one mapping of
// every sidecar overlay: OverlayFile reads local files through it, the
// streaming scanner asks a fed file's ranges through it
// (ScanPlanFile::sidecar_tail). The caller bounds the read by the file's size.
struct OverlaySpans {
  OverlaySpan span[2];
  int count = 0;
  const OverlaySpan* begin() const { return span; }
  const OverlaySpan* end() const { return span + count; }
};
inline OverlaySpans overlay_spans(uint64_t base_size, uint64_t tail_offset, uint64_t offset, uint64_t n) {
  OverlaySpans out;
  if (offset < base_size && n > 0) {
    const uint64_t take = n < base_size - offset ? n : base_size - offset;
    out.span[out.count++] = {false, offset, take};
    offset += take;
    n -= take;
  }
  if (n > 0) out.span[out.count++] = {true, tail_offset + (offset - base_size), n};
  return out;
}

// A file with bytes appended that live elsewhere: [0, base_size) read from
// `base`, then `tail_size` bytes read from `tail` at `tail_offset`. A sidecar
// index (python/pqfast/_sidecar.py) keeps there what `pqfast index` would
// have appended to a file that must not change, so readers see the indexed
// file without anyone writing it. `make` refuses a base that is no longer
// base_size bytes long (changed since the tail was planned) and a tail range
// outside `tail`; reads that cross base_size are split in two.
class OverlayFile final : public RandomAccessFile {
 public:
  static Result<std::unique_ptr<OverlayFile>> make(std::unique_ptr<RandomAccessFile> base, uint64_t base_size,
                                                   std::shared_ptr<RandomAccessFile> tail, uint64_t tail_offset,
                                                   uint64_t tail_size);
  uint64_t size() const override { return base_size_ + tail_size_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override;
  const std::string& name() const override { return base_->name(); }

 private:
  OverlayFile(std::unique_ptr<RandomAccessFile> base, uint64_t base_size, std::shared_ptr<RandomAccessFile> tail,
              uint64_t tail_offset, uint64_t tail_size)
      : base_(std::move(base)), tail_(std::move(tail)), base_size_(base_size), tail_offset_(tail_offset),
        tail_size_(tail_size) {}
  std::unique_ptr<RandomAccessFile> base_;
  std::shared_ptr<RandomAccessFile> tail_;
  uint64_t base_size_;
  uint64_t tail_offset_;
  uint64_t tail_size_;
};

// Local paths matching a shell pattern (`*`, `?`, `[...]` in any component;
// no `**`), sorted by their bytes; a leading dot is matched only by a dot.
// The same list as Python's sorted(glob.glob(pattern)) for such patterns
// (backslash is not an escape), without its per-entry cost. No match: empty.
Result<std::vector<std::string>> glob_local(const std::string& pattern);
// The same list, shared: a pattern matched again over a directory that has
// not changed since returns the list made before, without a copy.
Result<std::shared_ptr<const std::vector<std::string>>> glob_local_shared(const std::string& pattern);

// Every file named *.parquet under `dir`, at any depth, sorted by bytes
// (a directory so named, as Spark writes, is searched, not listed).
// Names starting with "." or "_" below `dir` are skipped with all under
// them, as pyarrow.dataset skips them (_SUCCESS, _delta_log/, .crc files);
// symbolic links to directories are followed (64 levels at most),
// unreadable directories give nothing.
Result<std::vector<std::string>> parquet_files_under(const std::string& dir);

// Reads the footer with one speculative read of the file's tail (16 KiB, or
// the whole file when smaller) and a second read only when the footer is
// larger. Error messages start with the file's name.
Result<FileMetaData> read_file_metadata(RandomAccessFile& file, const ParseLimits& limits = {});

// The page headers of a column chunk, in order: reads the chunk's bytes
// (from the dictionary page, or the first data page, for
// total_compressed_size bytes) and walks header, body, header, ... Errors on
// a header that does not parse or a page that runs past the chunk.
Result<std::vector<PageHeader>> read_page_headers(RandomAccessFile& file, const ColumnChunk& chunk);

// ---- Bloom filters ---------------------------------------------------------------

// A column chunk's Bloom filter, loaded: owns the bitset (aligned for the
// kernels) and answers through view().
class ChunkBloomFilter {
 public:
  ChunkBloomFilter() = default;
  ChunkBloomFilter(ChunkBloomFilter&&) noexcept = default;
  ChunkBloomFilter& operator=(ChunkBloomFilter&&) noexcept = default;
  ChunkBloomFilter(const ChunkBloomFilter&) = delete;
  ChunkBloomFilter& operator=(const ChunkBloomFilter&) = delete;

  SbbfView view() const { return view_; }
  uint64_t offset() const { return offset_; }         // where the header starts
  uint32_t header_size() const { return header_size_; }
  uint32_t num_bytes() const { return view_.num_bytes(); }

 private:
  friend Result<ChunkBloomFilter> make_chunk_bloom_filter(std::vector<uint8_t>&&, size_t, uint64_t,
                                                          const std::string&);
  std::vector<uint8_t> storage_;
  SbbfView view_;
  uint64_t offset_ = 0;
  uint32_t header_size_ = 0;
};

// Builds a filter from the bytes read at `offset` (header then bitset; bytes
// past the bitset are ignored). `bytes` is consumed. Errors name `where`.
Result<ChunkBloomFilter> make_chunk_bloom_filter(std::vector<uint8_t>&& bytes, size_t len,
                                                 uint64_t offset, const std::string& where);

// Loads a chunk's filter: one read of bloom_filter_length bytes when the
// footer gives it, else (parquet-java < 1.14) a read of the header and then of
// the bitset. Returns std::nullopt when the chunk has no filter.
Result<std::optional<ChunkBloomFilter>> load_bloom_filter(RandomAccessFile& file,
                                                          const ColumnChunk& chunk);

// ---- pruning --------------------------------------------------------------------

// Values to look for, in the column's physical type, as PLAIN bytes:
// fixed-width types back to back (`type_length` bytes for
// FIXED_LEN_BYTE_ARRAY, 12 for INT96), BYTE_ARRAY as `data` plus n + 1 offsets.
struct ProbeValues {
  PhysicalType type = PhysicalType::kInt64;
  int32_t type_length = 0;
  std::vector<uint8_t> data;
  std::vector<int64_t> offsets;  // BYTE_ARRAY only
  size_t size() const;
  // Value i's bytes.
  std::string_view value(size_t i) const;
};

enum class Verdict : uint8_t {
  kAbsentByStats = 0,  // min/max (or an all-null chunk) exclude every value
  kAbsentByBloom = 1,  // the Bloom filter (with min/max for some values) excludes every value
  kMaybe = 2,          // some value may be present
  kNoFilter = 3,       // no Bloom filter, and min/max do not exclude every value
};
// "absent", "absent", "maybe", "no_filter".
const char* verdict_name(Verdict v);

struct RowGroupVerdict {
  int32_t row_group = 0;
  Verdict verdict = Verdict::kMaybe;
  uint32_t excluded_by_stats = 0;  // values that min/max rule out
  uint32_t excluded_by_bloom = 0;  // further values the filter rules out
  uint32_t maybe = 0;              // values neither rules out
  std::vector<Verdict> per_value;  // filled when PruneOptions::per_value
};

struct FilePruneResult {
  std::string path;
  bool ok = true;
  Error error;  // when !ok
  int64_t num_rows = 0;
  std::vector<RowGroupVerdict> row_groups;
  int64_t bytes_read = 0;
  int32_t reads = 0;
};

// Parsed footers kept across prune_files calls (probing the same lake for key
// after key), keyed by path and column and validated against the file's size
// and modification time on every use. Thread-safe; bounded (oldest entries
// leave first).
// What is kept is what pruning one column reads from a footer (an internal
// type; the cache is used through PruneOptions::footer_cache).
struct PruneFooter;
class FooterCache {
 public:
  explicit FooterCache(size_t max_entries = 1 << 16) : max_entries_(max_entries) {}
  std::shared_ptr<const PruneFooter> get(const std::string& key, uint64_t size, int64_t mtime_ns);
  void put(const std::string& key, uint64_t size, int64_t mtime_ns,
           std::shared_ptr<const PruneFooter> footer);
  void clear();
  size_t size() const;

 private:
  struct Entry {
    uint64_t size;
    int64_t mtime_ns;
    std::shared_ptr<const PruneFooter> footer;
  };
  size_t max_entries_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::deque<std::string> order_;
};

// PruneOptions::block_reads applies to probes of at most this many hashes,
// on filters of at least this many bytes (smaller ones are read whole).
inline constexpr size_t kBlockReadMaxHashes = 16;
inline constexpr size_t kBlockReadMinBytes = 1024;

struct PruneOptions {
  bool use_statistics = true;
  bool use_bloom = true;
  bool per_value = false;  // fill RowGroupVerdict::per_value
  int threads = 0;         // 0: one per hardware thread (at most the files)
  // prune_files: the caller starts alone and calls its threads - 1 helpers
  // once its first files (4 of them, 10 us at least) say the files left are
  // at least this much work for it alone. A short job is done sooner without
  // them: a helper costs the caller 20-60 us to start and may land on an
  // idle core (a halted virtual CPU takes 0.05-0.5 ms to wake). 0: helpers
  // start at once.
  uint32_t helpers_min_work_us = 400;
  // Bloom filter ranges closer than this are read in one request. Small by
  // default: on local files (page cache) a read costs little and copying the
  // bytes between filters (other columns' filters) costs more. Remote or
  // high-latency files want a large gap (the Python binding uses 1 MiB for
  // filesystem objects).
  uint32_t coalesce_gap = 4096;
  // Read only what a probe touches: a Bloom filter's header, then the
  // 32-byte blocks the values hash to, instead of the whole filter (two
  // small reads instead of kilobytes to copy). For local files, where a read
  // is a system call and not a round trip: prune_files() turns it on. Used
  // for up to kBlockReadMaxHashes hashes and filters of kBlockReadMinBytes
  // or more; the verdicts are the same either way.
  bool block_reads = false;
  // With block_reads, for a filter whose length the footer gives: one read
  // from the header to the last block the hashes pick in the bitset the
  // length implies (a header of 15-46 bytes, as writers' are), instead of
  // the header, then the blocks. Checked once the header is parsed: another
  // layout asks for its blocks as before. For object storage, where a round
  // trip costs more than tens of KiB; spans past 1 MiB are not guessed.
  bool predict_blocks = false;
  ParseLimits limits;
  // Optional: reuse footers parsed by earlier calls (local files only).
  FooterCache* footer_cache = nullptr;
};

// Prunes the row groups of one file already opened, for a column (dotted
// path) and values. Returns the per-row-group verdicts. Errors (bad footer,
// missing column, type mismatch) are in the result.
FilePruneResult prune_file(RandomAccessFile& file, std::string_view column,
                           const ProbeValues& values, const PruneOptions& options = {});

// Opens and prunes many local files on a small thread pool. Results are in
// the order of `paths`; one file's error does not stop the others.
// `on_file_done` (optional) is called after each file, from worker threads
// (serialised), for progress display.
std::vector<FilePruneResult> prune_files(const std::vector<std::string>& paths,
                                         std::string_view column, const ProbeValues& values,
                                         const PruneOptions& options = {},
                                         const std::function<void(size_t)>& on_file_done = {});

// The verdict min/max statistics give for one value against a chunk: true
// when the statistics prove the value absent. Applies the sort-order rules:
// min_value/max_value in the column's type-defined order (signed or unsigned
// integers, IEEE floats without NaN bounds, unsigned lexicographic bytes,
// signed big-endian decimals); legacy min/max only for signed INT32/INT64 and
// FLOAT/DOUBLE; nothing for INT96, FLOAT16, INTERVAL or an unknown order; and
// only the bounds Arrow C++ and parquet-java believe of the writer `created_by`
// names (parquet-mr < 1.10 and parquet-cpp < 1.3: signed orders only;
// parquet-mr < 1.8: no binary bounds; no created_by: no binary bounds).
bool stats_exclude(const FileMetaData& meta, int leaf, const ColumnChunk& chunk,
                   std::string_view value);

}  // namespace pqfast::parquet
