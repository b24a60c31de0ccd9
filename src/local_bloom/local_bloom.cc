// The local_bloom API: RocksDB's sizing and num_probes choice, building,
// the filter block with its 5-byte trailer, validation, and the calls that
// hand arrays to the active kernel table.
#include "pqfast/local_bloom.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hash/rocksdb_hash64.h"
#include "local_bloom/kernels.h"

namespace pqfast {
namespace local_bloom {

const detail::KernelTables<LocalBloomKernels>& local_bloom_kernel_tables() {
  static const detail::KernelTables<LocalBloomKernels> tables = [] {
    detail::KernelTables<LocalBloomKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarLocalBloomKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2LocalBloomKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512LocalBloomKernels;
#endif
#if defined(PQFAST_ARCH_ARM64)
    t.by_level[static_cast<int>(SimdLevel::kNeon)] = &kNeonLocalBloomKernels;
#endif
    return t;
  }();
  return tables;
}

}  // namespace local_bloom

namespace {

// The active table, cached (two relaxed loads per call; see dispatch.h).
constinit const detail::ActiveKernels<local_bloom::LocalBloomKernels> g_kernels(
    &local_bloom::local_bloom_kernel_tables);

const local_bloom::LocalBloomKernels& kernels() { return g_kernels.get(); }

// The trailer RocksDB writes after a FastLocalBloom payload.
void write_trailer(uint8_t* at, int num_probes) {
  at[0] = 0xff;                              // new Bloom family
  at[1] = 0x00;                              // FastLocalBloom
  at[2] = static_cast<uint8_t>(num_probes);  // top 3 bits 0: 64-byte lines
  at[3] = 0;
  at[4] = 0;
}

Status check_keys_layout(size_t data_len, const int64_t* offsets, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int64_t begin = offsets[i];
    const int64_t end = offsets[i + 1];
    if (begin < 0 || end < begin || static_cast<uint64_t>(end) > data_len) {
      return make_error(ErrorCode::kInvalidArgument,
                        "key offsets at index " + std::to_string(i) + " are [" +
                            std::to_string(begin) + ", " + std::to_string(end) + "), outside the " +
                            std::to_string(data_len) + "-byte key buffer");
    }
  }
  return Status::Ok();
}

std::string hex_byte(uint8_t b) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

}  // namespace

// ---- hashing -----------------------------------------------------------------

uint64_t rocksdb_hash64(const void* data, size_t len) {
  return hash::rocksdb_hash64_inline(static_cast<const uint8_t*>(data), len);
}

