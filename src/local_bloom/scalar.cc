// The local_bloom reference kernels, written from the format description in
// include/pqfast/local_bloom.h: byte-addressed probes with an early exit.
#include "local_bloom/kernels.h"

namespace pqfast::local_bloom {
namespace {

bool check_in_line(const uint8_t* line, int num_probes, uint32_t h) {
  for (int i = 0; i < num_probes; ++i, h *= kProbeMultiplier) {
    const uint32_t bit = h >> 23;  // 9-bit address within the 512-bit line
    if ((line[bit >> 3] & (1u << (bit & 7))) == 0) return false;
  }
  return true;
}

bool check_hash(const uint8_t* data, uint32_t num_lines, int num_probes, uint64_t hash) {
  return check_in_line(line_of(data, num_lines, hash), num_probes, probe_seed(hash));
}

void check_hashes(const uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
                  size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = check_hash(data, num_lines, num_probes, hashes[i]) ? 1 : 0;
}

void insert_hashes(uint8_t* data, uint32_t num_lines, int num_probes, const uint64_t* hashes,
                   size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint8_t* line = data + size_t{line_index(hashes[i], num_lines)} * kLocalBloomLineBytes;
    uint32_t h = probe_seed(hashes[i]);
    for (int p = 0; p < num_probes; ++p, h *= kProbeMultiplier) {
      const uint32_t bit = h >> 23;
      line[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    }
  }
}

void check_many(const LocalBloomRef* filters, const uint32_t* filter_index, const uint64_t* hashes,
                size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const LocalBloomRef& f = filters[filter_index[i]];
    out[i] = f.num_lines != 0 && check_hash(f.payload, f.num_lines, f.num_probes, hashes[i]);
  }
}

}  // namespace

const LocalBloomKernels kScalarLocalBloomKernels = {
    check_hash, check_hashes, insert_hashes, check_key_with<check_hash>,
    check_keys_with<check_hashes>, check_many};

}  // namespace pqfast::local_bloom
