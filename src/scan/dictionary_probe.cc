// Whether a dictionary page holds any of a few fixed-width values, without
// inflating it (see dictionary_probe.h).
#include "scan/dictionary_probe.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "compare/kernels.h"
#include "parquet/plain_dictionary_page.h"
#include "parquet/snappy_range.h"

namespace pqfast::parquet::scan {
namespace {

constexpr int32_t kUncompressed = 0;
constexpr int32_t kSnappy = 1;
// Values per batch: 4 KB of them, in L1 between the copy and the compare.
constexpr size_t kBatchBytes = 4096;
// Each value of the page is compared with every wanted one: for a few.
constexpr size_t kMaxWanted = 16;

template <typename T>
bool any_match(const std::vector<std::string>& values, size_t count, const uint8_t* plain,
               const parquet::detail::SnappyIndex* index) {
  const compare::CompareKernels& k = compare::active_compare_kernels();
  T set[kMaxWanted];
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(&set[i], values[i].data(), sizeof(T));
  alignas(64) T buf[kBatchBytes / sizeof(T)];
  uint64_t bits[kBatchBytes / sizeof(T) / 64];
  constexpr size_t per_batch = kBatchBytes / sizeof(T);
  for (size_t i = 0; i < count; i += per_batch) {
    const size_t n = std::min(per_batch, count - i);
    if (index) {
      // Literal bytes straight from the compressed page; a copy's from the
      // literal it repeats. A stream this walk cannot follow: "may hold".
      if (!index->read(i * sizeof(T), n * sizeof(T), reinterpret_cast<uint8_t*>(buf)).ok()) return true;
    } else {
      std::memcpy(buf, plain + i * sizeof(T), n * sizeof(T));
    }
    if constexpr (sizeof(T) == 8) {
      k.in_u64(buf, n, set, values.size(), bits);
    } else {
      k.in_u32(buf, n, set, values.size(), bits);
    }
    uint64_t any = 0;
    for (size_t w = 0; w < (n + 63) / 64; ++w) any |= bits[w];
    if (any) return true;
  }
  return false;
}

}  // namespace

bool dictionary_lacks_values(const uint8_t* page, size_t len, int32_t codec, size_t width,
                             const std::vector<std::string>& values) {
  if ((width != 4 && width != 8) || values.size() > kMaxWanted) return false;
  for (const std::string& v : values) {
    if (v.size() != width) return false;
  }
  if (codec != kUncompressed && codec != kSnappy) return false;
  auto pg = parquet::detail::plain_dictionary_page(page, len, 0, "");
  if (!pg.ok()) return false;
  const uint8_t* body = pg->body;
  const size_t csize = pg->csize, usize = pg->usize, count = pg->count;
  const size_t have = codec == kUncompressed ? csize : usize;
  if (count > have / width) return false;
  std::optional<parquet::detail::SnappyIndex> index;
  if (codec == kSnappy) {
    // Mostly literals (distinct values rarely repeat bytes): the walk of the
    // tags is short and each batch a copy or two. A compressible page is
    // inflated by the caller instead.
    if (csize * 8 < usize * 7) return false;
    auto x = parquet::detail::SnappyIndex::build(body, csize, "");
    if (!x.ok() || x->uncompressed_size() != usize) return false;
    index = std::move(x).value();
  }
  if (values.empty()) return true;
  const bool found = width == 8 ? any_match<uint64_t>(values, count, body, index ? &*index : nullptr)
                                : any_match<uint32_t>(values, count, body, index ? &*index : nullptr);
  return !found;
}

}  // namespace pqfast::parquet::scan
