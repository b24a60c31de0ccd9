// Reading flat columns of a Parquet file into Arrow-layout buffers.
//
// A column chunk's pages (dictionary page, data pages v1 and v2) are walked,
// decompressed (SNAPPY, GZIP, ZSTD, LZ4_RAW, Hadoop LZ4, BROTLI: each when
// built in), their definition levels decoded straight into an Arrow validity
// bitmap and their values decoded in bulk: PLAIN, RLE_DICTIONARY /
// PLAIN_DICTIONARY, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT and RLE booleans; a chunk may switch
// encoding between pages. The result is exported through the Arrow C Data
// Interface (pqfast/arrow_c_data.h): engines take the buffers without a copy.
//
// Input is hostile: every page, level run and value stream is bounds-checked
// and errors say what and where. This header reads flat columns; a leaf below
// a group or repeated is read with its field by pqfast/parquet_nested.h.
//
//   auto file = pqfast::parquet::LocalFile::open("x.parquet");
//   auto meta = pqfast::parquet::read_file_metadata(**file);
//   auto col = pqfast::parquet::read_column_chunk(**file, *meta, 0, leaf, {});
//   ArrowArray array; ArrowSchema schema;
//   std::move(*col).export_to(&array, &schema);   // the consumer calls release()
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/arrow_c_data.h"
#include "pqfast/memory_budget.h"
#include "pqfast/parquet.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

// The Arrow layout a column is decoded into. kDefault picks the layout of
// the physical type (BOOLEAN -> bool, INT32 -> int32, INT64 -> int64, INT96 ->
// timestamp[ns], FLOAT/DOUBLE, BYTE_ARRAY -> binary, FIXED_LEN_BYTE_ARRAY ->
// fixed_size_binary). The others convert as they decode.
enum class ArrowLayout : uint8_t {
  kDefault = 0,
  kBool,
  kInt8, kInt16, kInt32, kInt64,       // narrowing from INT32 keeps the low bits, as Arrow does
  kUInt8, kUInt16, kUInt32, kUInt64,
  kFloat16,                            // FIXED_LEN_BYTE_ARRAY(2)
  kFloat32, kFloat64,
  kBinary,                             // int32 offsets + bytes
  kLargeBinary,                        // int64 offsets + bytes
  kBinaryView,                         // 16-byte views, bytes in variadic buffers
  kFixedSizeBinary,
  kDecimal128, kDecimal256,            // from INT32, INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY (big-endian)
  kTimestampNanos,                     // from INT96 (Julian day + nanoseconds)
  kNull,                               // every value null (the UNKNOWN logical type)
};

// Name used by the Python binding ("int32", "binary_view", ...); nullptr for
// values outside the enum.
const char* arrow_layout_name(ArrowLayout layout);
// The layout named so; false when no layout has that name.
bool parse_arrow_layout(const std::string& name, ArrowLayout* out);

