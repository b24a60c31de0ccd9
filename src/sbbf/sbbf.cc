// The SBBF API: sizing, allocation, folding, the on-disk form, and the calls
// that hand arrays to the active kernel table.
#include "pqfast/sbbf.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pqfast/hash.h"
#include "levels/kernels.h"
#include "sbbf/kernels.h"
#include "thrift/compact.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pqfast {
namespace sbbf {

const detail::KernelTables<SbbfKernels>& sbbf_kernel_tables() {
  static const detail::KernelTables<SbbfKernels> tables = [] {
    detail::KernelTables<SbbfKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarSbbfKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kSse4)] = &kSse4SbbfKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2SbbfKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512SbbfKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
    t.by_level[static_cast<int>(SimdLevel::kNeon)] = &kNeonSbbfKernels;
#endif
    return t;
  }();
  return tables;
}

}  // namespace sbbf

namespace {

constinit const detail::ActiveKernels<sbbf::SbbfKernels> g_kernels(&sbbf::sbbf_kernel_tables);

inline const sbbf::SbbfKernels& kernels() { return g_kernels.get(); }

// The prefetch distance a batched call uses over `footprint` bytes.
inline size_t resolve_distance(size_t requested, size_t footprint) {
  if (requested != kSbbfAutoPrefetch) return requested;
  return footprint <= kSbbfPrefetchAbove ? 0 : kSbbfDramPrefetch;
}

size_t footprint_of(const SbbfRef* filters, size_t num_filters) {
  size_t bytes = 0;
  for (size_t f = 0; f < num_filters; ++f) bytes += size_t{filters[f].num_blocks} * kSbbfBytesPerBlock;
  return bytes;
}

Status check_bitset_size(size_t num_bytes, const char* what) {
  if (num_bytes == 0 || num_bytes % kSbbfBytesPerBlock != 0 || num_bytes > kSbbfMaxBytes) {
    return make_error(ErrorCode::kInvalidArgument,
                      std::string(what) + " of " + std::to_string(num_bytes) +
                          " bytes: a Split Block Bloom filter needs a positive multiple of 32 "
                          "bytes, at most " +
                          std::to_string(kSbbfMaxBytes));
  }
  return Status::Ok();
}

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHashChunk = 1024;  // hashes computed per step of a typed call

// Hashes typed values a chunk at a time (no allocation) and hands each chunk
// to sink(hashes, first_index, count).
template <class Sink>
Status for_each_hash_chunk(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                           int32_t type_length, Sink&& sink) {
  auto width = plain_value_width(type, type_length);
  if (!width.ok()) return width.error();
  if (n != 0 && data_len / *width < n) {
    return make_error(ErrorCode::kInvalidArgument,
                      std::to_string(n) + " values of " + std::to_string(*width) +
                          " bytes need more than the " + std::to_string(data_len) +
                          " bytes given");
  }
  uint64_t hashes[kHashChunk];
  for (size_t i = 0; i < n; i += kHashChunk) {
    const size_t m = std::min(kHashChunk, n - i);
    PQFAST_RETURN_IF_ERROR(
        hash_fixed_width_values(type, data + i * *width, m * *width, m, type_length, hashes));
    sink(hashes, i, m);
  }
  return Status::Ok();
}

template <class Sink>
Status for_each_byte_array_hash_chunk(const uint8_t* data, size_t data_len,
                                      const int64_t* offsets, size_t n, Sink&& sink) {
  uint64_t hashes[kHashChunk];
  for (size_t i = 0; i < n; i += kHashChunk) {
    const size_t m = std::min(kHashChunk, n - i);
    PQFAST_RETURN_IF_ERROR(hash_byte_arrays(data, data_len, offsets + i, m, hashes));
    sink(hashes, i, m);
  }
  return Status::Ok();
}

}  // namespace

// ---- on-disk header ---------------------------------------------------------

