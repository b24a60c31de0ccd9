// The Parquet layer: footers of the parquet-testing files, page headers,
// Bloom filter loading with and without bloom_filter_length, pruning, and
// malformed input (truncated, corrupted, hostile) giving errors, never crashes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pqfast/hash.h"
#include "parquet_test_util.h"
#include "pqfast/parquet.h"
#include "test_util.h"
#include "thrift/compact.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;

std::string data_path(const std::string& name) { return std::string(PQFAST_TEST_DATA_DIR) + "/" + name; }

using pqfast::testing::read_all;

const std::vector<std::string> kBloomWords = {"Hello", "This is", "a", "test", "How", "are you", "doing ",
                                              "today", "the quick", "brown fox", "jumps", "over",
                                              "the lazy", "dog"};

using pqfast::testing::strings;

TEST(ParquetFooter, AlltypesPlain) {
  auto f = pq::LocalFile::open(data_path("alltypes_plain.parquet"));
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  auto m = pq::read_file_metadata(**f);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->num_rows, 8);
  ASSERT_EQ(m->row_groups.size(), 1u);
  ASSERT_EQ(m->columns.size(), 11u);
  EXPECT_EQ(m->columns[0].dotted_path, "id");
  EXPECT_EQ(m->columns[0].physical_type, PhysicalType::kInt32);
  EXPECT_EQ(m->find_column("string_col"), 9);
  EXPECT_EQ(m->find_column("nope"), -1);
  const auto& c = m->row_groups[0].columns[0];
  EXPECT_TRUE(c.has_meta_data);
  EXPECT_EQ(c.num_values, 8);
  ASSERT_EQ(c.encodings.size(), 3u);
  EXPECT_STREQ(pq::encoding_name(c.encodings[1]), "PLAIN_DICTIONARY");
  EXPECT_EQ(c.dictionary_page_offset, 4);
  EXPECT_EQ(c.data_page_offset, 49);
  EXPECT_EQ(c.bloom_filter_offset, -1);
}

TEST(ParquetFooter, NestedSchemaLevels) {
  auto bytes = read_all(data_path("nested_lists.snappy.parquet"));
  auto m = pq::parse_file_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_FALSE(m->columns.empty());
  EXPECT_GT(m->columns[0].max_repetition_level, 0);
  EXPECT_GT(m->columns[0].path.size(), 1u);
}

TEST(ParquetFooter, EveryDataFileParsesOrErrorsCleanly) {
  // Files pyarrow reads must parse; others must give an error with a message.
  const char* files[] = {"alltypes_dictionary.parquet", "alltypes_tiny_pages.parquet", "binary.parquet",
                         "byte_array_decimal.parquet", "datapage_v2.snappy.parquet",
                         "delta_binary_packed.parquet", "dict-page-offset-zero.parquet",
                         "fixed_length_decimal.parquet", "int96_from_spark.parquet",
                         "nested_structs.rust.parquet", "nulls.snappy.parquet", "sort_columns.parquet",
                         "unknown-logical-type.parquet", "encrypt_columns_plaintext_footer.parquet.encrypted"};
  for (const char* name : files) {
    auto f = pq::LocalFile::open(data_path(name));
    ASSERT_TRUE(f.ok()) << name;
    auto m = pq::read_file_metadata(**f);
    EXPECT_TRUE(m.ok()) << name << ": " << m.error().to_string();
  }
}

TEST(ParquetFooter, EncryptedFooterIsUnsupported) {
  auto f = pq::LocalFile::open(data_path("uniform_encryption.parquet.encrypted"));
  ASSERT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(m.error().message.find("encrypted"), std::string::npos);
  EXPECT_NE(m.error().message.find("uniform_encryption"), std::string::npos);
}

TEST(ParquetFooter, TruncatedAtEveryLengthIsAnError) {
  auto bytes = read_all(data_path("data_index_bloom_encoding_stats.parquet"));
  ASSERT_GT(bytes.size(), 100u);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    pq::BufferFile f(bytes.data(), cut, "cut");
    auto m = pq::read_file_metadata(f);
    EXPECT_FALSE(m.ok()) << cut;
    if (!m.ok()) EXPECT_FALSE(m.error().message.empty());
  }
}

