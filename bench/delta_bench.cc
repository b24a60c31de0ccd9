#include "delta_bench.h"

#include <cstring>
#include <random>

#include "pqfast/delta.h"
#include "pqfast/simd.h"

namespace pqfast::bench {
namespace {

struct WidthClass {
  const char* name;
  int lo, hi;
};
constexpr WidthClass kClasses[] = {{"0", 0, 0}, {"1-8", 1, 8}, {"9-16", 9, 16}, {"17-32", 17, 32}, {"33-64", 33, 64}};

uint64_t mask_of(int w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }

// Values whose miniblock k has deltas of exactly width(k) bits: each
// miniblock holds a 0 and an all-ones delta, the rest random.
template <class T>
std::vector<T> values_for(size_t n, DeltaGeometry g, int lo, int hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t vpm = g.values_per_miniblock();
  std::vector<T> v(n);
  uint64_t cur = rng();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) {
      const size_t k = (i - 1) / vpm, j = (i - 1) % vpm;
      const int w = lo + static_cast<int>(k % static_cast<size_t>(hi - lo + 1));
      const uint64_t d = w == 0 ? 3 : j == 0 ? 0 : j == 1 ? mask_of(w) : rng() & mask_of(w);
      cur += d;
    }
    v[i] = static_cast<T>(cur);
  }
  return v;
}

void put_uleb(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// INT32 with 33..64-bit miniblocks, as DuckDB 2.0 writes for wide deltas: our
// encoder (like Arrow's) never does, so the page is written raw.
std::vector<uint8_t> raw_wide_int32_page(size_t n, DeltaGeometry g, int lo, int hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> out;
  put_uleb(out, g.block_size);
  put_uleb(out, g.miniblocks_per_block);
  put_uleb(out, n);
  put_uleb(out, 0);
  const uint32_t vpm = g.values_per_miniblock();
  size_t k = 0;
  for (size_t left = n - 1; left > 0;) {
    out.push_back(0);  // min delta 0
    const size_t in_block = std::min<size_t>(left, g.block_size);
    std::vector<int> widths(g.miniblocks_per_block, 0);
    for (uint32_t m = 0; m < g.miniblocks_per_block; ++m) {
      widths[m] = size_t{m} * vpm < in_block ? lo + static_cast<int>((k++) % static_cast<size_t>(hi - lo + 1)) : 0;
      out.push_back(static_cast<uint8_t>(widths[m]));
    }
    for (int w : widths) {
      for (size_t b = 0; b < size_t{vpm} * w / 8; ++b) out.push_back(static_cast<uint8_t>(rng()));
    }
    left -= in_block;
  }
  return out;
}

}  // namespace

std::vector<DeltaPage> make_delta_pages(size_t page_values) {
  std::vector<DeltaPage> pages;
  for (int t = 0; t < 2; ++t) {
    const bool int64 = t == 1;
    const DeltaGeometry g = int64 ? kDeltaInt64DefaultGeometry : kDeltaInt32DefaultGeometry;
    for (const WidthClass& c : kClasses) {
      DeltaPage p;
      p.int64 = int64;
      p.type = int64 ? "INT64" : "INT32";
      p.width_class = c.name;
      p.width_lo = c.lo;
      p.width_hi = c.hi;
      p.values = page_values;
      const uint64_t seed = 1000 * t + c.lo;
      if (int64) {
        auto v = values_for<int64_t>(page_values, g, c.lo, c.hi, seed);
        p.bytes = *delta_encode_int64(v.data(), v.size(), g);
      } else if (c.hi <= 32) {
        auto v = values_for<int32_t>(page_values, g, c.lo, c.hi, seed);
        p.bytes = *delta_encode_int32(v.data(), v.size(), g);
      } else {
        p.bytes = raw_wide_int32_page(page_values, g, c.lo, c.hi, seed);
        p.arrow_readable = false;
      }
      pages.push_back(std::move(p));
    }
  }
  return pages;
}

std::vector<Row> run_delta_bench(const DeltaBenchOptions& options) {
  std::vector<Row> rows;
  const SimdLevel saved = simd_level();
  const auto pages = make_delta_pages(options.page_values);
  for (const DeltaPage& p : pages) {
    const double n = static_cast<double>(p.values);
    const size_t out_bytes = p.values * (p.int64 ? 8 : 4);
    std::vector<uint8_t> out(out_bytes), src(out_bytes, 1);
    auto add = [&](const char* impl, double ns) {
      rows.push_back(Row{"delta", p.type, impl, p.bytes.size(), p.width_class, ns, n});
    };
    const std::string what = p.type + " " + p.width_class + " bits: ";
    for (SimdLevel level : available_simd_levels()) {
      if (level == SimdLevel::kSse4) continue;  // no SSE4 kernels: it would time the scalar table again
      (void)set_simd_level(level);
      if (options.progress) options.progress(what + simd_level_name(level));
      add(simd_level_name(level), median_ns_per_value(options.reps, options.iters, n, [&] {
            if (p.int64) {
              auto d = DeltaInt64Decoder::make(p.bytes.data(), p.bytes.size());
              (void)d->decode(reinterpret_cast<int64_t*>(out.data()), p.values);
            } else {
              auto d = DeltaInt32Decoder::make(p.bytes.data(), p.bytes.size());
              (void)d->decode(reinterpret_cast<int32_t*>(out.data()), p.values);
            }
            keep(out[out_bytes - 1]);
          }));
    }
    if (options.progress) options.progress(what + "memcpy");
    add("memcpy", median_ns_per_value(options.reps, options.iters, n, [&] {
          std::memcpy(out.data(), src.data(), out_bytes);
          keep(out[out_bytes / 2]);
        }));
  }
  (void)set_simd_level(saved);
  return rows;
}

}  // namespace pqfast::bench
