// Internal (tests and fuzzing): a decoded column as one optional byte string
// per value, whatever its layout, to compare two reads of the same chunk.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "parquet/decode.h"

namespace pqfast::parquet::detail {

inline std::vector<std::optional<std::string>> column_values(const ColumnArray::Impl& c) {
  std::vector<std::optional<std::string>> out;
  out.reserve(static_cast<size_t>(c.length));
  for (int64_t i = 0; i < c.length; ++i) {
    const bool valid = c.layout != ArrowLayout::kNull &&
                       (!c.nullable || c.validity.size() == 0 || ((c.validity.data()[i >> 3] >> (i & 7)) & 1));
    if (!valid) {
      out.emplace_back(std::nullopt);
      continue;
    }
    const auto k = static_cast<size_t>(i);
    switch (c.layout) {
      case ArrowLayout::kBool:
        out.emplace_back(((c.values.data()[i >> 3] >> (i & 7)) & 1) ? "1" : "0");
        break;
      case ArrowLayout::kBinary: {
        const auto* o = c.values.as<int32_t>();
        out.emplace_back(std::string(reinterpret_cast<const char*>(c.data.data()) + o[k], static_cast<size_t>(o[k + 1] - o[k])));
        break;
      }
      case ArrowLayout::kLargeBinary: {
        const auto* o = c.values.as<int64_t>();
        out.emplace_back(std::string(reinterpret_cast<const char*>(c.data.data()) + o[k], static_cast<size_t>(o[k + 1] - o[k])));
        break;
      }
      case ArrowLayout::kBinaryView: {
        const auto& v = c.values.as<BinaryViewElem>()[k];
        if (v.inlined.size <= 12) {
          out.emplace_back(std::string(reinterpret_cast<const char*>(v.inlined.data), static_cast<size_t>(v.inlined.size)));
        } else {
          const auto& b = c.view_buffers[static_cast<size_t>(v.ref.buffer_index)];
          out.emplace_back(std::string(reinterpret_cast<const char*>(b.data()) + v.ref.offset, static_cast<size_t>(v.ref.size)));
        }
        break;
      }
      default: {
        const auto w = static_cast<size_t>(c.width);
        out.emplace_back(std::string(reinterpret_cast<const char*>(c.values.data()) + k * w, w));
      }
    }
  }
  return out;
}

}  // namespace pqfast::parquet::detail
