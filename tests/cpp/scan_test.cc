// The scan engine's layers: page indexes parsed from real files; pages read
// for a subset of rows equal to the same rows of a whole read; the scan of a
// file with page indexes (alltypes_tiny_pages) equal to a whole read
// filtered by brute force; hostile files (mutated bytes) end in an answer
// or an error, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "parquet/decode.h"
#include "parquet/read_buffer.h"
#include "filter_test_util.h"
#include "parquet_test_util.h"
#include "pqfast/page_index.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/scan.h"
#include "scan/local_units.h"
#include "scan/row_ranges.h"

namespace pq = pqfast::parquet;
namespace fs = std::filesystem;
using pqfast::testing::read_all;

namespace {

const fs::path kDir(PQFAST_TEST_DATA_DIR);

// Value i of an array as bytes (nullopt: null). Bool: "0"/"1".
std::optional<std::string> value_at(const pq::ColumnArray& a, int64_t i) {
  const auto* im = a.impl();
  if (im->layout == pq::ArrowLayout::kNull) return std::nullopt;
  if (im->null_count > 0 && im->validity.size() > 0 && !((im->validity.data()[i >> 3] >> (i & 7)) & 1)) {
    return std::nullopt;
  }
  switch (im->layout) {
    case pq::ArrowLayout::kBool: return std::string(1, '0' + ((im->values.data()[i >> 3] >> (i & 7)) & 1));
    case pq::ArrowLayout::kBinary: {
      const int32_t* o = im->values.as<int32_t>();
      return std::string(reinterpret_cast<const char*>(im->data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    }
    case pq::ArrowLayout::kLargeBinary: {
      const int64_t* o = im->values.as<int64_t>();
      return std::string(reinterpret_cast<const char*>(im->data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    }
    default: {
      const size_t w = static_cast<size_t>(im->width);
      return std::string(reinterpret_cast<const char*>(im->values.data()) + static_cast<size_t>(i) * w, w);
    }
  }
}

int64_t leaf_of(const pq::FileMetaData& m, const std::string& name) { return m.find_column(name); }

}  // namespace

TEST(ReadBuffer, GrowthKeepsContentsAndSize) {
  pq::detail::ReadBuffer b;
  b.resize_zeroed(4);
  b.data()[0] = 7;
  b.reserve(1000);
  EXPECT_EQ(b.size(), 4u);
  b.resize(5000);  // a second growth copies what the first kept
  EXPECT_EQ(b.data()[0], 7);
  b.resize_zeroed(20000);
  EXPECT_EQ(b.data()[0], 7);
  EXPECT_EQ(b.data()[19999], 0);
}

TEST(ReadBuffer, PoolClassesAreBoundedAndFreedBlocksAreReused) {
  namespace d = pq::detail;
  for (size_t n : {size_t{1}, size_t{100}, d::kPoolMinBytes - 1, d::kPoolMinBytes, d::kPoolMinBytes + 1,
                   size_t{3} << 20, (size_t{3} << 20) + 12345, size_t{1} << 30}) {
    const size_t c = d::pool_class_size(n);
    EXPECT_GE(c, n);
    EXPECT_EQ(c % 64, 0u) << n;
    if (n >= d::kPoolMinBytes) EXPECT_LE(c, n + n / 8) << n;  // at most an eighth more
  }
  d::pool_clear();
  EXPECT_EQ(d::pool_idle_bytes(), 0u);
  // Blocks below the pool's minimum come from malloc, aligned by hand (the
  // shift kept before the block): 64-aligned, writable to their size, and
  // freed whole (the ASan build checks the free).
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{100}, size_t{4096}, size_t{57000},
                   d::kPoolMinBytes - 128}) {
    std::vector<std::pair<uint8_t*, size_t>> blocks;
    for (int k = 0; k < 4; ++k) {
      size_t got = 0;
      uint8_t* p = d::pool_allocate(n, &got);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
      EXPECT_GE(got, n);
      std::memset(p, 0xab, got);
      blocks.emplace_back(p, got);
    }
    for (auto [p, got] : blocks) {
      EXPECT_EQ(p[0], 0xab);
      EXPECT_EQ(p[got - 1], 0xab);
      d::pool_free(p, got);
    }
    EXPECT_EQ(d::pool_idle_bytes(), 0u) << n;  // (not pooled)
  }
  // Blocks from 4 KiB below the pool's minimum stay in the freeing thread's
  // cache: its next request of their class gets the last one back, another
  // thread's does not, and pool_clear empties the cache.
  d::pool_clear();
  {
    size_t got1 = 0, got2 = 0, got3 = 0;
    uint8_t* p1 = d::pool_allocate(20000, &got1);
    EXPECT_GE(got1, 20000u);
    EXPECT_LE(got1, 20000u + 20000u / 8);
    d::pool_free(p1, got1);
    EXPECT_EQ(d::thread_cache_bytes(), got1);
    uint8_t* other = nullptr;
    std::thread([&] { other = d::pool_allocate(20000, &got3); }).join();
    EXPECT_NE(other, p1);
    uint8_t* p2 = d::pool_allocate(19000, &got2);  // (the same class)
    EXPECT_EQ(p2, p1);
    EXPECT_EQ(got2, got1);
    EXPECT_EQ(d::thread_cache_bytes(), 0u);
    d::pool_free(p2, got2);
    d::pool_free(other, got3);  // (freed here: cached here)
    EXPECT_EQ(d::thread_cache_bytes(), got1 + got3);
    d::pool_clear();
    EXPECT_EQ(d::thread_cache_bytes(), 0u);
  }
  // Two sizes of one class, small and mapped: the second request gets the
  // first's block back (no fresh memory), which the pool held meanwhile.
  for (size_t n : {size_t{300000}, size_t{5} << 20}) {
    size_t got1 = 0, got2 = 0;
    uint8_t* a = d::pool_allocate(n, &got1);
    std::memset(a, 1, got1);
    d::pool_free(a, got1);
    EXPECT_EQ(d::pool_idle_bytes(), got1);
    uint8_t* b = d::pool_allocate(n - 100, &got2);
    EXPECT_EQ(b, a);
    EXPECT_EQ(got2, got1);
    EXPECT_EQ(d::pool_idle_bytes(), 0u);
    EXPECT_EQ(b[got2 - 1], 1);
    d::pool_free(b, got2);
    d::pool_clear();
  }
  d::pool_clear();
  EXPECT_EQ(d::pool_idle_bytes(), 0u);
  // ReadBuffers larger than the pool's minimum go back to it when freed.
  {
    d::ReadBuffer big;
    big.resize(size_t{3} << 20);
    std::memset(big.data(), 2, big.size());
  }
  EXPECT_GE(d::pool_idle_bytes(), size_t{3} << 20);
  d::pool_clear();
}

TEST(PageIndex, ParsesAlltypesTinyPagesAndMatchesThePageHeaders) {
  const auto bytes = read_all(kDir / "alltypes_tiny_pages.parquet");
  ASSERT_FALSE(bytes.empty());
  pq::BufferFile file(bytes.data(), bytes.size(), "alltypes_tiny_pages.parquet");
  auto meta = pq::read_file_metadata(file);
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  int chunks = 0;
  for (const auto& rg : meta->row_groups) {
    for (const auto& c : rg.columns) {
      ASSERT_GE(c.offset_index_offset, 0);
      auto oi = pq::parse_offset_index(bytes.data() + c.offset_index_offset, static_cast<size_t>(c.offset_index_length),
                                       static_cast<size_t>(c.offset_index_offset));
      ASSERT_TRUE(oi.ok()) << oi.error().message;
      EXPECT_TRUE(pq::validate_offset_index(*oi, bytes.size(), rg.num_rows, "x").ok());
      if (c.column_index_offset < 0) continue;  // no min/max for this column
      auto ci = pq::parse_column_index(bytes.data() + c.column_index_offset, static_cast<size_t>(c.column_index_length),
                                       static_cast<size_t>(c.column_index_offset));
      ASSERT_TRUE(ci.ok()) << ci.error().message;
      EXPECT_EQ(ci->num_pages(), oi->page_locations.size());
      // Each location is a data page header, in order.
      auto headers = pq::read_page_headers(file, c);
      ASSERT_TRUE(headers.ok());
      std::vector<int64_t> data_pages;
      for (const auto& h : *headers) {
        if (h.type == pq::PageType::kDataPage || h.type == pq::PageType::kDataPageV2) data_pages.push_back(0);
      }
      EXPECT_EQ(data_pages.size(), oi->page_locations.size());
      for (const auto& loc : oi->page_locations) {
        auto h = pq::parse_page_header(bytes.data() + loc.offset, bytes.size() - static_cast<size_t>(loc.offset));
        ASSERT_TRUE(h.ok());
        EXPECT_EQ(static_cast<int64_t>(h->header_size) + h->compressed_page_size, loc.compressed_page_size);
      }
      ++chunks;
    }
  }
  EXPECT_GT(chunks, 10);
}

TEST(PageIndex, HostileBytesGiveErrors) {
  std::vector<uint8_t> junk = {0x19, 0xfc, 0xff, 0xff, 0xff, 0x0f};  // a list of 2^32 bools
  EXPECT_FALSE(pq::parse_column_index(junk.data(), junk.size()).ok());
  EXPECT_FALSE(pq::parse_offset_index(junk.data(), junk.size()).ok());
  pq::OffsetIndex oi;
  oi.page_locations = {{100, 10, 0}, {105, 10, 5}};  // overlapping pages
  EXPECT_FALSE(pq::validate_offset_index(oi, 1000, 10, "x").ok());
  oi.page_locations = {{100, 10, 3}};  // first row not 0
  EXPECT_FALSE(pq::validate_offset_index(oi, 1000, 10, "x").ok());
  oi.page_locations = {{100, 10, 0}, {110, 10, 20}};  // past the row group
  EXPECT_FALSE(pq::validate_offset_index(oi, 1000, 10, "x").ok());
}

TEST(PageIndex, AnIndexThatContradictsItsColumnIsNotUsed) {
  pq::OffsetIndex oi;
  oi.page_locations = {{100, 10, 0}, {110, 10, 40}};  // pages of 40 and 60 rows in a 100-row group
  pq::ColumnIndex ci;
  ci.null_pages = {false, true};
  ci.min_values = {"a", ""};
  ci.max_values = {"z", ""};
  ci.null_counts = {0, 60};
  EXPECT_TRUE(pq::column_index_usable(ci, oi, 100, 1, 0));
  EXPECT_FALSE(pq::column_index_usable(ci, oi, 100, 0, 0));  // a null page in a required column
  ci.null_counts = {0, 59};                                  // "only nulls", yet 59 of 60
  EXPECT_FALSE(pq::column_index_usable(ci, oi, 100, 1, 0));
  EXPECT_TRUE(pq::column_index_usable(ci, oi, 100, 1, 1));   // nested: values are not rows
  ci.null_counts = {-1, -1};                                 // parquet-mr with statistics off
  EXPECT_FALSE(pq::column_index_usable(ci, oi, 100, 1, 0));
  ci.null_counts.clear();                                    // none given: nothing to check by
  EXPECT_TRUE(pq::column_index_usable(ci, oi, 100, 1, 0));
  ci.null_pages = {false};  // one page fewer than the OffsetIndex
  EXPECT_FALSE(pq::column_index_usable(ci, oi, 100, 1, 0));
}

// Every flat chunk of every parquet-testing file: decoding only the pages
// holding random rows, then taking random rows among them, gives the values
// a whole read gives for those rows.
TEST(SparseRead, EqualsTheWholeReadOnEveryFlatChunk) {
  std::mt19937_64 rng(42);
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() != ".parquet") continue;
    const auto bytes = read_all(e.path());
    pq::BufferFile file(bytes.data(), bytes.size(), e.path().filename().string());
    auto meta = pq::read_file_metadata(file);
    if (!meta.ok()) continue;
    for (size_t g = 0; g < meta->row_groups.size(); ++g) {
      const auto& rg = meta->row_groups[g];
      for (size_t leaf = 0; leaf < meta->columns.size() && leaf < rg.columns.size(); ++leaf) {
        if (!pq::flat_column_problem(*meta, static_cast<int>(leaf)).empty() || rg.num_rows == 0) continue;
        auto whole = pq::read_column_chunk(file, *meta, static_cast<int>(g), static_cast<int>(leaf));
        if (!whole.ok()) continue;
        const auto& c = rg.columns[leaf];
        int64_t start = c.data_page_offset;
        if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
        const int64_t n = rg.num_rows;
        // Trials 0-2: short ranges, half their rows taken; 3-5: long ranges
        // (whole words of the selection) taken sparsely (1 in 16), densely
        // (15 in 16) and wholly: take_selected's three ways of moving a word.
        for (int trial = 0; trial < 6; ++trial) {
          std::vector<pq::RowRange> keep;
          std::vector<uint64_t> sel(static_cast<size_t>((n + 63) / 64), 0);
          int64_t selected = 0;
          const uint64_t max_len = trial < 3 ? 5 : 300;
          auto taken_row = [&]() {
            switch (trial) {
              case 3: return rng() % 16 == 0;
              case 4: return rng() % 16 != 0;
              case 5: return true;
              default: return rng() % 2 == 1;
            }
          };
          for (int64_t r = 0; r < n;) {
            const int64_t len = 1 + static_cast<int64_t>(rng() % max_len);
            if (rng() % (trial % 3 + 2) == 0) {
              const int64_t e2 = std::min(n, r + len);
              keep.push_back({r, e2});
              for (int64_t k = r; k < e2; ++k) {
                if (taken_row()) {
                  sel[static_cast<size_t>(k >> 6)] |= uint64_t{1} << (k & 63);
                  ++selected;
                }
              }
            }
            r += len + static_cast<int64_t>(rng() % static_cast<uint64_t>(1 + n / 4));
          }
          pq::PagesDecoded pd;
          // To the file's end: the walk stops once the rows are read (some
          // writers understate total_compressed_size, PARQUET-816).
          const size_t chunk_len = bytes.size() - static_cast<size_t>(start);
          auto part = pq::decode_column_pages({{bytes.data() + start, chunk_len, static_cast<uint64_t>(start), 0}}, true,
                                              meta->columns[leaf], c.codec, n, keep, &pd);
          ASSERT_TRUE(part.ok()) << e.path() << " leaf " << leaf << ": " << part.error().message;
          // Every kept row lies in a decoded range.
          for (const auto& k : keep) {
            bool in = false;
            for (const auto& d : pd.rows) in = in || (d.begin <= k.begin && k.end <= d.end);
            EXPECT_TRUE(in) << e.path();
          }
          auto taken = pq::take_selected(std::move(*part), pd.rows, sel.data(), selected);
          ASSERT_TRUE(taken.ok()) << taken.error().message;
          ASSERT_EQ(taken->length(), selected);
          int64_t j = 0;
          for (int64_t r = 0; r < n; ++r) {
            if (!((sel[static_cast<size_t>(r >> 6)] >> (r & 63)) & 1)) continue;
            ASSERT_EQ(value_at(*taken, j), value_at(*whole, r)) << e.path() << " leaf " << leaf << " row " << r;
            ++j;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

namespace {

// An INT32 atom (the scan tests' files key on int32 columns).
pq::FilterAtom int_atom(const std::string& col, pq::FilterOp op, std::vector<int32_t> v, bool negate = false) {
  return pqfast::testing::fixed_atom<int32_t>(col, op, v, negate);
}

}  // namespace

// alltypes_tiny_pages has a page index and many pages per chunk: the scan of
// `id` filters with every option on and off gives the rows (all columns) a
// whole read filtered by brute force gives, and reads fewer pages.
TEST(Scan, EqualsBruteForceOnAlltypesTinyPages) {
  const std::string path = (kDir / "alltypes_tiny_pages.parquet").string();
  const auto bytes = read_all(path);
  pq::BufferFile file(bytes.data(), bytes.size(), "tiny");
  auto meta = pq::read_file_metadata(file);
  ASSERT_TRUE(meta.ok());
  std::vector<pq::ScanColumn> cols;
  for (const auto& d : meta->columns) cols.push_back({d.dotted_path, {}});
  const int id_leaf = static_cast<int>(leaf_of(*meta, "id"));
  const int month_leaf = static_cast<int>(leaf_of(*meta, "month"));
  struct Case {
    std::vector<std::vector<pq::FilterAtom>> dnf;
    std::function<bool(int32_t, int32_t)> keep;  // (id, month)
  };
  std::vector<Case> cases = {
      {{{int_atom("id", pq::FilterOp::kEq, {1234})}}, [](int32_t id, int32_t) { return id == 1234; }},
      {{{int_atom("id", pq::FilterOp::kIn, {5, 77, 6000, 99999})}},
       [](int32_t id, int32_t) { return id == 5 || id == 77 || id == 6000; }},
      {{{int_atom("id", pq::FilterOp::kGe, {3000}), int_atom("id", pq::FilterOp::kLt, {3100})}},
       [](int32_t id, int32_t) { return id >= 3000 && id < 3100; }},
      {{{int_atom("id", pq::FilterOp::kLt, {10})}, {int_atom("id", pq::FilterOp::kGt, {7290})}},
       [](int32_t id, int32_t) { return id < 10 || id > 7290; }},
      {{{int_atom("id", pq::FilterOp::kLt, {2000}, true), int_atom("month", pq::FilterOp::kEq, {3})}},
       [](int32_t id, int32_t m) { return id >= 2000 && m == 3; }},
      {{{int_atom("id", pq::FilterOp::kIn, {1, 2, 3}, true), int_atom("id", pq::FilterOp::kLt, {6})}},
       [](int32_t id, int32_t) { return id < 6 && id != 1 && id != 2 && id != 3; }},
      {{{int_atom("id", pq::FilterOp::kNe, {0}), int_atom("month", pq::FilterOp::kLe, {1})}},
       [](int32_t id, int32_t m) { return id != 0 && m <= 1; }},
      {{{int_atom("id", pq::FilterOp::kIsNull, {})}}, [](int32_t, int32_t) { return false; }},
      {{{int_atom("id", pq::FilterOp::kIsNull, {}, true), int_atom("id", pq::FilterOp::kEq, {42})}},
       [](int32_t id, int32_t) { return id == 42; }},
      {{}, [](int32_t, int32_t) { return false; }},
  };
  // The expected rows: whole reads of every row group.
  std::vector<std::vector<pq::ColumnArray>> whole;
  for (size_t g = 0; g < meta->row_groups.size(); ++g) {
    whole.emplace_back();
    for (size_t leaf = 0; leaf < meta->columns.size(); ++leaf) {
      auto a = pq::read_column_chunk(file, *meta, static_cast<int>(g), static_cast<int>(leaf));
      ASSERT_TRUE(a.ok());
      whole.back().push_back(std::move(*a));
    }
  }
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int flags = 0; flags < 8; ++flags) {
      pq::ScanFilter f;
      f.active = true;
      f.any_of = cases[k].dnf;
      pq::ScanOptions o;
      o.use_statistics = flags & 1;
      o.use_page_index = flags & 2;
      o.use_dictionary = flags & 4;
      auto r = pq::scan_file(file, 0, cols, f, o);
      ASSERT_TRUE(r.ok()) << r.error().message;
      std::vector<std::vector<std::optional<std::string>>> got, want;
      for (const auto& p : r->pieces) {
        for (int64_t i = 0; i < p.num_rows; ++i) {
          got.emplace_back();
          for (const auto& a : p.columns) got.back().push_back(value_at(a, i));
        }
      }
      for (size_t g = 0; g < whole.size(); ++g) {
        const auto& w = whole[g];
        for (int64_t i = 0; i < w[0].length(); ++i) {
          int32_t id, month;
          std::memcpy(&id, value_at(w[static_cast<size_t>(id_leaf)], i)->data(), 4);
          std::memcpy(&month, value_at(w[static_cast<size_t>(month_leaf)], i)->data(), 4);
          if (!cases[k].keep(id, month)) continue;
          want.emplace_back();
          for (const auto& a : w) want.back().push_back(value_at(a, i));
        }
      }
      EXPECT_EQ(got, want) << "case " << k << " flags " << flags;
      EXPECT_EQ(r->stats.rows, static_cast<int64_t>(want.size()));
      if (k == 0 && (flags & 2)) EXPECT_GT(r->stats.pages_skipped, 0) << "the page index skipped no page";
    }
  }
}

// Mutated copies of a file with page indexes: every scan ends in rows or an
// error (the sanitizer build checks the memory).
TEST(Scan, MutatedFilesNeverCrash) {
  const auto clean = read_all(kDir / "alltypes_tiny_pages.parquet");
  std::mt19937_64 rng(7);
  std::vector<pq::ScanColumn> cols = {{"id", {}}, {"string_col", {}}, {"double_col", {}}};
  pq::ScanFilter f;
  f.active = true;
  f.any_of = {{int_atom("id", pq::FilterOp::kLt, {300})}};
  int errors = 0;
  for (int m = 0; m < 300; ++m) {
    auto bytes = clean;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      // Mostly the tail (page indexes and footer), sometimes the pages.
      const size_t at = rng() % 3 ? bytes.size() - 1 - rng() % std::min<size_t>(bytes.size(), 12000) : rng() % bytes.size();
      bytes[at] = static_cast<uint8_t>(rng());
    }
    pq::BufferFile file(bytes.data(), bytes.size(), "mutant");
    auto r = pq::scan_file(file, 0, cols, f, {});
    if (!r.ok()) {
      ++errors;
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(errors, 0);
}

// A staged reader, as the scan over object storage uses one: only ranges
// fetched so far are served; any other read is recorded and answers
// kNotFetched, and the caller fetches what was recorded and runs again.
namespace {

class StagedFile final : public pq::RandomAccessFile {
 public:
  StagedFile(const std::vector<uint8_t>& bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {
    const uint64_t tail = std::min<uint64_t>(bytes.size(), 64 * 1024);
    have_.push_back({bytes.size() - tail, tail});
  }
  uint64_t size() const override { return bytes_.size(); }
  const std::string& name() const override { return name_; }
  pqfast::Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
    if (offset > bytes_.size() || n > bytes_.size() - offset) {
      return pqfast::make_error(pqfast::ErrorCode::kTruncated, "past the end");
    }
    for (const auto& [o, len] : have_) {
      if (offset >= o && offset + n <= o + len) {
        if (n) std::memcpy(out, bytes_.data() + offset, n);
        return pqfast::Status::Ok();
      }
    }
    needs_.push_back({offset, n});
    return pqfast::make_error(pqfast::ErrorCode::kNotFetched, "not fetched");
  }
  // Fetches what the last run asked for; the bytes it asked for.
  uint64_t fetch() {
    uint64_t n = 0;
    for (const auto& r : needs_) {
      have_.push_back(r);
      n += r.second;
    }
    needs_.clear();
    return n;
  }

 private:
  const std::vector<uint8_t>& bytes_;
  std::string name_;
  std::vector<std::pair<uint64_t, uint64_t>> have_, needs_;
};

// Rows of a scan's pieces as values per column.
std::vector<std::vector<std::optional<std::string>>> rows_of(const pq::ScanResult& r) {
  std::vector<std::vector<std::optional<std::string>>> out;
  for (const auto& p : r.pieces) {
    for (int64_t i = 0; i < p.num_rows; ++i) {
      out.emplace_back();
      for (const auto& a : p.columns) out.back().push_back(value_at(a, i));
    }
  }
  return out;
}

// Runs a staged scan to the end: (result, runs, bytes fetched past the tail).
struct Staged {
  pqfast::Result<pq::ScanResult> result{pqfast::Error{pqfast::ErrorCode::kInvalidArgument, "not run"}};
  int runs = 0;
  uint64_t fetched = 0;
};
Staged run_staged(const std::vector<uint8_t>& bytes, const std::vector<pq::ScanColumn>& cols,
                  const pq::ScanFilter& f, const pq::ScanOptions& o) {
  StagedFile file(bytes, "staged");
  Staged s;
  for (s.runs = 1; s.runs <= 32; ++s.runs) {
    auto rs = pq::scan_opened_each({&file}, {{}}, cols, f, o);
    s.result = std::move(rs[0]);
    if (s.result.ok() || s.result.error().code != pqfast::ErrorCode::kNotFetched) return s;
    const uint64_t n = file.fetch();
    if (n == 0) break;  // asked for nothing new: would loop
    s.fetched += n;
  }
  s.result = pqfast::Error{pqfast::ErrorCode::kInvalidArgument, "the staged scan did not finish"};
  return s;
}

}  // namespace

// The staged scan gives what a scan of the whole file gives, for every case
// and option; it finishes in a few runs (filter pages, then projected pages;
// a conjunct's later atoms one run each) and fetches less than the file
// for a lookup.
TEST(Scan, StagedReadsEqualTheWholeFileScan) {
  const auto bytes = read_all(kDir / "alltypes_tiny_pages.parquet");
  pq::BufferFile whole(bytes.data(), bytes.size(), "tiny");
  auto meta = pq::read_file_metadata(whole);
  ASSERT_TRUE(meta.ok());
  std::vector<pq::ScanColumn> cols;
  for (const auto& d : meta->columns) cols.push_back({d.dotted_path, {}});
  std::vector<std::vector<std::vector<pq::FilterAtom>>> cases = {
      {{int_atom("id", pq::FilterOp::kEq, {1234})}},
      {{int_atom("id", pq::FilterOp::kIn, {5, 77, 6000, 99999})}},
      {{int_atom("id", pq::FilterOp::kGe, {3000}), int_atom("id", pq::FilterOp::kLt, {3100})}},
      {{int_atom("id", pq::FilterOp::kLt, {10})}, {int_atom("id", pq::FilterOp::kGt, {7290})}},
      {{int_atom("id", pq::FilterOp::kLt, {2000}, true), int_atom("month", pq::FilterOp::kEq, {3})}},
      {{int_atom("id", pq::FilterOp::kNe, {0}), int_atom("month", pq::FilterOp::kLe, {1})}},
      {{int_atom("id", pq::FilterOp::kEq, {99999})}},
  };
  for (size_t k = 0; k <= cases.size(); ++k) {
    for (int flags = 0; flags < 8; ++flags) {
      pq::ScanFilter f;
      f.active = k < cases.size();  // the last: no filter, every row
      if (f.active) f.any_of = cases[k];
      pq::ScanOptions o;
      o.use_statistics = flags & 1;
      o.use_page_index = flags & 2;
      o.use_dictionary = flags & 4;
      o.use_bloom = false;
      auto want = pq::scan_file(whole, 0, cols, f, o);
      ASSERT_TRUE(want.ok()) << want.error().message;
      Staged got = run_staged(bytes, cols, f, o);
      ASSERT_TRUE(got.result.ok()) << "case " << k << " flags " << flags << ": " << got.result.error().message;
      EXPECT_EQ(rows_of(*got.result), rows_of(*want)) << "case " << k << " flags " << flags;
      EXPECT_EQ(got.result->stats.rows, want->stats.rows);
      // This file's page indexes lie outside the 64 KiB tail: a run asks for
      // them (and for dictionaries), then for the filter pages (every
      // conjunct's first atom at once), then for the projected pages. A
      // conjunct's later atoms need a run each (case 4: month after id).
      EXPECT_LE(got.runs, k == 4 || k == 5 ? 5 : 4) << "case " << k << " flags " << flags;
      if (k == 0 && (flags & 2)) {
        EXPECT_LT(got.fetched, bytes.size() / 2) << "a lookup fetched most of the file";
      }
    }
  }
}

// A staged file that counts the reads it answered, by range.
class CountingFile final : public pq::RandomAccessFile {
 public:
  explicit CountingFile(pq::RandomAccessFile& f) : f_(f) {}
  uint64_t size() const override { return f_.size(); }
  const std::string& name() const override { return f_.name(); }
  pqfast::Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
    pqfast::Status st = f_.read_at(offset, n, out);
    if (st.ok()) ++answered[{offset, n}];
    return st;
  }
  std::map<std::pair<uint64_t, size_t>, int> answered;

 private:
  pq::RandomAccessFile& f_;
};

// A row group of a staged reader run by scan::RowGroupRuns (the streaming
// scanner's filtered units on object storage): run after run as bytes come,
// each resuming where the last stopped, it gives what a scan of the whole
// file gives for that row group, with the same counts; where each AND has
// one atom it reads no range more often than that one scan does (the
// filter's pages decoded once, not again in the run that reads the
// projected pages). (A conjunct's later atom whose pages are not in yet
// makes the next run evaluate the atoms before it again: case 3.)
TEST(Scan, RowGroupRunsResumeAndReadEachRangeOnce) {
  const auto bytes = read_all(kDir / "alltypes_tiny_pages.parquet");
  pq::BufferFile whole(bytes.data(), bytes.size(), "tiny");
  auto meta = pq::read_file_metadata(whole);
  ASSERT_TRUE(meta.ok());
  auto footer = std::make_shared<const pq::FileMetaData>(*meta);
  std::vector<pq::ScanColumn> cols = {{"id", {}}, {"string_col", {}}, {"double_col", {}}, {"month", {}}};
  std::vector<std::vector<std::vector<pq::FilterAtom>>> cases = {
      {{int_atom("id", pq::FilterOp::kEq, {1234})}},
      {{int_atom("id", pq::FilterOp::kGe, {3000}), int_atom("id", pq::FilterOp::kLt, {3100})}},
      {{int_atom("id", pq::FilterOp::kLt, {10})}, {int_atom("id", pq::FilterOp::kGt, {7290})}},
      {{int_atom("id", pq::FilterOp::kLt, {2000}, true), int_atom("month", pq::FilterOp::kEq, {3})}},
      {{int_atom("id", pq::FilterOp::kEq, {99999})}},
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    for (int flags = 0; flags < 4; ++flags) {
      pq::ScanFilter f;
      f.active = true;
      f.any_of = cases[k];
      for (int32_t rg = 0; rg < static_cast<int32_t>(meta->row_groups.size()); ++rg) {
        pq::ScanOptions o;
        o.use_page_index = flags & 1;
        o.use_dictionary = flags & 2;
        o.use_bloom = false;
        o.row_groups = {rg};
        pq::ScanOptions fed = o;
        fed.footer = footer;
        CountingFile once(whole);
        auto want = pq::scan_file(once, 0, cols, f, fed);
        ASSERT_TRUE(want.ok()) << want.error().message;
        StagedFile staged(bytes, "staged");
        CountingFile file(staged);
        pq::scan::RowGroupRuns runs(file, 0, rg, cols, f, fed);
        pqfast::Result<pq::ScanResult> got = pqfast::Error{pqfast::ErrorCode::kInvalidArgument, "not run"};
        int n = 0;
        for (n = 1; n <= 8; ++n) {
          got = runs.run();
          if (got.ok() || got.error().code != pqfast::ErrorCode::kNotFetched) break;
          ASSERT_GT(staged.fetch(), 0u) << "a run asked for nothing new";
        }
        const std::string what = "case " + std::to_string(k) + " flags " + std::to_string(flags) + " rg " +
                                 std::to_string(rg);
        ASSERT_TRUE(got.ok()) << what << ": " << got.error().message;
        const bool one_atom_each = std::all_of(cases[k].begin(), cases[k].end(),
                                               [](const auto& conj) { return conj.size() == 1; });
        EXPECT_LE(n, one_atom_each ? 4 : 5) << what;
        EXPECT_EQ(rows_of(*got), rows_of(*want)) << what;
        EXPECT_EQ(got->stats.rows, want->stats.rows) << what;
        EXPECT_EQ(got->stats.pages_read, want->stats.pages_read) << what;
        EXPECT_EQ(got->stats.row_groups_read, want->stats.row_groups_read) << what;
        EXPECT_EQ(got->stats.row_groups_matched, want->stats.row_groups_matched) << what;
        for (const auto& [range, times] : file.answered) {
          if (!one_atom_each) break;
          const auto it = once.answered.find(range);
          EXPECT_LE(times, it == once.answered.end() ? 0 : it->second)
              << what << ": bytes " << range.first << "+" << range.second << " read " << times << " times";
        }
      }
    }
  }
}

// Mutated files scanned in stages end in rows or an error, in a bounded
// number of runs, and never read outside the file.
TEST(Scan, StagedReadsOfMutatedFilesEndInRowsOrErrors) {
  const auto clean = read_all(kDir / "alltypes_tiny_pages.parquet");
  std::mt19937_64 rng(11);
  std::vector<pq::ScanColumn> cols = {{"id", {}}, {"string_col", {}}, {"double_col", {}}};
  pq::ScanFilter f;
  f.active = true;
  f.any_of = {{int_atom("id", pq::FilterOp::kLt, {300})}};
  pq::ScanOptions o;
  o.use_bloom = false;
  int errors = 0;
  for (int m = 0; m < 200; ++m) {
    auto bytes = clean;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      const size_t at = rng() % 3 ? bytes.size() - 1 - rng() % std::min<size_t>(bytes.size(), 12000) : rng() % bytes.size();
      bytes[at] = static_cast<uint8_t>(rng());
    }
    Staged s = run_staged(bytes, cols, f, o);
    if (!s.result.ok()) {
      ++errors;
      EXPECT_NE(s.result.error().code, pqfast::ErrorCode::kNotFetched);
      EXPECT_FALSE(s.result.error().message.empty());
    }
  }
  EXPECT_GT(errors, 0);
}

#if defined(PQFAST_TEST_HAVE_SNAPPY)
#include <snappy-c.h>
#include "parquet/snappy_range.h"

// Random ranges of snappy streams (incompressible, repetitive, mixed) read
// through the tag index equal the same bytes of a whole decompression; cut
// or corrupted streams are errors.
TEST(SnappyIndex, RangesEqualTheWholeDecompression) {
  std::mt19937_64 rng(3);
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<uint8_t> raw(200000 + kind * 1234);
    for (size_t i = 0; i < raw.size(); ++i) {
      raw[i] = kind == 0 ? static_cast<uint8_t>(rng()) : kind == 1 ? static_cast<uint8_t>((i / 7) % 5)
                                                               : static_cast<uint8_t>(rng() % 3 == 0 ? rng() : i % 11);
    }
    size_t clen = snappy_max_compressed_length(raw.size());
    std::vector<char> comp(clen);
    ASSERT_EQ(snappy_compress(reinterpret_cast<const char*>(raw.data()), raw.size(), comp.data(), &clen), SNAPPY_OK);
    auto x = pqfast::parquet::detail::SnappyIndex::build(reinterpret_cast<const uint8_t*>(comp.data()), clen, "t");
    ASSERT_TRUE(x.ok()) << x.error().message;
    ASSERT_EQ(x->uncompressed_size(), raw.size());
    for (int t = 0; t < 500; ++t) {
      const size_t off = rng() % raw.size();
      const size_t n = std::min<size_t>(raw.size() - off, 1 + rng() % 100);
      std::vector<uint8_t> got(n);
      ASSERT_TRUE(x->read(off, n, got.data()).ok());
      ASSERT_EQ(0, std::memcmp(got.data(), raw.data() + off, n)) << "kind " << kind << " at " << off;
    }
    uint8_t b;
    EXPECT_FALSE(x->read(raw.size(), 1, &b).ok());
    // Every cut of the stream is an error; random corruptions never crash.
    for (size_t cut : {size_t{0}, size_t{1}, clen / 2, clen - 1}) {
      EXPECT_FALSE(pqfast::parquet::detail::SnappyIndex::build(reinterpret_cast<const uint8_t*>(comp.data()), cut, "t").ok());
    }
    for (int m = 0; m < 200; ++m) {
      std::vector<char> bad(comp.begin(), comp.begin() + static_cast<long>(clen));
      bad[rng() % clen] = static_cast<char>(rng());
      auto y = pqfast::parquet::detail::SnappyIndex::build(reinterpret_cast<const uint8_t*>(bad.data()), clen, "t");
      if (y.ok() && y->uncompressed_size() > 0) {
        std::vector<uint8_t> got(16);
        const size_t off = rng() % y->uncompressed_size();
        (void)y->read(off, std::min<size_t>(16, y->uncompressed_size() - off), got.data());
      }
    }
  }
}
#endif

// set_bits_within (whether the filter's decode of a column holds every
// selected row): against a bit-by-bit reference on random bitmaps and
// random sorted range lists, ranges reaching past n, bits set past n.
TEST(RowRanges, SetBitsWithinEqualsBitByBitReference) {
  namespace sc = pqfast::parquet::scan;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0, 1);
  int outside = 0, inside = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t n = static_cast<int64_t>(rng() % 300);
    const double density = trial % 3 == 0 ? 0.002 : trial % 3 == 1 ? 0.05 : 0.6;
    std::vector<uint64_t> bits(static_cast<size_t>((n + 63) / 64) + 1, 0);
    for (int64_t r = 0; r < n; ++r) {
      if (u(rng) < density) bits[static_cast<size_t>(r >> 6)] |= uint64_t{1} << (r & 63);
    }
    if (n % 64 != 0) bits[static_cast<size_t>(n >> 6)] |= ~uint64_t{0} << (n & 63);  // past n: not rows
    std::vector<pq::RowRange> ranges;
    for (int64_t r = 0; r < n + 5;) {
      const int64_t len = static_cast<int64_t>(rng() % 90);
      if (u(rng) < 0.7) ranges.push_back({r, r + len + 1});
      r += len + 1 + static_cast<int64_t>(rng() % 40);
    }
    bool want = true;
    for (int64_t r = 0; r < n && want; ++r) {
      if (!((bits[static_cast<size_t>(r >> 6)] >> (r & 63)) & 1)) continue;
      bool in = false;
      for (const auto& x : ranges) in = in || (x.begin <= r && r < x.end);
      want = in;
    }
    ASSERT_EQ(sc::set_bits_within(bits.data(), n, ranges), want) << trial;
    ++(want ? inside : outside);
  }
  EXPECT_GT(inside, 300);
  EXPECT_GT(outside, 300);
}

