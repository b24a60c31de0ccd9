// pqfast index: the lossless Thrift re-encoder, and filters appended to
// parquet-testing files (values present, old bytes untouched, idempotence,
// the dictionary-only path, INT96, a concurrent writer, hostile footers).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "index/chunk_filter.h"
#include "parquet/decode.h"
#include "parquet_test_util.h"
#include "pqfast/hash.h"
#include "pqfast/index.h"
#include "pqfast/page_index.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "thrift/compact.h"
#include "thrift/compact_rewrite.h"

namespace pqfast {
namespace {

namespace fs = std::filesystem;
namespace pq = pqfast::parquet;
using thrift::CType;

const fs::path kData = PQFAST_TEST_DATA_DIR;

// The serialized FileMetaData of a file's bytes (empty when no PAR1 trailer).
std::vector<uint8_t> footer_of(const std::vector<uint8_t>& file) {
  if (file.size() < 12 || std::memcmp(file.data() + file.size() - 4, "PAR1", 4) != 0) return {};
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  if (len > file.size() - 8) return {};
  return std::vector<uint8_t>(file.end() - 8 - len, file.end() - 8);
}

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = fs::temp_directory_path() / ("pqfast_index_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  // A copy of a parquet-testing file in the directory.
  std::string copy(const std::string& name) const {
    const fs::path to = path_ / name;
    fs::copy_file(kData / name, to, fs::copy_options::overwrite_existing);
    return to.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// ---- the re-encoder ------------------------------------------------------------

TEST(CompactRewrite, EmptyPatchGivesTheSameBytesForEveryTestingFooter) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(kData)) {
    if (entry.path().extension() != ".parquet") continue;
    const auto footer = footer_of(testing::read_all(entry.path().string()));
    if (footer.empty()) continue;
    std::vector<uint8_t> out;
    size_t consumed = 0;
    thrift::StructPatch none;
    Status st = thrift::rewrite_struct(footer.data(), footer.size(), none, &out, &consumed, "FileMetaData");
    ASSERT_TRUE(st.ok()) << entry.path() << ": " << st.error().to_string();
    EXPECT_EQ(consumed, footer.size()) << entry.path();
    EXPECT_EQ(out, footer) << entry.path();
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

// A struct with unknown fields around the ones a patch inserts.
std::vector<uint8_t> sample_struct() {
  std::vector<uint8_t> b;
  thrift::CompactWriter w(&b);
  w.begin_struct();
  w.write_i32_field(1, 7);
  w.field_header(CType::kStruct, 3);
  w.begin_struct();
  w.write_i64_field(13, -5);
  w.write_binary_field(16, "after");
  w.field_header(CType::kList, 99);  // list<i32> of 3
  b.push_back(0x35);
  w.write_zigzag(1);
  w.write_zigzag(2);
  w.write_zigzag(3);
  w.field_header(CType::kBoolTrue, 100);
  w.end_struct();
  w.write_binary_field(200, "future field");
  w.end_struct();
  return b;
}

TEST(CompactRewrite, InsertsInIdOrderAndKeepsEveryOtherField) {
  const auto in = sample_struct();
  thrift::StructPatch patch;
  auto& child = patch.child_at(3);
  child.set[14] = thrift::EncodedField::i64(123456789012);
  child.set[15] = thrift::EncodedField::i32(4242);
  std::vector<uint8_t> out;
  size_t consumed = 0;
  ASSERT_TRUE(thrift::rewrite_struct(in.data(), in.size(), patch, &out, &consumed, "test").ok());
  EXPECT_EQ(consumed, in.size());

  thrift::CompactReader r(out.data(), out.size(), "out");
  ASSERT_TRUE(r.begin_struct().ok());
  std::vector<int> ids, child_ids;
  int64_t f14 = 0;
  int32_t f15 = 0;
  std::string_view f16, f200;
  while (true) {
    auto h = r.read_field_header();
    ASSERT_TRUE(h.ok());
    if (h->is_stop()) break;
    ids.push_back(h->id);
    if (h->id == 3) {
      ASSERT_TRUE(r.begin_struct().ok());
      while (true) {
        auto g = r.read_field_header();
        ASSERT_TRUE(g.ok());
        if (g->is_stop()) break;
        child_ids.push_back(g->id);
        if (g->id == 14) f14 = *r.read_i64();
        else if (g->id == 15) f15 = *r.read_i32();
        else if (g->id == 16) f16 = *r.read_binary();
        else ASSERT_TRUE(r.skip(g->type).ok());
      }
      ASSERT_TRUE(r.end_struct().ok());
    } else if (h->id == 200) {
      f200 = *r.read_binary();
    } else {
      ASSERT_TRUE(r.skip(h->type).ok());
    }
  }
  EXPECT_EQ(ids, (std::vector<int>{1, 3, 200}));
  EXPECT_EQ(child_ids, (std::vector<int>{13, 14, 15, 16, 99, 100}));
  EXPECT_EQ(f14, 123456789012);
  EXPECT_EQ(f15, 4242);
  EXPECT_EQ(f16, "after");
  EXPECT_EQ(f200, "future field");
  EXPECT_EQ(r.remaining(), 0u);

  // Patching again replaces the values instead of adding fields.
  thrift::StructPatch again;
  again.child_at(3).set[14] = thrift::EncodedField::i64(1);
  std::vector<uint8_t> out2;
  ASSERT_TRUE(thrift::rewrite_struct(out.data(), out.size(), again, &out2, &consumed, "test").ok());
  EXPECT_EQ(out2.size(), out.size() - (thrift::EncodedField::i64(123456789012).bytes.size() - 1));
}

TEST(CompactRewrite, RefusesRepeatsWrongTypesAndMissingElements) {
  const auto in = sample_struct();
  std::vector<uint8_t> out;
  size_t consumed = 0;
  thrift::StructPatch wrong_type;
  wrong_type.child_at(1);  // field 1 is an i32, not a struct
  Status st = thrift::rewrite_struct(in.data(), in.size(), wrong_type, &out, &consumed, "test");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kCorrupt);
  EXPECT_TRUE(out.empty());  // nothing left behind on error

  thrift::StructPatch not_list;
  not_list.element_at(3, 0);
  EXPECT_FALSE(thrift::rewrite_struct(in.data(), in.size(), not_list, &out, &consumed, "test").ok());

  // A field the patch sets, repeated in the input: refused.
  std::vector<uint8_t> rep;
  thrift::CompactWriter w(&rep);
  w.begin_struct();
  w.write_i32_field(2, 1);
  w.write_i32_field(1, 1);  // long form: id goes down
  w.write_i32_field(2, 1);
  w.end_struct();
  thrift::StructPatch set2;
  set2.set[2] = thrift::EncodedField::i32(9);
  st = thrift::rewrite_struct(rep.data(), rep.size(), set2, &out, &consumed, "test");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("twice"), std::string::npos) << st.error().message;
}

// A patch like pqfast index's on a real footer: every truncation is an error
// and random mutations never crash (the ASan build replays this).
TEST(CompactRewrite, HostileFootersGiveErrors) {
  const auto footer = footer_of(testing::read_all((kData / "alltypes_plain.parquet").string()));
  ASSERT_FALSE(footer.empty());
  thrift::StructPatch patch;
  for (uint32_t leaf = 0; leaf < 3; ++leaf) {
    auto& m = patch.element_at(4, 0).element_at(1, leaf).child_at(3);
    m.set[14] = thrift::EncodedField::i64(1000);
    m.set[15] = thrift::EncodedField::i32(40);
  }
  std::vector<uint8_t> out;
  size_t consumed = 0;
  ASSERT_TRUE(thrift::rewrite_struct(footer.data(), footer.size(), patch, &out, &consumed, "FileMetaData").ok());
  for (size_t n = 0; n < footer.size(); ++n) {
    out.clear();
    Status st = thrift::rewrite_struct(footer.data(), n, patch, &out, &consumed, "FileMetaData");
    EXPECT_FALSE(st.ok()) << "truncated to " << n;
  }
  std::mt19937 rng(18);
  int ok = 0, failed = 0;
  for (int i = 0; i < 3000; ++i) {
    auto bad = footer;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    out.clear();
    Status st = thrift::rewrite_struct(bad.data(), bad.size(), patch, &out, &consumed, "FileMetaData");
    if (st.ok()) {
      ++ok;
      EXPECT_LE(consumed, bad.size());
    } else {
      ++failed;
      EXPECT_FALSE(st.error().message.empty());
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(ok + failed, 0);
}

// ---- index_local_file --------------------------------------------------------------

// Every non-null value of every indexed chunk is in its filter. Values are
// read back with the default layouts; INT96 is rebuilt from nanoseconds.
void expect_values_in_filters(const std::string& path, const std::vector<std::string>& columns,
                              int* chunks_checked) {
  auto file = pq::LocalFile::open(path);
  ASSERT_TRUE(file.ok());
  auto meta = pq::read_file_metadata(**file);
  ASSERT_TRUE(meta.ok()) << meta.error().to_string();
  for (const auto& name : columns) {
    const int leaf = meta->find_column(name);
    ASSERT_GE(leaf, 0);
    const auto& d = meta->columns[static_cast<size_t>(leaf)];
    for (size_t g = 0; g < meta->row_groups.size(); ++g) {
      const auto& c = meta->row_groups[g].columns[static_cast<size_t>(leaf)];
      auto bf = pq::load_bloom_filter(**file, c);
      ASSERT_TRUE(bf.ok()) << bf.error().to_string();
      ASSERT_TRUE(bf->has_value()) << name << " rg " << g;
      auto col = pq::read_column_chunk(**file, *meta, static_cast<int>(g), leaf);
      ASSERT_TRUE(col.ok()) << col.error().to_string();
      const auto& impl = *col->impl();
      for (int64_t i = 0; i < impl.length; ++i) {
        if (impl.nullable && impl.validity.size() && !((impl.validity.data()[i >> 3] >> (i & 7)) & 1)) continue;
        uint64_t h;
        if (d.physical_type == PhysicalType::kByteArray) {
          const auto* o = reinterpret_cast<const int32_t*>(impl.values.data());
          h = xxh64(impl.data.data() + o[i], static_cast<size_t>(o[i + 1] - o[i]));
        } else if (d.physical_type == PhysicalType::kInt96) {
          continue;  // checked by expect_int96_in_filter
        } else {
          h = xxh64(impl.values.data() + i * impl.width, static_cast<size_t>(impl.width));
        }
        EXPECT_TRUE((*bf)->view().check_hash(h)) << name << " rg " << g << " value " << i;
      }
      ++*chunks_checked;
    }
  }
}

// INT96: the 12 raw bytes are hashed. The reader converts them to
// nanoseconds (wrapping, so out-of-range values do not invert): the chunk's
// dictionary page, decoded as FIXED_LEN_BYTE_ARRAY(12), gives the raw values;
// each converts to a value the reader returns, and each is in the filter.
void expect_int96_in_filter(const std::string& path, int leaf) {
  auto file = pq::LocalFile::open(path);
  ASSERT_TRUE(file.ok());
  auto meta = pq::read_file_metadata(**file);
  ASSERT_TRUE(meta.ok());
  const auto& c = meta->row_groups[0].columns[static_cast<size_t>(leaf)];
  ASSERT_GT(c.dictionary_page_offset, 0);
  std::vector<uint8_t> bytes(static_cast<size_t>(c.total_compressed_size));
  ASSERT_TRUE((*file)->read_at(static_cast<uint64_t>(c.dictionary_page_offset), bytes.size(), bytes.data()).ok());
  pq::ColumnDescriptor flba = meta->columns[static_cast<size_t>(leaf)];
  flba.physical_type = PhysicalType::kFixedLenByteArray;
  flba.type_length = 12;
  pq::ColumnReadOptions opts;
  opts.layout = pq::ArrowLayout::kFixedSizeBinary;
  auto ph = pq::parse_page_header(bytes.data(), bytes.size());
  ASSERT_TRUE(ph.ok());
  ASSERT_EQ(ph->type, pq::PageType::kDictionaryPage);
  const size_t page_len = ph->header_size + static_cast<size_t>(ph->compressed_page_size);
  ASSERT_LE(page_len, bytes.size());
  auto dict = pq::decode_dictionary_page(bytes.data(), page_len, static_cast<uint64_t>(c.dictionary_page_offset),
                                         flba, c.codec, opts);
  ASSERT_TRUE(dict.ok()) << dict.error().to_string();
  auto bf = pq::load_bloom_filter(**file, c);
  ASSERT_TRUE(bf.ok() && bf->has_value());
  std::vector<int64_t> converted;
  const auto& di = *dict->impl();
  for (int64_t i = 0; i < di.length; ++i) {
    const uint8_t* raw = di.values.data() + i * 12;
    EXPECT_TRUE((*bf)->view().check_hash(xxh64(raw, 12))) << "dictionary value " << i;
    uint64_t nanos;
    uint32_t day;
    std::memcpy(&nanos, raw, 8);
    std::memcpy(&day, raw + 8, 4);
    converted.push_back(static_cast<int64_t>((uint64_t{day} - 2440588u) * 86400000000000ull + nanos));
  }
  auto col = pq::read_column_chunk(**file, *meta, 0, leaf);
  ASSERT_TRUE(col.ok());
  const auto& impl = *col->impl();
  int64_t valid = 0;
  for (int64_t i = 0; i < impl.length; ++i) {
    if (impl.nullable && impl.validity.size() && !((impl.validity.data()[i >> 3] >> (i & 7)) & 1)) continue;
    int64_t ns;
    std::memcpy(&ns, impl.values.data() + i * 8, 8);
    EXPECT_NE(std::find(converted.begin(), converted.end(), ns), converted.end()) << "row " << i;
    ++valid;
  }
  EXPECT_GT(valid, 0);
}

TEST(Index, AppendsFiltersLeavesOldBytesAndIsIdempotent) {
  TempDir dir("plain");
  const std::string path = dir.copy("alltypes_plain.parquet");
  const auto before = testing::read_all(path);
  pq::IndexOptions opt;
  opt.columns = {"id", "bigint_col", "float_col", "double_col", "string_col", "timestamp_col", "bool_col"};
  auto r = pq::index_local_file(path, opt);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->outcome, pq::IndexOutcome::kIndexed);
  EXPECT_EQ(r->plan.chunks_indexed, 6);
  EXPECT_EQ(r->plan.chunks_unsupported, 1);  // BOOLEAN
  const auto after = testing::read_all(path);
  ASSERT_EQ(after.size(), before.size() + r->bytes_appended);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));