Status rocksdb_hash64_keys(const uint8_t* data, size_t data_len, const int64_t* offsets, size_t n,
                           uint64_t* out) {
  PQFAST_RETURN_IF_ERROR(check_keys_layout(data_len, offsets, n));
  for (size_t i = 0; i < n; ++i) {
    out[i] = hash::rocksdb_hash64_inline(data + offsets[i],
                                         static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  return Status::Ok();
}

// ---- sizing --------------------------------------------------------------------

Result<int> local_bloom_millibits_per_key(double bits_per_key) {
  if (std::isnan(bits_per_key) || bits_per_key < 0.5) {
    return make_error(ErrorCode::kInvalidArgument,
                      "bits_per_key " + std::to_string(bits_per_key) +
                          " is below 0.5 or not a number: RocksDB builds no filter for it");
  }
  double b = bits_per_key;
  if (b < 1.0) b = 1.0;
  if (!(b < 100.0)) b = 100.0;
  // RocksDB's rounding, nudged up so settings with three decimals are exact.
  return static_cast<int>(b * 1000.0 + 0.500001);
}

int local_bloom_num_probes(int mb) {
  if (mb <= 2080) return 1;
  if (mb <= 3580) return 2;
  if (mb <= 5100) return 3;
  if (mb <= 6640) return 4;
  if (mb <= 8300) return 5;
  if (mb <= 10070) return 6;
  if (mb <= 11720) return 7;
  if (mb <= 14001) return 8;
  if (mb <= 16050) return 9;
  if (mb <= 18300) return 10;
  if (mb <= 22001) return 11;
  if (mb <= 25501) return 12;
  if (mb > 50000) return 24;
  return (mb - 1) / 2000 - 1;
}

size_t local_bloom_payload_bytes(size_t num_keys, int millibits_per_key) {
  const unsigned __int128 bits =
      static_cast<unsigned __int128>(num_keys) * static_cast<uint64_t>(millibits_per_key);
  unsigned __int128 raw = (bits + 7999) / 8000;
  if (raw > kLocalBloomMaxPayloadBytes) raw = kLocalBloomMaxPayloadBytes;
  return (static_cast<size_t>(raw) + 63) & ~size_t{63};
}

// ---- the block trailer ------------------------------------------------------------

const char* filter_block_kind_name(FilterBlockKind kind) {
  switch (kind) {
    case FilterBlockKind::kFastLocalBloom: return "fast_local_bloom";
    case FilterBlockKind::kAlwaysFalse: return "always_false";
    case FilterBlockKind::kAlwaysTrue: return "always_true";
    case FilterBlockKind::kLegacyBloom: return "legacy_bloom";
    case FilterBlockKind::kRibbon: return "ribbon";
    case FilterBlockKind::kReserved: return "reserved";
  }
  return "unknown";
}

FilterBlockInfo inspect_filter_block(const uint8_t* block, size_t len) {
  FilterBlockInfo info;
  if (len <= kLocalBloomTrailerBytes) {
    info.kind = FilterBlockKind::kAlwaysFalse;
    return info;
  }
  const uint8_t* t = block + len - kLocalBloomTrailerBytes;
  info.payload_bytes = len - kLocalBloomTrailerBytes;
  const auto marker = static_cast<int8_t>(t[0]);
  if (marker == 0) {
    info.kind = FilterBlockKind::kAlwaysTrue;
  } else if (marker > 0) {
    info.kind = FilterBlockKind::kLegacyBloom;
    info.num_probes = marker;
  } else if (marker == -2) {
    info.kind = FilterBlockKind::kRibbon;
  } else if (marker != -1) {
    info.kind = FilterBlockKind::kReserved;
    info.detail = "unknown filter marker byte (RocksDB reserves it and reads the filter as always-true)";
  } else {
    const int probes = t[2] & 31;
    const int log2_line = ((t[2] >> 5) & 7) + 6;
    info.num_probes = probes;
    if (t[1] != 0) {
      info.kind = FilterBlockKind::kReserved;
      info.detail = "new-Bloom sub-implementation is not 0 (FastLocalBloom)";
    } else if (log2_line != 6) {
      info.kind = FilterBlockKind::kReserved;
      info.detail = "line size is not 64 bytes (top 3 bits of the probes byte must be 0)";
    } else if (probes < 1 || probes > kLocalBloomMaxProbes) {
      info.kind = FilterBlockKind::kReserved;
      info.detail = "num_probes is 0 or 31 (reserved values)";
    } else if (t[3] != 0 || t[4] != 0) {
      info.kind = FilterBlockKind::kReserved;
      info.detail = "the two reserved trailer bytes are not zero";
    } else {
      info.kind = FilterBlockKind::kFastLocalBloom;
    }
  }
  return info;
}

// ---- LocalBloomView ---------------------------------------------------------------------

LocalBloomView::LocalBloomView(const uint8_t* data, uint32_t num_lines, int num_probes,
                               FilterBlockKind kind)
    : kernels_(&kernels()), data_(data), num_lines_(num_lines), num_probes_(num_probes), kind_(kind) {
  if (num_lines_ != 0) {
    check_hash_ = kernels_->check_hash;
    check_key_ = kernels_->check_key;
  } else if (kind_ == FilterBlockKind::kAlwaysTrue) {
    check_hash_ = &answer_true_hash;
    check_key_ = &answer_true_key;
  }
}

Result<LocalBloomView> LocalBloomView::parse(const uint8_t* block, size_t len) {
  if (len > kLocalBloomMaxPayloadBytes + kLocalBloomTrailerBytes) {
    return make_error(ErrorCode::kLimitExceeded,
                      "filter block of " + std::to_string(len) +
                          " bytes: RocksDB filter blocks hold at most " +
                          std::to_string(kLocalBloomMaxPayloadBytes) +
                          " payload bytes plus the 5-byte trailer");
  }
  const FilterBlockInfo info = inspect_filter_block(block, len);
  const std::string where = "filter block of " + std::to_string(len) + " bytes";
  switch (info.kind) {
    case FilterBlockKind::kAlwaysFalse:
      return LocalBloomView(nullptr, 0, 0, FilterBlockKind::kAlwaysFalse);
    case FilterBlockKind::kAlwaysTrue:
      return LocalBloomView(nullptr, 0, 0, FilterBlockKind::kAlwaysTrue);
    case FilterBlockKind::kLegacyBloom:
      return make_error(ErrorCode::kUnsupported,
                        where + ": trailer byte at offset " + std::to_string(info.payload_bytes) +
                            " is " + std::to_string(info.num_probes) +
                            ", the probe count of a Legacy Bloom filter (RocksDB format_version < "
                            "5); only FastLocalBloom (marker 0xff 0x00) is supported");
    case FilterBlockKind::kRibbon:
      return make_error(ErrorCode::kUnsupported,
                        where + ": trailer marker 0xfe at offset " +
                            std::to_string(info.payload_bytes) +
                            " is a Ribbon filter (RocksDB's Standard128Ribbon); only FastLocalBloom "
                            "(marker 0xff 0x00) is supported");
    case FilterBlockKind::kReserved: {
      const uint8_t* t = block + info.payload_bytes;
      return make_error(ErrorCode::kUnsupported,
                        where + ": trailer " + hex_byte(t[0]) + " " + hex_byte(t[1]) + " " +
                            hex_byte(t[2]) + " " + hex_byte(t[3]) + " " + hex_byte(t[4]) +
                            " at offset " + std::to_string(info.payload_bytes) + ": " + info.detail);
    }
    case FilterBlockKind::kFastLocalBloom:
      break;
  }
  if (info.payload_bytes % kLocalBloomLineBytes != 0) {
    return make_error(ErrorCode::kCorrupt,
                      where + ": FastLocalBloom payload of " + std::to_string(info.payload_bytes) +
                          " bytes is not a whole number of 64-byte lines (truncated or padded?)");
  }
  return LocalBloomView(block, static_cast<uint32_t>(info.payload_bytes / kLocalBloomLineBytes),
                        info.num_probes, FilterBlockKind::kFastLocalBloom);
}

Result<LocalBloomView> LocalBloomView::make(const uint8_t* payload, size_t payload_bytes,
                                            int num_probes) {
  if (payload_bytes == 0 || payload_bytes % kLocalBloomLineBytes != 0 ||
      payload_bytes > kLocalBloomMaxPayloadBytes) {
    return make_error(ErrorCode::kInvalidArgument,
                      "payload of " + std::to_string(payload_bytes) +
                          " bytes: a FastLocalBloom payload is a positive multiple of 64 bytes, at "
                          "most " + std::to_string(kLocalBloomMaxPayloadBytes));
  }
  if (num_probes < 1 || num_probes > kLocalBloomMaxProbes) {
    return make_error(ErrorCode::kInvalidArgument,
                      "num_probes " + std::to_string(num_probes) + " is outside 1..30");
  }
  return LocalBloomView(payload, static_cast<uint32_t>(payload_bytes / kLocalBloomLineBytes),
                        num_probes, FilterBlockKind::kFastLocalBloom);
}

void LocalBloomView::check_hashes(const uint64_t* hashes, size_t n, uint8_t* out) const {
  if (num_lines_ == 0) {
    std::memset(out, kind_ == FilterBlockKind::kAlwaysTrue ? 1 : 0, n);
    return;
  }
  kernels_->check_hashes(data_, num_lines_, num_probes_, hashes, n, out);
}

Status LocalBloomView::check_keys(const uint8_t* data, size_t data_len, const int64_t* offsets,
                                  size_t n, uint8_t* out) const {
  PQFAST_RETURN_IF_ERROR(check_keys_layout(data_len, offsets, n));
  if (num_lines_ == 0) {
    std::memset(out, kind_ == FilterBlockKind::kAlwaysTrue ? 1 : 0, n);
    return Status::Ok();
  }
  kernels_->check_keys(data_, num_lines_, num_probes_, data, offsets, n, out);
  return Status::Ok();
}

double LocalBloomView::fill_ratio() const {
  if (num_lines_ == 0) return kind_ == FilterBlockKind::kAlwaysTrue ? 1.0 : 0.0;
  uint64_t set = 0;
  const size_t words = payload_bytes() / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, data_ + i * 8, 8);
    set += static_cast<uint64_t>(std::popcount(w));
  }
  return static_cast<double>(set) / (static_cast<double>(payload_bytes()) * 8.0);
}