// ranges_of: the exact runs of set bits (gap 1), and runs fewer than `gap`
// rows apart merged (the scan's kRangeGap), against a bit-by-bit reference
// on random bitmaps of every density, lengths off a word's end, and bits set
// past n in the last word (never a row at or past n).
TEST(RowRanges, RangesOfEqualsBitByBitReference) {
  namespace sc = pqfast::parquet::scan;
  auto reference = [](const std::vector<uint64_t>& bits, int64_t n, int64_t gap) {
    std::vector<pq::RowRange> runs;
    for (int64_t r = 0; r < n; ++r) {
      if (!((bits[r >> 6] >> (r & 63)) & 1)) continue;
      if (!runs.empty() && runs.back().end == r) {
        runs.back().end = r + 1;
      } else {
        runs.push_back({r, r + 1});
      }
    }
    std::vector<pq::RowRange> out;
    for (const auto& x : runs) {
      if (!out.empty() && x.begin - out.back().end < gap) {
        out.back().end = x.end;
      } else {
        out.push_back(x);
      }
    }
    return out;
  };
  std::mt19937_64 rng(91);
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{63}, int64_t{64}, int64_t{65}, int64_t{1000}, int64_t{5000}}) {
    for (double density : {0.0, 0.001, 0.05, 0.5, 0.97, 1.0}) {
      for (int clumped = 0; clumped < 2; ++clumped) {
        std::vector<uint64_t> bits(static_cast<size_t>((n + 63) / 64) + 1, 0);
        std::uniform_real_distribution<double> u(0, 1);
        bool on = false;
        for (int64_t r = 0; r < n; ++r) {
          // clumped: runs of rows (flip with probability 0.02), else each row alone
          if (clumped) {
            if (u(rng) < 0.02) on = u(rng) < density;
          } else {
            on = u(rng) < density;
          }
          if (on) bits[static_cast<size_t>(r >> 6)] |= uint64_t{1} << (r & 63);
        }
        if (n % 64 != 0) bits[static_cast<size_t>(n >> 6)] |= ~uint64_t{0} << (n & 63);  // past n: ignored
        for (int64_t gap : {int64_t{1}, int64_t{2}, int64_t{64}, int64_t{256}, sc::kRangeGap}) {
          const auto want = reference(bits, n, gap);
          const auto got = sc::ranges_of(bits.data(), n, gap);
          if (gap == 1 || gap < 64) {
            ASSERT_EQ(got.size(), want.size()) << n << " " << density << " " << gap;
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_EQ(got[i].begin, want[i].begin);
              ASSERT_EQ(got[i].end, want[i].end);
            }
            continue;
          }
          // Word-wise merging (gap >= 64): every selected row covered, no
          // range past n, ranges sorted and disjoint, each starting and
          // ending on a selected row, and never more ranges than exact runs.
          int64_t prev_end = -1;
          for (const auto& x : got) {
            ASSERT_LT(x.begin, x.end);
            ASSERT_GT(x.begin, prev_end);
            ASSERT_LE(x.end, n);
            ASSERT_TRUE((bits[x.begin >> 6] >> (x.begin & 63)) & 1);
            ASSERT_TRUE((bits[(x.end - 1) >> 6] >> ((x.end - 1) & 63)) & 1);
            prev_end = x.end;
          }
          size_t k = 0;
          for (int64_t r = 0; r < n; ++r) {
            if (!((bits[r >> 6] >> (r & 63)) & 1)) continue;
            while (k < got.size() && got[k].end <= r) ++k;
            ASSERT_TRUE(k < got.size() && got[k].begin <= r) << "row " << r << " not covered";
          }
          ASSERT_LE(got.size(), reference(bits, n, 1).size());
          // Ranges left apart are at least a word of unselected rows apart.
          for (size_t i = 1; i < got.size(); ++i) ASSERT_GE(got[i].begin - got[i - 1].end, 64);
        }
      }
    }
  }
}