TEST(ParquetFooter, CorruptedFootersNeverCrash) {
  for (const char* name : {"alltypes_plain.parquet", "nested_structs.rust.parquet",
                           "data_index_bloom_encoding_with_length.parquet"}) {
    auto bytes = read_all(data_path(name));
    uint32_t footer_len;
    std::memcpy(&footer_len, bytes.data() + bytes.size() - 8, 4);
    const size_t start = bytes.size() - 8 - footer_len;
    std::mt19937_64 rng(42);
    for (int iter = 0; iter < 2000; ++iter) {
      auto b = bytes;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < flips; ++k) b[start + rng() % footer_len] = static_cast<uint8_t>(rng());
      auto m = pq::parse_file_bytes(b.data(), b.size());
      if (!m.ok()) EXPECT_FALSE(m.error().message.empty());
    }
  }
}

TEST(ParquetFooter, IterativeSkipEqualsRecursiveSkip) {
  // The fast skip used for unprojected columns against the recursive reference,
  // on real footers and on mutated ones: same success, same end position.
  for (const char* name : {"alltypes_plain.parquet", "nested_structs.rust.parquet",
                           "data_index_bloom_encoding_with_length.parquet", "nested_maps.snappy.parquet",
                           "sort_columns.parquet"}) {
    auto bytes = read_all(data_path(name));
    uint32_t footer_len;
    std::memcpy(&footer_len, bytes.data() + bytes.size() - 8, 4);
    const uint8_t* footer = bytes.data() + bytes.size() - 8 - footer_len;
    std::mt19937_64 rng(99);
    for (int iter = 0; iter < 3000; ++iter) {
      std::vector<uint8_t> b(footer, footer + footer_len);
      if (iter > 0) {
        for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) b[rng() % b.size()] = static_cast<uint8_t>(rng());
      }
      const size_t start = iter == 0 ? 0 : rng() % b.size();
      thrift::CompactReader a(b.data() + start, b.size() - start, "x");
      thrift::CompactReader r(b.data() + start, b.size() - start, "x");
      const auto type = iter % 3 == 0 ? thrift::CType::kStruct : static_cast<thrift::CType>(1 + rng() % 12);
      const bool ok_fast = a.skip(type).ok();
      const bool ok_ref = r.skip_recursive(type).ok();
      ASSERT_EQ(ok_fast, ok_ref) << name << " iter " << iter;
      if (ok_fast) ASSERT_EQ(a.position(), r.position()) << name << " iter " << iter;
      if (iter == 0) ASSERT_EQ(a.position(), b.size());
    }
  }
}

// FileMetaData{version 1, schema [root{1 child}, a: INT64], num_rows 0,
// row_groups [RowGroup{columns: `chunks` empty ColumnChunks, 0, 0}]}.
std::vector<uint8_t> footer_with_chunks(int chunks) {
  using thrift::CType;
  std::vector<uint8_t> out;
  thrift::CompactWriter w(&out);
  w.begin_struct();
  w.write_i32_field(1, 1);
  w.field_header(CType::kList, 2);
  out.push_back(static_cast<uint8_t>((2 << 4) | static_cast<int>(CType::kStruct)));
  w.begin_struct();
  w.write_binary_field(4, "schema");
  w.write_i32_field(5, 1);
  w.end_struct();
  w.begin_struct();
  w.write_i32_field(1, 2);
  w.write_i32_field(3, 0);
  w.write_binary_field(4, "a");
  w.end_struct();
  w.write_i64_field(3, 0);
  w.field_header(CType::kList, 4);
  out.push_back(static_cast<uint8_t>((1 << 4) | static_cast<int>(CType::kStruct)));
  w.begin_struct();
  w.field_header(CType::kList, 1);
  out.push_back(static_cast<uint8_t>((chunks << 4) | static_cast<int>(CType::kStruct)));
  for (int i = 0; i < chunks; ++i) {
    w.begin_struct();
    w.write_i64_field(2, 4);
    w.end_struct();
  }
  w.write_i64_field(2, 0);
  w.write_i64_field(3, 0);
  w.end_struct();
  w.end_struct();
  return out;
}

