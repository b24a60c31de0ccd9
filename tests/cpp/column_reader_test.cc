// The column reader over every flat column chunk of parquet-testing: the
// same values on every SIMD implementation; every truncation of the pages a
// chunk needs is an error, never a crash; hostile page headers and levels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "parquet_test_util.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "parquet/column_values.h"
#include "parquet/decode.h"
#include "parquet/rle.h"
#include "test_util.h"

namespace pq = pqfast::parquet;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> data_files() {
  std::vector<fs::path> out;
  const fs::path dir(PQFAST_TEST_DATA_DIR);
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".parquet") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

using pqfast::testing::read_all;

struct Chunk {
  std::string name;
  pq::ColumnDescriptor column;
  int32_t codec;
  int64_t rows;
  std::vector<uint8_t> bytes;  // the chunk's pages
  size_t needed;               // bytes through the page that completes the rows
};

// Row group 0 of every flat column whose pages walk cleanly.
std::vector<Chunk> flat_chunks() {
  std::vector<Chunk> out;
  for (const auto& path : data_files()) {
    const auto bytes = read_all(path);
    pq::BufferFile file(bytes.data(), bytes.size(), path.filename().string());
    auto meta = pq::read_file_metadata(file);
    if (!meta.ok() || meta->row_groups.empty()) continue;
    const auto& rg = meta->row_groups[0];
    for (size_t leaf = 0; leaf < meta->columns.size() && leaf < rg.columns.size(); ++leaf) {
      if (!pq::flat_column_problem(*meta, static_cast<int>(leaf)).empty()) continue;
      const auto& c = rg.columns[leaf];
      if (!c.has_meta_data || rg.num_rows == 0) continue;
      auto headers = pq::read_page_headers(file, c);
      if (!headers.ok()) continue;
      int64_t start = c.data_page_offset;
      if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
      size_t at = 0, needed = 0;
      int64_t values = 0;
      for (const auto& h : *headers) {
        at += h.header_size + static_cast<size_t>(h.compressed_page_size);
        if (h.type == pq::PageType::kDataPage) values += h.data_page.num_values;
        if (h.type == pq::PageType::kDataPageV2) values += h.data_page_v2.num_values;
        if (values >= rg.num_rows && needed == 0) needed = at;
      }
      if (needed == 0) continue;
      Chunk ch{path.filename().string() + ":" + meta->columns[leaf].dotted_path, meta->columns[leaf], c.codec,
               rg.num_rows,
               std::vector<uint8_t>(bytes.begin() + start, bytes.begin() + start + c.total_compressed_size), needed};
      out.push_back(std::move(ch));
    }
  }
  return out;
}

}  // namespace

TEST(ColumnReader, EverySimdLevelGivesTheSameArrays) {
  const auto chunks = flat_chunks();
  ASSERT_GT(chunks.size(), 100u);
  size_t read = 0;
  for (const auto& ch : chunks) {
    SCOPED_TRACE(ch.name);
    std::vector<std::optional<std::string>> ref;
    bool have = false;
    pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel) {
      auto r = pq::decode_column_chunk(ch.bytes.data(), ch.bytes.size(), 0, ch.column, ch.codec, ch.rows);
      if (!r.ok()) {
        EXPECT_FALSE(have) << r.error().to_string();
        return;
      }
      EXPECT_EQ(r->length(), ch.rows);
      auto vals = pq::detail::column_values(*r->impl());
      if (!have) {
        ref = std::move(vals);
        have = true;
        ++read;
      } else {
        EXPECT_TRUE(vals == ref);
      }
    });
  }
  // Without the codec libraries (a cross build) only uncompressed and SNAPPY
  // chunks read (zstd stands for the libraries: SNAPPY is in every build).
  EXPECT_GT(read, pq::codec_supported(6) ? 100u : 20u);
}

