// pqfast's own snappy decoder (src/parquet/snappy_decode.cc) against a
// byte-at-a-time reference written here from the format's description and,
// where the build links it, against libsnappy's compressor and decoder:
// round trips of data shaped like Parquet pages, random valid streams with
// every element kind (which the compressor rarely or never writes), and
// hostile streams (truncated, mutated) that must be refused exactly when
// the reference refuses them, never read or written out of bounds (ASan).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "parquet/snappy_decode.h"

#if defined(PQFAST_TEST_HAVE_SNAPPY)
#include <snappy-c.h>
#endif

namespace pqfast::parquet::detail {
namespace {

// The reference: every element decoded one byte at a time, every bound checked.
bool reference(const std::vector<uint8_t>& s, std::vector<uint8_t>* out) {
  size_t p = 0;
  uint64_t total = 0;
  for (int shift = 0;; shift += 7) {
    if (p >= s.size() || shift > 28) return false;
    const uint8_t b = s[p++];
    total |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  if (total > 0xffffffffu) return false;
  out->clear();
  while (p < s.size()) {
    const uint8_t tag = s[p++];
    uint64_t len, off = 0;
    if ((tag & 3) == 0) {
      len = (tag >> 2) + 1;
      if (len > 60) {
        const size_t nb = len - 60;
        if (s.size() - p < nb) return false;
        len = 0;
        for (size_t k = 0; k < nb; ++k) len |= uint64_t(s[p + k]) << (8 * k);
        len += 1;
        p += nb;
      }
      if (len > s.size() - p || out->size() + len > total) return false;
      out->insert(out->end(), s.begin() + static_cast<long>(p), s.begin() + static_cast<long>(p + len));
      p += len;
      continue;
    }
    const size_t nb = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
    if (s.size() - p < nb) return false;
    for (size_t k = 0; k < nb; ++k) off |= uint64_t(s[p + k]) << (8 * k);
    p += nb;
    if ((tag & 3) == 1) {
      len = 4 + ((tag >> 2) & 7);
      off |= uint64_t(tag >> 5) << 8;
    } else {
      len = (tag >> 2) + 1;
    }
    if (off == 0 || off > out->size() || out->size() + len > total) return false;
    for (uint64_t i = 0; i < len; ++i) out->push_back((*out)[out->size() - off]);
  }
  return out->size() == total;
}

bool ours(const std::vector<uint8_t>& s, size_t dst_len, std::vector<uint8_t>* out) {
  // The output exactly dst_len bytes (no slack): a write past it is ASan's.
  std::vector<uint8_t> in(s);  // its own allocation of exactly its bytes: a read past it is ASan's
  out->assign(dst_len, 0);
  uint64_t announced = 0;
  return snappy_inflate(in.data(), in.size(), out->data(), dst_len, &announced) == SnappyResult::kOk;
}

void varint(std::vector<uint8_t>* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(uint8_t(v | 0x80));
    v >>= 7;
  }
  s->push_back(uint8_t(v));
}

// A random valid stream of `n` output bytes: literals of every length
// class (short, 1-4 length bytes) and copies of every tag, offset (1 to
// far) and length; returns the output it decodes to.
std::vector<uint8_t> random_stream(std::mt19937_64& rng, size_t n, std::vector<uint8_t>* expect) {
  std::vector<uint8_t> body;
  expect->clear();
  while (expect->size() < n) {
    const size_t left = n - expect->size();
    const int kind = expect->empty() ? 0 : static_cast<int>(rng() % 4);
    if (kind == 0) {
      size_t len = 1 + rng() % std::min<size_t>(left, rng() % 8 == 0 ? 300 : 70);
      const int form = static_cast<int>(rng() % 5);  // 0: in the tag (if it fits); 1-4: that many length bytes
      if (form == 0 && len <= 60) {
        body.push_back(uint8_t((len - 1) << 2));
      } else {
        const size_t nb = form == 0 ? 1 : static_cast<size_t>(form);
        if (nb == 1 && len > 256) len = 256;
        body.push_back(uint8_t((59 + nb) << 2));
        for (size_t k = 0; k < nb; ++k) body.push_back(uint8_t((len - 1) >> (8 * k)));
      }
      for (size_t i = 0; i < len; ++i) {
        const uint8_t b = uint8_t(rng() % 7 == 0 ? rng() : 'a' + rng() % 4);
        body.push_back(b);
        expect->push_back(b);
      }
      continue;
    }
    const size_t have = expect->size();
    size_t off = 1 + (rng() % 3 == 0 ? rng() % std::min<size_t>(have, 16) : rng() % have);
    size_t len;
    if (kind == 1 && off < 2048) {
      len = std::min<size_t>(4 + rng() % 8, left);
      if (len < 4) continue;
      body.push_back(uint8_t(1 | ((len - 4) << 2) | ((off >> 8) << 5)));
      body.push_back(uint8_t(off));
    } else if (kind == 2 || (kind == 1 && off < 65536)) {
      if (off >= 65536) off = 1 + rng() % std::min<size_t>(have, 65535);
      len = std::min<size_t>(1 + rng() % 64, left);
      body.push_back(uint8_t(2 | ((len - 1) << 2)));
      body.push_back(uint8_t(off));
      body.push_back(uint8_t(off >> 8));
    } else {
      len = std::min<size_t>(1 + rng() % 64, left);
      body.push_back(uint8_t(3 | ((len - 1) << 2)));
      for (int k = 0; k < 4; ++k) body.push_back(uint8_t(off >> (8 * k)));
    }
    for (size_t i = 0; i < len; ++i) expect->push_back((*expect)[expect->size() - off]);
  }
  std::vector<uint8_t> s;
  varint(&s, n);
  s.insert(s.end(), body.begin(), body.end());
  return s;
}

TEST(SnappyDecode, RandomValidStreamsMatchTheReference) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 3000; ++t) {
    const size_t n = t < 200 ? static_cast<size_t>(t) : rng() % (t % 10 == 0 ? 200000 : 3000);
    std::vector<uint8_t> expect, ref, got;
    const auto s = random_stream(rng, n, &expect);
    ASSERT_TRUE(reference(s, &ref)) << t;
    ASSERT_EQ(ref, expect) << t;
    ASSERT_TRUE(ours(s, n, &got)) << "stream " << t << " of " << n << " bytes";
    ASSERT_EQ(got, expect) << t;
  }
}