TEST(ParquetFooter, RowGroupChunkCountMustMatchTheSchema) {
  // Found by fuzz/parquet_file_fuzz: an empty columns list used to pass.
  auto ok = footer_with_chunks(1);
  auto m = pq::parse_file_metadata(ok.data(), ok.size());
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->row_groups.at(0).columns.size(), 1u);
  for (int n : {0, 2}) {
    auto bad = footer_with_chunks(n);
    auto r = pq::parse_file_metadata(bad.data(), bad.size());
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.error().message.find("column chunks but the schema has 1"), std::string::npos)
        << r.error().message;
  }
}

TEST(ParquetFooter, BadTrailers) {
  auto bytes = read_all(data_path("alltypes_plain.parquet"));
  auto b = bytes;
  std::memcpy(b.data() + b.size() - 4, "PARX", 4);
  auto m = pq::parse_file_bytes(b.data(), b.size());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("magic"), std::string::npos);
  b = bytes;
  const uint32_t huge = static_cast<uint32_t>(b.size());
  std::memcpy(b.data() + b.size() - 8, &huge, 4);
  m = pq::parse_file_bytes(b.data(), b.size());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("footer length"), std::string::npos);
  const uint8_t tiny[] = {'P', 'A', 'R', '1'};
  EXPECT_FALSE(pq::parse_file_bytes(tiny, sizeof tiny).ok());
}

TEST(ParquetFooter, HostileInputIsBounded) {
  // A schema list announcing 2^31 elements in 9 bytes: refused before allocating.
  const uint8_t list[] = {0x15, 0x02, 0x19, 0xFC, 0x80, 0x80, 0x80, 0x80, 0x08};
  auto m = pq::parse_file_metadata(list, sizeof list);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("list announces"), std::string::npos);
  // Structs nested deeper than the limit, in an unknown field (skipped).
  std::vector<uint8_t> deep = {0x15, 0x02};  // version = 1
  deep.push_back(0xFC);                      // field delta 15 -> id 16, struct
  for (int i = 0; i < 200; ++i) deep.push_back(0x1C);
  auto d = pq::parse_file_metadata(deep.data(), deep.size());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, ErrorCode::kLimitExceeded);
  // A footer larger than the limit.
  pq::ParseLimits limits;
  limits.max_footer_bytes = 4;
  EXPECT_EQ(pq::parse_file_metadata(list, sizeof list, 0, limits).error().code, ErrorCode::kLimitExceeded);
}

TEST(ParquetPages, HeadersOfDictionaryAndV2Pages) {
  auto f = pq::LocalFile::open(data_path("alltypes_plain.parquet"));
  ASSERT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  ASSERT_TRUE(m.ok());
  auto hs = pq::read_page_headers(**f, m->row_groups[0].columns[0]);
  ASSERT_TRUE(hs.ok()) << hs.error().to_string();
  ASSERT_EQ(hs->size(), 2u);
  EXPECT_EQ((*hs)[0].type, pq::PageType::kDictionaryPage);
  EXPECT_EQ((*hs)[0].dictionary_page.num_values, 8);
  EXPECT_EQ((*hs)[1].type, pq::PageType::kDataPage);
  EXPECT_EQ((*hs)[1].data_page.num_values, 8);

  auto g = pq::LocalFile::open(data_path("datapage_v2.snappy.parquet"));
  ASSERT_TRUE(g.ok());
  auto m2 = pq::read_file_metadata(**g);
  ASSERT_TRUE(m2.ok());
  bool saw_v2 = false;
  for (const auto& c : m2->row_groups[0].columns) {
    auto h2 = pq::read_page_headers(**g, c);
    ASSERT_TRUE(h2.ok()) << h2.error().to_string();
    for (const auto& h : *h2) saw_v2 |= h.type == pq::PageType::kDataPageV2;
  }
  EXPECT_TRUE(saw_v2);
}

TEST(ParquetPages, MalformedHeaders) {
  // DATA_PAGE without its data_page_header.
  const uint8_t no_body[] = {0x15, 0x00, 0x15, 0x10, 0x15, 0x10, 0x00};
  auto h = pq::parse_page_header(no_body, sizeof no_body, 100);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("data_page_header"), std::string::npos);
  EXPECT_NE(h.error().message.find("100"), std::string::npos);
  for (size_t cut = 0; cut < sizeof no_body; ++cut) EXPECT_FALSE(pq::parse_page_header(no_body, cut).ok());
}