Result<SbbfHeader> parse_sbbf_header(const uint8_t* data, size_t len) {
  using thrift::CType;
  thrift::CompactReader r(data, len, "BloomFilterHeader");
  PQFAST_RETURN_IF_ERROR(r.begin_struct());
  bool have_num_bytes = false, have_algorithm = false, have_hash = false, have_compression = false;
  int32_t num_bytes = 0;
  // Each of algorithm/hash/compression is a Thrift union whose only known
  // member is field 1 (BLOCK / XXHASH / UNCOMPRESSED), an empty struct.
  auto read_union = [&r](const char* field, const char* known) -> Status {
    PQFAST_RETURN_IF_ERROR(r.begin_struct());
    bool seen_known = false;
    while (true) {
      auto f = r.read_field_header();
      if (!f.ok()) return f.error();
      if (f->is_stop()) break;
      if (f->id == 1 && f->type == CType::kStruct) {
        seen_known = true;
        PQFAST_RETURN_IF_ERROR(r.skip(CType::kStruct));
      } else {
        return r.error(ErrorCode::kUnsupported,
                       std::string(field) + " member " + std::to_string(f->id) +
                           " is not supported (only " + known + " is defined)");
      }
    }
    PQFAST_RETURN_IF_ERROR(r.end_struct());
    if (!seen_known) {
      return r.error(ErrorCode::kCorrupt, std::string(field) + " union is empty");
    }
    return Status::Ok();
  };
  while (true) {
    auto f = r.read_field_header();
    if (!f.ok()) return f.error();
    if (f->is_stop()) break;
    switch (f->id) {
      case 1: {
        if (f->type != CType::kI32) return r.error(ErrorCode::kCorrupt, "numBytes is not an i32");
        auto v = r.read_i32();
        if (!v.ok()) return v.error();
        num_bytes = *v;
        have_num_bytes = true;
        break;
      }
      case 2:
        if (f->type != CType::kStruct) return r.error(ErrorCode::kCorrupt, "algorithm is not a union");
        PQFAST_RETURN_IF_ERROR(read_union("algorithm", "BLOCK"));
        have_algorithm = true;
        break;
      case 3:
        if (f->type != CType::kStruct) return r.error(ErrorCode::kCorrupt, "hash is not a union");
        PQFAST_RETURN_IF_ERROR(read_union("hash", "XXHASH"));
        have_hash = true;
        break;
      case 4:
        if (f->type != CType::kStruct) {
          return r.error(ErrorCode::kCorrupt, "compression is not a union");
        }
        PQFAST_RETURN_IF_ERROR(read_union("compression", "UNCOMPRESSED"));
        have_compression = true;
        break;
      default:
        PQFAST_RETURN_IF_ERROR(r.skip(f->type));  // a newer writer's field
    }
  }
  PQFAST_RETURN_IF_ERROR(r.end_struct());
  if (!have_num_bytes || !have_algorithm || !have_hash || !have_compression) {
    std::string missing;
    for (auto [have, name] : {std::pair{have_num_bytes, "numBytes"}, {have_algorithm, "algorithm"},
                              {have_hash, "hash"}, {have_compression, "compression"}}) {
      if (!have) missing += missing.empty() ? name : std::string(", ") + name;
    }
    return r.error(ErrorCode::kCorrupt,
                   "required field(s) missing: " + missing +
                       " (not a Parquet BloomFilterHeader; filters written before the 2019 "
                       "spec used another format)");
  }
  if (num_bytes <= 0 || num_bytes % static_cast<int32_t>(kSbbfBytesPerBlock) != 0) {
    return r.error(ErrorCode::kCorrupt, "numBytes is " + std::to_string(num_bytes) +
                                            "; it must be a positive multiple of 32");
  }
  return SbbfHeader{static_cast<uint32_t>(num_bytes), static_cast<uint32_t>(r.position())};
}

std::vector<uint8_t> serialize_sbbf_header(uint32_t num_bytes) {
  using thrift::CType;
  std::vector<uint8_t> out;
  thrift::CompactWriter w(&out);
  w.begin_struct();
  w.write_i32_field(1, static_cast<int32_t>(num_bytes));
  for (int16_t field = 2; field <= 4; ++field) {  // algorithm, hash, compression
    w.field_header(CType::kStruct, field);
    w.begin_struct();
    w.field_header(CType::kStruct, 1);  // BLOCK / XXHASH / UNCOMPRESSED
    w.begin_struct();
    w.end_struct();
    w.end_struct();
  }
  w.end_struct();
  return out;
}

// ---- SbbfView ---------------------------------------------------------------

Result<SbbfView> SbbfView::make(const uint8_t* bitset, size_t num_bytes) {
  PQFAST_RETURN_IF_ERROR(check_bitset_size(num_bytes, "bitset"));
  return SbbfView(bitset, static_cast<uint32_t>(num_bytes / kSbbfBytesPerBlock));
}

std::atomic<detail::SbbfCheckHashFn> detail::g_sbbf_check_hash{nullptr};

bool detail::sbbf_check_hash_first(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  static const bool registered = [] {
    detail::on_simd_level_change([] { g_sbbf_check_hash.store(nullptr, std::memory_order_relaxed); });
    return true;
  }();
  (void)registered;
  const SbbfCheckHashFn fn = kernels().check_hash;
  g_sbbf_check_hash.store(fn, std::memory_order_relaxed);
  return fn(words, num_blocks, hash);
}