TEST(ColumnReader, EveryTruncationOfThePagesIsAnError) {
  const auto chunks = flat_chunks();
  size_t cuts = 0;
  for (const auto& ch : chunks) {
    SCOPED_TRACE(ch.name);
    auto full = pq::decode_column_chunk(ch.bytes.data(), ch.bytes.size(), 0, ch.column, ch.codec, ch.rows);
    if (!full.ok()) continue;
    // Every length for small chunks; for large ones 400 lengths spread over
    // the chunk plus the last 64 bytes.
    std::vector<size_t> lens;
    if (ch.needed <= 1500) {
      for (size_t l = 0; l < ch.needed; ++l) lens.push_back(l);
    } else {
      for (size_t k = 0; k < 400; ++k) lens.push_back(ch.needed * k / 400);
      for (size_t l = ch.needed - 64; l < ch.needed; ++l) lens.push_back(l);
    }
    for (size_t l : lens) {
      std::vector<uint8_t> cut(ch.bytes.begin(), ch.bytes.begin() + static_cast<std::ptrdiff_t>(l));
      auto r = pq::decode_column_chunk(cut.data(), cut.size(), 0, ch.column, ch.codec, ch.rows);
      ASSERT_FALSE(r.ok()) << "cut at " << l << " of " << ch.needed;
      ASSERT_FALSE(r.error().message.empty());
      ++cuts;
    }
  }
  EXPECT_GT(cuts, pq::codec_supported(6) ? 10000u : 1000u);  // (as above)
}

TEST(ColumnReader, HybridBitsAcrossByteBoundaries) {
  // A bit-packed run of 16 values then an RLE run of 5 ones, at every offset.
  const uint8_t stream[] = {0x05, 0xb5, 0x3c, 0x0a, 0x01};
  for (int off = 0; off < 16; ++off) {
    uint8_t bits[8] = {};
    auto set = pq::detail::decode_hybrid_bits(stream, sizeof stream, 21, bits, off, "test");
    ASSERT_TRUE(set.ok());
    int expect = 0;
    for (int i = 0; i < 21; ++i) {
      const bool want = i < 16 ? ((i < 8 ? 0xb5 : 0x3c) >> (i % 8)) & 1 : true;
      expect += want;
      EXPECT_EQ(((bits[(off + i) / 8] >> ((off + i) % 8)) & 1) != 0, want) << off << " " << i;
    }
    EXPECT_EQ(*set, expect);
  }
  uint8_t bits[8] = {};
  EXPECT_FALSE(pq::detail::decode_hybrid_bits(stream, 3, 21, bits, 0, "test").ok());
  const uint8_t bad_value[] = {0x08, 0x02};  // RLE run of 4 twos at width 1
  EXPECT_FALSE(pq::detail::decode_hybrid_bits(bad_value, 2, 4, bits, 0, "test").ok());
}

TEST(ColumnReader, ReportsCodecsAndNestedColumns) {
  EXPECT_TRUE(pq::codec_supported(0));
  // SNAPPY: pqfast's own decoder, in every build (the AArch64 cross build,
  // which finds no codec library, included): nothing to link.
  EXPECT_TRUE(pq::codec_supported(1));
  EXPECT_FALSE(pq::codec_supported(3));  // LZO: never built in
  for (const auto& path : data_files()) {
    if (path.filename() != "nested_lists.snappy.parquet") continue;
    auto f = pq::LocalFile::open(path.string());
    ASSERT_TRUE(f.ok());
    auto m = pq::read_file_metadata(**f);
    ASSERT_TRUE(m.ok());
    auto r = pq::read_column_chunk(**f, *m, 0, 0);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("nested columns are not read yet"), std::string::npos);
  }
}

TEST(ColumnReader, ExportsThroughTheCDataInterface) {
  for (const auto& path : data_files()) {
    if (path.filename() != "alltypes_plain.parquet") continue;
    auto f = pq::LocalFile::open(path.string());
    ASSERT_TRUE(f.ok());
    auto m = pq::read_file_metadata(**f);
    ASSERT_TRUE(m.ok());
    const int leaf = m->find_column("string_col");
    auto r = pq::read_column_chunk(**f, *m, 0, leaf);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ArrowArray a;
    ArrowSchema s;
    std::move(*r).export_to(&a, &s, "string_col");
    EXPECT_STREQ(s.format, "z");
    EXPECT_STREQ(s.name, "string_col");
    EXPECT_EQ(a.length, 8);
    EXPECT_EQ(a.n_buffers, 3);
    const auto* offsets = static_cast<const int32_t*>(a.buffers[1]);
    const auto* bytes = static_cast<const char*>(a.buffers[2]);
    EXPECT_EQ(std::string(bytes + offsets[0], offsets[1] - offsets[0]), "0");
    EXPECT_EQ(std::string(bytes + offsets[1], offsets[2] - offsets[1]), "1");
    a.release(&a);
    s.release(&s);
    EXPECT_EQ(a.release, nullptr);
  }
}

