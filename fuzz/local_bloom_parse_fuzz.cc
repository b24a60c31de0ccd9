// Fuzz target: a RocksDB full-filter block (payload + 5-byte trailer). Any
// input must give a filter or an error naming what it is, never a crash; a
// parsed filter must answer identically on every SIMD implementation, by
// hash and by key, and serialize back to the input bytes.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pqfast/local_bloom.h"
#include "pqfast/simd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto f = pqfast::LocalBloom::parse(data, size);
  if (!f.ok()) {
    if (f.error().message.empty()) std::abort();
    return 0;
  }
  const auto bytes = f->serialize();
  if (bytes.size() != size || (size != 0 && std::memcmp(bytes.data(), data, size) != 0)) std::abort();
  uint64_t hashes[64];
  for (int i = 0; i < 64; ++i) hashes[i] = 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i + size);
  const auto saved = pqfast::simd_level();
  uint8_t expected[64], got[64];
  (void)pqfast::set_simd_level(pqfast::SimdLevel::kScalar);
  f->check_hashes(hashes, 64, expected);
  const bool key_expected = f->view().check_key(data, size < 40 ? size : 40);
  for (auto level : pqfast::available_simd_levels()) {
    (void)pqfast::set_simd_level(level);
    f->check_hashes(hashes, 64, got);
    for (int i = 0; i < 64; ++i) {
      if (got[i] != expected[i] || f->check_hash(hashes[i]) != (expected[i] != 0)) std::abort();
    }
    if (f->view().check_key(data, size < 40 ? size : 40) != key_expected) std::abort();
  }
  (void)pqfast::set_simd_level(saved);
  return 0;
}