struct ColumnReadOptions {
  ArrowLayout layout = ArrowLayout::kDefault;
  // The Arrow format string exported (for example "tdD" for date32 over
  // INT32, "tsu:UTC" over INT64). Empty: the layout's plain format.
  std::string format;
  // A page may announce at most this many values (nulls expand from few
  // bytes: this bounds what a small hostile page can make us allocate).
  int64_t max_page_values = int64_t{1} << 24;
  // Uncompressed page sizes above this are refused.
  int64_t max_page_bytes = int64_t{1} << 30;
  // Replaces the chunk's dictionary (for filters evaluated on dictionary
  // indices): each value decodes to the byte of its index here, the output
  // is uint8, the dictionary page is not decoded, and a page that is not
  // dictionary-encoded is an error.
  const std::vector<uint8_t>* dictionary_values = nullptr;
  // Reads the chunk as an Arrow dictionary array: int32 indices (format "i")
  // straight from the dictionary-encoded pages' RLE / bit-packed runs, over
  // the chunk's dictionary page decoded once in `layout` / `format` (binary,
  // large_binary, binary_view or a fixed-width layout) as the array's
  // `dictionary`. Values of pages that are not dictionary-encoded (a
  // writer's fallback) are hashed into the dictionary: new ones appended in
  // order of appearance, as Arrow C++ builds it. An index past the
  // dictionary page is an error. Flat columns and nested leaves
  // (decode_leaf_chunk: the indices in the leaf's slots); BOOLEAN and the
  // null layout are kInvalidArgument; ignored where dictionary_values is set.
  bool dictionary_indices = false;
  // What the read may allocate for decompressed pages and decoded values
  // (pqfast/memory_budget.h): share one among the chunks of a read. Null: a
  // budget of default_memory_limit() for this call (or the caller's, when
  // called inside a read that set one). Past it: ErrorCode::kMemoryLimit.
  std::shared_ptr<MemoryBudget> budget;
  // Data pages v2 are compressed by the chunk's codec whatever their
  // is_compressed flag says: parquet-cpp before Arrow 3.0 (ARROW-10353) wrote
  // false on pages it did compress. Readers set it from the footer's
  // created_by with v2_pages_always_compressed(), as Arrow C++ decides.
  bool v2_always_compressed = false;
};

// Whether the writer named by `created_by` is one whose data pages v2 say
// is_compressed=false although compressed (Arrow C++'s rule: application
// "parquet-cpp" before version 2.0.0).
bool v2_pages_always_compressed(const std::string& created_by);

// One column chunk (or several, appended) in Arrow layout: owns its buffers.
class ColumnArray {
 public:
  ColumnArray();
  ~ColumnArray();
  ColumnArray(ColumnArray&&) noexcept;
  ColumnArray& operator=(ColumnArray&&) noexcept;

  int64_t length() const;
  int64_t null_count() const;
  const std::string& format() const;
  // Moves the buffers into a C Data Interface array and its schema (named
  // `name`); both have release callbacks that free what they own.
  void export_to(ArrowArray* array, ArrowSchema* schema, const std::string& name = "") &&;

  struct Impl;
  explicit ColumnArray(std::unique_ptr<Impl> impl);
  Impl* impl() { return impl_.get(); }
  const Impl* impl() const { return impl_.get(); }

 private:
  std::unique_ptr<Impl> impl_;
};

// Why a leaf cannot be read as a flat column, or empty when it can.
std::string flat_column_problem(const FileMetaData& meta, int leaf);

// Reads one column chunk (row group `row_group`, leaf column `leaf`).
Result<ColumnArray> read_column_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                      int leaf, const ColumnReadOptions& options = {});

// The same over a chunk's bytes already in memory: `chunk_bytes` holds the
// chunk's pages from its first page on; `file_offset` is where they start in
// the file (for messages). `num_rows` is the row group's row count.
Result<ColumnArray> decode_column_chunk(const uint8_t* chunk_bytes, size_t len, uint64_t file_offset,
                                        const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                        const ColumnReadOptions& options = {},
                                        const std::string& where = "");

// One column chunk whose data pages several threads decode: a large chunk
// (or one of fewer chunks than threads) no longer stays on one thread. The
// pages are found by a walk of their headers (no page is decompressed),
// cut into ranges of similar compressed size; each range decodes on its own
// (the dictionary page before it) and finish() joins the ranges' arrays in
// row order (fixed-width values and validity bits copied, binary offsets
// rebased, views' buffer indices shifted). A chunk that cannot be cut (a
// single page, a nested leaf, dictionary indices or values, a page header
// the walk does not accept) has one range, decoded as decode_column_chunk
// decodes it: hostile input gets the same errors. Each range's decode()
// may run on its own thread; finish() runs after all of them.
class SplitChunk {
 public:
  // Reads chunk (row_group, leaf) of `file` (as read_column_chunk) and cuts
  // its pages into at most `parts` ranges. `meta` must outlive the object.
  static Result<std::unique_ptr<SplitChunk>> open(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                                  int leaf, const ColumnReadOptions& options, int parts);
  // The same over a chunk's bytes in memory (as decode_column_chunk; the
  // bytes and `column` must outlive the object).
  static std::unique_ptr<SplitChunk> plan(const uint8_t* chunk_bytes, size_t len, uint64_t file_offset,
                                          const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                          const ColumnReadOptions& options, int parts, const std::string& where = "");
  ~SplitChunk();
  int parts() const;
  // Decodes range `part` (each once, from any thread).
  void decode(int part);
  // After every range's decode(): the chunk's array (the first range's
  // error, if any).
  Result<ColumnArray> finish();