  int checked = 0;
  expect_values_in_filters(path, {"id", "bigint_col", "float_col", "double_col", "string_col", "timestamp_col"},
                           &checked);
  EXPECT_EQ(checked, 6);

  // The rest of the footer says what it said.
  auto old_meta = pq::parse_file_bytes(before.data(), before.size());
  auto new_meta = pq::parse_file_bytes(after.data(), after.size());
  ASSERT_TRUE(old_meta.ok() && new_meta.ok());
  EXPECT_EQ(new_meta->created_by, old_meta->created_by);
  EXPECT_EQ(new_meta->num_rows, old_meta->num_rows);
  EXPECT_EQ(new_meta->schema.size(), old_meta->schema.size());

  auto again = pq::index_local_file(path, opt);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, pq::IndexOutcome::kUnchanged);
  EXPECT_EQ(again->plan.chunks_had_filter, 6);
  EXPECT_EQ(testing::read_all(path), after);
  // No temporary file is left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Index, PageIndexesParseAndMatchTheValues) {
  TempDir dir("pages");
  const std::string path = dir.copy("alltypes_plain.parquet");
  pq::IndexOptions opt;
  opt.columns = {"id", "string_col", "timestamp_col"};
  auto r = pq::index_local_file(path, opt);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->plan.offset_indexes, 3);
  EXPECT_EQ(r->plan.column_indexes, 2);  // INT96 has no defined order: OffsetIndex only
  auto file = pq::LocalFile::open(path);
  ASSERT_TRUE(file.ok());
  auto meta = pq::read_file_metadata(**file);
  ASSERT_TRUE(meta.ok());
  for (const std::string& name : opt.columns) {
    const int leaf = meta->find_column(name);
    const auto& c = meta->row_groups[0].columns[static_cast<size_t>(leaf)];
    ASSERT_GE(c.offset_index_offset, 0) << name;
    std::vector<uint8_t> b(static_cast<size_t>(c.offset_index_length));
    ASSERT_TRUE((*file)->read_at(static_cast<uint64_t>(c.offset_index_offset), b.size(), b.data()).ok());
    auto oi = pq::parse_offset_index(b.data(), b.size());
    ASSERT_TRUE(oi.ok()) << oi.error().to_string();
    EXPECT_TRUE(pq::validate_offset_index(*oi, (*file)->size(), meta->row_groups[0].num_rows, path).ok());
    ASSERT_EQ(oi->page_locations.size(), 1u);  // one data page per chunk in this file
    EXPECT_EQ(oi->page_locations[0].offset, c.data_page_offset);
    if (name == "timestamp_col") {
      EXPECT_LT(c.column_index_offset, 0);
      continue;
    }
    ASSERT_GE(c.column_index_offset, 0) << name;
    b.resize(static_cast<size_t>(c.column_index_length));
    ASSERT_TRUE((*file)->read_at(static_cast<uint64_t>(c.column_index_offset), b.size(), b.data()).ok());
    auto ci = pq::parse_column_index(b.data(), b.size());
    ASSERT_TRUE(ci.ok()) << ci.error().to_string();
    ASSERT_EQ(ci->num_pages(), 1u);
    EXPECT_FALSE(ci->null_pages[0]);
    // The chunk's own statistics give the same bounds (alltypes_plain: ids 0..7, strings "0"/"1").
    if (name == "id") {
      int32_t lo, hi;
      std::memcpy(&lo, ci->min_values[0].data(), 4);
      std::memcpy(&hi, ci->max_values[0].data(), 4);
      EXPECT_EQ(lo, 0);
      EXPECT_EQ(hi, 7);
    } else {
      EXPECT_EQ(ci->min_values[0], "0");
      EXPECT_EQ(ci->max_values[0], "1");
    }
    EXPECT_EQ(ci->null_counts, std::vector<int64_t>{0});
  }
  // A second run adds nothing: the chunks have filters and page indexes now.
  auto again = pq::index_local_file(path, opt);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->outcome, pq::IndexOutcome::kUnchanged);
}