void SbbfView::check_hashes(const uint64_t* hashes, size_t n, uint8_t* out,
                            size_t prefetch_distance) const {
  kernels().check_hashes(words(), num_blocks_, hashes, n, out,
                         resolve_distance(prefetch_distance, num_bytes()));
}

void SbbfView::check_int32(const int32_t* values, size_t n, uint8_t* out) const {
  kernels().check_fixed4(words(), num_blocks_, reinterpret_cast<const uint8_t*>(values), n, out,
                         resolve_distance(kSbbfAutoPrefetch, num_bytes()));
}

void SbbfView::check_int64(const int64_t* values, size_t n, uint8_t* out) const {
  kernels().check_fixed8(words(), num_blocks_, reinterpret_cast<const uint8_t*>(values), n, out,
                         resolve_distance(kSbbfAutoPrefetch, num_bytes()));
}

void SbbfView::check_float(const float* values, size_t n, uint8_t* out) const {
  static_assert(sizeof(float) == 4);
  kernels().check_fixed4(words(), num_blocks_, reinterpret_cast<const uint8_t*>(values), n, out,
                         resolve_distance(kSbbfAutoPrefetch, num_bytes()));
}

void SbbfView::check_double(const double* values, size_t n, uint8_t* out) const {
  static_assert(sizeof(double) == 8);
  kernels().check_fixed8(words(), num_blocks_, reinterpret_cast<const uint8_t*>(values), n, out,
                         resolve_distance(kSbbfAutoPrefetch, num_bytes()));
}

Status SbbfView::check_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                              int32_t type_length, uint8_t* out) const {
  auto width = plain_value_width(type, type_length);
  if (!width.ok()) return width.error();
  if ((*width == 4 || *width == 8) && (n == 0 || data_len / *width >= n)) {
    const size_t distance = resolve_distance(kSbbfAutoPrefetch, num_bytes());
    if (*width == 4) {
      kernels().check_fixed4(words(), num_blocks_, data, n, out, distance);
    } else {
      kernels().check_fixed8(words(), num_blocks_, data, n, out, distance);
    }
    return Status::Ok();
  }
  return for_each_hash_chunk(type, data, data_len, n, type_length,
                             [&](const uint64_t* h, size_t i, size_t m) { check_hashes(h, m, out + i); });
}

Status SbbfView::check_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets,
                                   size_t n, uint8_t* out) const {
  return for_each_byte_array_hash_chunk(
      data, data_len, offsets, n, [&](const uint64_t* h, size_t i, size_t m) { check_hashes(h, m, out + i); });
}

double SbbfView::fill_ratio() const {
  uint64_t set = 0;
  const size_t n = num_bytes() / 8;
  if (reinterpret_cast<uintptr_t>(data_) % alignof(uint64_t) == 0) {
    // The dispatched popcount (a POPCNT instruction where the CPU has one;
    // std::popcount in this generic unit is a libgcc call per word): folding
    // a filter built by pqfast.index measures every filter this way.
    set = static_cast<uint64_t>(levels::active_level_kernels().count_bits(reinterpret_cast<const uint64_t*>(data_), n));
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint64_t w;
      std::memcpy(&w, data_ + i * 8, 8);
      set += static_cast<uint64_t>(std::popcount(w));
    }
  }
  return static_cast<double>(set) / (static_cast<double>(num_bytes()) * 8.0);
}

// ---- Sbbf -------------------------------------------------------------------

void detail::FreeAligned::operator()(uint8_t* p) const { std::free(p); }

Result<Sbbf> Sbbf::allocate(size_t num_bytes) {
  PQFAST_RETURN_IF_ERROR(check_bitset_size(num_bytes, "filter"));
  // Large filters get 2 MiB alignment so the kernel can back them with huge
  // pages (fewer TLB misses on random probes); small ones a cache line.
  const size_t align = num_bytes >= kHugePage ? kHugePage : 64;
  const size_t rounded = (num_bytes + align - 1) / align * align;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(align, rounded));
  if (p == nullptr) {
    return make_error(ErrorCode::kLimitExceeded,
                      "cannot allocate a " + std::to_string(num_bytes) + "-byte filter");
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
  std::memset(p, 0, rounded);
  Sbbf f;
  f.data_ = std::unique_ptr<uint8_t[], detail::FreeAligned>(p);
  f.num_blocks_ = static_cast<uint32_t>(num_bytes / kSbbfBytesPerBlock);
  return f;
}

Sbbf::Sbbf(const Sbbf& other) { *this = other; }