TEST(ParquetBloom, LoadWithoutAndWithLength) {
  struct Case {
    const char* file;
    int64_t offset;
    int32_t length;
    uint32_t bytes;
  } cases[] = {{"data_index_bloom_encoding_stats.parquet", 192, -1, 1024},
               {"data_index_bloom_encoding_with_length.parquet", 253, 2064, 2048}};
  for (const auto& c : cases) {
    auto f = pq::LocalFile::open(data_path(c.file));
    ASSERT_TRUE(f.ok());
    auto m = pq::read_file_metadata(**f);
    ASSERT_TRUE(m.ok());
    const auto& chunk = m->row_groups[0].columns[0];
    EXPECT_EQ(chunk.bloom_filter_offset, c.offset);
    EXPECT_EQ(chunk.bloom_filter_length, c.length);
    auto bf = pq::load_bloom_filter(**f, chunk);
    ASSERT_TRUE(bf.ok()) << bf.error().to_string();
    ASSERT_TRUE(bf->has_value());
    EXPECT_EQ((*bf)->num_bytes(), c.bytes);
    EXPECT_EQ((*bf)->header_size(), 16u);
    for (const auto& w : kBloomWords) EXPECT_TRUE((*bf)->view().check_hash(xxh64(w.data(), w.size()))) << w;
    for (std::string w : {"NOT_EXISTS", "Hello_Not_Exists", "doing"}) {
      EXPECT_FALSE((*bf)->view().check_hash(xxh64(w.data(), w.size()))) << w;
    }
  }
}

TEST(ParquetBloom, OffsetsOutsideTheFile) {
  auto f = pq::LocalFile::open(data_path("data_index_bloom_encoding_with_length.parquet"));
  ASSERT_TRUE(f.ok());
  pq::ColumnChunk c;
  c.bloom_filter_offset = static_cast<int64_t>((*f)->size()) + 5;
  EXPECT_FALSE(pq::load_bloom_filter(**f, c).ok());
  c.bloom_filter_offset = 253;
  c.bloom_filter_length = 1 << 30;
  EXPECT_FALSE(pq::load_bloom_filter(**f, c).ok());
  c.bloom_filter_length = 20;  // header fits, bitset does not
  auto r = pq::load_bloom_filter(**f, c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTruncated);
  c.bloom_filter_offset = 4;  // not a Bloom filter header
  c.bloom_filter_length = -1;
  EXPECT_FALSE(pq::load_bloom_filter(**f, c).ok());
}

TEST(ParquetPrune, BloomFilesOnEveryImplementation) {
  testing::for_each_simd_level([](SimdLevel) {
    for (const char* name : {"data_index_bloom_encoding_stats.parquet",
                             "data_index_bloom_encoding_with_length.parquet"}) {
      auto all = strings(kBloomWords);
      pq::PruneOptions opt;
      opt.per_value = true;
      auto files = pq::prune_files({data_path(name)}, "String", all, opt);
      ASSERT_EQ(files.size(), 1u);
      ASSERT_TRUE(files[0].ok) << files[0].error.to_string();
      ASSERT_EQ(files[0].row_groups.size(), 1u);
      EXPECT_EQ(files[0].row_groups[0].verdict, pq::Verdict::kMaybe);
      EXPECT_EQ(files[0].row_groups[0].maybe, kBloomWords.size());
      auto absent = strings({"NOT_EXISTS", "Hello_Not_Exists", "doing"});
      auto r = pq::prune_files({data_path(name)}, "String", absent, opt);
      ASSERT_TRUE(r[0].ok);
      EXPECT_EQ(r[0].row_groups[0].verdict, pq::Verdict::kAbsentByBloom);
      EXPECT_EQ(r[0].row_groups[0].excluded_by_bloom, 3u);
      // Outside [min, max] = ["Hello", "today"]: statistics decide, no filter read.
      auto outside = strings({"AAA", "zzz"});
      auto s = pq::prune_files({data_path(name)}, "String", outside, opt);
      EXPECT_EQ(s[0].row_groups[0].verdict, pq::Verdict::kAbsentByStats);
    }
  });
}