TEST(Index, DictionaryProofFromPageHeadersWhenTheFooterGivesNone) {
  TempDir dir("dict");
  const std::string path = dir.copy("alltypes_dictionary.parquet");
  pq::IndexOptions opt;
  opt.columns = {"id", "string_col", "int_col"};
  opt.page_index = false;
  // Impala lists PLAIN beside PLAIN_DICTIONARY and gives no encoding_stats:
  // the footer proves nothing, the page headers do (every data page
  // PLAIN_DICTIONARY), so only the dictionary pages are decoded.
  auto r = pq::index_local_file(path, opt);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->plan.chunks_indexed, 3);
  EXPECT_EQ(r->plan.chunks_from_dictionary, 3);
  int checked = 0;
  expect_values_in_filters(path, opt.columns, &checked);
  EXPECT_EQ(checked, 3);
}

TEST(Index, ThreadsDoNotChangeTheBytes) {
  for (const std::string name : {"alltypes_plain.parquet", "alltypes_tiny_pages_plain.parquet",
                                 "delta_encoding_optional_column.parquet"}) {
    auto file = pq::LocalFile::open((kData / name).string());
    ASSERT_TRUE(file.ok());
    auto meta = pq::read_file_metadata(**file);
    ASSERT_TRUE(meta.ok());
    pq::IndexOptions opt;
    for (const auto& c : meta->columns) opt.columns.push_back(c.dotted_path);
    auto one = pq::plan_index(**file, opt);
    ASSERT_TRUE(one.ok()) << one.error().to_string();
    opt.threads = 4;
    auto four = pq::plan_index(**file, opt);
    ASSERT_TRUE(four.ok());
    EXPECT_EQ(one->tail, four->tail) << name;
    EXPECT_EQ(one->chunks_indexed, four->chunks_indexed);
    EXPECT_GT(one->chunks_indexed, 0);
  }
  // An error in one chunk is the plan's error, whatever the threads.
  TempDir dir("threads");
  auto bytes = testing::read_all(kData / "alltypes_plain.parquet");
  auto meta = pq::parse_file_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(meta.ok());
  const auto& c = meta->row_groups[0].columns[0];
  bytes[static_cast<size_t>(c.data_page_offset)] = 0xff;  // a page header that does not parse
  pq::BufferFile buf(bytes.data(), bytes.size(), "broken.parquet");
  pq::IndexOptions opt;
  opt.columns = {meta->columns[0].dotted_path, meta->columns[1].dotted_path};
  opt.threads = 3;
  auto r = pq::plan_index(buf, opt);
  EXPECT_FALSE(r.ok());
}

