// scan_files_with_sidecar and the streaming scanner's LocalScan: files read
// with a sidecar index's tails (one overlay, scan::open_local_file), their
// parsed footers cached, and never served from the cache once the sidecar
// or the data file is another.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parquet_test_util.h"
#include "pqfast/index.h"
#include "pqfast/scan.h"
#include "pqfast/scanner.h"

namespace pqfast {
namespace {

namespace fs = std::filesystem;
namespace pq = pqfast::parquet;

constexpr uint64_t kJunk = 16;  // the tail need not start the sidecar

// A sidecar holding `tail` after kJunk bytes, written beside and renamed
// over `path` (as the sidecar writer does: a new inode), with the given
// mtime (0: now).
void write_sidecar(const fs::path& path, const std::vector<uint8_t>& tail, const timespec* mtime) {
  std::vector<uint8_t> bytes(kJunk, 0x5A);
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  if (mtime != nullptr) {
    const timespec times[2] = {*mtime, *mtime};
    ASSERT_EQ(::utimensat(AT_FDCWD, tmp.c_str(), times, 0), 0);
  }
  fs::rename(tmp, path);
}

std::vector<uint8_t> planned_tail(const std::vector<uint8_t>& file, const std::string& column) {
  pq::IndexOptions opt;
  opt.columns = {column};
  opt.page_index = false;  // filters alone: the same length for both columns
  pq::BufferFile f(file.data(), file.size(), "data.parquet");
  auto plan = pq::plan_index(f, opt);
  EXPECT_TRUE(plan.ok()) << plan.error().message;
  return plan.ok() ? plan->tail : std::vector<uint8_t>{};
}

// id == 100: alltypes_plain has ids 0..7 and no statistics, so only a
// Bloom filter of `id` rules its row group out.
pq::ScanFilter id_is(int32_t v) {
  pq::FilterAtom a;
  a.column = "id";
  a.op = pq::FilterOp::kEq;
  a.values.type = PhysicalType::kInt32;
  a.values.data.resize(4);
  std::memcpy(a.values.data.data(), &v, 4);
  pq::ScanFilter f;
  f.active = true;
  f.any_of.push_back({a});
  return f;
}

pq::ScanFilter id_is_100() { return id_is(100); }

TEST(SidecarScan, ARewrittenSidecarOrDataFileIsNeverServedAFooterCachedBefore) {
  const fs::path dir = fs::temp_directory_path() / ("pqfast_sidecar_scan_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string data = (dir / "data.parquet").string();
  fs::copy_file(fs::path(PQFAST_TEST_DATA_DIR) / "alltypes_plain.parquet", data);
  const auto bytes = testing::read_all(data);
  // Two tails of the same length, so both sidecars put theirs at the same
  // place: one with a filter for tinyint_col only, one for id.
  const auto other = planned_tail(bytes, "tinyint_col");
  const auto by_id = planned_tail(bytes, "id");
  ASSERT_FALSE(other.empty());
  ASSERT_EQ(other.size(), by_id.size());
  const fs::path side = dir / "_pqfast_index";
  const std::vector<pq::SidecarTail> tails{{static_cast<int64_t>(bytes.size()), kJunk, other.size()}};
  const std::vector<pq::ScanColumn> cols{{"id", {}}};
  const pq::ScanFilter filter = id_is_100();
  // settle_ns 0: footers cached however recent the sidecar (these are).
  auto pruned_by_bloom = [&]() -> int64_t {
    auto r = pq::scan_files_with_sidecar({data}, side.string(), tails, cols, filter, {}, 0);
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return -1;
    EXPECT_TRUE(r->pieces.empty());
    return r->stats.row_groups_pruned_by_bloom;
  };

  write_sidecar(side, other, nullptr);
  EXPECT_EQ(pruned_by_bloom(), 0);  // no filter for id: the row group is read
  EXPECT_EQ(pruned_by_bloom(), 0);  // (now from the cache)

  // The same size and mtime, another inode and other bytes: the id filter.
  struct stat st;
  ASSERT_EQ(::stat(side.c_str(), &st), 0);
  write_sidecar(side, by_id, &st.st_mtim);
  EXPECT_EQ(pruned_by_bloom(), 1);

  // The file alone has no filter, under its own entry; the overlay's stays.
  auto alone = pq::scan_files({data}, cols, filter);
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_EQ(alone->stats.row_groups_pruned_by_bloom, 0);
  EXPECT_EQ(pruned_by_bloom(), 1);

  // The data file rewritten (the same bytes, a later mtime): its identity
  // changes, so its overlay's footer is parsed again (and still right).
  const timespec later{st.st_mtim.tv_sec + 10, 0};
  const timespec times[2] = {later, later};
  ASSERT_EQ(::utimensat(AT_FDCWD, data.c_str(), times, 0), 0);
  EXPECT_EQ(pruned_by_bloom(), 1);

  // With the default settling time a sidecar written just now is read
  // without the cache (a rewrite in the same clock tick could hide).
  auto settling = pq::scan_files_with_sidecar({data}, side.string(), tails, cols, filter);
  ASSERT_TRUE(settling.ok()) << settling.error().message;
  EXPECT_EQ(settling->stats.row_groups_pruned_by_bloom, 1);

  // A sidecar whose tail no longer fits the data file is refused, not read.
  const std::vector<pq::SidecarTail> grown{{static_cast<int64_t>(bytes.size()) - 1, kJunk, by_id.size()}};
  auto bad = pq::scan_files_with_sidecar({data}, side.string(), grown, cols, filter);
  EXPECT_FALSE(bad.ok());
  fs::remove_all(dir);
}

// LocalScan over a filtered file with a sidecar's tail (ScanPlanFile::overlay):
// the file is pruned by the tail's Bloom filter, as scan_files_with_sidecar
// prunes it; a matching row comes out; the file alone is not pruned.
TEST(SidecarScan, LocalScanPrunesAndReadsThroughTheOverlay) {
  const fs::path dir = fs::temp_directory_path() / ("pqfast_sidecar_local_scan_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string data = (dir / "data.parquet").string();
  fs::copy_file(fs::path(PQFAST_TEST_DATA_DIR) / "alltypes_plain.parquet", data);
  const auto bytes = testing::read_all(data);
  const auto by_id = planned_tail(bytes, "id");
  ASSERT_FALSE(by_id.empty());
  const fs::path side = dir / "_pqfast_index";
  write_sidecar(side, by_id, nullptr);
  auto sidecar = pq::LocalSidecar::open(side.string(), 0);
  ASSERT_TRUE(sidecar.ok()) << sidecar.error().message;
  const pq::SidecarTail tail{static_cast<int64_t>(bytes.size()), kJunk, by_id.size()};

  // (rows, row groups pruned by Bloom filters) of `filter` over the file.
  auto scan = [&](const pq::ScanFilter& filter, bool overlay) -> std::pair<int64_t, int64_t> {
    pq::ScanPlan plan;
    plan.files.emplace_back();
    plan.files.back().name = data;
    if (overlay) plan.files.back().overlay = std::make_shared<const pq::LocalOverlay>(pq::LocalOverlay{*sidecar, tail});
    plan.columns = {{"id", {}}};
    plan.filter = filter;
    auto s = pq::LocalScan::make(std::move(plan), {}, 1);
    EXPECT_TRUE(s.ok()) << s.error().message;
    if (!s.ok()) return {-1, -1};
    int64_t rows = 0;
    for (;;) {
      ArrowArray a;
      ArrowSchema sc;
      auto step = (*s)->next_batch(&a, &sc);
      EXPECT_TRUE(step.ok()) << step.error().message;
      if (!step.ok() || *step == pq::ScanStep::kEnd) break;
      rows += a.length;
      a.release(&a);
      sc.release(&sc);
    }
    return {rows, (*s)->scanner().stats().engine.row_groups_pruned_by_bloom};
  };
  EXPECT_EQ(scan(id_is(100), true), (std::pair<int64_t, int64_t>{0, 1}));
  EXPECT_EQ(scan(id_is(100), false), (std::pair<int64_t, int64_t>{0, 0}));  // no filter of its own
  EXPECT_EQ(scan(id_is(3), true), (std::pair<int64_t, int64_t>{1, 0}));
  // A tail planned for another size of the data file: refused, not read.
  const pq::SidecarTail grown{static_cast<int64_t>(bytes.size()) - 1, kJunk, by_id.size()};
  pq::ScanPlan plan;
  plan.files.emplace_back();
  plan.files.back().name = data;
  plan.files.back().overlay = std::make_shared<const pq::LocalOverlay>(pq::LocalOverlay{*sidecar, grown});
  plan.columns = {{"id", {}}};
  plan.filter = id_is(3);
  EXPECT_FALSE(pq::LocalScan::make(std::move(plan), {}, 1).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pqfast