#include "unpack/kernels.h"

// unpack8 (levels, a byte each) on every level against unpack32 of the
// scalar table on the same bits, and what a kernel leaves undone is what
// the caller finishes: the whole of rle.cc's unpack_bits8 is checked too.
TEST(UnpackKernels, BytesEveryLevelEqualUnpack32AtWidthsOneToEight) {
  namespace up = pqfast::unpack;
  const auto& tables = up::unpack_kernel_tables();
  const auto bytes = pqfast::testing::random_u64(64, 43);
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel l) {
    const up::UnpackKernels* k = tables.by_level[static_cast<int>(l)];
    if (k == nullptr) return;
    for (int w = 1; w <= 8; ++w) {
      for (size_t groups : {size_t{1}, size_t{2}, size_t{3}, size_t{16}, size_t{40}}) {
        for (size_t nbytes : {groups * static_cast<size_t>(w), size_t{512}}) {
          std::vector<uint32_t> want(groups * 8);
          ASSERT_EQ(up::kScalarUnpackKernels.unpack32(src, nbytes, w, groups, want.data()), groups);
          std::vector<uint8_t> exact(src, src + nbytes);  // a read past nbytes is an ASan error
          std::vector<uint8_t> got(groups * 8, 0xee);
          const size_t done = k->unpack8(exact.data(), nbytes, w, groups, got.data());
          ASSERT_LE(done, groups);
          for (size_t i = 0; i < done * 8; ++i) {
            ASSERT_EQ(got[i], want[i]) << pqfast::simd_level_name(l) << " w " << w << " i " << i;
          }
          for (size_t first : {size_t{0}, size_t{8}, size_t{3}}) {
            if (first >= groups * 8) continue;
            const size_t count = groups * 8 - first;
            std::vector<uint8_t> all(count, 0xee);
            pqfast::parquet::detail::unpack_bits8(exact.data(), nbytes, w, first, count, all.data());
            for (size_t i = 0; i < count; ++i) {
              ASSERT_EQ(all[i], want[first + i]) << pqfast::simd_level_name(l) << " w " << w << " first " << first;
            }
          }
        }
      }
    }
  });
}

// max32 (the dictionary index bound check) on every level against a plain
// loop: lengths around every vector width, values with the top bit set
// (an unsigned max, not a signed one), the maximum at either end.
TEST(UnpackKernels, Max32EveryLevelEqualsAPlainMax) {
  namespace up = pqfast::unpack;
  const auto& tables = up::unpack_kernel_tables();
  const auto words = pqfast::testing::random_u64(600, 44);
  std::vector<uint32_t> v(1200);
  std::memcpy(v.data(), words.data(), v.size() * 4);
  pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel l) {
    const up::UnpackKernels* k = tables.by_level[static_cast<int>(l)];
    if (k == nullptr) return;
    for (uint32_t shift : {0u, 1u, 20u}) {
      std::vector<uint32_t> x(v.size());
      for (size_t i = 0; i < v.size(); ++i) x[i] = v[i] >> shift;
      for (size_t n = 0; n <= 70; ++n) {
        for (size_t at : {size_t{0}, size_t{5}}) {
          uint32_t want = 0;
          for (size_t i = 0; i < n; ++i) want = std::max(want, x[at + i]);
          ASSERT_EQ(k->max32(x.data() + at, n), want) << pqfast::simd_level_name(l) << " n " << n;
        }
      }
      for (size_t n : {size_t{1024}, size_t{1200}}) {
        uint32_t want = 0;
        for (size_t i = 0; i < n; ++i) want = std::max(want, x[i]);
        ASSERT_EQ(k->max32(x.data(), n), want) << pqfast::simd_level_name(l) << " n " << n;
      }
      // The maximum as the first and as the last value.
      std::vector<uint32_t> y(37, 3);
      y[0] = 0xfffffff0u >> shift;
      ASSERT_EQ(k->max32(y.data(), y.size()), y[0]);
      std::swap(y[0], y[36]);
      ASSERT_EQ(k->max32(y.data(), y.size()), y[36]);
    }
  });
}