Sbbf& Sbbf::operator=(const Sbbf& other) {
  if (this == &other) return *this;
  if (other.num_blocks_ == 0) {
    data_.reset();
    num_blocks_ = 0;
    return *this;
  }
  auto copy = allocate(other.num_bytes());
  if (!copy.ok()) std::abort();  // same size as an existing allocation: out of memory
  std::memcpy(copy->data_.get(), other.data_.get(), other.num_bytes());
  *this = std::move(*copy);
  return *this;
}

Result<Sbbf> Sbbf::with_num_bytes(size_t num_bytes) { return allocate(num_bytes); }

size_t Sbbf::optimal_num_bytes(uint64_t ndv, double fpp) {
  const double max_bits = static_cast<double>(kSbbfMaxOptimalBytes) * 8.0;
  const double m = -8.0 * static_cast<double>(ndv) / std::log(1.0 - std::pow(fpp, 1.0 / 8.0));
  uint64_t bits = (m < 0 || m > max_bits || std::isnan(m)) ? static_cast<uint64_t>(max_bits)
                                                           : static_cast<uint64_t>(m);
  bits = std::max<uint64_t>(bits, kSbbfMinBytes * 8);
  bits = std::bit_ceil(bits);
  bits = std::min<uint64_t>(bits, static_cast<uint64_t>(max_bits));
  return static_cast<size_t>(bits / 8);
}

Result<Sbbf> Sbbf::for_ndv(uint64_t ndv, double fpp) {
  if (!(fpp > 0.0 && fpp < 1.0)) {
    return make_error(ErrorCode::kInvalidArgument,
                      "fpp must be strictly between 0 and 1, got " + std::to_string(fpp));
  }
  return allocate(optimal_num_bytes(ndv, fpp));
}

Result<Sbbf> Sbbf::from_bitset(const uint8_t* bitset, size_t num_bytes) {
  auto f = allocate(num_bytes);
  if (!f.ok()) return f.error();
  std::memcpy(f->data_.get(), bitset, num_bytes);
  return f;
}

Result<Sbbf> Sbbf::parse(const uint8_t* data, size_t len, size_t* consumed) {
  auto header = parse_sbbf_header(data, len);
  if (!header.ok()) return header.error();
  const size_t available = len - header->header_size;
  if (header->num_bytes > available) {
    return make_error(ErrorCode::kTruncated,
                      "Bloom filter header announces a " + std::to_string(header->num_bytes) +
                          "-byte bitset but only " + std::to_string(available) +
                          " bytes follow the " + std::to_string(header->header_size) +
                          "-byte header");
  }
  auto f = from_bitset(data + header->header_size, header->num_bytes);
  if (f.ok() && consumed != nullptr) *consumed = header->header_size + header->num_bytes;
  return f;
}

void Sbbf::insert_hash(uint64_t hash) {
  kernels().insert_hash(reinterpret_cast<uint32_t*>(data_.get()), num_blocks_, hash);
}

void Sbbf::insert_hashes(const uint64_t* hashes, size_t n, size_t prefetch_distance) {
  kernels().insert_hashes(reinterpret_cast<uint32_t*>(data_.get()), num_blocks_, hashes, n,
                          resolve_distance(prefetch_distance, num_bytes()));
}

Status Sbbf::insert_values(PhysicalType type, const uint8_t* data, size_t data_len, size_t n,
                           int32_t type_length) {
  return for_each_hash_chunk(type, data, data_len, n, type_length,
                             [&](const uint64_t* h, size_t, size_t m) { insert_hashes(h, m); });
}

Status Sbbf::insert_byte_arrays(const uint8_t* data, size_t data_len, const int64_t* offsets,
                                size_t n) {
  return for_each_byte_array_hash_chunk(
      data, data_len, offsets, n, [&](const uint64_t* h, size_t, size_t m) { insert_hashes(h, m); });
}

