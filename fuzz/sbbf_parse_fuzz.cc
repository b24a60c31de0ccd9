// Fuzz target: the on-disk Bloom filter form (Thrift header + bitset). Any
// input must give a filter or an error, never a crash; a parsed filter must
// answer identically on every SIMD implementation.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "pqfast/sbbf.h"
#include "pqfast/simd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t consumed = 0;
  auto f = pqfast::Sbbf::parse(data, size, &consumed);
  if (!f.ok()) {
    if (f.error().message.empty()) std::abort();
    return 0;
  }
  if (consumed > size || f->num_bytes() == 0) std::abort();
  uint64_t hashes[64];
  for (int i = 0; i < 64; ++i) hashes[i] = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + size);
  const auto saved = pqfast::simd_level();
  uint8_t expected[64], got[64];
  (void)pqfast::set_simd_level(pqfast::SimdLevel::kScalar);
  f->check_hashes(hashes, 64, expected);
  for (auto level : pqfast::available_simd_levels()) {
    (void)pqfast::set_simd_level(level);
    f->check_hashes(hashes, 64, got);
    for (int i = 0; i < 64; ++i) {
      if (got[i] != expected[i]) std::abort();
    }
  }
  (void)pqfast::set_simd_level(saved);
  return 0;
}