// gather4 / gather8 (dictionary entries by checked indices) on every level
// against a plain loop: lengths around every vector width, indices at both
// ends of the dictionary, an output of exactly n entries (a write past it
// is an ASan error) and a dictionary of exactly its entries (no slack read).
TEST(UnpackKernels, GathersEveryLevelEqualAPlainLoop) {
  namespace up = pqfast::unpack;
  const auto& tables = up::unpack_kernel_tables();
  const auto words = pqfast::testing::random_u64(4096, 45);
  pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel l) {
    const up::UnpackKernels* k = tables.by_level[static_cast<int>(l)];
    if (k == nullptr) return;
    for (size_t e : {size_t{4}, size_t{8}}) {
      for (size_t dict_size : {size_t{1}, size_t{3}, size_t{1000}}) {
        std::vector<uint8_t> dict(dict_size * e);
        std::memcpy(dict.data(), words.data(), dict.size());
        for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{7}, size_t{8}, size_t{9}, size_t{15},
                         size_t{16}, size_t{17}, size_t{31}, size_t{33}, size_t{1024}}) {
          std::vector<uint32_t> idx(n);
          for (size_t i = 0; i < n; ++i) idx[i] = static_cast<uint32_t>(words[2048 + i % 1024] % dict_size);
          if (n > 1) idx[0] = 0, idx[n - 1] = static_cast<uint32_t>(dict_size - 1);
          std::vector<uint8_t> want(n * e), got(n * e, 0xee);
          for (size_t i = 0; i < n; ++i) std::memcpy(want.data() + i * e, dict.data() + idx[i] * e, e);
          (e == 4 ? k->gather4 : k->gather8)(dict.data(), idx.data(), n, got.data());
          ASSERT_EQ(got, want) << pqfast::simd_level_name(l) << " e " << e << " dict " << dict_size << " n " << n;
        }
      }
    }
  });
}