TEST(SnappyDecode, HostileStreamsRefusedAsTheReferenceRefusesThem) {
  std::mt19937_64 rng(11);
  int refused = 0;
  for (int t = 0; t < 20000; ++t) {
    std::vector<uint8_t> expect;
    auto s = random_stream(rng, rng() % (t % 50 == 0 ? 20000 : 400), &expect);
    const int how = static_cast<int>(rng() % 4);
    if (how == 0 && !s.empty()) {
      s.resize(rng() % s.size());  // cut short
    } else {
      const int k = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < k && !s.empty(); ++i) s[rng() % s.size()] = uint8_t(rng());  // bytes mutated
    }
    std::vector<uint8_t> ref, got;
    const bool rok = reference(s, &ref);
    // The size the header announces when it parses (else the true one).
    const size_t dst = rok ? ref.size() : expect.size();
    const bool ook = ours(s, dst, &got);
    ASSERT_EQ(ook, rok) << "stream " << t;
    if (rok) ASSERT_EQ(got, ref) << t;
    refused += !rok;
  }
  EXPECT_GT(refused, 1000);  // the mutations do reach the checks
}

TEST(SnappyDecode, WrongSizeAndBadHeader) {
  std::vector<uint8_t> s = {5, 0x10, 'h', 'e', 'l', 'l', 'o'};  // 5 bytes: one literal
  std::vector<uint8_t> out(5);
  uint64_t a = 0;
  EXPECT_EQ(snappy_inflate(s.data(), s.size(), out.data(), 5, &a), SnappyResult::kOk);
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello");
  EXPECT_EQ(snappy_inflate(s.data(), s.size(), out.data(), 4, &a), SnappyResult::kWrongSize);
  EXPECT_EQ(a, 5u);
  const std::vector<uint8_t> bad = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};  // a varint of six bytes
  EXPECT_EQ(snappy_inflate(bad.data(), bad.size(), out.data(), 5, &a), SnappyResult::kBadLength);
  EXPECT_EQ(snappy_inflate(bad.data(), 0, out.data(), 0, &a), SnappyResult::kBadLength);
  const std::vector<uint8_t> big = {0xff, 0xff, 0xff, 0xff, 0x7f};  // 2^35 - 1: more than 32 bits
  EXPECT_EQ(snappy_inflate(big.data(), big.size(), out.data(), 5, &a), SnappyResult::kBadLength);
  const std::vector<uint8_t> empty = {0};
  EXPECT_EQ(snappy_inflate(empty.data(), empty.size(), nullptr, 0, &a), SnappyResult::kOk);
}

