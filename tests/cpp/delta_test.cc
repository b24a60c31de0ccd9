// DELTA_BINARY_PACKED: every SIMD implementation against the scalar
// reference and against an independent bit-by-bit decoder written here;
// encoder round trips; hostile streams.
#include "pqfast/delta.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "test_util.h"

namespace pqfast {
namespace {

using testing::for_each_simd_level;

// ---- a raw stream writer and a naive reader, independent of src/delta -------

void put_uleb(std::vector<uint8_t>& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<uint8_t>(b | (v ? 0x80 : 0)));
  } while (v);
}
void put_zigzag(std::vector<uint8_t>& out, int64_t v) {
  put_uleb(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

// A hand-built stream: arbitrary widths (up to 64 for INT32 too), random
// packed bits, garbage widths for the unused miniblocks of the last block.
struct RawStream {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> expect;  // values mod 2^64 (INT32: compare the low 32 bits)
};

RawStream make_raw(DeltaGeometry g, size_t total, std::mt19937_64& rng, bool int32,
                   const std::vector<int>& width_choices) {
  RawStream s;
  put_uleb(s.bytes, g.block_size);
  put_uleb(s.bytes, g.miniblocks_per_block);
  put_uleb(s.bytes, total);
  const int64_t first = static_cast<int64_t>(rng());
  put_zigzag(s.bytes, int32 ? static_cast<int64_t>(static_cast<int32_t>(first)) : first);
  if (total == 0) return s;
  uint64_t cur = static_cast<uint64_t>(int32 ? static_cast<int64_t>(static_cast<int32_t>(first)) : first);
  s.expect.push_back(cur);
  const uint32_t vpm = g.values_per_miniblock();
  size_t left = total - 1;
  while (left > 0) {
    const int64_t min_delta = static_cast<int64_t>(rng()) >> (rng() % 64);
    put_zigzag(s.bytes, min_delta);
    std::vector<int> widths(g.miniblocks_per_block);
    const size_t in_block = std::min<size_t>(left, g.block_size);
    const size_t used = (in_block + vpm - 1) / vpm;
    for (size_t m = 0; m < widths.size(); ++m) {
      widths[m] = m < used ? width_choices[rng() % width_choices.size()] : static_cast<int>(rng() % 256);
      s.bytes.push_back(static_cast<uint8_t>(widths[m]));
    }
    for (size_t m = 0; m < used; ++m) {
      const int w = widths[m];
      std::vector<uint8_t> body(size_t{vpm} * w / 8);
      for (auto& b : body) b = static_cast<uint8_t>(rng());
      for (uint32_t j = 0; j < vpm && s.expect.size() < total; ++j) {
        uint64_t v = 0;
        for (int b = 0; b < w; ++b) {
          const uint64_t bit = uint64_t{j} * w + b;
          v |= uint64_t{(body[bit / 8] >> (bit % 8)) & 1u} << b;
        }
        cur += v + static_cast<uint64_t>(min_delta);
        s.expect.push_back(cur);
      }
      s.bytes.insert(s.bytes.end(), body.begin(), body.end());
    }
    left -= in_block;
  }
  return s;
}

// Decodes through the public API in batches of random size, mixing in skips.
template <class T>
Result<std::vector<T>> decode_batched(const std::vector<uint8_t>& bytes, std::mt19937_64& rng,
                                      bool with_skips, std::vector<bool>* skipped = nullptr) {
  auto dec = DeltaBinaryPackedDecoder<T>::make(bytes.data(), bytes.size());
  if (!dec.ok()) return dec.error();
  const size_t total = dec->values_remaining();
  std::vector<T> out(total, static_cast<T>(0x5a5a5a5a5a5a5a5aLL));
  if (skipped) skipped->assign(total, false);
  size_t done = 0;
  while (done < total) {
    const size_t want = 1 + rng() % (rng() % 2 ? 700 : 40);
    if (with_skips && rng() % 4 == 0) {
      auto n = dec->skip(want);
      if (!n.ok()) return n.error();
      for (size_t i = done; i < done + *n; ++i) (*skipped)[i] = true;
      done += *n;
    } else {
      auto n = dec->decode(out.data() + done, want);
      if (!n.ok()) return n.error();
      done += *n;
    }
    EXPECT_EQ(dec->values_remaining(), total - done);
  }
  EXPECT_EQ(dec->bytes_consumed(), bytes.size());
  return out;
}

const DeltaGeometry kGeometries[] = {{128, 4}, {256, 4}, {2048, 8}, {128, 1}, {256, 8}, {512, 2}, {1024, 32}};

// ---- tests ------------------------------------------------------------------

TEST(Delta, EveryWidthEveryImplementationMatchesNaiveReader) {
  std::mt19937_64 rng(7);
  for (const DeltaGeometry g : kGeometries) {
    for (int w = 0; w <= 64; ++w) {
      for (size_t total : {size_t{1}, size_t{2}, size_t{33}, size_t{g.block_size} + 1, size_t{3 * g.block_size + 77}}) {
        for (bool int32 : {true, false}) {
          std::mt19937_64 srng(rng());
          RawStream s = make_raw(g, total, srng, int32, {w});
          for_each_simd_level([&](SimdLevel) {
            SCOPED_TRACE("width " + std::to_string(w) + " geometry " + std::to_string(g.block_size) + "/" +
                         std::to_string(g.miniblocks_per_block) + " total " + std::to_string(total) +
                         (int32 ? " int32" : " int64"));
            std::mt19937_64 brng(total + w);
            if (int32) {
              auto got = decode_batched<int32_t>(s.bytes, brng, false);
              ASSERT_TRUE(got.ok()) << got.error().to_string();
              for (size_t i = 0; i < total; ++i) {
                ASSERT_EQ(static_cast<uint32_t>((*got)[i]), static_cast<uint32_t>(s.expect[i])) << i;
              }
            } else {
              auto got = decode_batched<int64_t>(s.bytes, brng, false);
              ASSERT_TRUE(got.ok()) << got.error().to_string();
              for (size_t i = 0; i < total; ++i) ASSERT_EQ(static_cast<uint64_t>((*got)[i]), s.expect[i]) << i;
            }
          });
        }
      }
    }
  }
}

TEST(Delta, MixedWidthsBatchesAndSkipsAgreeAcrossImplementations) {
  std::mt19937_64 rng(11);
  std::vector<int> all(65);
  for (int w = 0; w <= 64; ++w) all[w] = w;
  for (int iter = 0; iter < 60; ++iter) {
    const DeltaGeometry g = kGeometries[iter % std::size(kGeometries)];
    const size_t total = rng() % 20000;
    const bool int32 = iter % 2;
    RawStream s = make_raw(g, total, rng, int32, all);
    std::vector<int64_t> reference;
    for_each_simd_level([&](SimdLevel level) {
      std::mt19937_64 brng(iter);  // the same batches and skips for every implementation
      std::vector<bool> skipped;
      std::vector<int64_t> got;
      if (int32) {
        auto r = decode_batched<int32_t>(s.bytes, brng, true, &skipped);
        ASSERT_TRUE(r.ok()) << r.error().to_string();
        got.assign(r->begin(), r->end());
      } else {
        auto r = decode_batched<int64_t>(s.bytes, brng, true, &skipped);
        ASSERT_TRUE(r.ok()) << r.error().to_string();
        got = *r;
      }
      for (size_t i = 0; i < total; ++i) {
        if (skipped[i]) continue;
        const uint64_t want = int32 ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(s.expect[i])))
                                    : s.expect[i];
        ASSERT_EQ(static_cast<uint64_t>(got[i]), want) << "value " << i;
      }
      if (level == SimdLevel::kScalar) reference = got;
      EXPECT_EQ(got, reference);  // identical even in the untouched (garbage) slots
    });
  }
}

