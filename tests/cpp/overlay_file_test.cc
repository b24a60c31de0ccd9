// OverlayFile: a file plus a tail kept elsewhere (a sidecar index) reads as
// the file `pqfast index` would have made, and refuses tails that do not fit.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "parquet_test_util.h"
#include "pqfast/index.h"
#include "pqfast/parquet.h"

namespace pqfast {
namespace {

namespace pq = pqfast::parquet;

std::unique_ptr<pq::BufferFile> buffer(const std::vector<uint8_t>& bytes, const char* name) {
  return std::make_unique<pq::BufferFile>(bytes.data(), bytes.size(), name);
}

TEST(OverlayFile, ReadsTheBaseThenTheTailAcrossTheBoundary) {
  std::vector<uint8_t> base(100), side(50);
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<uint8_t>(i);
  for (size_t i = 0; i < side.size(); ++i) side[i] = static_cast<uint8_t>(200 + i);
  // The tail is bytes [10, 40) of the sidecar.
  auto f = pq::OverlayFile::make(buffer(base, "data"), 100, buffer(side, "sidecar"), 10, 30);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ((*f)->size(), 130u);
  EXPECT_EQ((*f)->name(), "data");
  std::vector<uint8_t> want(base);
  want.insert(want.end(), side.begin() + 10, side.begin() + 40);
  for (uint64_t off = 0; off <= 130; off += 7) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{9}, size_t{30}, size_t{130}}) {
      std::vector<uint8_t> got(n);
      Status s = (*f)->read_at(off, n, got.data());
      if (off + n > 130) {
        EXPECT_FALSE(s.ok()) << off << "+" << n;
        EXPECT_EQ(s.error().code, ErrorCode::kTruncated);
        continue;
      }
      ASSERT_TRUE(s.ok()) << off << "+" << n << ": " << s.error().message;
      // (an empty vector's data() may be null: compared as vectors)
      EXPECT_EQ(got, std::vector<uint8_t>(want.begin() + static_cast<std::ptrdiff_t>(off),
                                          want.begin() + static_cast<std::ptrdiff_t>(off + n)))
          << off << "+" << n;
    }
  }
}

TEST(OverlayFile, RefusesAChangedBaseAndATailOutsideTheSidecar) {
  std::vector<uint8_t> base(100), side(50);
  auto grown = pq::OverlayFile::make(buffer(base, "data"), 99, buffer(side, "sidecar"), 0, 10);
  ASSERT_FALSE(grown.ok());
  EXPECT_NE(grown.error().message.find("changed since"), std::string::npos) << grown.error().message;
  for (auto [off, len] : {std::pair<uint64_t, uint64_t>{41, 10}, {51, 0}, {0, 51}, {UINT64_MAX, 2},
                          {2, UINT64_MAX}}) {
    auto r = pq::OverlayFile::make(buffer(base, "data"), 100, buffer(side, "sidecar"), off, len);
    ASSERT_FALSE(r.ok()) << off << "+" << len;
    EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
  }
  EXPECT_FALSE(pq::OverlayFile::make(nullptr, 0, buffer(side, "sidecar"), 0, 0).ok());
}

// The tail index plans, held apart from the file, makes the overlay read as
// the indexed file: its footer has the filters, and planning it again adds
// nothing (what a second `pqfast index` run finds).
TEST(OverlayFile, ATailFromPlanIndexReadsAsTheIndexedFile) {
  const auto bytes = testing::read_all(std::string(PQFAST_TEST_DATA_DIR) + "/alltypes_plain.parquet");
  pq::IndexOptions opt;
  opt.columns = {"id", "string_col"};
  pq::BufferFile plain(bytes.data(), bytes.size(), "alltypes_plain.parquet");
  auto plan = pq::plan_index(plain, opt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_FALSE(plan->tail.empty());
  std::vector<uint8_t> side(7, 0xAB);  // the blob need not start the sidecar
  side.insert(side.end(), plan->tail.begin(), plan->tail.end());
  auto f = pq::OverlayFile::make(buffer(bytes, "alltypes_plain.parquet"), bytes.size(), buffer(side, "sidecar"), 7,
                                 plan->tail.size());
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto meta = pq::read_file_metadata(**f);
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  int with_filter = 0;
  for (const auto& rg : meta->row_groups) {
    for (const auto& c : rg.columns) with_filter += c.bloom_filter_offset >= 0;
  }
  EXPECT_EQ(with_filter, plan->chunks_indexed);
  auto again = pq::plan_index(**f, opt);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->tail.empty());
  EXPECT_EQ(again->chunks_had_filter, plan->chunks_indexed);
}

}  // namespace
}  // namespace pqfast
