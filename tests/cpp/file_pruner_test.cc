// The sans-IO core (FilePruner): driven by hand with every tail size, fed
// whole files, chunks out of order, short reads and failures, it gives the
// answers of prune_file (which is itself a driver over it) or a clear error,
// and never asks for bytes outside the file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "parquet_test_util.h"
#include "pqfast/parquet.h"
#include "pqfast/prune_sansio.h"

namespace pqfast {
namespace {

namespace fs = std::filesystem;
namespace pq = pqfast::parquet;

using pqfast::testing::read_all;

std::string describe(const pq::FilePruneResult& r) {
  if (!r.ok) return "error: " + r.error.to_string();
  std::string s = std::to_string(r.num_rows) + ":";
  for (const auto& g : r.row_groups) {
    s += " " + std::to_string(static_cast<int>(g.verdict)) + "/" + std::to_string(g.excluded_by_stats) + "/" +
         std::to_string(g.excluded_by_bloom) + "/" + std::to_string(g.maybe);
    for (auto v : g.per_value) s += std::to_string(static_cast<int>(v));
  }
  return s;
}

using pqfast::testing::strings;

using Asks = std::vector<std::vector<pq::ByteRange>>;

// Drives a pruner over bytes in memory; every range asked for must lie in
// the file. `asks` gets what it asked for, round by round.
pq::FilePruneResult drive(pq::FilePruner& p, const std::vector<uint8_t>& file, int* rounds = nullptr,
                          Asks* asks = nullptr) {
  int n = 0;
  while (!p.done()) {
    auto want = p.needs();
    EXPECT_FALSE(want.empty());
    if (want.empty()) break;
    if (asks) asks->push_back(want);
    for (const auto& r : want) {
      EXPECT_LE(r.offset + r.length, file.size());
      p.feed(r.offset, file.data() + r.offset, static_cast<size_t>(r.length));
    }
    if (++n > 100) {
      ADD_FAILURE() << "no end";
      break;
    }
  }
  if (rounds) *rounds = n;
  return p.take_result();
}

std::vector<std::string> parquet_testing_files() {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(PQFAST_TEST_DATA_DIR)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(FilePruner, EqualsPruneFileAtEveryTailSize) {
  const auto paths = parquet_testing_files();
  ASSERT_GT(paths.size(), 50u);
  pq::ProbeValues ints;
  ints.type = PhysicalType::kInt32;
  const int32_t values[] = {0, 1, 5, 7, 100000};
  ints.data.resize(sizeof values);
  std::memcpy(ints.data.data(), values, sizeof values);
  struct Probe {
    const char* column;
    pq::ProbeValues values;
  } probes[] = {{"id", ints}, {"String", strings({"Hello", "doing", "zzz", "today", "nope"})}};
  int ok = 0;
  for (const auto& probe : probes) {
    pq::PruneOptions opt;
    opt.per_value = true;
    auto q = pq::PruneQuery::make(probe.column, probe.values, opt);
    ASSERT_TRUE(q.ok());
    for (const auto& path : paths) {
      auto f = pq::LocalFile::open(path);
      ASSERT_TRUE(f.ok());
      const std::string want = describe(pq::prune_file(**f, probe.column, probe.values, opt));
      const auto bytes = read_all(path);
      for (size_t tail : {size_t{1}, size_t{100}, size_t{1000}, size_t{16384}, bytes.size() + 5}) {
        pq::FilePruner p(**q, path, bytes.size(), tail);
        const auto got = drive(p, bytes);
        EXPECT_EQ(describe(got), want) << path << " tail " << tail;
        ok += got.ok;
      }
    }
  }
  EXPECT_GT(ok, 20);
}

// Block reads (the local driver's mode): the header, then the blocks the
// hashes pick, instead of whole filters; the verdicts must not change.
TEST(FilePruner, BlockReadsGiveTheVerdictsOfWholeFilters) {
  const auto paths = parquet_testing_files();
  pq::ProbeValues ints;
  ints.type = PhysicalType::kInt32;
  const int32_t values[] = {0, 1, 5, 7, 100000};
  ints.data.resize(sizeof values);
  std::memcpy(ints.data.data(), values, sizeof values);
  std::vector<std::string> many;  // past kBlockReadMaxHashes: whole filters again
  for (int i = 0; i < 40; ++i) many.push_back("v" + std::to_string(i));
  many.push_back("Hello");
  struct Probe {
    const char* column;
    pq::ProbeValues values;
  } probes[] = {{"id", ints}, {"String", strings({"Hello"})}, {"String", strings({"nope"})},
                {"String", strings({"Hello", "doing", "zzz", "today", "nope"})}, {"String", strings(many)}};
  int filters_by_blocks = 0;
  for (const auto& probe : probes) {
    for (bool use_statistics : {true, false}) {
      pq::PruneOptions whole_opt;
      whole_opt.per_value = true;
      whole_opt.use_statistics = use_statistics;
      pq::PruneOptions block_opt = whole_opt;
      block_opt.block_reads = true;
      auto whole_q = pq::PruneQuery::make(probe.column, probe.values, whole_opt);
      auto block_q = pq::PruneQuery::make(probe.column, probe.values, block_opt);
      ASSERT_TRUE(whole_q.ok() && block_q.ok());
      for (const auto& path : paths) {
        const auto bytes = read_all(path);
        for (size_t tail : {size_t{64}, size_t{16384}, bytes.size()}) {
          pq::FilePruner w(**whole_q, path, bytes.size(), tail);
          pq::FilePruner b(**block_q, path, bytes.size(), tail);
          const auto want = drive(w, bytes);
          const auto got = drive(b, bytes);
          EXPECT_EQ(describe(got), describe(want)) << path << " tail " << tail;
          EXPECT_LE(got.bytes_read, want.bytes_read) << path;
          if (got.ok && got.bytes_read < want.bytes_read) ++filters_by_blocks;
        }
      }
    }
  }
  // The files with filters (with and without bloom_filter_length) were read by blocks.
  EXPECT_GT(filters_by_blocks, 4);
}

TEST(FilePruner, BlockReadsAskForAHeaderThenOneBlockPerHash) {
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_with_length.parquet";
  const auto bytes = read_all(path);
  pq::PruneOptions opt;
  opt.block_reads = true;
  opt.use_statistics = false;
  auto q = pq::PruneQuery::make("String", strings({"Hello"}), opt);
  ASSERT_TRUE(q.ok());
  pq::FilePruner p(**q, path, bytes.size(), 64);
  Asks asks;
  const auto result = drive(p, bytes, nullptr, &asks);
  ASSERT_TRUE(result.ok) << result.error.to_string();
  EXPECT_EQ(result.row_groups[0].verdict, pq::Verdict::kMaybe);
  // tail, footer, filter header, one 32-byte block
  ASSERT_EQ(asks.size(), 4u);
  ASSERT_EQ(asks[2].size(), 1u);
  EXPECT_EQ(asks[2][0].length, 64u);
  ASSERT_EQ(asks[3].size(), 1u);
  EXPECT_EQ(asks[3][0].length, kSbbfBytesPerBlock);
}

TEST(FilePruner, PredictedBlocksComeWithTheHeaderInOneRead) {
  // With the filter's length in the footer, the header and the blocks the
  // length implies come in one read; the verdicts are those of whole filters,
  // values present or not.
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_with_length.parquet";
  const auto bytes = read_all(path);
  for (const auto& values : std::vector<std::vector<std::string>>{{"Hello"}, {"nope"}, {"Hello", "x", "parquet"}}) {
    pq::PruneOptions whole;
    whole.use_statistics = false;
    whole.per_value = true;
    pq::PruneOptions opt = whole;
    opt.block_reads = true;
    opt.predict_blocks = true;
    auto wq = pq::PruneQuery::make("String", strings(values), whole);
    auto q = pq::PruneQuery::make("String", strings(values), opt);
    ASSERT_TRUE(q.ok() && wq.ok());
    pq::FilePruner w(**wq, path, bytes.size(), 64);
    pq::FilePruner p(**q, path, bytes.size(), 64);
    Asks asks;
    const std::string got = describe(drive(p, bytes, nullptr, &asks));
    EXPECT_EQ(got, describe(drive(w, bytes)));
    ASSERT_EQ(asks.size(), 3u);  // tail, footer, then header and blocks together
    ASSERT_EQ(asks[2].size(), 1u);
    EXPECT_GT(asks[2][0].length, 64u);
  }
}

TEST(FilePruner, AKeptFooterLearnsFilterLayoutsForLaterProbes) {
  // Pruners started from a kept footer (a footer cache) read a filter's
  // header once; later ones ask for the blocks alone, with the same answers.
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_with_length.parquet";
  const auto bytes = read_all(path);
  pq::PruneOptions opt;
  opt.block_reads = true;
  opt.use_statistics = false;
  opt.per_value = true;
  auto q = pq::PruneQuery::make("String", strings({"Hello", "nope"}), opt);
  ASSERT_TRUE(q.ok());
  pq::FilePruner first(**q, path, bytes.size(), bytes.size());  // the filters come in the tail: no header read
  first.keep_footer();
  const std::string want = describe(drive(first, bytes));
  auto footer = first.footer();
  ASSERT_NE(footer, nullptr);
  auto asks_of = [&](pq::FilePruner& p, std::string* answer) {
    Asks asks;
    *answer = describe(drive(p, bytes, nullptr, &asks));
    return asks;
  };
  std::string answer;
  pq::FilePruner second(**q, path, bytes.size(), footer);
  const auto second_asks = asks_of(second, &answer);
  EXPECT_EQ(answer, want);
  ASSERT_EQ(second_asks.size(), 2u);  // the header, then the blocks
  EXPECT_EQ(second_asks[0][0].length, 64u);
  for (int round = 0; round < 2; ++round) {
    pq::FilePruner later(**q, path, bytes.size(), footer);
    const auto later_asks = asks_of(later, &answer);
    EXPECT_EQ(answer, want);
    ASSERT_EQ(later_asks.size(), 1u);  // the blocks alone
    EXPECT_EQ(later_asks[0], second_asks[1]);
  }
  // Learned from block probes only: a footer kept by a whole-filter read
  // still starts with the header.
  pq::PruneOptions whole = opt;
  whole.block_reads = false;
  auto wq = pq::PruneQuery::make("String", strings({"Hello", "nope"}), whole);
  ASSERT_TRUE(wq.ok());
  pq::FilePruner w(**wq, path, bytes.size(), 64);
  w.keep_footer();
  EXPECT_EQ(describe(drive(w, bytes)), want);
  pq::FilePruner after_whole(**q, path, bytes.size(), w.footer());
  EXPECT_EQ(asks_of(after_whole, &answer).size(), 2u);
  EXPECT_EQ(answer, want);
}

TEST(FilePruner, WholeFileFedAtOnceNeedsNothingMore) {
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_with_length.parquet";
  const auto bytes = read_all(path);
  auto q = pq::PruneQuery::make("String", strings({"Hello", "nope"}));
  ASSERT_TRUE(q.ok());
  pq::FilePruner p(**q, path, bytes.size(), bytes.size());
  ASSERT_EQ(p.needs().size(), 1u);
  p.feed(0, bytes.data(), bytes.size());
  ASSERT_TRUE(p.done());
  ASSERT_TRUE(p.result().ok) << p.result().error.to_string();
  EXPECT_EQ(p.result().reads, 1);
  EXPECT_EQ(p.result().row_groups[0].verdict, pq::Verdict::kMaybe);
  EXPECT_GT(p.filter_span(), 0u);
  EXPECT_GT(p.footer_length(), 0u);
}

TEST(FilePruner, FiltersOutsideTheTailAreAskedForCoalesced) {
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_with_length.parquet";
  const auto bytes = read_all(path);
  auto q = pq::PruneQuery::make("String", strings({"Hello"}));
  ASSERT_TRUE(q.ok());
  pq::FilePruner p(**q, path, bytes.size(), 64);  // the footer, then the filter
  int rounds = 0;
  const auto r = drive(p, bytes, &rounds);
  ASSERT_TRUE(r.ok) << r.error.to_string();
  EXPECT_GE(rounds, 2);
  EXPECT_EQ(r.row_groups[0].verdict, pq::Verdict::kMaybe);
}

TEST(FilePruner, BytesThatCoverNoNeedFailTheFile) {
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/alltypes_plain.parquet";
  const auto bytes = read_all(path);
  pq::ProbeValues ints;
  ints.type = PhysicalType::kInt32;
  ints.data.assign(4, 0);
  auto q = pq::PruneQuery::make("id", ints);
  ASSERT_TRUE(q.ok());
  pq::FilePruner p(**q, "x.parquet", bytes.size(), 1024);
  const auto want = p.needs().at(0);
  // A short read (the object is shorter than listed): the file fails, clearly.
  p.feed(want.offset, bytes.data() + want.offset, static_cast<size_t>(want.length - 1));
  ASSERT_TRUE(p.done());
  EXPECT_FALSE(p.result().ok);
  EXPECT_EQ(p.result().error.code, ErrorCode::kTruncated);
  EXPECT_NE(p.result().error.message.find("x.parquet: got "), std::string::npos) << p.result().error.message;
  // Feeding after the end changes nothing.
  p.feed(0, bytes.data(), bytes.size());
  EXPECT_FALSE(p.result().ok);
}

TEST(FilePruner, FailAndTinyFiles) {
  pq::ProbeValues ints;
  ints.type = PhysicalType::kInt64;
  ints.data.assign(8, 1);
  auto q = pq::PruneQuery::make("id", ints);
  ASSERT_TRUE(q.ok());
  pq::FilePruner tiny(**q, "tiny", 11);
  EXPECT_TRUE(tiny.done());
  EXPECT_FALSE(tiny.result().ok);
  EXPECT_NE(tiny.result().error.message.find("too small"), std::string::npos);
  pq::FilePruner p(**q, "denied", 1 << 20);
  EXPECT_FALSE(p.done());
  p.fail(Error{ErrorCode::kIoError, "denied: HTTP 403"});
  EXPECT_TRUE(p.done());
  EXPECT_EQ(p.result().error.message, "denied: HTTP 403");
  pq::FilePruner junk(**q, "junk", 4096, 4096);
  std::vector<uint8_t> zeros(4096, 0);
  junk.feed(0, zeros.data(), zeros.size());
  EXPECT_TRUE(junk.done());
  EXPECT_FALSE(junk.result().ok);  // no magic
}

TEST(FilePruner, MutatedFilesGiveAnswersOrErrorsNeverOutOfBoundsAsks) {
  const std::string path = std::string(PQFAST_TEST_DATA_DIR) + "/data_index_bloom_encoding_stats.parquet";
  const auto clean = read_all(path);
  auto q = pq::PruneQuery::make("String", strings({"Hello", "doing", "zzz"}));
  ASSERT_TRUE(q.ok());
  pq::PruneOptions block_opt;
  block_opt.block_reads = true;
  auto block_q = pq::PruneQuery::make("String", strings({"Hello", "doing", "zzz"}), block_opt);
  ASSERT_TRUE(block_q.ok());
  std::mt19937 rng(5);
  for (int i = 0; i < 3000; ++i) {
    auto bytes = clean;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      // Mostly in the footer and filter region, at the end of the file.
      const size_t at = bytes.size() - 1 - rng() % std::min<size_t>(bytes.size(), 2048);
      bytes[at] = static_cast<uint8_t>(rng());
    }
    pq::FilePruner p(**q, path, bytes.size(), 64 + rng() % 8192);
    drive(p, bytes);  // drive() checks each ask lies inside the file
    pq::FilePruner b(**block_q, path, bytes.size(), 64 + rng() % 8192);
    drive(b, bytes);
  }
}

}  // namespace
}  // namespace pqfast
