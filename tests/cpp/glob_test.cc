// glob_local: the lake pattern expansion (sorted, no "." / ".." from a
// wildcard, no "**").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast {
namespace {

TEST(GlobLocal, SortedMatchesWithoutDotEntries) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pqfast_glob_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  for (const char* n : {"b.parquet", "a.parquet", "B.parquet", ".hidden.parquet", "a.txt", "sub/c.parquet"}) {
    std::ofstream(dir / n) << "";
  }
  const std::string base = dir.string();
  auto all = pqfast::parquet::glob_local(base + "/*.parquet");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<std::string>{base + "/B.parquet", base + "/a.parquet", base + "/b.parquet"}));
  auto dots = pqfast::parquet::glob_local(base + "/.*");
  ASSERT_TRUE(dots.ok());
  EXPECT_EQ(*dots, (std::vector<std::string>{base + "/.hidden.parquet"}));  // not "." or ".."
  auto nested = pqfast::parquet::glob_local(base + "/*/*.parquet");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(*nested, (std::vector<std::string>{base + "/sub/c.parquet"}));
  auto none = pqfast::parquet::glob_local(base + "/*.none");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto recursive = pqfast::parquet::glob_local(base + "/**/*.parquet");
  ASSERT_FALSE(recursive.ok());
  EXPECT_EQ(recursive.error().code, ErrorCode::kInvalidArgument);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pqfast