TEST(Index, DistinctCountKeepsOneOfEachHash) {
  std::vector<uint64_t> h = {5, 0, 7, 5, 0, 9, 7, 1ull << 63, 1ull << 63};
  EXPECT_EQ(pq::index::count_distinct(&h), 5u);
  EXPECT_EQ(h, (std::vector<uint64_t>{5, 0, 7, 9, 1ull << 63}));
  std::vector<uint64_t> many;
  for (uint64_t i = 0; i < 100000; ++i) many.push_back(xxh64(&i, 8) | 1);
  for (uint64_t i = 0; i < 50000; ++i) many.push_back(many[i * 2]);
  EXPECT_EQ(pq::index::count_distinct(&many), 100000u);
  std::vector<uint64_t> none;
  EXPECT_EQ(pq::index::count_distinct(&none), 0u);
}

TEST(Index, DictionaryOnlyNeedsProofFromTheFooter) {
  pq::ColumnChunk c;
  c.encodings = {8, 3};  // RLE_DICTIONARY, RLE
  EXPECT_TRUE(pq::index::dictionary_only(c, nullptr, 0));
  c.encodings = {0, 8, 3};  // PLAIN may be a fallback data page's
  EXPECT_FALSE(pq::index::dictionary_only(c, nullptr, 0));
  c.encodings = {3};
  EXPECT_FALSE(pq::index::dictionary_only(c, nullptr, 0));
}