// ---- LocalBloom ------------------------------------------------------------------------

void detail::LocalBloomFree::operator()(uint8_t* p) const { std::free(p); }

Result<LocalBloom> LocalBloom::allocate(size_t payload_bytes, int num_probes) {
  const size_t block = payload_bytes + kLocalBloomTrailerBytes;
  const size_t rounded = (block + 63) & ~size_t{63};
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (p == nullptr) {
    return make_error(ErrorCode::kLimitExceeded,
                      "cannot allocate a " + std::to_string(block) + "-byte filter block");
  }
  std::memset(p, 0, rounded);
  LocalBloom f;
  f.data_ = std::unique_ptr<uint8_t[], detail::LocalBloomFree>(p);
  f.block_bytes_ = block;
  f.num_lines_ = static_cast<uint32_t>(payload_bytes / kLocalBloomLineBytes);
  f.num_probes_ = num_probes;
  f.kind_ = payload_bytes == 0 ? FilterBlockKind::kAlwaysFalse : FilterBlockKind::kFastLocalBloom;
  return f;
}

LocalBloom::LocalBloom(const LocalBloom& other) { *this = other; }

LocalBloom& LocalBloom::operator=(const LocalBloom& other) {
  if (this == &other) return *this;
  if (other.data_ == nullptr) {
    data_.reset();
    block_bytes_ = 0;
    num_lines_ = 0;
    num_probes_ = 0;
    kind_ = other.kind_;
    return *this;
  }
  const size_t rounded = (other.block_bytes_ + 63) & ~size_t{63};
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (p == nullptr) std::abort();  // same size as an existing allocation: out of memory
  std::memcpy(p, other.data_.get(), rounded);
  data_ = std::unique_ptr<uint8_t[], detail::LocalBloomFree>(p);
  block_bytes_ = other.block_bytes_;
  num_lines_ = other.num_lines_;
  num_probes_ = other.num_probes_;
  kind_ = other.kind_;
  return *this;
}

