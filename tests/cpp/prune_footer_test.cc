// The pruning walk over footers (decode_prune_footer_fast) against the checked
// parser: wherever the walk accepts a footer, both give the same values, field
// by field; where it defers, the combined decode is the checked parser's answer
// (values or the same error). On every parquet-testing file, every leaf, and
// on mutations of real footers.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "parquet/prune_footer.h"
#include "parquet_test_util.h"
#include "pqfast/parquet.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;
namespace fs = std::filesystem;

using pqfast::testing::read_all;

// The serialized FileMetaData of a file's bytes, or empty when the trailer is bad.
std::vector<uint8_t> footer_of(const std::vector<uint8_t>& file) {
  if (file.size() < 12 || std::memcmp(file.data() + file.size() - 4, "PAR1", 4) != 0) return {};
  uint32_t len;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  if (uint64_t{len} > file.size() - 12) return {};
  const uint8_t* at = file.data() + file.size() - 8 - len;
  return std::vector<uint8_t>(at, at + len);
}

// A kept footer's min/max lie end to end in one buffer, in row-group order
// (min then max): what makes a cached probe read consecutive cache lines.
void expect_packed_bounds(const pq::PruneFooter& f, const std::string& where) {
  const char* next = nullptr;
  for (const pq::PruneRowGroup& rg : f.row_groups) {
    for (std::string_view v : {rg.chunk.min, rg.chunk.max}) {
      if (next != nullptr) ASSERT_EQ(v.data(), next) << where << ": min/max not packed";
      next = v.data() + v.size();
    }
  }
}

struct Tally {
  int fast = 0, deferred = 0;
};

// Holds the walk to the checked parser for one footer and column.
void expect_agreement(const std::vector<uint8_t>& footer, const std::string& column,
                      const std::string& where, Tally* tally) {
  const pq::ParseLimits limits;
  auto fast = pq::decode_prune_footer_fast(footer.data(), footer.size(), column, limits);
  auto checked = pq::decode_prune_footer_checked(footer.data(), footer.size(), 0, column, limits);
  // The combined decode with copy (as the footer cache keeps it) from a
  // scratch buffer wiped right after: it must own every byte it answers with.
  auto scratch = footer;
  auto combined = pq::decode_prune_footer(scratch.data(), scratch.size(), 0, column, limits, /*copy=*/true);
  std::fill(scratch.begin(), scratch.end(), 0xAB);
  if (fast) {
    ++tally->fast;
    ASSERT_TRUE(checked.ok()) << where << ": the walk accepted what the checked parser rejects: "
                              << checked.error().to_string();
    EXPECT_EQ(pq::prune_footer_difference(*fast, *checked), "") << where;
  } else {
    ++tally->deferred;
  }
  ASSERT_EQ(combined.ok(), checked.ok()) << where;
  if (checked.ok()) {
    EXPECT_EQ(pq::prune_footer_difference(*combined, *checked), "") << where;
    expect_packed_bounds(*combined, where);
  } else {
    EXPECT_EQ(combined.error().to_string(), checked.error().to_string()) << where;
    EXPECT_FALSE(checked.error().message.empty()) << where;
  }
}

TEST(PruneFooter, AgreesWithTheCheckedParserOnEveryTestFile) {
  Tally tally;
  int files = 0;
  // parquet-testing, its bad files, and the files of six writers (tests/data/writers).
  for (const char* dir : {PQFAST_TEST_DATA_DIR, PQFAST_TEST_DATA_DIR "/../bad_data",
                          PQFAST_TEST_DATA_DIR "/../../writers"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
      const auto footer = footer_of(read_all(entry.path()));
      if (footer.empty()) continue;
      ++files;
      const std::string name = entry.path().filename().string();
      auto meta = pq::parse_file_metadata(footer.data(), footer.size());
      std::vector<std::string> columns = {"no_such_column", ""};
      if (meta.ok()) {
        for (const auto& c : meta->columns) columns.push_back(c.dotted_path);
      }
      for (const auto& column : columns) expect_agreement(footer, column, name + " / " + column, &tally);
    }
  }
  EXPECT_GT(files, 50);
  // The walk must carry the common case: most (file, leaf) pairs of real files.
  EXPECT_GT(tally.fast, 3 * tally.deferred / 2) << tally.fast << " walked, " << tally.deferred << " deferred";
}

TEST(PruneFooter, AgreesOnMutatedFooters) {
  // Bit flips, byte sets and truncations of real footers: the walk either
  // defers or returns exactly the checked parser's values.
  Tally tally;
  for (const char* name : {"data_index_bloom_encoding_stats.parquet",
                           "data_index_bloom_encoding_with_length.parquet", "alltypes_plain.parquet",
                           "nested_structs.rust.parquet", "sort_columns.parquet",
                           "int32_decimal.parquet", "datapage_v2.snappy.parquet"}) {
    const auto footer = footer_of(read_all(fs::path(PQFAST_TEST_DATA_DIR) / name));
    ASSERT_FALSE(footer.empty()) << name;
    auto meta = pq::parse_file_metadata(footer.data(), footer.size());
    ASSERT_TRUE(meta.ok()) << name;
    const std::string first = meta->columns.front().dotted_path;
    const std::string last = meta->columns.back().dotted_path;
    std::mt19937_64 rng(2026);
    for (int iter = 0; iter < 4000; ++iter) {
      auto b = footer;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < edits; ++k) {
        const size_t at = rng() % b.size();
        if (rng() & 1) b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        else b[at] = static_cast<uint8_t>(rng());
      }
      if (iter % 9 == 0) b.resize(rng() % b.size());
      const std::string where = std::string(name) + " mutation " + std::to_string(iter);
      expect_agreement(b, (iter & 1) ? first : last, where, &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(tally.fast, 0);
  EXPECT_GT(tally.deferred, 0);
}

TEST(PruneFooter, CopyOwnsItsBytes) {
  // With copy, min/max survive the caller's buffer; without, they point into it.
  const auto footer =
      footer_of(read_all(fs::path(PQFAST_TEST_DATA_DIR) / "data_index_bloom_encoding_stats.parquet"));
  ASSERT_FALSE(footer.empty());
  auto scratch = footer;
  auto owned = pq::decode_prune_footer(scratch.data(), scratch.size(), 0, "String", {}, /*copy=*/true);
  ASSERT_TRUE(owned.ok()) << owned.error().to_string();
  auto borrowed = pq::decode_prune_footer(footer.data(), footer.size(), 0, "String", {}, /*copy=*/false);
  ASSERT_TRUE(borrowed.ok());
  ASSERT_FALSE(owned->row_groups.empty());
  ASSERT_TRUE(owned->row_groups[0].chunk.has_min);
  const auto* base = reinterpret_cast<const char*>(footer.data());
  const char* min_at = borrowed->row_groups[0].chunk.min.data();
  EXPECT_TRUE(min_at >= base && min_at < base + footer.size());
  std::fill(scratch.begin(), scratch.end(), 0);
  EXPECT_EQ(pq::prune_footer_difference(*owned, *borrowed), "");
}

TEST(PruneFooter, MissingColumnListsTheLeaves) {
  const auto footer = footer_of(read_all(fs::path(PQFAST_TEST_DATA_DIR) / "alltypes_plain.parquet"));
  EXPECT_FALSE(pq::decode_prune_footer_fast(footer.data(), footer.size(), "nope", {}).has_value());
  auto r = pq::decode_prune_footer(footer.data(), footer.size(), 0, "nope", {}, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("no column 'nope' (leaf columns: id, bool_col"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace pqfast