// unpack_gather (indices unpacked and gathered in one pass) on every level
// against unpack32 of the scalar table and a plain gather: widths 1..32,
// entries of 1, 2, 4, 8 and 16 bytes, an input of exactly its groups' bytes and an
// output of exactly the groups written (a read or write past either is an
// ASan error); an index past the dictionary sets *bad and reads nothing
// outside it; what a kernel leaves undone is a whole number of groups.
TEST(UnpackKernels, UnpackGatherEveryLevelEqualsUnpackThenGather) {
  namespace up = pqfast::unpack;
  const auto& tables = up::unpack_kernel_tables();
  const auto words = pqfast::testing::random_u64(4096, 47);
  const auto* rnd = reinterpret_cast<const uint8_t*>(words.data());
  pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel l) {
    const up::UnpackKernels* k = tables.by_level[static_cast<int>(l)];
    if (k == nullptr) return;
    for (int w = 1; w <= 32; ++w) {
      for (size_t groups : {size_t{1}, size_t{2}, size_t{7}, size_t{9}, size_t{40}}) {
        for (int e : {1, 2, 4, 8, 16}) {
          for (bool in_range : {true, false}) {
            const size_t nbytes = groups * static_cast<size_t>(w);
            std::vector<uint8_t> src(rnd, rnd + nbytes);  // exactly the groups' bytes
            std::vector<uint32_t> idx(groups * 8);
            ASSERT_EQ(up::kScalarUnpackKernels.unpack32(src.data(), nbytes, w, groups, idx.data()), groups);
            uint32_t top = 0;
            for (uint32_t v : idx) top = std::max(top, v);
            // In range: a dictionary just holding the largest index; out of
            // range: one entry short of it (or of 1 when every index is 0).
            const uint32_t dict_size = in_range ? top + 1 : std::max<uint32_t>(top, 1);
            if (!in_range && top == 0) continue;
            if (size_t{dict_size} * static_cast<size_t>(e) > (size_t{1} << 26)) continue;  // (wide random indices: a dictionary too large to build here)
            std::vector<uint8_t> dict(size_t{dict_size} * static_cast<size_t>(e));
            for (size_t i = 0; i < dict.size(); ++i) dict[i] = static_cast<uint8_t>(i * 131 + (i >> 8));
            std::vector<uint8_t> got(groups * 8 * static_cast<size_t>(e), 0xee);
            bool bad = false;
            const size_t done = k->unpack_gather(src.data(), nbytes, w, groups, dict.data(), dict_size, e, got.data(), &bad);
            ASSERT_LE(done, groups) << pqfast::simd_level_name(l) << " w " << w;
            if (l == pqfast::SimdLevel::kScalar) ASSERT_EQ(done, groups) << " w " << w;
            if (!in_range) {
              // Bad whenever the indices it covered include one past the end.
              bool past = false;
              for (size_t i = 0; i < done * 8; ++i) past = past || idx[i] >= dict_size;
              ASSERT_EQ(bad, past) << pqfast::simd_level_name(l) << " w " << w << " groups " << groups;
              continue;
            }
            ASSERT_FALSE(bad) << pqfast::simd_level_name(l) << " w " << w;
            for (size_t i = 0; i < done * 8; ++i) {
              ASSERT_EQ(std::memcmp(got.data() + i * e, dict.data() + size_t{idx[i]} * e, e), 0)
                  << pqfast::simd_level_name(l) << " w " << w << " e " << e << " groups " << groups << " value " << i;
            }
          }
        }
      }
    }
    // An empty dictionary: nothing done, nothing read.
    bool bad = false;
    uint8_t src[8] = {}, out[64];
    ASSERT_EQ(k->unpack_gather(src, sizeof src, 1, 1, nullptr, 0, 4, out, &bad), 0u);
  });
}

// A dictionary-encoded page through the reader's gathers (fixed entries of
// 4, 8 and 16 bytes, and views): a bit-packed run of 200 indices of width 5
// gathers the entries it names; the same run with one index at the
// dictionary's size fails as corrupt, naming that index, at every position
// (inside the one-pass kernel's groups and in the tail it leaves).
TEST(ColumnReader, DictionaryGathersCheckEveryIndex) {
  namespace d = pqfast::parquet::detail;
  constexpr size_t kN = 200, kDict = 20;
  for (size_t bad_at : {~size_t{0}, size_t{0}, size_t{7}, size_t{100}, size_t{191}, size_t{199}}) {
    std::vector<uint32_t> idx(kN);
    for (size_t i = 0; i < kN; ++i) idx[i] = static_cast<uint32_t>((i * 7 + 3) % kDict);
    if (bad_at < kN) idx[bad_at] = kDict;  // (fits 5 bits: one past the last entry)
    // Width byte, one bit-packed run header (25 groups), 25 * 5 bytes.
    std::vector<uint8_t> page = {5, static_cast<uint8_t>((kN / 8) << 1 | 1)};
    std::vector<uint8_t> bits(kN * 5 / 8, 0);
    for (size_t i = 0; i < kN; ++i) {
      for (int b = 0; b < 5; ++b) {
        if (idx[i] >> b & 1) bits[(i * 5 + b) / 8] |= static_cast<uint8_t>(1u << ((i * 5 + b) % 8));
      }
    }
    page.insert(page.end(), bits.begin(), bits.end());
    for (int e : {4, 8, 16, 0}) {  // 0: views
      d::Dictionary dict;
      dict.present = true;
      dict.size = kDict;
      d::ReadBuffer& entries = e == 0 ? dict.views : dict.fixed;
      const size_t es = e == 0 ? 16 : static_cast<size_t>(e);
      entries.resize(kDict * es);
      for (size_t i = 0; i < kDict * es; ++i) entries.data()[i] = static_cast<uint8_t>(i * 37 + 1);
      std::vector<uint8_t> out(kN * es, 0xee);
      const pqfast::Status st =
          e == 0 ? d::dict_gather_views(dict, page.data(), page.size(), kN,
                                        reinterpret_cast<pqfast::parquet::detail::BinaryViewElem*>(out.data()), "page")
                 : d::dict_gather_fixed(dict, e, page.data(), page.size(), kN, out.data(), "page");
      if (bad_at >= kN) {
        ASSERT_TRUE(st.ok()) << st.error().message;
        for (size_t i = 0; i < kN; ++i) {
          ASSERT_EQ(std::memcmp(out.data() + i * es, entries.data() + idx[i] * es, es), 0) << "e " << e << " value " << i;
        }
      } else {
        ASSERT_FALSE(st.ok()) << "e " << e << " bad at " << bad_at;
        EXPECT_EQ(st.error().code, pqfast::ErrorCode::kCorrupt);
        EXPECT_NE(st.error().message.find("dictionary index 20 is out of range"), std::string::npos) << st.error().message;
      }
    }
  }
}

