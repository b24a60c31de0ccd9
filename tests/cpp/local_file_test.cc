// LocalFile::open_for_reading (pruning's open: size from lseek, no stat):
// the size of a regular file, clear errors for what is not one, and no
// blocking on a FIFO.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "pqfast/parquet.h"

namespace pqfast {
namespace {

namespace fs = std::filesystem;
namespace pq = pqfast::parquet;

TEST(LocalFile, OpenForReadingSizesAndRefuses) {
  const fs::path dir = fs::temp_directory_path() / ("pqfast_lf_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = (dir / "f.bin").string();
  std::ofstream(file, std::ios::binary) << std::string(12345, 'x');

  auto f = pq::LocalFile::open_for_reading(file);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ((*f)->size(), 12345u);
  EXPECT_EQ((*f)->mtime_ns(), -1);
  uint8_t buf[4];
  ASSERT_TRUE((*f)->read_at(12341, 4, buf).ok());
  EXPECT_EQ(std::memcmp(buf, "xxxx", 4), 0);
  EXPECT_FALSE((*f)->read_at(12342, 4, buf).ok());  // past the end

  auto d = pq::LocalFile::open_for_reading(dir.string());  // a directory: refused at the read
  if (d.ok()) {
    auto st = (*d)->read_at(0, 1, buf);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("not a regular file"), std::string::npos) << st.error().message;
  } else {
    EXPECT_NE(d.error().message.find("not a regular file"), std::string::npos);
  }

  const std::string fifo = (dir / "p.parquet").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto p = pq::LocalFile::open_for_reading(fifo);  // returns at once (no writer needed)
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("not a regular file"), std::string::npos) << p.error().message;

  auto missing = pq::LocalFile::open_for_reading((dir / "none").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kIoError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pqfast