uint32_t Sbbf::fold(double target_fpp) {
  if (num_blocks_ == 0) return 0;
  const double fill = view().fill_ratio();
  if (fill == 0.0) {
    num_blocks_ = 1;  // nothing inserted: the smallest legal filter, all zero
    return 0;
  }
  // Each halving ORs pairs of blocks: a bit stays clear with probability
  // (1 - f)^2, and a probe tests 8 bits, so the estimated fpp after k folds
  // is (1 - (1 - f)^(2^k))^8. Fold while that stays within the target; the
  // group size 2^k must divide the block count.
  const uint32_t max_folds = static_cast<uint32_t>(std::countr_zero(num_blocks_));
  uint32_t folds = 0;
  double clear = 1.0 - fill;
  for (uint32_t k = 0; k < max_folds; ++k) {
    clear *= clear;
    if (std::pow(1.0 - clear, 8) > target_fpp) break;
    ++folds;
  }
  if (folds == 0) return 0;
  const uint32_t group = uint32_t{1} << folds;
  const uint32_t new_blocks = num_blocks_ / group;
  auto* words = reinterpret_cast<uint32_t*>(data_.get());
  // Block j of the folded filter is the OR of old blocks j*group .. j*group +
  // group - 1: fastrange over num_blocks/group maps a hash to exactly that j.
  for (uint32_t j = 0; j < new_blocks; ++j) {
    uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t g = 0; g < group; ++g) {
      const uint32_t* src = words + (size_t{j} * group + g) * 8;
      for (int w = 0; w < 8; ++w) acc[w] |= src[w];
    }
    std::memcpy(words + size_t{j} * 8, acc, sizeof(acc));
  }
  std::memset(words + size_t{new_blocks} * 8, 0,
              (size_t{num_blocks_} - new_blocks) * kSbbfBytesPerBlock);
  num_blocks_ = new_blocks;
  return folds;
}

// ---- many filters -------------------------------------------------------------

void sbbf_check_product(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                        size_t num_hashes, uint8_t* out, size_t prefetch_distance) {
  if (num_filters == 0 || num_hashes == 0) return;
  kernels().check_product(filters, num_filters, hashes, num_hashes, out,
                          resolve_distance(prefetch_distance, footprint_of(filters, num_filters)));
}

void sbbf_check_any(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                    size_t num_hashes, uint64_t* row_group_mask) {
  std::memset(row_group_mask, 0, (num_filters + 63) / 64 * sizeof(uint64_t));
  if (num_filters == 0 || num_hashes == 0) return;
  const auto& k = kernels();
  const size_t distance = resolve_distance(kSbbfAutoPrefetch, footprint_of(filters, num_filters));
  // The product a block of hashes at a time (bounded stack), each row ORed
  // into the mask: bit f = any hash may be in filter f.
  constexpr size_t kBuffer = 4096;
  uint8_t verdicts[kBuffer];
  for (size_t f0 = 0; f0 < num_filters; f0 += kBuffer) {
    const size_t nf = std::min(kBuffer, num_filters - f0);
    const size_t hashes_per_step = std::max<size_t>(1, kBuffer / nf);
    for (size_t h0 = 0; h0 < num_hashes; h0 += hashes_per_step) {
      const size_t nh = std::min(hashes_per_step, num_hashes - h0);
      k.check_product(filters + f0, nf, hashes + h0, nh, verdicts, distance);
      for (size_t h = 0; h < nh; ++h) {
        const uint8_t* row = verdicts + h * nf;
        for (size_t f = 0; f < nf; ++f) {
          row_group_mask[(f0 + f) / 64] |= uint64_t{row[f]} << ((f0 + f) % 64);
        }
      }
    }
  }
}

Status sbbf_check_any_values(const SbbfRef* filters, size_t num_filters, PhysicalType type,
                             const uint8_t* data, size_t data_len, size_t n, int32_t type_length,
                             uint64_t* row_group_mask) {
  std::vector<uint64_t> hashes(n);
  PQFAST_RETURN_IF_ERROR(hash_fixed_width_values(type, data, data_len, n, type_length, hashes.data()));
  sbbf_check_any(filters, num_filters, hashes.data(), n, row_group_mask);
  return Status::Ok();
}

Status sbbf_check_gather(const SbbfRef* filters, size_t num_filters, const uint32_t* filter_ids,
                         const uint64_t* hashes, size_t n, uint8_t* out, size_t prefetch_distance) {
  uint32_t max_id = 0;
  for (size_t i = 0; i < n; ++i) max_id = std::max(max_id, filter_ids[i]);
  if (n != 0 && max_id >= num_filters) {
    return make_error(ErrorCode::kInvalidArgument,
                      "filter id " + std::to_string(max_id) + " is out of range: " +
                          std::to_string(num_filters) + " filters given");
  }
  if (n == 0) return Status::Ok();
  kernels().check_gather(filters, filter_ids, hashes, n, out,
                         resolve_distance(prefetch_distance, footprint_of(filters, num_filters)));
  return Status::Ok();
}

std::vector<uint8_t> Sbbf::serialize() const {
  std::vector<uint8_t> out = serialize_sbbf_header(static_cast<uint32_t>(num_bytes()));
  out.insert(out.end(), data_.get(), data_.get() + num_bytes());
  return out;
}

}  // namespace pqfast