  struct Impl;

 private:
  explicit SplitChunk(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// How many ranges (SplitChunk) each chunk of a read is cut into when
// `threads` threads read chunks of these decoded sizes, largest first, in
// pieces of half a thread's share (at least 4 MiB, at most `threads` per
// chunk): with fewer chunks than threads every chunk over a piece; else only
// a chunk over a piece and four times the average size (the one that would
// end the read alone). None is cut at one thread. The
// environment variable PQFAST_SPLIT_BYTES sets the range size instead (0:
// never cut; tests set it small to cut every chunk).
std::vector<int> split_parts(const std::vector<int64_t>& sizes, int threads);

// Rows [begin, end) of a row group. Lists of them are sorted and disjoint.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// Pages back to back in memory: `bytes` holds them from the first page's
// header on, `file_offset` is where they start in the file, `first_row` the
// row (in the row group) of their first value. A dictionary page comes in a
// run of its own with first_row 0.
struct PageRun {
  const uint8_t* bytes = nullptr;
  size_t len = 0;
  uint64_t file_offset = 0;
  int64_t first_row = 0;
};

// Decodes the data pages of `runs` (in row order) that hold a row of `keep`;
// the others are skipped by their headers (neither decompressed nor
// decoded). Without `whole_chunk` each run is walked to its end; with it the
// single run is a whole column chunk, walked until the row group's rows are
// read. `decoded` receives the row ranges the output holds, in order (whole
// pages: a superset of `keep` where pages straddle its bounds), and counts.
struct PagesDecoded {
  std::vector<RowRange> rows;  // the rows the output holds, in order
  int64_t pages_decoded = 0;
  int64_t pages_skipped = 0;   // walked past by their headers
};
Result<ColumnArray> decode_column_pages(const std::vector<PageRun>& runs, bool whole_chunk,
                                        const ColumnDescriptor& column, int32_t codec, int64_t num_rows,
                                        const std::vector<RowRange>& keep, PagesDecoded* decoded,
                                        const ColumnReadOptions& options = {}, const std::string& where = "");

// The values of a chunk's dictionary page (`bytes`: the page, header first)
// in the layout of `options` (fixed-width and binary layouts).
Result<ColumnArray> decode_dictionary_page(const uint8_t* bytes, size_t len, uint64_t file_offset,
                                           const ColumnDescriptor& column, int32_t codec,
                                           const ColumnReadOptions& options = {}, const std::string& where = "");

// The rows of `column` (whose values are the rows `decoded` lists, in order)
// that `selection` (a bitmap over the row group's rows, LSB first) selects,
// as a new array; `selected` is their count.
Result<ColumnArray> take_selected(ColumnArray&& column, const std::vector<RowRange>& decoded,
                                  const uint64_t* selection, int64_t selected);

// Compression codecs this build reads (parquet.thrift numbers): 0 always.
bool codec_supported(int32_t codec);

// The compression libraries a build may link ("snappy", "zlib", "zstd",
// "lz4", "brotli"), each with whether this build has it: a source build
// configured with PQFAST_ALLOW_MISSING_CODECS may lack some, and callers
// (pqfast.build_info(), `pqfast --version`) report which.
struct CodecLibrary {
  const char* name;
  bool built_in;
};
std::vector<CodecLibrary> codec_libraries();

}  // namespace pqfast::parquet