// Decimals from PLAIN values (convert_fixed): big-endian FIXED_LEN_BYTE_ARRAY
// of 1..17 bytes (1..8 take the 8-byte-load path, its last values the byte
// loop), INT32 and INT64, into 128- and 256-bit little-endian integers,
// against a byte-by-byte sign extension; the input holds exactly its values
// (a load past them is an ASan error).
TEST(ColumnReader, DecimalConversionsEqualAByteLoop) {
  const auto words = pqfast::testing::random_u64(1024, 46);
  const auto* rnd = reinterpret_cast<const uint8_t*>(words.data());
  for (size_t w : {size_t{16}, size_t{32}}) {
    const auto layout = w == 16 ? pq::ArrowLayout::kDecimal128 : pq::ArrowLayout::kDecimal256;
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t len = 1; len <= (kind == 0 ? 17u : 1u); ++len) {
        pq::ColumnDescriptor d;
        size_t pw;
        if (kind == 0) {
          d.physical_type = pqfast::PhysicalType::kFixedLenByteArray;
          d.type_length = static_cast<int32_t>(len);
          pw = len;
        } else {
          d.physical_type = kind == 1 ? pqfast::PhysicalType::kInt32 : pqfast::PhysicalType::kInt64;
          pw = kind == 1 ? 4 : 8;
        }
        for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{8}, size_t{9}, size_t{100}}) {
          std::vector<uint8_t> in(rnd, rnd + n * pw);
          std::vector<uint8_t> want(n * w), got(n * w, 0xee);
          if (pw > w) {
            // (wider than the output: refused; no reference to build, its bytes would not fit)
            EXPECT_FALSE(pq::detail::convert_fixed(d, layout, in.data(), n, got.data(), "test").ok());
            continue;
          }
          for (size_t i = 0; i < n; ++i) {
            const uint8_t* v = in.data() + i * pw;
            uint8_t* o = want.data() + i * w;
            const bool big_endian = kind == 0;
            const uint8_t top = big_endian ? v[0] : v[pw - 1];
            std::memset(o, (top & 0x80) ? 0xff : 0, w);
            for (size_t b = 0; b < pw; ++b) o[b] = big_endian ? v[pw - 1 - b] : v[b];
          }
          auto st = pq::detail::convert_fixed(d, layout, in.data(), n, got.data(), "test");
          ASSERT_TRUE(st.ok()) << st.error().to_string();
          ASSERT_EQ(got, want) << "kind " << kind << " len " << len << " n " << n << " w " << w;
        }
      }
    }
  }
}

