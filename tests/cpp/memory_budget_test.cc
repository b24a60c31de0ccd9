// The read's memory budget (pqfast/memory_budget.h): charges and releases,
// reads refused past it with kMemoryLimit (no exception escapes), the
// default limit; non-regular files refused at open; the exact size of a
// DELTA_BYTE_ARRAY page from its length streams.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "parquet/read_buffer.h"
#include "pqfast/delta.h"
#include "pqfast/memory_budget.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"

namespace pq = pqfast::parquet;
using pqfast::MemoryBudget;

namespace {

TEST(MemoryBudget, ChargesReleasesAndKeepsThePeak) {
  MemoryBudget b(1000);
  EXPECT_TRUE(b.try_charge(600));
  EXPECT_FALSE(b.try_charge(401));  // refused: nothing charged
  EXPECT_EQ(b.used(), 600);
  EXPECT_TRUE(b.try_charge(400));
  b.release(700);
  EXPECT_EQ(b.used(), 300);
  EXPECT_EQ(b.peak(), 1000);
  b.force_charge(800);  // past the limit on purpose (allocator slack)
  EXPECT_EQ(b.used(), 1100);
  EXPECT_FALSE(b.try_charge(1));
}

TEST(MemoryBudget, DefaultLimitIsSane) {
  const int64_t d = pqfast::default_memory_limit();
  EXPECT_GE(d, int64_t{64} << 20);
  EXPECT_EQ(MemoryBudget::make()->limit(), d);
  EXPECT_EQ(MemoryBudget::make(12345)->limit(), 12345);
  EXPECT_EQ(pqfast::format_bytes(100), "100 bytes");
  EXPECT_EQ(pqfast::format_bytes(int64_t{3} << 30), "3.0 GiB");
}

TEST(MemoryBudget, ReadBufferChargesTheScopeBudgetUntilFreed) {
  auto b = MemoryBudget::make(1 << 20);
  {
    pq::detail::ReadBuffer buf;
    {
      pq::detail::BudgetScope scope(b);
      buf.resize(4096);
      EXPECT_GE(b->used(), 4096);
      // Past the limit: thrown before anything is allocated, contents kept.
      std::memset(buf.data(), 7, 4096);
      EXPECT_THROW(buf.resize(size_t{2} << 20), pq::detail::MemoryLimitExceeded);
      EXPECT_EQ(buf.size(), 4096u);
      EXPECT_EQ(buf.data()[4095], 7);
    }
    EXPECT_GE(b->used(), 4096);  // charged while the buffer lives, outside the scope too
  }
  EXPECT_EQ(b->used(), 0);
}

TEST(MemoryBudget, AReadChargesTheSameWhateverThePoolHolds) {
  // The pool may hand out a block up to twice the size asked; the charge
  // (and the usable capacity) stays the request's own class, so a read
  // that fits its limit in a fresh process fits it after other reads too.
  namespace d = pq::detail;
  struct Seen {
    int64_t charged;
    size_t capacity;
    size_t idle_while_held;
  };
  const size_t asked = 600000;
  auto read_once = [&] {
    auto b = MemoryBudget::make(64 << 20);
    d::ReadBuffer buf;
    d::BudgetScope scope(b);
    buf.resize(asked);
    std::memset(buf.data(), 3, asked);
    return Seen{b->used(), buf.capacity(), d::pool_idle_bytes()};
  };
  d::pool_clear();
  const Seen cold = read_once();
  EXPECT_EQ(cold.idle_while_held, 0u);
  d::pool_clear();
  {  // leave only a larger block (within twice the size) in the pool
    d::ReadBuffer larger;
    larger.resize(asked * 3 / 2);
  }
  ASSERT_GE(d::pool_idle_bytes(), asked * 3 / 2);
  const Seen warm = read_once();
  EXPECT_EQ(warm.idle_while_held, 0u);  // the larger block was the one taken
  EXPECT_EQ(warm.charged, cold.charged);
  EXPECT_EQ(warm.capacity, cold.capacity);
  EXPECT_GE(d::pool_idle_bytes(), asked * 3 / 2);  // and it went back whole
  d::pool_clear();
}

std::string data_file(const char* name) { return std::string(PQFAST_TEST_DATA_DIR) + "/" + name; }

TEST(MemoryBudget, ReadsPastTheLimitAreErrorsNamingTheColumn) {
  auto file = pq::LocalFile::open(data_file("alltypes_plain.parquet"));
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  auto meta = pq::read_file_metadata(**file);
  ASSERT_TRUE(meta.ok());
  for (int leaf = 0; leaf < static_cast<int>(meta->columns.size()); ++leaf) {
    pq::ColumnReadOptions o;
    o.budget = MemoryBudget::make(16);  // less than any chunk's bytes
    auto r = pq::read_column_chunk(**file, *meta, 0, leaf, o);
    ASSERT_FALSE(r.ok()) << leaf;
    EXPECT_EQ(r.error().code, pqfast::ErrorCode::kMemoryLimit);
    EXPECT_NE(r.error().message.find("column '" + meta->columns[leaf].dotted_path + "'"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("memory limit of 16 bytes"), std::string::npos) << r.error().message;
    EXPECT_EQ(o.budget->used(), 0);  // what was charged before the refusal went back

    o.budget = MemoryBudget::make(1 << 20);
    auto ok = pq::read_column_chunk(**file, *meta, 0, leaf, o);
    ASSERT_TRUE(ok.ok()) << ok.error().to_string();
    EXPECT_EQ(ok->length(), meta->row_groups[0].num_rows);
    EXPECT_GT(o.budget->used(), 0);  // the result's buffers
    ok = pqfast::Result<pq::ColumnArray>(pqfast::make_error(pqfast::ErrorCode::kCorrupt, "dropped"));
    EXPECT_EQ(o.budget->used(), 0);
    EXPECT_GT(o.budget->peak(), 0);
  }
}

TEST(LocalFileOpen, RefusesWhatIsNotARegularFileAtOnce) {
  char dir[] = "/tmp/pqfast_fifo_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/x.parquet";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (int way = 0; way < 2; ++way) {  // open() would block on a FIFO without O_NONBLOCK
    auto f = way == 0 ? pq::LocalFile::open(fifo) : pq::LocalFile::open_for_reading(fifo);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error().code, pqfast::ErrorCode::kIoError);
    EXPECT_NE(f.error().message.find("not a regular file (a FIFO)"), std::string::npos) << f.error().message;
  }
  auto d = pq::LocalFile::open(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("a directory"), std::string::npos) << d.error().message;
  unlink(fifo.c_str());
  rmdir(dir);
}

TEST(DeltaByteArray, DecodedSizeEqualsTheDecodedBytes) {
  std::vector<std::string> values;
  std::string v;
  for (int i = 0; i < 3000; ++i) {
    if (i % 7 == 0) v.resize(v.size() / 2);
    v += static_cast<char>('a' + i % 26);
    values.push_back(v);
  }
  std::vector<int64_t> offsets{0};
  std::string data;
  for (const auto& s : values) {
    data += s;
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  auto page = pqfast::delta_encode_byte_array(offsets.data(), reinterpret_cast<const uint8_t*>(data.data()),
                                              values.size());
  ASSERT_TRUE(page.ok());
  auto size = pqfast::DeltaByteArrayDecoder::decoded_size(page->data(), page->size(), UINT64_MAX);
  ASSERT_TRUE(size.ok()) << size.error().to_string();
  EXPECT_EQ(*size, data.size());
  // Stops early once past the bound (and says so by passing it).
  auto early = pqfast::DeltaByteArrayDecoder::decoded_size(page->data(), page->size(), 100);
  ASSERT_TRUE(early.ok());
  EXPECT_GT(*early, 100u);
  EXPECT_LT(*early, data.size());
  // Truncated streams are errors, not sizes.
  auto cut = pqfast::DeltaByteArrayDecoder::decoded_size(page->data(), 5, UINT64_MAX);
  EXPECT_FALSE(cut.ok());
}

}  // namespace