TEST(ParquetPrune, MutatedFilesNeverCrash) {
  // Corrupt footers, Bloom headers and bitsets, and offsets anywhere in the
  // file: pruning returns verdicts or an error, never reads out of bounds.
  auto values = strings({"Hello", "doing", "zzz", "today"});
  pq::PruneOptions opt;
  opt.per_value = true;
  for (const char* name : {"data_index_bloom_encoding_stats.parquet",
                           "data_index_bloom_encoding_with_length.parquet"}) {
    const auto bytes = read_all(data_path(name));
    std::mt19937_64 rng(7);
    for (int iter = 0; iter < 3000; ++iter) {
      auto b = bytes;
      const int flips = 1 + static_cast<int>(rng() % 6);
      for (int k = 0; k < flips; ++k) {
        // Half of the flips land in the Bloom filter region or the footer.
        const size_t lo = (rng() & 1) ? 150 : 0;
        b[lo + rng() % (b.size() - lo)] = static_cast<uint8_t>(rng());
      }
      if (iter % 7 == 0) b.resize(rng() % b.size());
      pq::BufferFile f(b.data(), b.size(), name);
      auto r = pq::prune_file(f, "String", values, opt);
      if (!r.ok) EXPECT_FALSE(r.error.message.empty());
      auto m = pq::parse_file_bytes(b.data(), b.size());
      if (m.ok()) {
        for (const auto& rg : m->row_groups) {
          for (const auto& c : rg.columns) {
            (void)pq::load_bloom_filter(f, c);
            (void)pq::read_page_headers(f, c);
          }
        }
      }
    }
  }
}

TEST(ParquetPrune, ManyThreadsManyCallsSameAnswers) {
  // Helpers that start late find no work and leave on their own: results
  // must be complete and identical whatever the thread count.
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) {
    paths.push_back(data_path(i % 2 ? "data_index_bloom_encoding_stats.parquet"
                                    : "data_index_bloom_encoding_with_length.parquet"));
  }
  paths.push_back(data_path("missing.parquet"));
  auto values = strings({"Hello", "doing", "zzz"});
  pq::PruneOptions one;
  one.threads = 1;
  one.per_value = true;
  const auto want = pq::prune_files(paths, "String", values, one);
  for (int call = 0; call < 200; ++call) {
    pq::PruneOptions many = one;
    many.threads = 1 + call % 9;
    many.helpers_min_work_us = call % 2 ? 0 : 1000;  // helpers at once, or when the job is long
    size_t callbacks = 0;
    auto got = pq::prune_files(paths, "String", values, many, [&](size_t) { ++callbacks; });
    ASSERT_EQ(callbacks, paths.size());
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].ok, want[i].ok);
      ASSERT_EQ(got[i].row_groups.size(), want[i].row_groups.size());
      for (size_t g = 0; g < got[i].row_groups.size(); ++g) {
        ASSERT_EQ(got[i].row_groups[g].per_value, want[i].row_groups[g].per_value);
      }
    }
  }
}

TEST(ParquetPrune, FooterCacheGivesTheSameAnswers) {
  std::vector<std::string> paths = {data_path("data_index_bloom_encoding_stats.parquet"),
                                    data_path("data_index_bloom_encoding_with_length.parquet"),
                                    data_path("missing.parquet")};
  auto values = strings({"Hello", "doing", "AAA"});
  pq::PruneOptions plain;
  plain.per_value = true;
  const auto want = pq::prune_files(paths, "String", values, plain);
  pq::FooterCache cache;
  pq::PruneOptions cached = plain;
  cached.footer_cache = &cache;
  for (int round = 0; round < 4; ++round) {  // miss, then hits
    auto got = pq::prune_files(paths, "String", values, cached);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].ok, want[i].ok) << i;
      ASSERT_EQ(got[i].row_groups.size(), want[i].row_groups.size());
      for (size_t g = 0; g < got[i].row_groups.size(); ++g) {
        EXPECT_EQ(got[i].row_groups[g].per_value, want[i].row_groups[g].per_value);
      }
    }
    EXPECT_EQ(cache.size(), 2u);
    if (round == 1) {
      // No footer read: only the Bloom filter's header, then the blocks the
      // three values pick (local files are read by blocks).
      EXPECT_GE(got[0].reads, 2);
      EXPECT_LE(got[0].reads, 4);
      EXPECT_LE(got[0].bytes_read, 64 + 3 * 32);
    } else if (round > 1) {
      // The header's layout was learned: the blocks alone.
      EXPECT_GE(got[0].reads, 1);
      EXPECT_LE(got[0].reads, 3);
      EXPECT_EQ(got[0].bytes_read, got[0].reads * int64_t{kSbbfBytesPerBlock});
    }
  }
}

