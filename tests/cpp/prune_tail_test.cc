// prune_files learns the tail read's size from the footers it has read
// (TailSizeHint): over files whose footers differ in size (every
// parquet-testing file, small footers and large), in any order and on any
// number of threads, each file's answer equals pruning it alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast {
namespace {

namespace fs = std::filesystem;
namespace pq = pqfast::parquet;

std::string describe(const pq::FilePruneResult& r) {
  if (!r.ok) return "error: " + r.error.to_string();
  std::string s = std::to_string(r.num_rows) + ":";
  for (const auto& g : r.row_groups) {
    s += " " + std::to_string(static_cast<int>(g.verdict)) + "/" + std::to_string(g.excluded_by_stats) + "/" +
         std::to_string(g.excluded_by_bloom) + "/" + std::to_string(g.maybe);
  }
  return s;
}

TEST(PruneTail, LearnedTailSizeGivesTheSameAnswers) {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(PQFAST_TEST_DATA_DIR)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") paths.push_back(e.path().string());
  }
  ASSERT_GT(paths.size(), 50u);
  pq::ProbeValues ints;  // INT32 columns named "id" (and errors elsewhere)
  ints.type = PhysicalType::kInt32;
  const int32_t values[] = {0, 1, 5, 7, 100000};
  ints.data.resize(sizeof values);
  std::memcpy(ints.data.data(), values, sizeof values);
  std::mt19937 rng(11);
  for (int round = 0; round < 4; ++round) {
    std::shuffle(paths.begin(), paths.end(), rng);  // footers of every size, in every order
    pq::PruneOptions opt;
    opt.threads = 1 + round % 3;
    const auto all = pq::prune_files(paths, "id", ints, opt);
    ASSERT_EQ(all.size(), paths.size());
    int ok = 0;
    for (size_t i = 0; i < paths.size(); ++i) {
      auto f = pq::LocalFile::open(paths[i]);
      ASSERT_TRUE(f.ok());
      const auto alone = pq::prune_file(**f, "id", ints, opt);
      EXPECT_EQ(describe(all[i]), describe(alone)) << paths[i];
      ok += all[i].ok;
    }
    EXPECT_GT(ok, 5);
  }
}

}  // namespace
}  // namespace pqfast