TEST(Index, Int96AndKeyValueMetadataFiles) {
  TempDir dir("int96");
  for (const std::string name : {"int96_from_spark.parquet", "column_chunk_key_value_metadata.parquet"}) {
    const std::string path = dir.copy(name);
    const auto before = testing::read_all(path);
    auto old_meta = pq::parse_file_bytes(before.data(), before.size());
    ASSERT_TRUE(old_meta.ok());
    if (!pq::codec_supported(old_meta->row_groups.at(0).columns.at(0).codec)) {
      continue;  // a build without the file's codec library (PQFAST_ALLOW_MISSING_CODECS)
    }
    pq::IndexOptions opt;
    opt.columns = {old_meta->columns[0].dotted_path};
    auto r = pq::index_local_file(path, opt);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_GT(r->plan.chunks_indexed, 0) << name;
    const auto after = testing::read_all(path);
    auto new_meta = pq::parse_file_bytes(after.data(), after.size());
    ASSERT_TRUE(new_meta.ok());
    ASSERT_EQ(new_meta->key_value_metadata.size(), old_meta->key_value_metadata.size());
    for (size_t i = 0; i < new_meta->key_value_metadata.size(); ++i) {
      EXPECT_EQ(new_meta->key_value_metadata[i].key, old_meta->key_value_metadata[i].key);
      EXPECT_EQ(new_meta->key_value_metadata[i].value, old_meta->key_value_metadata[i].value);
    }
    // The old footer's bytes differ from the new one only by the inserted
    // fields: every byte of the old footer appears, in order, in the new one.
    const auto old_footer = footer_of(before), new_footer = footer_of(after);
    size_t j = 0;
    for (size_t i = 0; i < new_footer.size() && j < old_footer.size(); ++i) {
      if (new_footer[i] == old_footer[j]) ++j;
    }
    EXPECT_EQ(j, old_footer.size()) << name;
    if (old_meta->columns[0].physical_type == PhysicalType::kInt96) {
      EXPECT_EQ(r->plan.chunks_from_dictionary, r->plan.chunks_indexed);  // PLAIN_DICTIONARY, RLE, BIT_PACKED
      expect_int96_in_filter(path, 0);
    }
  }
}