template <class T>
void round_trip(const std::vector<T>& values, DeltaGeometry g) {
  auto enc = sizeof(T) == 4 ? delta_encode_int32(reinterpret_cast<const int32_t*>(values.data()), values.size(), g)
                            : delta_encode_int64(reinterpret_cast<const int64_t*>(values.data()), values.size(), g);
  ASSERT_TRUE(enc.ok()) << enc.error().to_string();
  for_each_simd_level([&](SimdLevel) {
    std::mt19937_64 rng(values.size());
    auto got = decode_batched<T>(*enc, rng, false);
    ASSERT_TRUE(got.ok()) << got.error().to_string();
    ASSERT_EQ(*got, values);
    // Whole-stream convenience, and bytes after the stream are not consumed.
    std::vector<uint8_t> longer = *enc;
    longer.insert(longer.end(), 100, 0xEE);
    auto dec = DeltaBinaryPackedDecoder<T>::make(longer.data(), longer.size());
    ASSERT_TRUE(dec.ok());
    std::vector<T> all(values.size() + 5, T{42});
    auto n = dec->decode(all.data(), all.size());
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, values.size());
    EXPECT_EQ(dec->bytes_consumed(), enc->size());
    for (size_t i = values.size(); i < all.size(); ++i) EXPECT_EQ(all[i], T{42}) << "wrote past n";
  });
}

