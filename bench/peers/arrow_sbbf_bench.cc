// `arrow_sbbf_bench`: pqfast's SBBF table (bench/sbbf_bench.cc) with Arrow
// C++'s parquet::BlockSplitBloomFilter timed on copies of the same filters,
// with the same probe hashes, in the same process. Prints one JSON object per
// row on stdout (what `pqfast bench sbbf` reads) and notes on stderr.
//
//   arrow_sbbf_bench [--footprints B,B,..] [--probes N] [--reps R]
//                    [--insert-keys-up-to B] [--distance D]
#include <arrow/memory_pool.h>
#include <parquet/bloom_filter.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/simd.h"
#include "sbbf_bench.h"

namespace {

using pqfast::bench::AddRow;
using pqfast::bench::SbbfFixtureView;

std::vector<uint64_t> parse_list(const char* s) {
  std::vector<uint64_t> v;
  while (*s != '\0') {
    char* end = nullptr;
    v.push_back(std::strtoull(s, &end, 10));
    s = (*end == ',') ? end + 1 : end;
    if (end == s && *s != '\0') break;
  }
  return v;
}

// Arrow's filters live in memory backed like ours: buffers of 2 MiB or more
// are 2 MiB aligned and madvise(MADV_HUGEPAGE)d, so DRAM rows compare probe
// code, not page sizes. Records the buffers to report their THP coverage.
class HugePagePool final : public arrow::MemoryPool {
 public:
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override {
    const size_t align = size >= (int64_t{2} << 20) ? (size_t{2} << 20) : 64;
    const size_t rounded = (static_cast<size_t>(size) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
    if (p == nullptr) return arrow::Status::OutOfMemory("HugePagePool");
    if (align > 64) madvise(p, rounded, MADV_HUGEPAGE);
    *out = static_cast<uint8_t*>(p);
    bytes_ += size;
    total_ += size;
    ++count_;
    if (align > 64) big_.push_back({*out, static_cast<size_t>(size)});
    return arrow::Status::OK();
  }
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment, uint8_t** ptr) override {
    uint8_t* fresh = nullptr;
    ARROW_RETURN_NOT_OK(Allocate(new_size, alignment, &fresh));
    std::memcpy(fresh, *ptr, static_cast<size_t>(old_size < new_size ? old_size : new_size));
    Free(*ptr, old_size, alignment);
    *ptr = fresh;
    return arrow::Status::OK();
  }
  void Free(uint8_t* buffer, int64_t size, int64_t) override {
    for (size_t i = 0; i < big_.size(); ++i) {
      if (big_[i].first == buffer) {
        big_.erase(big_.begin() + static_cast<long>(i));
        break;
      }
    }
    std::free(buffer);
    bytes_ -= size;
  }
  int64_t bytes_allocated() const override { return bytes_; }
  int64_t total_bytes_allocated() const override { return total_; }
  int64_t num_allocations() const override { return count_; }
  std::string backend_name() const override { return "pqfast-bench-hugepage"; }

  // Share of the live large buffers backed by huge pages.
  double huge_fraction() const {
    double sum = 0, n = 0;
    for (const auto& [p, size] : big_) {
      sum += pqfast::bench::huge_page_fraction(p, size);
      n += 1;
    }
    return n == 0 ? -1 : sum / n;
  }