TEST(ParquetPrune, ErrorsNameTheFile) {
  auto v = strings({"x"});
  auto r = pq::prune_files({data_path("alltypes_plain.parquet"), data_path("missing.parquet")}, "nope", v);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].ok);
  EXPECT_NE(r[0].error.message.find("no column 'nope'"), std::string::npos);
  EXPECT_FALSE(r[1].ok);
  EXPECT_EQ(r[1].error.code, ErrorCode::kIoError);
  // Type mismatch: string_col is BYTE_ARRAY, the values INT64.
  pq::ProbeValues ints;
  ints.type = PhysicalType::kInt64;
  ints.data.resize(8);
  auto t = pq::prune_files({data_path("alltypes_plain.parquet")}, "string_col", ints);
  EXPECT_FALSE(t[0].ok);
  EXPECT_NE(t[0].error.message.find("BYTE_ARRAY"), std::string::npos);
}

// prune_files opens each file under its directory, kept open (openat): the
// answers and errors must be those of opening each path whole, for files in
// alternating directories, relative paths, "./" and "../" components, a
// directory, a trailing slash and a missing directory.
TEST(ParquetPrune, PathsOfEveryShapeOpenAsThemselves) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / ("pqfast_paths_" + std::to_string(::getpid()));
  fs::create_directories(base / "a");
  fs::create_directories(base / "b");
  const std::string src = data_path("data_index_bloom_encoding_with_length.parquet");
  fs::copy_file(src, base / "a" / "x.parquet", fs::copy_options::overwrite_existing);
  fs::copy_file(src, base / "b" / "y.parquet", fs::copy_options::overwrite_existing);
  const fs::path old_cwd = fs::current_path();
  fs::current_path(base);
  const std::vector<std::string> paths = {
      (base / "a" / "x.parquet").string(), (base / "b" / "y.parquet").string(), (base / "a" / "x.parquet").string(),
      "a/x.parquet", "./b/y.parquet", "a/../b/y.parquet", "a", "a/", "nowhere/x.parquet", "a/missing.parquet",
      "/x.parquet"};
  auto values = strings({"Hello", "nope"});
  pq::PruneOptions opt;
  opt.per_value = true;
  opt.threads = 1;
  pq::FooterCache cache;
  pq::PruneOptions cached = opt;  // stat (fstatat) and footer cache, twice: miss, then hit
  cached.footer_cache = &cache;
  const auto got = pq::prune_files(paths, "String", values, opt);
  const auto miss = pq::prune_files(paths, "String", values, cached);
  const auto hit = pq::prune_files(paths, "String", values, cached);
  fs::current_path(old_cwd);
  ASSERT_EQ(got.size(), paths.size());
  for (const auto* other : {&miss, &hit}) {
    ASSERT_EQ(other->size(), paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      ASSERT_EQ((*other)[i].ok, got[i].ok) << paths[i];
      if (!got[i].ok) continue;
      for (size_t g = 0; g < got[i].row_groups.size(); ++g) {
        EXPECT_EQ((*other)[i].row_groups[g].per_value, got[i].row_groups[g].per_value) << paths[i];
      }
    }
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    auto f = pq::LocalFile::open(p[0] == '/' ? p : (base / p).string());
    if (!f.ok()) {
      EXPECT_FALSE(got[i].ok) << p;
      EXPECT_EQ(got[i].path, p);
      EXPECT_NE(got[i].error.message.find(p), std::string::npos) << got[i].error.message;
      continue;
    }
    const auto want = pq::prune_file(**f, "String", values, opt);
    ASSERT_EQ(got[i].ok, want.ok) << p << ": " << got[i].error.message;
    if (!want.ok) continue;
    ASSERT_EQ(got[i].row_groups.size(), want.row_groups.size()) << p;
    for (size_t g = 0; g < want.row_groups.size(); ++g) {
      EXPECT_EQ(got[i].row_groups[g].per_value, want.row_groups[g].per_value) << p;
    }
  }
  EXPECT_TRUE(got[0].ok && got[3].ok && got[4].ok && got[5].ok);
  EXPECT_FALSE(got[6].ok || got[7].ok || got[8].ok || got[9].ok);
  fs::remove_all(base);
}