#if defined(PQFAST_TEST_HAVE_SNAPPY)
// Data shaped like lineitem's pages: sorted int64 keys, small-range ints,
// text with repeats, incompressible bytes, runs of one byte.
std::vector<uint8_t> page_like(std::mt19937_64& rng, int kind, size_t n) {
  std::vector<uint8_t> v(n);
  switch (kind) {
    case 0: {
      int64_t k = static_cast<int64_t>(rng() % 1000);
      for (size_t i = 0; i + 8 <= n; i += 8) {
        k += static_cast<int64_t>(rng() % 3 == 0);
        std::memcpy(&v[i], &k, 8);
      }
      break;
    }
    case 1:
      for (size_t i = 0; i + 4 <= n; i += 4) {
        const uint32_t x = static_cast<uint32_t>(rng() % 2500 + 8000);
        std::memcpy(&v[i], &x, 4);
      }
      break;
    case 2: {
      static const char* words[] = {"furiously ", "carefully ", "slyly ", "pending ", "deposits ", "the ", "ironic "};
      size_t i = 0;
      while (i < n) {
        const char* w = words[rng() % 7];
        for (size_t k = 0; w[k] && i < n; ++k) v[i++] = static_cast<uint8_t>(w[k]);
      }
      break;
    }
    case 3:
      for (auto& b : v) b = static_cast<uint8_t>(rng());
      break;
    default:
      std::fill(v.begin(), v.end(), uint8_t(rng()));
  }
  return v;
}

TEST(SnappyDecode, LibsnappyRoundTrips) {
  std::mt19937_64 rng(3);
  for (int t = 0; t < 400; ++t) {
    const size_t n = t < 100 ? static_cast<size_t>(t) * 3 : rng() % (t % 20 == 0 ? 1100000 : 70000);
    const auto data = page_like(rng, t % 5, n);
    size_t clen = snappy_max_compressed_length(n);
    std::vector<uint8_t> c(clen);
    ASSERT_EQ(snappy_compress(reinterpret_cast<const char*>(data.data()), n, reinterpret_cast<char*>(c.data()), &clen),
              SNAPPY_OK);
    c.resize(clen);
    std::vector<uint8_t> got;
    ASSERT_TRUE(ours(c, n, &got)) << t;
    ASSERT_EQ(got, data) << t;
  }
}

TEST(SnappyDecode, AcceptsWhatLibsnappyAccepts) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 5000; ++t) {
    std::vector<uint8_t> expect;
    auto s = random_stream(rng, rng() % 500, &expect);
    if (t % 2) {
      for (int i = 0; i < 2 && !s.empty(); ++i) s[rng() % s.size()] = uint8_t(rng());
    }
    size_t n = 0;
    const bool lib_len = snappy_uncompressed_length(reinterpret_cast<const char*>(s.data()), s.size(), &n) == SNAPPY_OK;
    if (!lib_len || n > 100000) continue;
    std::vector<uint8_t> lib(n + 1);
    size_t out = n;
    const bool lok = snappy_uncompress(reinterpret_cast<const char*>(s.data()), s.size(),
                                       reinterpret_cast<char*>(lib.data()), &out) == SNAPPY_OK && out == n;
    std::vector<uint8_t> got;
    const bool ook = ours(s, n, &got);
    ASSERT_EQ(ook, lok) << t;
    if (lok) ASSERT_TRUE(std::equal(got.begin(), got.end(), lib.begin())) << t;
  }
}
#endif

}  // namespace
}  // namespace pqfast::parquet::detail