TEST(Index, AFileChangedMeanwhileIsLeftAlone) {
  TempDir dir("conflict");
  const std::string path = dir.copy("alltypes_plain.parquet");
  auto theirs = testing::read_all(path);
  theirs.insert(theirs.begin() + 4, 'x');  // another writer's version of the file
  pq::IndexOptions opt;
  opt.columns = {"id"};
  opt.before_commit = [&] { write_all(path, theirs); };
  auto r = pq::index_local_file(path, opt);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->outcome, pq::IndexOutcome::kConflict);
  EXPECT_EQ(r->bytes_appended, 0u);
  EXPECT_EQ(testing::read_all(path), theirs);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);

  // Replaced by rename (same size, other inode): also a conflict.
  const std::string path2 = dir.copy("alltypes_dictionary.parquet");
  const auto original = testing::read_all(path2);
  opt.before_commit = [&] {
    write_all(path2 + ".new", original);
    fs::rename(path2 + ".new", path2);
  };
  auto r2 = pq::index_local_file(path2, opt);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->outcome, pq::IndexOutcome::kConflict);
  EXPECT_EQ(testing::read_all(path2), original);

  // Rewritten in place with the same size and its mtime put back (as a
  // write inside one coarse timestamp tick looks): the footer bytes differ.
  const std::string path3 = dir.copy("alltypes_tiny_pages_plain.parquet");
  auto changed = testing::read_all(path3);
  changed[changed.size() - 20] ^= 0x01;  // inside the footer
  struct stat st0;
  ASSERT_EQ(::stat(path3.c_str(), &st0), 0);
  opt.before_commit = [&] {
    std::fstream f(path3, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(changed.size() - 20));
    f.put(static_cast<char>(changed[changed.size() - 20]));
    f.close();
    const struct timespec times[2] = {st0.st_atim, st0.st_mtim};
    ::utimensat(AT_FDCWD, path3.c_str(), times, 0);
  };
  auto r3 = pq::index_local_file(path3, opt);
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->outcome, pq::IndexOutcome::kConflict);
  EXPECT_EQ(testing::read_all(path3), changed);
}

