#include "delta_strings_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "pqfast/delta.h"
#include "pqfast/simd.h"

namespace pqfast::bench {
namespace {

std::vector<std::string> dataset(const std::string& name, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> v(n);
  auto pick = [&](const char* alphabet, size_t k) { return alphabet[rng() % k]; };
  if (name == "short") {
    for (auto& s : v) {
      s.resize(8 + rng() % 9);
      for (auto& c : s) c = pick("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 62);
    }
  } else if (name == "urls") {
    static const char* kHosts[] = {"https://www.example.com/", "https://shop.example.org/catalog/",
                                   "https://cdn.example.net/static/assets/images/"};
    for (auto& s : v) {
      char tail[64];
      std::snprintf(tail, sizeof tail, "category-%02u/product/%010llu", static_cast<unsigned>(rng() % 40),
                    static_cast<unsigned long long>(rng() % 10000000000ULL));
      s = std::string(kHosts[rng() % 3]) + tail;
    }
    std::sort(v.begin(), v.end());
  } else if (name == "comment") {
    static const char* kWords[] = {"furiously", "carefully", "quickly", "final", "pending", "regular", "ironic",
                                   "express", "deposits", "requests", "packages", "accounts", "blithely", "bold",
                                   "slyly", "even", "special", "theodolites", "foxes", "pinto", "beans", "ideas"};
    for (auto& s : v) {
      const size_t len = 10 + rng() % 34;
      while (s.size() < len) s += std::string(kWords[rng() % 22]) + " ";
      s.resize(len);
    }
  } else {  // uuid
    for (auto& s : v) {
      char b[40];
      const uint64_t a = rng(), c = rng();
      std::snprintf(b, sizeof b, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                    static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                    static_cast<unsigned>(c >> 48), static_cast<unsigned long long>(c & 0xffffffffffffULL));
      s = b;
    }
    std::sort(v.begin(), v.end());
  }
  return v;
}

}  // namespace

std::vector<StringPage> make_string_pages(size_t page_values) {
  std::vector<StringPage> pages;
  uint64_t seed = 77;
  for (const char* name : {"short", "urls", "comment", "uuid"}) {
    const auto values = dataset(name, page_values, seed++);
    std::vector<int32_t> offsets{0};
    std::string data;
    for (const auto& s : values) {
      data += s;
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    for (int incremental = 0; incremental < 2; ++incremental) {
      StringPage p;
      p.encoding = incremental ? "DELTA_BYTE_ARRAY" : "DELTA_LENGTH_BYTE_ARRAY";
      p.dataset = name;
      p.values = values.size();
      p.decoded_bytes = data.size();
      const auto* d = reinterpret_cast<const uint8_t*>(data.data());
      p.bytes = incremental ? *delta_encode_byte_array(offsets.data(), d, values.size())
                            : *delta_encode_length_byte_array(offsets.data(), d, values.size());
      p.offsets = offsets;
      p.data = data;
      pages.push_back(std::move(p));
    }
  }
  return pages;
}

std::vector<Row> run_delta_strings_bench(const DeltaBenchOptions& options) {
  std::vector<Row> rows;
  const SimdLevel saved = simd_level();
  for (const StringPage& p : make_string_pages(options.page_values)) {
    const double n = static_cast<double>(p.values);
    std::vector<int32_t> offsets(p.values + 1);
    std::vector<BinaryView> views(p.values);
    std::vector<uint8_t> data(p.decoded_bytes + 64), src(p.decoded_bytes + 64, 1);
    auto add = [&](const std::string& impl, double ns) {
      rows.push_back(Row{"delta_strings", p.encoding, impl, p.decoded_bytes, p.dataset, ns, n});
    };
    const bool dlba = p.encoding == "DELTA_LENGTH_BYTE_ARRAY";
    const std::string what = p.encoding + " " + p.dataset + ": ";
    for (SimdLevel level : available_simd_levels()) {
      if (level == SimdLevel::kSse4) continue;  // no SSE4 delta kernels
      (void)set_simd_level(level);
      const std::string name = simd_level_name(level);
      if (options.progress) options.progress(what + name);
      add(name, median_ns_per_value(options.reps, options.iters, n, [&] {
            offsets[0] = 0;
            if (dlba) {
              auto d = DeltaLengthByteArrayDecoder::make(p.bytes.data(), p.bytes.size());
              (void)d->decode(offsets.data(), data.data(), data.size(), p.values);
            } else {
              auto d = DeltaByteArrayDecoder::make(p.bytes.data(), p.bytes.size());
              (void)d->decode(offsets.data(), data.data(), data.size(), p.values);
            }
            keep(data[static_cast<size_t>(offsets[p.values]) - 1]);
          }));
      add(name + " views", median_ns_per_value(options.reps, options.iters, n, [&] {
            if (dlba) {
              auto d = DeltaLengthByteArrayDecoder::make(p.bytes.data(), p.bytes.size());
              (void)d->decode_views(views.data(), 0, p.values);
            } else {
              auto d = DeltaByteArrayDecoder::make(p.bytes.data(), p.bytes.size());
              size_t used = 0;
              (void)d->decode_views(views.data(), data.data(), data.size(), &used, 0, p.values);
            }
            keep(static_cast<uint64_t>(views[p.values - 1].inlined.size));
          }));
    }
    if (options.progress) options.progress(what + "encode");
    add("encode", median_ns_per_value(options.reps, options.iters, n, [&] {
          const auto* d = reinterpret_cast<const uint8_t*>(p.data.data());
          auto page = dlba ? delta_encode_length_byte_array(p.offsets.data(), d, p.values)
                           : delta_encode_byte_array(p.offsets.data(), d, p.values);
          keep(page->size());
        }));
    if (options.progress) options.progress(what + "memcpy");
    add("memcpy", median_ns_per_value(options.reps, options.iters, n, [&] {
          std::memcpy(data.data(), src.data(), p.decoded_bytes);
          keep(data[p.decoded_bytes / 2]);
        }));
  }
  (void)set_simd_level(saved);
  return rows;
}

}  // namespace pqfast::bench