TEST(Delta, EncoderRoundTrips) {
  std::mt19937_64 rng(3);
  for (const DeltaGeometry g : kGeometries) {
    for (size_t n : {0, 1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097}) {
      std::vector<int64_t> v64(n);
      std::vector<int32_t> v32(n);
      for (int kind = 0; kind < 5; ++kind) {
        int64_t acc = 0;
        for (size_t i = 0; i < n; ++i) {
          switch (kind) {
            case 0: acc += static_cast<int64_t>(rng() % 100); break;                 // sorted, small deltas
            case 1: acc = static_cast<int64_t>(rng()); break;                         // full range: deltas overflow
            case 2: acc -= 7; break;                                                  // constant delta (width 0)
            case 4: acc += (i / 700) % 3 == 2 ? static_cast<int64_t>(rng() % 5) : int64_t{1} << (i / 700); break;  // stride runs
            default: acc = (i % 2) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
          }
          v64[i] = acc;
          v32[i] = kind == 3 ? ((i % 2) ? INT32_MIN : INT32_MAX) : static_cast<int32_t>(acc);
        }
        round_trip(v64, g);
        round_trip(v32, g);
      }
    }
  }
}

TEST(Delta, KnownStream) {
  // Block 128, 4 miniblocks, 5 values, first 7; deltas 1, -2, 3, 0 -> min -2.
  const std::vector<int64_t> values{7, 8, 6, 9, 9};
  auto enc = delta_encode_int64(values.data(), values.size(), {128, 4});
  ASSERT_TRUE(enc.ok());
  const std::vector<uint8_t> want = {0x80, 0x01, 0x04, 0x05, 0x0e,  // header
                                     0x03,                          // min delta -2
                                     0x03, 0x00, 0x00, 0x00,        // widths
                                     0x43, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // 3,0,5,2 at 3 bits, LSB-first
  EXPECT_EQ(*enc, want);
}

TEST(Delta, HeaderErrors) {
  struct Case {
    std::vector<uint8_t> bytes;
    ErrorCode code;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{}, ErrorCode::kTruncated, "block size"},
      {{0x80, 0x01, 0x04}, ErrorCode::kTruncated, "total value count"},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, ErrorCode::kCorrupt, "overflows"},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, ErrorCode::kCorrupt, "overflows"},
      {{0x64, 0x04, 0x01, 0x00}, ErrorCode::kCorrupt, "multiple of 128"},          // block 100
      {{0x80, 0x01, 0x03, 0x01, 0x00}, ErrorCode::kCorrupt, "multiple of 32"},     // 128 / 3
      {{0x80, 0x01, 0x08, 0x01, 0x00}, ErrorCode::kCorrupt, "multiple of 32"},     // 16 per miniblock
      {{0x80, 0x01, 0x00, 0x01, 0x00}, ErrorCode::kCorrupt, "multiple of 32"},     // 0 miniblocks
      {{0x80, 0x80, 0x80, 0x08, 0x04, 0x01, 0x00}, ErrorCode::kCorrupt, "largest block"},
      // 10^12 values announced in 10 bytes.
      {{0x80, 0x01, 0x04, 0x80, 0xa0, 0x94, 0xa5, 0x8d, 0x1d, 0x00, 0x00}, ErrorCode::kTruncated, "forged"},
  };
  for (const auto& c : cases) {
    auto buf = std::make_unique<uint8_t[]>(c.bytes.size() + 1);  // exact-size heap copy for ASan
    if (!c.bytes.empty()) std::memcpy(buf.get(), c.bytes.data(), c.bytes.size());
    auto dec = DeltaInt64Decoder::make(c.bytes.empty() ? nullptr : buf.get(), c.bytes.size());
    ASSERT_FALSE(dec.ok()) << c.says;
    EXPECT_EQ(dec.error().code, c.code) << dec.error().to_string();
    EXPECT_NE(dec.error().message.find(c.says), std::string::npos) << dec.error().to_string();
  }
}

