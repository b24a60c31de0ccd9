// Test helpers for the Parquet layer: a file's bytes (read or written), and BYTE_ARRAY probe values.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::testing {

// The whole file (empty when it cannot be read). Takes std::filesystem::path too.
inline std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Writes `bytes` as the whole file at `path`; false when it cannot.
inline bool write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

// Strings as BYTE_ARRAY probe values (data + n + 1 offsets).
inline parquet::ProbeValues strings(const std::vector<std::string>& v) {
  parquet::ProbeValues p;
  p.type = PhysicalType::kByteArray;
  p.offsets.push_back(0);
  for (const auto& s : v) {
    p.data.insert(p.data.end(), s.begin(), s.end());
    p.offsets.push_back(static_cast<int64_t>(p.data.size()));
  }
  return p;
}

}  // namespace pqfast::testing
