// The SBBF reference kernels, written from parquet-format BloomFilter.md.
// Branch-free per block: the eight word tests are ANDed, not early-exited.
#include "sbbf/kernels.h"

namespace pqfast::sbbf {
namespace {

bool check_hash(const uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  const uint32_t* block = words + size_t{block_index(hash, num_blocks)} * 8;
  const uint32_t key = block_key(hash);
  uint32_t all_set = 1;
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = (key * kSbbfSalt[i]) >> 27;
    all_set &= block[i] >> bit;
  }
  return (all_set & 1) != 0;
}

void insert_hash(uint32_t* words, uint32_t num_blocks, uint64_t hash) {
  uint32_t* block = words + size_t{block_index(hash, num_blocks)} * 8;
  const uint32_t key = block_key(hash);
  for (int i = 0; i < 8; ++i) block[i] |= uint32_t{1} << ((key * kSbbfSalt[i]) >> 27);
}

void check_hashes(const uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n,
                  uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = check_hash(words, num_blocks, hashes[i]) ? 1 : 0;
}

void insert_hashes(uint32_t* words, uint32_t num_blocks, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) insert_hash(words, num_blocks, hashes[i]);
}

}  // namespace

const SbbfKernels kScalarSbbfKernels = {check_hash, insert_hash, check_hashes, insert_hashes};

}  // namespace pqfast::sbbf
