#include "sbbf_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pqfast/hash.h"
#include "pqfast/simd.h"

namespace pqfast::bench {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The probe every reference reader ships (Arrow C++ before 25, arrow-rs,
// Velox, the seed's scalar column): eight dependent word tests with an early
// exit.
bool classic_check(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  const uint32_t bucket = static_cast<uint32_t>(((hash >> 32) * num_blocks) >> 32);
  const uint32_t key = static_cast<uint32_t>(hash);
  const uint32_t* block = words + size_t{bucket} * 8;
  for (int i = 0; i < 8; ++i) {
    if ((block[i] & (uint32_t{1} << ((key * kSbbfSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

std::string footprint_label(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%g GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%g MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%g KiB", static_cast<double>(bytes) / 1024);
  }
  return buf;
}

void fill_random(Sbbf& f, uint64_t seed) {
  auto* w = reinterpret_cast<uint64_t*>(f.mutable_data());
  const size_t n = f.num_bytes() / 8;
  for (size_t i = 0; i < n; ++i) w[i] = splitmix64(seed + i);
}

// One footprint's data: filters, probe values and their hashes (half of
// them inserted), filter ids, build keys.
struct Fixture {
  std::vector<Sbbf> filters;
  std::vector<SbbfRef> refs;
  std::vector<int64_t> values;
  std::vector<uint64_t> probes;
  std::vector<uint32_t> ids;
  std::vector<uint64_t> build_keys;
};

Fixture make_fixture(uint64_t footprint, const SbbfBenchOptions& o, std::string* fill_note) {
  Fixture fx;
  const size_t nf = footprint > (uint64_t{128} << 20) ? 8 : 1;
  const size_t fbytes = static_cast<size_t>(footprint / nf);
  const bool insert_keys = footprint <= o.insert_keys_up_to;
  for (size_t f = 0; f < nf; ++f) {
    fx.filters.push_back(*Sbbf::with_num_bytes(fbytes));
    if (insert_keys) {
      const uint64_t keys = uint64_t{fbytes} * 8 / 10;  // ~10 bits per key: fpp ~1%
      std::vector<uint64_t> chunk(1 << 16);
      for (uint64_t i = 0; i < keys; i += chunk.size()) {
        const size_t m = static_cast<size_t>(std::min<uint64_t>(chunk.size(), keys - i));
        for (size_t j = 0; j < m; ++j) chunk[j] = splitmix64((uint64_t{f} << 40) + i + j);
        fx.filters.back().insert_hashes(chunk.data(), m);
      }
    } else {
      fill_random(fx.filters.back(), uint64_t{f} << 44);
    }
    fx.refs.push_back(fx.filters.back().view().ref());
  }
  *fill_note = insert_keys ? "keys inserted at 10 bits/key" : "random bits (50% density)";
  const size_t n = footprint <= (uint64_t{8} << 20) ? std::min(o.probes, o.in_cache_window) : o.probes;
  fx.values.resize(n);
  fx.probes.resize(n);
  for (size_t i = 0; i < n; ++i) fx.values[i] = static_cast<int64_t>(splitmix64(i ^ 0x5eed));
  hash_int64(fx.values.data(), n, fx.probes.data());
  if (nf > 1) {
    fx.ids.resize(n);
    for (size_t i = 0; i < n; ++i) fx.ids[i] = static_cast<uint32_t>(splitmix64(i + 77) % nf);
  }
  for (size_t i = 0; i < n; i += 2) fx.filters[nf > 1 ? fx.ids[i] : 0].insert_hash(fx.probes[i]);
  fx.build_keys.resize(std::min<size_t>(n, fbytes * 8 / 10));
  for (size_t i = 0; i < fx.build_keys.size(); ++i) fx.build_keys[i] = splitmix64(i + (uint64_t{1} << 50));
  return fx;
}

}  // namespace

double huge_page_fraction(const void* p, size_t bytes) {
#if defined(__linux__)
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return -1;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
  std::string line;
  bool inside = false;
  uint64_t huge_kb = 0;
  while (std::getline(smaps, line)) {
    unsigned long long a = 0, b = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &a, &b) == 2 && line.find(':') > line.find(' ')) {
      inside = a < hi && b > lo;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      huge_kb += std::strtoull(line.c_str() + 14, nullptr, 10);
    }
  }
  return std::min(1.0, static_cast<double>(huge_kb) * 1024.0 / static_cast<double>(bytes));
#else
  return -1;
#endif
}

std::string rows_to_json_lines(const std::vector<Row>& rows) {
  std::ostringstream out;
  for (const Row& r : rows) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "{\"family\": \"%s\", \"mode\": \"%s\", \"implementation\": \"%s\", "
                  "\"footprint_bytes\": %llu, \"label\": \"%s\", \"ns_per_op\": %.6g, \"ops\": %.0f}\n",
                  r.family.c_str(), r.mode.c_str(), r.implementation.c_str(),
                  static_cast<unsigned long long>(r.footprint_bytes), r.label.c_str(), r.ns_per_op, r.ops);
    out << buf;
  }
  return out.str();
}

std::vector<Row> run_sbbf_bench(const SbbfBenchOptions& options) {
  std::vector<Row> rows;
  const SimdLevel saved = simd_level();
  for (uint64_t footprint : options.footprints) {
    const std::string label = footprint_label(footprint);
    if (options.progress) options.progress("building " + label + " of filters");
    std::string fill_note;
    Fixture fx = make_fixture(footprint, options, &fill_note);
    const size_t nf = fx.filters.size();
    const size_t n = fx.probes.size();
    const int passes = static_cast<int>(std::max<size_t>(1, options.probes / n));
    const double ops = static_cast<double>(n) * passes;
    const uint64_t* probes = fx.probes.data();
    const uint32_t* ids = fx.ids.data();
    const SbbfRef* refs = fx.refs.data();
    if (options.notes) {
      double huge = 0;
      for (const Sbbf& f : fx.filters) huge += huge_page_fraction(f.data(), f.num_bytes());
      char buf[200];
      std::snprintf(buf, sizeof buf, "%s: %zu filter(s) of %s, %s; transparent huge pages back %.0f%%",
                    label.c_str(), nf, footprint_label(fx.filters[0].num_bytes()).c_str(),
                    fill_note.c_str(), 100.0 * huge / static_cast<double>(nf));
      options.notes->push_back(buf);
    }
    auto add = [&](const char* mode, const char* impl, double ns) {
      rows.push_back(Row{"sbbf", mode, impl, footprint, label, ns, ops});
    };

    if (options.progress) options.progress(label + ": classic");
    add("classic", "scalar", best_ns_per_op(options.reps, ops, [&] {
          uint64_t hits = 0;
          for (int pass = 0; pass < passes; ++pass) {
          if (nf == 1) {
            for (size_t i = 0; i < n; ++i) hits += classic_check(refs[0].words, refs[0].num_blocks, probes[i]);
          } else {
            for (size_t i = 0; i < n; ++i) {
              hits += classic_check(refs[ids[i]].words, refs[ids[i]].num_blocks, probes[i]);
            }
          }
          }
          keep(hits);
        }));

    // Eight row-group filters: the real ones, or eight slices of the one.
    std::vector<SbbfRef> groups(8);
    for (size_t g = 0; g < 8; ++g) {
      if (nf == 8) {
        groups[g] = refs[g];
      } else {
        const uint32_t nb = refs[0].num_blocks / 8;
        groups[g] = SbbfRef{refs[0].words + size_t{g} * nb * 8, nb};
      }
    }
    std::vector<SbbfView> views;
    for (const Sbbf& f : fx.filters) views.push_back(f.view());
    std::vector<uint8_t> out(n);
    Sbbf build = nf == 1 ? *Sbbf::with_num_bytes(fx.filters[0].num_bytes()) : Sbbf();
    const size_t dist = options.prefetch_distance;

    for (SimdLevel level : available_simd_levels()) {
      (void)set_simd_level(level);
      const char* impl = simd_level_name(level);
      if (options.progress) options.progress(label + ": " + impl);
      add("single", impl, best_ns_per_op(options.reps, ops, [&] {
            uint64_t hits = 0;
            for (int pass = 0; pass < passes; ++pass) {
            if (nf == 1) {
              const SbbfView v = views[0];
              for (size_t i = 0; i < n; ++i) hits += v.check_hash(probes[i]);
            } else {
              for (size_t i = 0; i < n; ++i) hits += views[ids[i]].check_hash(probes[i]);
            }
            }
            keep(hits);
          }));
      add("batched", impl, best_ns_per_op(options.reps, ops, [&] {
            for (int pass = 0; pass < passes; ++pass) {
            if (nf == 1) {
              views[0].check_hashes(probes, n, out.data(), dist);
            } else {
              (void)sbbf_check_gather(refs, nf, ids, probes, n, out.data(), dist);
            }
            }
            keep(out[n / 2]);
          }));
      const size_t nh = n / 8;
      add("multi", impl, best_ns_per_op(options.reps, static_cast<double>(nh * 8) * passes, [&] {
            for (int pass = 0; pass < passes; ++pass) {
              sbbf_check_product(groups.data(), 8, probes, nh, out.data(), dist);
            }
            keep(out[nh]);
          }));
      add("hash_probe", impl, best_ns_per_op(options.reps, ops, [&] {
            for (int pass = 0; pass < passes; ++pass) {
            if (nf == 1) {
              views[0].check_int64(fx.values.data(), n, out.data());
            } else {
              // A filter per value: hash a chunk, then the gathered probe.
              uint64_t h[4096];
              for (size_t i = 0; i < n; i += 4096) {
                const size_t m = std::min<size_t>(4096, n - i);
                hash_int64(fx.values.data() + i, m, h);
                (void)sbbf_check_gather(refs, nf, ids + i, h, m, out.data() + i, dist);
              }
            }
            }
            keep(out[n / 2]);
          }));
      if (nf == 1) {
        const size_t k = fx.build_keys.size();
        double best = 1e300;
        for (int r = 0; r < options.reps; ++r) {
          std::memset(build.mutable_data(), 0, build.num_bytes());
          const double t0 = now_ns();
          build.insert_hashes(fx.build_keys.data(), k, dist);
          best = std::min(best, now_ns() - t0);
        }
        keep(build.data()[0]);
        rows.push_back(Row{"sbbf", "build", impl, footprint, label, best / static_cast<double>(k),
                           static_cast<double>(k)});
      }
    }
    (void)set_simd_level(saved);

    if (options.peer) {
      if (options.progress) options.progress(label + ": peers");
      SbbfFixtureView fv;
      fv.footprint_bytes = footprint;
      fv.label = label;
      fv.filters = fx.refs;
      fv.filter_ids = nf > 1 ? ids : nullptr;
      fv.probes = probes;
      fv.values = fx.values.data();
      fv.num_probes = n;
      fv.passes = passes;
      fv.build_keys = fx.build_keys.data();
      fv.num_build_keys = nf == 1 ? fx.build_keys.size() : 0;
      fv.build_bytes = fx.filters[0].num_bytes();
      const AddRow add_row = [&](const char* mode, const char* impl, double ns) {
        const double o = std::string(mode) == "build" ? static_cast<double>(fv.num_build_keys) : ops;
        rows.push_back(Row{"sbbf", mode, impl, footprint, label, ns, o});
      };
      options.peer(fv, add_row);
    }
  }
  (void)set_simd_level(saved);
  return rows;
}

}  // namespace pqfast::bench
