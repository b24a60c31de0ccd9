// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY: every SIMD implementation
// against an independent reader written here (bit-by-bit lengths, byte-by-
// byte values), through every output (int32 and int64 offsets, views,
// fixed width), in random batches with skips and buffers too small; the
// encoders round trip; hostile pages give errors, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pqfast/delta.h"
#include "test_util.h"

namespace pqfast {
namespace {

using testing::for_each_simd_level;
using Values = std::vector<std::string>;

// ---- an independent reader -------------------------------------------------

struct Naive {
  const std::vector<uint8_t>& b;
  size_t pos = 0;
  bool ok = true;
  uint64_t uleb() {
    uint64_t v = 0;
    for (int s = 0; s < 64 && pos < b.size(); s += 7) {
      const uint8_t x = b[pos++];
      v |= uint64_t{x & 0x7fu} << s;
      if (!(x & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  int64_t zigzag() {
    const uint64_t v = uleb();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  // One INT32 DELTA_BINARY_PACKED stream; pos ends after the last used
  // miniblock's padded body.
  std::vector<int32_t> dbp() {
    const uint64_t block = uleb(), minis = uleb(), total = uleb();
    uint32_t cur = static_cast<uint32_t>(zigzag());
    std::vector<int32_t> out;
    if (!ok || total == 0) return out;
    out.push_back(static_cast<int32_t>(cur));
    const uint64_t vpm = block / minis;
    while (ok && out.size() < total) {
      const uint32_t md = static_cast<uint32_t>(zigzag());
      std::vector<int> w(minis);
      for (auto& x : w) x = pos < b.size() ? b[pos++] : (ok = false, 0);
      for (uint64_t m = 0; m < minis && out.size() < total && ok; ++m) {
        for (uint64_t j = 0; j < vpm; ++j) {
          uint64_t v = 0;
          for (int k = 0; k < w[m]; ++k) {
            const uint64_t bit = j * w[m] + k;
            if (pos + bit / 8 >= b.size()) { ok = ok && out.size() >= total; break; }
            v |= uint64_t{(b[pos + bit / 8] >> (bit % 8)) & 1u} << k;
          }
          cur += static_cast<uint32_t>(v) + md;
          if (out.size() < total) out.push_back(static_cast<int32_t>(cur));
        }
        pos = std::min(b.size(), pos + vpm * w[m] / 8);
      }
    }
    return out;
  }
};

Values naive_dlba(const std::vector<uint8_t>& page) {
  Naive r{page};
  auto lengths = r.dbp();
  Values out;
  for (int32_t len : lengths) {
    out.emplace_back(reinterpret_cast<const char*>(page.data() + r.pos), len);
    r.pos += len;
  }
  return out;
}

Values naive_dba(const std::vector<uint8_t>& page) {
  Naive r{page};
  auto prefixes = r.dbp();
  auto suffixes = r.dbp();
  Values out;
  std::string prev;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    std::string v = prev.substr(0, prefixes[i]) +
                     std::string(reinterpret_cast<const char*>(page.data() + r.pos), suffixes[i]);
    r.pos += suffixes[i];
    out.push_back(v);
    prev = v;
  }
  return out;
}

// ---- pages -------------------------------------------------------------------

std::vector<int32_t> offsets_of(const Values& v) {
  std::vector<int32_t> o{0};
  for (auto& s : v) o.push_back(o.back() + static_cast<int32_t>(s.size()));
  return o;
}
std::string joined(const Values& v) {
  std::string d;
  for (auto& s : v) d += s;
  return d;
}
std::vector<uint8_t> dbp32(const std::vector<int32_t>& v, DeltaGeometry g) {
  return *delta_encode_int32(v.data(), v.size(), g);
}
// Pages in any geometry (the encoders write Arrow's 128 / 4).
std::vector<uint8_t> dlba_page(const Values& v, DeltaGeometry g) {
  std::vector<int32_t> lens;
  for (auto& s : v) lens.push_back(static_cast<int32_t>(s.size()));
  auto page = dbp32(lens, g);
  auto d = joined(v);
  page.insert(page.end(), d.begin(), d.end());
  return page;
}
std::vector<uint8_t> dba_page(const Values& v, DeltaGeometry g) {
  std::vector<int32_t> pre, suf;
  std::string bytes, prev;
  for (auto& s : v) {
    size_t p = 0;
    while (p < prev.size() && p < s.size() && prev[p] == s[p]) ++p;
    pre.push_back(static_cast<int32_t>(p));
    suf.push_back(static_cast<int32_t>(s.size() - p));
    bytes += s.substr(p);
    prev = s;
  }
  auto page = dbp32(pre, g);
  auto s2 = dbp32(suf, g);
  page.insert(page.end(), s2.begin(), s2.end());
  page.insert(page.end(), bytes.begin(), bytes.end());
  return page;
}

std::string random_bytes(std::mt19937_64& rng, size_t n, int alphabet) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(alphabet == 256 ? rng() : 'a' + rng() % alphabet);
  return s;
}

// The data sets the issue names, and then some.
std::vector<Values> data_sets(std::mt19937_64& rng) {
  std::vector<Values> sets;
  sets.push_back({});
  sets.push_back({""});
  sets.push_back({"x"});
  sets.push_back(Values(1000, ""));                       // all empty
  Values lengths_0_300;
  for (size_t n = 0; n <= 300; ++n) lengths_0_300.push_back(random_bytes(rng, n, 256));
  sets.push_back(lengths_0_300);
  Values shared;  // shared prefixes of every length 0..300
  std::string base = random_bytes(rng, 320, 256);
  for (size_t p = 0; p <= 300; ++p) {
    std::string v = base.substr(0, p) + random_bytes(rng, rng() % 20, 256);
    shared.push_back(v);
    shared.push_back(base.substr(0, p));
  }
  sets.push_back(shared);
  Values sorted;
  for (int i = 0; i < 5000; ++i) sorted.push_back("https://example.com/" + random_bytes(rng, rng() % 30, 4));
  std::sort(sorted.begin(), sorted.end());
  sets.push_back(sorted);
  Values mixed;
  for (int i = 0; i < 3001; ++i) {
    const int kind = static_cast<int>(rng() % 4);
    mixed.push_back(kind == 0 ? std::string() : random_bytes(rng, rng() % (kind == 3 ? 200 : 17), 3));
  }
  sets.push_back(mixed);
  return sets;
}

const DeltaGeometry kGeometries[] = {{128, 4}, {256, 8}, {2048, 8}, {128, 1}, {512, 16}};

// ---- decoding through each output ------------------------------------------

template <class Decoder, class Offset>
Result<Values> decode_offsets(Decoder& dec, std::mt19937_64& rng, bool small_buffers) {
  const size_t total = dec.values_remaining();
  Values out;
  std::vector<Offset> offsets;
  std::vector<uint8_t> data;
  while (out.size() < total) {
    const size_t want = 1 + rng() % (rng() % 2 ? 3000 : 40);
    if (rng() % 5 == 0) {  // skip
      auto n = dec.skip(want);
      if (!n.ok()) return n.error();
      for (size_t i = 0; i < *n; ++i) out.push_back("<skipped>");
      continue;
    }
    offsets.assign(want + 1, Offset{-1});
    const size_t start = rng() % 8;
    offsets[0] = static_cast<Offset>(start);
    data.assign(small_buffers ? start + rng() % 400 : start + 1 + rng() % 200000, 0xcc);
    auto n = dec.decode(offsets.data(), data.data(), data.size(), want);
    if (!n.ok()) return n.error();
    if (*n == 0) {
      if (data.size() > 1u << 20) return make_error(ErrorCode::kCorrupt, "no progress with a 1 MiB buffer");
      continue;  // the next value did not fit: a bigger buffer next time (random)
    }
    for (size_t i = 0; i < *n; ++i) {
      EXPECT_LE(offsets[i], offsets[i + 1]);
      out.emplace_back(reinterpret_cast<const char*>(data.data() + offsets[i]), offsets[i + 1] - offsets[i]);
    }
  }
  EXPECT_EQ(dec.values_remaining(), 0u);
  return out;
}

Result<Values> decode_dlba_views(DeltaLengthByteArrayDecoder& dec, const std::vector<uint8_t>& page,
                                 std::mt19937_64& rng) {
  const size_t total = dec.values_remaining();
  Values out;
  std::vector<BinaryView> views;
  while (out.size() < total) {
    const size_t want = 1 + rng() % 2000;
    views.assign(want, BinaryView{});
    auto n = dec.decode_views(views.data(), 7, want);
    if (!n.ok()) return n.error();
    for (size_t i = 0; i < *n; ++i) {
      const BinaryView& v = views[i];
      if (v.inlined.size <= 12) {
        for (int j = v.inlined.size; j < 12; ++j) EXPECT_EQ(v.inlined.data[j], 0) << "inline padding";
        out.emplace_back(reinterpret_cast<const char*>(v.inlined.data), v.inlined.size);
      } else {
        EXPECT_EQ(v.ref.buffer_index, 7);
        EXPECT_EQ(std::memcmp(v.ref.prefix, page.data() + v.ref.offset, 4), 0);
        out.emplace_back(reinterpret_cast<const char*>(page.data() + v.ref.offset), v.ref.size);
      }
    }
  }
  return out;
}

Result<Values> decode_dba_views(DeltaByteArrayDecoder& dec, std::mt19937_64& rng) {
  const size_t total = dec.values_remaining();
  Values out;
  std::vector<std::vector<uint8_t>> buffers;
  while (out.size() < total) {
    const size_t want = 1 + rng() % 2000;
    std::vector<BinaryView> views(want);
    buffers.emplace_back(rng() % 5000);
    size_t used = 0;
    auto n = dec.decode_views(views.data(), buffers.back().data(), buffers.back().size(), &used,
                              static_cast<int32_t>(buffers.size() - 1), want);
    if (!n.ok()) return n.error();
    EXPECT_LE(used, buffers.back().size());
    for (size_t i = 0; i < *n; ++i) {
      const BinaryView& v = views[i];
      if (v.inlined.size <= 12) {
        out.emplace_back(reinterpret_cast<const char*>(v.inlined.data), v.inlined.size);
      } else {
        const auto& buf = buffers[v.ref.buffer_index];
        out.emplace_back(reinterpret_cast<const char*>(buf.data() + v.ref.offset), v.ref.size);
      }
    }
  }
  return out;
}

void expect_same(const Values& got, const Values& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] == "<skipped>") continue;
    ASSERT_EQ(got[i], want[i]) << what << " value " << i;
  }
}

TEST(DeltaStrings, EveryImplementationEqualsTheNaiveReader) {
  std::mt19937_64 gen(42);
  const auto sets = data_sets(gen);
  for_each_simd_level([&](SimdLevel) {
    std::mt19937_64 rng(7);
    for (size_t si = 0; si < sets.size(); ++si) {
      const Values& values = sets[si];
      for (DeltaGeometry g : kGeometries) {
        SCOPED_TRACE("set " + std::to_string(si) + " geometry " + std::to_string(g.block_size) + "/" +
                     std::to_string(g.miniblocks_per_block));
        const auto lp = dlba_page(values, g);
        expect_same(naive_dlba(lp), values, "naive dlba");
        for (int mode = 0; mode < 4; ++mode) {
          auto dec = DeltaLengthByteArrayDecoder::make(lp.data(), lp.size());
          ASSERT_TRUE(dec.ok()) << dec.error().to_string();
          Result<Values> got = mode == 0   ? decode_offsets<DeltaLengthByteArrayDecoder, int32_t>(*dec, rng, false)
                               : mode == 1 ? decode_offsets<DeltaLengthByteArrayDecoder, int64_t>(*dec, rng, false)
                               : mode == 2 ? decode_offsets<DeltaLengthByteArrayDecoder, int32_t>(*dec, rng, true)
                                           : decode_dlba_views(*dec, lp, rng);
          ASSERT_TRUE(got.ok()) << got.error().to_string();
          expect_same(*got, values, "dlba");
          EXPECT_EQ(dec->bytes_consumed(), lp.size());
        }
        const auto bp = dba_page(values, g);
        expect_same(naive_dba(bp), values, "naive dba");
        for (int mode = 0; mode < 4; ++mode) {
          auto dec = DeltaByteArrayDecoder::make(bp.data(), bp.size());
          ASSERT_TRUE(dec.ok()) << dec.error().to_string();
          Result<Values> got = mode == 0   ? decode_offsets<DeltaByteArrayDecoder, int32_t>(*dec, rng, false)
                               : mode == 1 ? decode_offsets<DeltaByteArrayDecoder, int64_t>(*dec, rng, false)
                               : mode == 2 ? decode_offsets<DeltaByteArrayDecoder, int32_t>(*dec, rng, true)
                                           : decode_dba_views(*dec, rng);
          ASSERT_TRUE(got.ok()) << got.error().to_string();
          expect_same(*got, values, "dba");
          EXPECT_EQ(dec->bytes_consumed(), bp.size());
        }
      }
    }
  });
}

TEST(DeltaStrings, WholePageInOneCallEqualsScalar) {
  std::mt19937_64 gen(3);
  const auto sets = data_sets(gen);
  for (const Values& values : sets) {
    const auto lp = dlba_page(values, {128, 4});
    const auto bp = dba_page(values, {2048, 8});
    auto run = [&](auto make, const std::vector<uint8_t>& page) {
      auto dec = make(page);
      EXPECT_TRUE(dec.ok());
      std::vector<int32_t> offsets(values.size() + 1, 0);
      std::vector<uint8_t> data(joined(values).size() + 64);
      auto n = dec->decode(offsets.data(), data.data(), data.size(), values.size());
      EXPECT_TRUE(n.ok() && *n == values.size());
      data.resize(offsets[values.size()]);
      return std::make_pair(offsets, data);
    };
    auto dlba = [](const std::vector<uint8_t>& p) { return DeltaLengthByteArrayDecoder::make(p.data(), p.size()); };
    auto dba = [](const std::vector<uint8_t>& p) { return DeltaByteArrayDecoder::make(p.data(), p.size()); };
    std::pair<std::vector<int32_t>, std::vector<uint8_t>> ref_l, ref_b;
    {
      testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
      ref_l = run(dlba, lp);
      ref_b = run(dba, bp);
    }
    const auto d = joined(values);
    EXPECT_EQ(ref_l.first, offsets_of(values));
    EXPECT_EQ(ref_l.second, std::vector<uint8_t>(d.begin(), d.end()));
    EXPECT_EQ(ref_b, ref_l);
    for_each_simd_level([&](SimdLevel) {
      EXPECT_EQ(run(dlba, lp), ref_l);
      EXPECT_EQ(run(dba, bp), ref_b);
    });
  }
}

TEST(DeltaStrings, FixedLenByteArray) {
  std::mt19937_64 rng(5);
  for (int width : {0, 1, 4, 12, 16, 33, 100}) {
    Values values;
    std::string base = random_bytes(rng, width, 256);
    for (int i = 0; i < 1500; ++i) {
      std::string v = base;
      for (int k = 0; k < width; ++k) if (rng() % (width + 1) == 0) v[k] = static_cast<char>(rng());
      values.push_back(v);
      if (rng() % 3 == 0) base = v;
    }
    std::sort(values.begin(), values.end());
    const auto page = dba_page(values, {128, 4});
    for_each_simd_level([&](SimdLevel) {
      auto dec = DeltaByteArrayDecoder::make(page.data(), page.size(), width);
      ASSERT_TRUE(dec.ok()) << dec.error().to_string();
      std::string out;
      size_t done = 0;
      while (done < values.size()) {
        const size_t want = 1 + rng() % 300;
        std::vector<uint8_t> buf(want * width + 1, 0xee);
        const bool skip = rng() % 4 == 0;
        auto n = skip ? dec->skip(want) : dec->decode_fixed(buf.data(), want);
        ASSERT_TRUE(n.ok()) << n.error().to_string();
        if (!skip) {
          EXPECT_EQ(buf[want * width], 0xee) << "wrote past the output";
          for (size_t i = 0; i < *n; ++i) {
            ASSERT_EQ(std::string(reinterpret_cast<const char*>(buf.data() + i * width), width), values[done + i]);
          }
        }
        done += *n;
      }
      // And whole, against the values.
      auto dec2 = DeltaByteArrayDecoder::make(page.data(), page.size(), width);
      std::vector<uint8_t> all(values.size() * width);
      ASSERT_TRUE(dec2->decode_fixed(all.data(), values.size()).ok());
      EXPECT_EQ(std::string(all.begin(), all.end()), joined(values));
      // A value of another width is an error.
      auto wrong = DeltaByteArrayDecoder::make(page.data(), page.size(), width + 1);
      ASSERT_TRUE(wrong.ok());
      std::vector<uint8_t> w(values.size() * (width + 1));
      auto r = wrong->decode_fixed(w.data(), values.size());
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.error().message.find("FIXED_LEN_BYTE_ARRAY"), std::string::npos) << r.error().message;
    });
  }
}

TEST(DeltaStrings, EncodersRoundTripAndMatchTheSimpleWriter) {
  std::mt19937_64 gen(11);
  for (const Values& values : data_sets(gen)) {
    const auto offsets = offsets_of(values);
    const auto data = joined(values);
    const auto* d = reinterpret_cast<const uint8_t*>(data.data());
    auto l = delta_encode_length_byte_array(offsets.data(), d, values.size());
    auto b = delta_encode_byte_array(offsets.data(), d, values.size());
    ASSERT_TRUE(l.ok() && b.ok());
    EXPECT_EQ(*l, dlba_page(values, {128, 4}));
    EXPECT_EQ(*b, dba_page(values, {128, 4}));
    std::vector<int64_t> o64(offsets.begin(), offsets.end());
    EXPECT_EQ(*delta_encode_byte_array(o64.data(), d, values.size()), *b);
    EXPECT_EQ(*delta_encode_length_byte_array(o64.data(), d, values.size()), *l);
  }
  const int32_t bad[] = {0, 5, 3};
  EXPECT_FALSE(delta_encode_byte_array(bad, reinterpret_cast<const uint8_t*>("abcde"), 2).ok());
}

TEST(DeltaStrings, EmptyValuesNeedNoDataBuffer) {
  const Values empty(300, "");
  for (int incremental = 0; incremental < 2; ++incremental) {
    const auto page = incremental ? dba_page(empty, {128, 4}) : dlba_page(empty, {128, 4});
    for_each_simd_level([&](SimdLevel) {
      std::vector<int32_t> offsets(empty.size() + 1, 0);
      Result<size_t> n = size_t{0};
      if (incremental) {
        auto dec = DeltaByteArrayDecoder::make(page.data(), page.size());
        n = dec->decode(offsets.data(), nullptr, 0, empty.size());
      } else {
        auto dec = DeltaLengthByteArrayDecoder::make(page.data(), page.size());
        n = dec->decode(offsets.data(), nullptr, 0, empty.size());
      }
      ASSERT_TRUE(n.ok()) << n.error().to_string();
      EXPECT_EQ(*n, empty.size());
      EXPECT_EQ(offsets, std::vector<int32_t>(empty.size() + 1, 0));
    });
  }
}

// ---- hostile pages -------------------------------------------------------------

std::string decode_error_dlba(const std::vector<uint8_t>& page) {
  auto dec = DeltaLengthByteArrayDecoder::make(page.data(), page.size());
  if (!dec.ok()) return dec.error().message;
  std::vector<int32_t> offsets(dec->values_remaining() + 1, 0);
  std::vector<uint8_t> data(page.size() + 64);
  auto n = dec->decode(offsets.data(), data.data(), data.size(), offsets.size() - 1);
  return n.ok() ? "" : n.error().message;
}
std::string decode_error_dba(const std::vector<uint8_t>& page) {
  auto dec = DeltaByteArrayDecoder::make(page.data(), page.size());
  if (!dec.ok()) return dec.error().message;
  const size_t total = dec->values_remaining();
  std::vector<int64_t> offsets(total + 1, 0);
  std::vector<uint8_t> data(1 << 16);
  size_t done = 0;
  while (done < total) {
    offsets[0] = 0;
    auto n = dec->decode(offsets.data(), data.data(), data.size(), total - done);
    if (!n.ok()) return n.error().message;
    if (*n == 0) return "no progress";
    done += *n;
  }
  return "";
}

TEST(DeltaStrings, HostilePagesGiveClearErrors) {
  // Negative length.
  {
    std::vector<int32_t> lens = {3, -2, 4};
    auto page = dbp32(lens, {128, 4});
    page.resize(page.size() + 10, 'a');
    EXPECT_NE(decode_error_dlba(page).find("negative length -2"), std::string::npos) << decode_error_dlba(page);
  }
  // Lengths whose sum passes the end.
  {
    auto page = dlba_page({"abc", "defg"}, {128, 4});
    page.pop_back();
    EXPECT_NE(decode_error_dlba(page).find("pass the end"), std::string::npos) << decode_error_dlba(page);
  }
  // A prefix longer than the value before it, and a negative prefix.
  for (int32_t p : {4, -1}) {
    auto page = dbp32({0, p}, {128, 4});
    auto s = dbp32({3, 2}, {128, 4});
    page.insert(page.end(), s.begin(), s.end());
    page.insert(page.end(), {'a', 'b', 'c', 'd', 'e'});
    const auto e = decode_error_dba(page);
    EXPECT_NE(e.find("value 1 has prefix length"), std::string::npos) << e;
  }
  // The first value of a page has no prefix (nothing carried over from another page).
  {
    auto page = dbp32({2}, {128, 4});
    auto s = dbp32({1}, {128, 4});
    page.insert(page.end(), s.begin(), s.end());
    page.push_back('z');
    EXPECT_NE(decode_error_dba(page).find("value 0 has prefix length 2"), std::string::npos);
  }
  // Prefix and suffix streams of different counts.
  {
    auto page = dbp32({0, 1, 1}, {128, 4});
    auto s = dbp32({1, 1}, {128, 4});
    page.insert(page.end(), s.begin(), s.end());
    page.insert(page.end(), {'a', 'b'});
    EXPECT_NE(decode_error_dba(page).find("3 prefix lengths but 2 suffix lengths"), std::string::npos)
        << decode_error_dba(page);
  }
  // A forged count: make() refuses before anything trusts it.
  {
    std::vector<uint8_t> page = {0x80, 0x01, 0x04, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00};
    EXPECT_FALSE(DeltaLengthByteArrayDecoder::make(page.data(), page.size()).ok());
    EXPECT_FALSE(DeltaByteArrayDecoder::make(page.data(), page.size()).ok());
  }
}

TEST(DeltaStrings, TruncationAtEveryByteAndMutationsAgreeAcrossImplementations) {
  std::mt19937_64 rng(99);
  Values values;
  for (int i = 0; i < 700; ++i) values.push_back(random_bytes(rng, rng() % 40, 3));
  std::sort(values.begin(), values.end());
  for (int kind = 0; kind < 2; ++kind) {
    const auto page = kind == 0 ? dlba_page(values, {128, 4}) : dba_page(values, {256, 8});
    auto decode_all = [&](const std::vector<uint8_t>& p) -> std::string {
      return kind == 0 ? decode_error_dlba(p) : decode_error_dba(p);
    };
    for (size_t cut = 0; cut < page.size(); cut += (cut < 400 ? 1 : 7)) {
      std::vector<uint8_t> t(page.begin(), page.begin() + cut);
      std::string ref;
      {
        testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
        ref = decode_all(t);
      }
      EXPECT_FALSE(ref.empty()) << "cut at " << cut << " decoded without error";
      for_each_simd_level([&](SimdLevel) { EXPECT_EQ(decode_all(t), ref) << "cut " << cut; });
    }
    for (int m = 0; m < 300; ++m) {
      auto t = page;
      for (int k = 0; k < 3; ++k) t[rng() % t.size()] = static_cast<uint8_t>(rng());
      std::string ref;
      {
        testing::ScopedSimdLevel scalar(SimdLevel::kScalar);
        ref = decode_all(t);
      }
      for_each_simd_level([&](SimdLevel) { EXPECT_EQ(decode_all(t), ref); });
    }
  }
}

}  // namespace
}  // namespace pqfast