TEST(UnpackKernels, EveryLevelEqualsScalarAtEveryWidth) {
  namespace up = pqfast::unpack;
  const auto& tables = up::unpack_kernel_tables();
  const auto bytes = pqfast::testing::random_u64(64, 42);
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  for (int level = 0; level < pqfast::kNumSimdLevels; ++level) {
    const up::UnpackKernels* k = tables.by_level[level];
    if (k == nullptr) continue;
    bool supported = false;
    for (auto l : pqfast::available_simd_levels()) supported |= static_cast<int>(l) == level;
    if (!supported) continue;
    for (int w = 1; w <= 32; ++w) {
      for (size_t groups : {size_t{1}, size_t{3}, size_t{16}}) {
        // nbytes exactly the groups (no slack) and with the whole buffer.
        for (size_t nbytes : {groups * static_cast<size_t>(w), size_t{512}}) {
          std::vector<uint32_t> want(groups * 8), got(groups * 8, 0xdeadbeef);
          ASSERT_EQ(up::kScalarUnpackKernels.unpack32(src, nbytes, w, groups, want.data()), groups);
          // A copy of exactly nbytes, so a read past it is an ASan error.
          std::vector<uint8_t> exact(src, src + nbytes);
          const size_t done = k->unpack32(exact.data(), nbytes, w, groups, got.data());
          ASSERT_LE(done, groups);
          for (size_t i = 0; i < done * 8; ++i) ASSERT_EQ(got[i], want[i]) << "level " << level << " w " << w << " i " << i;
        }
      }
    }
  }
}

namespace {

// Decodes `ch` cut into `parts` ranges (SplitChunk), each range on its own thread.
pqfast::Result<pq::ColumnArray> split_read(const uint8_t* bytes, size_t len, const Chunk& ch, int parts,
                                           const pq::ColumnReadOptions& o, int* got_parts) {
  auto s = pq::SplitChunk::plan(bytes, len, 0, ch.column, ch.codec, ch.rows, o, parts);
  *got_parts = s->parts();
  std::vector<std::thread> threads;
  for (int p = 1; p < s->parts(); ++p) threads.emplace_back([&s, p] { s->decode(p); });
  s->decode(0);
  for (auto& t : threads) t.join();
  return s->finish();
}

// The layouts a chunk is read as: its default, and for BYTE_ARRAY the three
// string layouts (offsets of 32 and 64 bits, views).
std::vector<pq::ArrowLayout> layouts_of(const pq::ColumnDescriptor& d) {
  if (d.physical_type != pqfast::PhysicalType::kByteArray) return {pq::ArrowLayout::kDefault};
  return {pq::ArrowLayout::kDefault, pq::ArrowLayout::kBinary, pq::ArrowLayout::kLargeBinary,
          pq::ArrowLayout::kBinaryView};
}

}  // namespace

// Pages of one chunk decoded by several threads and joined give the arrays
// of the whole chunk read on one, on every SIMD level, for every chunk of
// parquet-testing (every encoding, codec, page version and null pattern it
// holds) and every string layout.
TEST(SplitChunk, RangesJoinedEqualTheWholeChunk) {
  const auto chunks = flat_chunks();
  size_t split = 0;
  pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel) {
    for (const auto& ch : chunks) {
      SCOPED_TRACE(ch.name);
      for (pq::ArrowLayout layout : layouts_of(ch.column)) {
        pq::ColumnReadOptions o;
        o.layout = layout;
        auto whole = pq::decode_column_chunk(ch.bytes.data(), ch.bytes.size(), 0, ch.column, ch.codec, ch.rows, o);
        for (int parts : {2, 3, 8, 64}) {
          SCOPED_TRACE(parts);
          int got = 0;
          auto r = split_read(ch.bytes.data(), ch.bytes.size(), ch, parts, o, &got);
          ASSERT_EQ(r.ok(), whole.ok()) << (r.ok() ? whole.error().to_string() : r.error().to_string());
          if (!r.ok()) {
            EXPECT_EQ(r.error().code, whole.error().code);
            continue;
          }
          EXPECT_LE(got, parts);
          if (got > 1) ++split;
          EXPECT_EQ(r->length(), whole->length());
          EXPECT_EQ(r->null_count(), whole->null_count());
          EXPECT_EQ(r->format(), whole->format());
          EXPECT_TRUE(pq::detail::column_values(*r->impl()) == pq::detail::column_values(*whole->impl()));
        }
      }
    }
  });
  // alltypes_tiny_pages, int32_with_null_pages, the DELTA files and others
  // have chunks of many pages.
  EXPECT_GT(split, pq::codec_supported(6) ? 200u : 20u);  // (zstd: the codec libraries)
}