 private:
  int64_t bytes_ = 0, total_ = 0, count_ = 0;
  std::vector<std::pair<uint8_t*, size_t>> big_;
};

HugePagePool g_pool;

// Arrow's filters over copies of our bitsets (Init copies into the pool).
std::vector<std::unique_ptr<parquet::BlockSplitBloomFilter>> arrow_copies(const SbbfFixtureView& fx) {
  std::vector<std::unique_ptr<parquet::BlockSplitBloomFilter>> out;
  for (const pqfast::SbbfRef& r : fx.filters) {
    auto f = std::make_unique<parquet::BlockSplitBloomFilter>(&g_pool);
    f->Init(reinterpret_cast<const uint8_t*>(r.words), r.num_blocks * 32u);
    out.push_back(std::move(f));
  }
  return out;
}

void arrow_rows(const SbbfFixtureView& fx, const AddRow& add, int reps) {
  auto filters = arrow_copies(fx);
  const size_t n = fx.num_probes;
  const int passes = fx.passes;
  const double ops = static_cast<double>(n) * passes;
  // Same verdicts as ours on the first probes, or the comparison is void.
  for (size_t i = 0; i < 1000 && i < n; ++i) {
    const size_t id = fx.filter_ids ? fx.filter_ids[i] : 0;
    const pqfast::SbbfRef& r = fx.filters[id];
    const bool ours = pqfast::SbbfView::make(reinterpret_cast<const uint8_t*>(r.words), r.num_blocks * 32u)
                          ->check_hash(fx.probes[i]);
    if (ours != filters[id]->FindHash(fx.probes[i])) {
      std::fprintf(stderr, "arrow_sbbf_bench: verdicts differ from Arrow C++ at probe %zu\n", i);
      std::exit(2);
    }
  }
  const parquet::BlockSplitBloomFilter* one = filters[0].get();
  if (fx.build_bytes >= (size_t{2} << 20)) {
    std::fprintf(stderr, "note: %s: Arrow C++ filter copies 2 MiB aligned + MADV_HUGEPAGE; huge pages back %.0f%%\n",
                 fx.label.c_str(), 100.0 * g_pool.huge_fraction());
  }
  add("single", "arrow", pqfast::bench::best_ns_per_op(reps, ops, [&] {
        uint64_t hits = 0;
        for (int pass = 0; pass < passes; ++pass) {
          if (fx.filter_ids == nullptr) {
            for (size_t i = 0; i < n; ++i) hits += one->FindHash(fx.probes[i]);
          } else {
            for (size_t i = 0; i < n; ++i) hits += filters[fx.filter_ids[i]]->FindHash(fx.probes[i]);
          }
        }
        pqfast::bench::keep(hits);
      }));
  // Value -> verdict: Arrow's Hash(int64_t) then FindHash.
  add("hash_probe", "arrow", pqfast::bench::best_ns_per_op(reps, ops, [&] {
        uint64_t hits = 0;
        for (int pass = 0; pass < passes; ++pass) {
          if (fx.filter_ids == nullptr) {
            for (size_t i = 0; i < n; ++i) hits += one->FindHash(one->Hash(fx.values[i]));
          } else {
            for (size_t i = 0; i < n; ++i) {
              const auto* f = filters[fx.filter_ids[i]].get();
              hits += f->FindHash(f->Hash(fx.values[i]));
            }
          }
        }
        pqfast::bench::keep(hits);
      }));
  if (fx.num_build_keys != 0) {
    filters.clear();  // free the copies before building
    std::vector<uint8_t> zeros(fx.build_bytes, 0);
    const size_t k = fx.num_build_keys;
    auto time_build = [&](bool bulk) {
      double best = 1e300;
      parquet::BlockSplitBloomFilter f(&g_pool);
      for (int r = 0; r < reps; ++r) {
        f.Init(zeros.data(), static_cast<uint32_t>(zeros.size()));
        const double t0 = pqfast::bench::now_ns();
        if (bulk) {
          for (size_t i = 0; i < k; i += 1 << 20) {
            const size_t m = k - i < (size_t{1} << 20) ? k - i : (size_t{1} << 20);
            f.InsertHashes(fx.build_keys + i, static_cast<int>(m));
          }
        } else {
          for (size_t i = 0; i < k; ++i) f.InsertHash(fx.build_keys[i]);
        }
        const double t = pqfast::bench::now_ns() - t0;
        if (t < best) best = t;
      }
      pqfast::bench::keep(f.FindHash(fx.build_keys[0]));
      return best / static_cast<double>(k);
    };
    add("build", "arrow", time_build(false));
    add("build", "arrow_bulk", time_build(true));
  }
}

}  // namespace

int main(int argc, char** argv) {
  pqfast::bench::SbbfBenchOptions o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--footprints") {
      o.footprints = parse_list(argv[i + 1]);
    } else if (a == "--probes") {
      o.probes = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (a == "--reps") {
      o.reps = std::atoi(argv[i + 1]);
    } else if (a == "--insert-keys-up-to") {
      o.insert_keys_up_to = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (a == "--distance") {
      o.prefetch_distance = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "arrow_sbbf_bench: unknown option %s\n", a.c_str());
      return 1;
    }
  }
  if (!pqfast::simd_status().ok()) {
    std::fprintf(stderr, "arrow_sbbf_bench: %s\n", pqfast::simd_status().error().message.c_str());
    return 1;
  }
  std::vector<std::string> notes;
  o.notes = &notes;
  const int reps = o.reps;
  o.peer = [reps](const SbbfFixtureView& fx, const AddRow& add) { arrow_rows(fx, add, reps); };
  const auto rows = pqfast::bench::run_sbbf_bench(o);
  std::fputs(pqfast::bench::rows_to_json_lines(rows).c_str(), stdout);
  std::fflush(stdout);
  for (const auto& note : notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  return 0;
}