Result<LocalBloom> LocalBloom::with_shape(size_t payload_bytes, int num_probes) {
  if (payload_bytes % kLocalBloomLineBytes != 0 || payload_bytes > kLocalBloomMaxPayloadBytes) {
    return make_error(ErrorCode::kInvalidArgument,
                      "payload of " + std::to_string(payload_bytes) +
                          " bytes: a FastLocalBloom payload is a multiple of 64 bytes, at most " +
                          std::to_string(kLocalBloomMaxPayloadBytes));
  }
  if (num_probes < 1 || num_probes > kLocalBloomMaxProbes) {
    return make_error(ErrorCode::kInvalidArgument,
                      "num_probes " + std::to_string(num_probes) + " is outside 1..30");
  }
  auto f = allocate(payload_bytes, num_probes);
  if (!f.ok()) return f;
  write_trailer(f->data_.get() + payload_bytes, num_probes);
  return f;
}

Result<LocalBloom> LocalBloom::build_from_hashes(const uint64_t* hashes, size_t n,
                                                 double bits_per_key) {
  auto mb = local_bloom_millibits_per_key(bits_per_key);
  if (!mb.ok()) return mb.error();
  // RocksDB's builder drops a hash equal to the one before it (repeated
  // keys, common with prefixes) before sizing the filter.
  size_t distinct = n == 0 ? 0 : 1;
  for (size_t i = 1; i < n; ++i) distinct += hashes[i] != hashes[i - 1];
  auto f = with_shape(local_bloom_payload_bytes(distinct, *mb), local_bloom_num_probes(*mb));
  if (!f.ok()) return f;
  f->insert_hashes(hashes, n);
  return f;
}

Result<LocalBloom> LocalBloom::build_from_keys(const uint8_t* data, size_t data_len,
                                               const int64_t* offsets, size_t n,
                                               double bits_per_key) {
  std::vector<uint64_t> hashes(n);
  PQFAST_RETURN_IF_ERROR(rocksdb_hash64_keys(data, data_len, offsets, n, hashes.data()));
  return build_from_hashes(hashes.data(), n, bits_per_key);
}

Result<LocalBloom> LocalBloom::parse(const uint8_t* block, size_t len) {
  auto v = LocalBloomView::parse(block, len);
  if (!v.ok()) return v.error();
  // Keep the block as given (an always-true block keeps its own bytes).
  const size_t payload = v->payload_bytes();
  auto f = allocate(payload, v->num_probes());
  if (!f.ok()) return f;
  f->kind_ = v->kind();
  f->block_bytes_ = len;
  if (len > payload + kLocalBloomTrailerBytes) {
    // Only always-true blocks get here (6+ bytes, no payload kept): store them whole.
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, (len + 63) & ~size_t{63}));
    if (p == nullptr) return make_error(ErrorCode::kLimitExceeded, "cannot allocate a copy");
    f->data_ = std::unique_ptr<uint8_t[], detail::LocalBloomFree>(p);
  }
  if (len != 0) std::memcpy(f->data_.get(), block, len);
  return f;
}

LocalBloomView LocalBloom::view() const {
  return LocalBloomView(data_.get(), num_lines_, num_probes_, kind_);
}

std::vector<uint8_t> LocalBloom::serialize() const {
  if (data_ == nullptr) return {};
  return std::vector<uint8_t>(data_.get(), data_.get() + block_bytes_);
}

void LocalBloom::insert_hashes(const uint64_t* hashes, size_t n) {
  if (kind_ != FilterBlockKind::kFastLocalBloom || num_lines_ == 0) return;
  kernels().insert_hashes(data_.get(), num_lines_, num_probes_, hashes, n);
}

void local_bloom_check_many(const LocalBloomRef* filters, const uint32_t* filter_index,
                            const uint64_t* hashes, size_t n, uint8_t* out) {
  kernels().check_many(filters, filter_index, hashes, n, out);
}

}  // namespace pqfast