TEST(Delta, BlockErrorsAndGarbageInUnusedWidths) {
  // 128/4, 40 values: block 0 uses miniblocks 0 and 1 (39 deltas).
  std::vector<uint8_t> s = {0x80, 0x01, 0x04, 40, 0x00, 0x00, 5, 7, 200, 255};
  s.resize(s.size() + 32 * 5 / 8 + 32 * 7 / 8, 0x11);
  for_each_simd_level([&](SimdLevel) {
    auto ok = delta_decode_int64(s.data(), s.size());
    ASSERT_TRUE(ok.ok()) << ok.error().to_string();  // widths 200 and 255 are unused
    std::vector<uint8_t> bad = s;
    bad[7] = 65;  // a used miniblock wider than 64
    auto r = delta_decode_int64(bad.data(), bad.size());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(r.error().message.find("bit width 65"), std::string::npos) << r.error().to_string();
    EXPECT_NE(r.error().message.find("at byte 7"), std::string::npos) << r.error().to_string();
    // A bad varint as min delta.
    std::vector<uint8_t> v = {0x80, 0x01, 0x04, 40, 0x00};
    v.insert(v.end(), 11, 0xff);
    auto e = delta_decode_int32(v.data(), v.size());
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("min delta"), std::string::npos) << e.error().to_string();
  });
}

TEST(Delta, TruncatedAnywhereNeverOverreads) {
  std::mt19937_64 rng(5);
  std::vector<int> all(65);
  for (int w = 0; w <= 64; ++w) all[w] = w;
  for (int iter = 0; iter < 12; ++iter) {
    const DeltaGeometry g = kGeometries[iter % std::size(kGeometries)];
    const bool int32 = iter % 2;
    RawStream s = make_raw(g, 1 + rng() % 700, rng, int32, all);
    for_each_simd_level([&](SimdLevel) {
      for (size_t len = 0; len < s.bytes.size(); ++len) {
        // An exact-size heap buffer: ASan flags any read past it.
        auto buf = std::make_unique<uint8_t[]>(len == 0 ? 1 : len);
        std::memcpy(buf.get(), s.bytes.data(), len);
        std::mt19937_64 brng(len);
        bool failed = false;
        if (int32) {
          auto dec = DeltaInt32Decoder::make(buf.get(), len);
          if (!dec.ok()) continue;
          std::vector<int32_t> out(dec->values_remaining());
          auto n = dec->decode(out.data(), out.size());
          failed = !n.ok();
          if (!failed) {  // only the last miniblock's padding was cut
            for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(static_cast<uint32_t>(out[i]), static_cast<uint32_t>(s.expect[i]));
          } else {
            EXPECT_EQ(n.error().code, ErrorCode::kTruncated) << n.error().to_string();
          }
        } else {
          auto dec = DeltaInt64Decoder::make(buf.get(), len);
          if (!dec.ok()) continue;
          std::vector<int64_t> out(dec->values_remaining());
          auto n = dec->skip(rng() % 3);
          if (n.ok()) n = dec->decode(out.data() + *n, out.size() - *n);
          failed = !n.ok();
          if (failed) EXPECT_EQ(n.error().code, ErrorCode::kTruncated) << n.error().to_string();
        }
      }
    });
  }
}