// Cut chunks are errors where whole ones are (truncated pages, a header cut
// short): never a crash, never a value read past the bytes.
TEST(SplitChunk, TruncatedChunksAreErrorsAsWhole) {
  const auto chunks = flat_chunks();
  size_t cuts = 0;
  for (const auto& ch : chunks) {
    SCOPED_TRACE(ch.name);
    if (ch.needed < 2) continue;
    for (size_t k = 1; k < 40; ++k) {
      const size_t l = ch.needed * k / 40;
      std::vector<uint8_t> cut(ch.bytes.begin(), ch.bytes.begin() + static_cast<std::ptrdiff_t>(l));
      auto whole = pq::decode_column_chunk(cut.data(), cut.size(), 0, ch.column, ch.codec, ch.rows);
      int got = 0;
      auto r = split_read(cut.data(), cut.size(), ch, 4, {}, &got);
      ASSERT_FALSE(r.ok()) << "cut at " << l << " of " << ch.needed;
      EXPECT_EQ(r.error().code, whole.error().code) << r.error().to_string() << " / " << whole.error().to_string();
      ++cuts;
    }
  }
  EXPECT_GT(cuts, 1000u);
}

// Hostile bytes inside the pages (headers left intact): each range reports
// what the whole chunk's read reports, or both read; no crash.
TEST(SplitChunk, CorruptPagesAreErrorsAsWhole) {
  const auto chunks = flat_chunks();
  size_t tried = 0;
  uint64_t seed = 7;
  for (const auto& ch : chunks) {
    SCOPED_TRACE(ch.name);
    for (int round = 0; round < 8; ++round) {
      std::vector<uint8_t> bad(ch.bytes.begin(), ch.bytes.begin() + static_cast<std::ptrdiff_t>(ch.needed));
      for (int flips = 0; flips < 4; ++flips) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        bad[(seed >> 33) % bad.size()] ^= static_cast<uint8_t>(1u << ((seed >> 20) & 7));
      }
      auto whole = pq::decode_column_chunk(bad.data(), bad.size(), 0, ch.column, ch.codec, ch.rows);
      int got = 0;
      auto r = split_read(bad.data(), bad.size(), ch, 3, {}, &got);
      if (whole.ok() && r.ok()) {
        EXPECT_TRUE(pq::detail::column_values(*r->impl()) == pq::detail::column_values(*whole->impl()));
      } else if (!r.ok()) {
        EXPECT_FALSE(r.error().message.empty());
      }
      ++tried;
    }
  }
  EXPECT_GT(tried, 500u);
}

// The split policy: nothing is cut at one thread; a chunk much larger than
// the others is cut for several; PQFAST_SPLIT_BYTES=0 turns it off.
TEST(SplitChunk, SplitPartsPolicy) {
  std::vector<int64_t> sizes = {int64_t{400} << 20, 1 << 20};
  for (int i = 0; i < 30; ++i) sizes.push_back(8 << 20);
  EXPECT_EQ(pq::split_parts(sizes, 1), std::vector<int>(32, 1));
  const auto four = pq::split_parts(sizes, 4);  // one chunk far over the average
  EXPECT_EQ(four[0], 4);
  EXPECT_EQ(std::count(four.begin(), four.end(), 1), 31);
  const auto few = pq::split_parts({int64_t{64} << 20, int64_t{64} << 20, int64_t{1} << 20}, 16);  // fewer chunks than threads
  EXPECT_EQ(few, (std::vector<int>{16, 16, 1}));
  const auto two = pq::split_parts({int64_t{64} << 20}, 2);  // one chunk, two threads
  EXPECT_EQ(two[0], 2);
  const auto even = pq::split_parts(std::vector<int64_t>(32, int64_t{8} << 20), 4);  // many equal chunks
  EXPECT_EQ(even, std::vector<int>(32, 1));
  setenv("PQFAST_SPLIT_BYTES", "0", 1);
  EXPECT_EQ(pq::split_parts(sizes, 4), std::vector<int>(32, 1));
  setenv("PQFAST_SPLIT_BYTES", "1048576", 1);
  EXPECT_EQ(pq::split_parts(sizes, 16)[2], 8);
  unsetenv("PQFAST_SPLIT_BYTES");
}