TEST(ParquetPrune, StatisticsSortOrders) {
  pq::FileMetaData m;
  // A writer whose statistics are believed (stats_trust.h; without created_by
  // parquet-java believes no binary bounds).
  m.created_by = "parquet-cpp-arrow version 26.0.1";
  pq::ColumnDescriptor d;
  d.physical_type = PhysicalType::kFixedLenByteArray;
  d.type_length = 2;
  d.logical.kind = pq::LogicalType::kDecimal;
  m.columns.push_back(d);
  pq::ColumnChunk c;
  c.has_statistics = true;
  c.statistics.has_min = c.statistics.has_max = true;
  c.statistics.min = std::string("\xff\x00", 2);  // -256
  c.statistics.max = std::string("\x01\x00", 2);  // 256
  auto v = [](uint8_t a, uint8_t b) { return std::string({static_cast<char>(a), static_cast<char>(b)}); };
  EXPECT_FALSE(pq::stats_exclude(m, 0, c, v(0x00, 0x05)));  // 5: inside
  EXPECT_FALSE(pq::stats_exclude(m, 0, c, v(0xff, 0x10)));  // -240: inside
  EXPECT_TRUE(pq::stats_exclude(m, 0, c, v(0xfe, 0x00)));   // -512: below
  EXPECT_TRUE(pq::stats_exclude(m, 0, c, v(0x02, 0x00)));   // 512: above
  // Unsigned INT32: 0xffffffff is the largest value, not -1.
  m.columns[0] = pq::ColumnDescriptor();
  m.columns[0].physical_type = PhysicalType::kInt32;
  m.columns[0].logical.kind = pq::LogicalType::kInteger;
  m.columns[0].logical.is_signed = false;
  uint32_t lo = 1, hi = 0x80000000u, q = 0xffffffffu;
  c.statistics.min.assign(reinterpret_cast<char*>(&lo), 4);
  c.statistics.max.assign(reinterpret_cast<char*>(&hi), 4);
  EXPECT_TRUE(pq::stats_exclude(m, 0, c, std::string(reinterpret_cast<char*>(&q), 4)));
  // Legacy (deprecated) min/max are not trusted for unsigned order.
  c.statistics.min_is_legacy = c.statistics.max_is_legacy = true;
  EXPECT_FALSE(pq::stats_exclude(m, 0, c, std::string(reinterpret_cast<char*>(&q), 4)));
  // NaN bounds say nothing.
  m.columns[0] = pq::ColumnDescriptor();
  m.columns[0].physical_type = PhysicalType::kDouble;
  c.statistics.min_is_legacy = c.statistics.max_is_legacy = false;
  const double nan = std::numeric_limits<double>::quiet_NaN(), one = 1.0, big = 100.0;
  c.statistics.min.assign(reinterpret_cast<const char*>(&nan), 8);
  c.statistics.max.assign(reinterpret_cast<const char*>(&one), 8);
  // The max still excludes 100 ...
  EXPECT_TRUE(pq::stats_exclude(m, 0, c, std::string(reinterpret_cast<const char*>(&big), 8)));
  const double small = -100.0;  // ... but the NaN min cannot exclude -100
  EXPECT_FALSE(pq::stats_exclude(m, 0, c, std::string(reinterpret_cast<const char*>(&small), 8)));
}

}  // namespace
}  // namespace pqfast