TEST(Delta, SkipKeepsRunningValue) {
  std::vector<int64_t> v(10000);
  std::mt19937_64 rng(9);
  int64_t acc = 0;
  for (auto& x : v) x = acc += static_cast<int64_t>(rng() % 1000) - 300;
  auto enc = delta_encode_int64(v.data(), v.size());
  ASSERT_TRUE(enc.ok());
  for_each_simd_level([&](SimdLevel) {
    auto dec = DeltaInt64Decoder::make(enc->data(), enc->size());
    ASSERT_TRUE(dec.ok());
    size_t pos = 0;
    int64_t one = 0;
    for (size_t step : {0, 1, 5, 256, 300, 1, 2048, 3}) {
      auto s = dec->skip(step);
      ASSERT_TRUE(s.ok());
      pos += *s;
      auto n = dec->decode(&one, 1);
      ASSERT_TRUE(n.ok());
      ASSERT_EQ(one, v[pos]) << pos;
      ++pos;
    }
    auto rest = dec->skip(1u << 30);
    ASSERT_TRUE(rest.ok());
    EXPECT_EQ(*rest, v.size() - pos);
    EXPECT_EQ(dec->values_remaining(), 0u);
    EXPECT_EQ(dec->bytes_consumed(), enc->size());
  });
}

TEST(Delta, EncoderRejectsBadGeometry) {
  int64_t x = 1;
  EXPECT_FALSE(delta_encode_int64(&x, 1, {100, 4}).ok());
  EXPECT_FALSE(delta_encode_int64(&x, 1, {128, 8}).ok());
  EXPECT_FALSE(delta_encode_int64(&x, 1, {128, 0}).ok());
}

}  // namespace
}  // namespace pqfast

namespace pqfast {
namespace {

// Random corruptions of valid streams: never a crash or an over-read (run
// under -DPQFAST_SANITIZE=address,undefined), and every implementation gives
// the scalar reference's outcome: the same error code, or the same values.
TEST(Delta, MutatedStreamsAgreeAcrossImplementations) {
  std::mt19937_64 rng(99);
  std::vector<int> all(65);
  for (int w = 0; w <= 64; ++w) all[w] = w;
  const int iterations = testing::long_tests_enabled() ? 20000 : 400;
  int decoded = 0, rejected = 0;
  for (int iter = 0; iter < iterations; ++iter) {
    const DeltaGeometry g = kGeometries[rng() % std::size(kGeometries)];
    const bool int32 = rng() % 2;
    std::vector<uint8_t> bytes = make_raw(g, rng() % 3000, rng, int32, all).bytes;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0: bytes[at] = static_cast<uint8_t>(rng()); break;
        case 1: bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 2: bytes.resize(at); break;
        default: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng())); break;
      }
    }
    auto buf = std::make_unique<uint8_t[]>(bytes.size() + 1);  // exact size for ASan (+1 for empty)
    if (!bytes.empty()) std::memcpy(buf.get(), bytes.data(), bytes.size());
    std::string reference;
    for_each_simd_level([&](SimdLevel level) {
      std::string outcome;
      auto run = [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        auto dec = DeltaBinaryPackedDecoder<T>::make(buf.get(), bytes.size());
        if (!dec.ok()) {
          outcome = "make: " + dec.error().to_string();
          return;
        }
        // Decode at most 1M values: a mutated count can legally announce many.
        const size_t n = static_cast<size_t>(std::min<uint64_t>(dec->values_remaining(), 1u << 20));
        std::vector<T> out(n);
        std::mt19937_64 brng(iter);
        size_t done = 0;
        while (done < n) {
          const size_t want = std::min<size_t>(n - done, 1 + brng() % 600);
          auto r = brng() % 5 == 0 ? dec->skip(want) : dec->decode(out.data() + done, want);
          if (!r.ok()) {
            outcome = "decode at " + std::to_string(done) + ": " + r.error().to_string();
            return;
          }
          done += *r;
        }
        outcome = "ok " + std::to_string(dec->bytes_consumed());
        for (size_t i = 0; i < n; ++i) outcome += "," + std::to_string(out[i]);
      };
      if (int32) {
        run(static_cast<int32_t*>(nullptr));
      } else {
        run(static_cast<int64_t*>(nullptr));
      }
      if (level == SimdLevel::kScalar) {
        reference = outcome;
        ++(outcome.rfind("ok", 0) == 0 ? decoded : rejected);
      } else {
        ASSERT_EQ(outcome.substr(0, 200), reference.substr(0, 200)) << "iteration " << iter;
        ASSERT_EQ(outcome, reference) << "iteration " << iter;
      }
    });
  }
  std::printf("mutated streams: %d decoded, %d rejected\n", decoded, rejected);
  EXPECT_GT(decoded, iterations / 10);
  EXPECT_GT(rejected, iterations / 10);
}

}  // namespace
}  // namespace pqfast