TEST(Index, ASymbolicLinkIsFollowedAndStaysALink) {
  TempDir dir("link");
  const std::string target = dir.copy("alltypes_plain.parquet");
  const std::string link = (dir.path() / "link.parquet").string();
  fs::create_symlink(target, link);
  const auto before = testing::read_all(target);
  pq::IndexOptions opt;
  opt.columns = {"id"};
  auto r = pq::index_local_file(link, opt);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->outcome, pq::IndexOutcome::kIndexed);
  EXPECT_TRUE(fs::is_symlink(link));
  const auto after = testing::read_all(target);
  EXPECT_EQ(after.size(), before.size() + r->bytes_appended);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));
}

TEST(Index, DryRunWritesNothingAndErrorsNameTheFile) {
  TempDir dir("dry");
  const std::string path = dir.copy("alltypes_plain.parquet");
  const auto before = testing::read_all(path);
  pq::IndexOptions opt;
  opt.columns = {"id"};
  opt.dry_run = true;
  auto r = pq::index_local_file(path, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outcome, pq::IndexOutcome::kIndexed);
  EXPECT_GT(r->bytes_appended, 0u);
  EXPECT_EQ(testing::read_all(path), before);

  opt.columns = {"no_such_column"};
  auto missing = pq::index_local_file(path, opt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("alltypes_plain.parquet"), std::string::npos);
  opt.columns = {"id"};
  opt.fpp = 1.5;
  EXPECT_EQ(pq::index_local_file(path, opt).error().code, ErrorCode::kInvalidArgument);

  // Encrypted footers are refused.
  const std::string enc = dir.copy("encrypt_columns_and_footer.parquet.encrypted");
  opt.fpp = 0.01;
  auto e = pq::index_local_file(enc, opt);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, ErrorCode::kUnsupported);
}

TEST(Index, HostileFootersNeverCrashAndNeverWriteAnUnreadableFile) {
  TempDir dir("hostile");
  const auto good = testing::read_all(kData / "alltypes_plain.parquet");
  uint32_t flen;
  std::memcpy(&flen, good.data() + good.size() - 8, 4);
  const size_t footer_start = good.size() - 8 - flen;
  std::mt19937 rng(1818);
  const std::string path = (dir.path() / "m.parquet").string();
  int ok = 0, failed = 0;
  for (int i = 0; i < 150; ++i) {
    auto bad = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < flips; ++k) bad[footer_start + rng() % flen] = static_cast<uint8_t>(rng());
    write_all(path, bad);
    pq::IndexOptions opt;
    opt.columns = {"id", "string_col"};
    auto r = pq::index_local_file(path, opt);
    if (!r.ok()) {
      ++failed;
      EXPECT_FALSE(r.error().message.empty());
      EXPECT_EQ(testing::read_all(path), bad);  // left as it was
      continue;
    }
    ++ok;
    const auto after = testing::read_all(path);
    EXPECT_TRUE(std::equal(bad.begin(), bad.end(), after.begin()));
    if (r->outcome == pq::IndexOutcome::kIndexed) {
      EXPECT_TRUE(pq::parse_file_bytes(after.data(), after.size()).ok());
    }
  }
  std::printf("hostile footers: %d indexed or unchanged, %d errors\n", ok, failed);
  EXPECT_GT(failed, 0);
  EXPECT_GT(ok + failed, 0);
}

}  // namespace
}  // namespace pqfast
