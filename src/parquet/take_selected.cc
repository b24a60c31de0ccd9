// Late materialization's last step: from a column decoded page by page (the
// rows of whole pages), keep the rows a selection bitmap names. Values move
// once, element by element for fixed widths and views, bytes by run for
// binary; the validity bitmap and null count are rebuilt.
#include <cstring>

#include "pqfast/parquet_read.h"
#include "parquet/decode.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {

inline bool bit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void set_bit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }

// Calls each(source index) for every selected row, in row order. `decoded`
// maps the array's elements to rows: element k of range j is row
// decoded[j].begin + k.
template <class Each>
void for_selected(const std::vector<RowRange>& decoded, const uint64_t* selection, Each&& each) {
  int64_t base = 0;
  for (const auto& r : decoded) {
    int64_t row = r.begin;
    while (row < r.end) {
      const uint64_t word = selection[row >> 6] >> (row & 63);
      if (word == 0) {
        row = (row | 63) + 1;  // the rest of this word is unselected
        continue;
      }
      row += __builtin_ctzll(word);
      if (row >= r.end) break;
      each(base + (row - r.begin));
      ++row;
    }
    base += r.end - r.begin;
  }
}

}  // namespace

Result<ColumnArray> take_selected(ColumnArray&& column, const std::vector<RowRange>& decoded,
                                  const uint64_t* selection, int64_t selected) {
  ColumnArray::Impl* in = column.impl();
  int64_t covered = 0;
  for (const auto& r : decoded) covered += r.end - r.begin;
  if (covered != in->length) {
    return make_error(ErrorCode::kCorrupt, "take_selected: the decoded ranges hold " + std::to_string(covered) +
                                                " rows, the array " + std::to_string(in->length));
  }
  auto out = std::make_unique<ColumnArray::Impl>();
  out->layout = in->layout;
  out->format = in->format;
  out->width = in->width;
  out->nullable = in->nullable;
  out->length = selected;
  out->dictionary = std::move(in->dictionary);  // a dictionary array's indices are taken, its dictionary kept
  // A validity buffer counts only when the array has nulls (the export
  // ignores it otherwise, and the reader may leave it unset then).
  const bool has_validity =
      in->nullable && in->layout != ArrowLayout::kNull && in->null_count > 0 && in->validity.size() > 0;
  if (in->layout == ArrowLayout::kNull) {
    out->null_count = selected;
    return ColumnArray(std::move(out));
  }
  if (has_validity) out->validity.resize_zeroed(static_cast<size_t>((selected + 7) / 8));
  int64_t k = 0;
  int64_t nulls = 0;
  const uint8_t* valid = in->validity.data();
  auto note_validity = [&](int64_t src) {
    if (!has_validity) return;
    if (bit(valid, src)) {
      set_bit(out->validity.data(), k);
    } else {
      ++nulls;
    }
  };
  switch (in->layout) {
    case ArrowLayout::kBool: {
      out->values.resize_zeroed(static_cast<size_t>((selected + 7) / 8));
      const uint8_t* src = in->values.data();
      for_selected(decoded, selection, [&](int64_t s) {
        if (bit(src, s)) set_bit(out->values.data(), k);
        note_validity(s);
        ++k;
      });
      break;
    }
    case ArrowLayout::kBinary:
    case ArrowLayout::kLargeBinary: {
      const bool large = in->layout == ArrowLayout::kLargeBinary;
      const size_t ow = large ? 8 : 4;
      out->values.resize_zeroed(static_cast<size_t>(selected + 1) * ow);
      auto offset_at = [&](int64_t i) -> int64_t {
        return large ? in->values.as<int64_t>()[i] : in->values.as<int32_t>()[i];
      };
      // Bytes first (sized exactly), then offsets.
      int64_t total = 0;
      for_selected(decoded, selection, [&](int64_t s) { total += offset_at(s + 1) - offset_at(s); });
      if (!large && total > 0x7fffffff) {
        return make_error(ErrorCode::kLimitExceeded, "take_selected: binary data passes 2 GiB");
      }
      out->data.resize(static_cast<size_t>(total));
      int64_t at = 0;
      for_selected(decoded, selection, [&](int64_t s) {
        const int64_t b = offset_at(s), e = offset_at(s + 1);
        if (e > b) std::memcpy(out->data.data() + at, in->data.data() + b, static_cast<size_t>(e - b));
        at += e - b;
        if (large) {
          out->values.as<int64_t>()[k + 1] = at;
        } else {
          out->values.as<int32_t>()[k + 1] = static_cast<int32_t>(at);
        }
        note_validity(s);
        ++k;
      });
      break;
    }
    case ArrowLayout::kBinaryView: {
      out->values.resize(static_cast<size_t>(selected) * 16);
      const uint8_t* src = in->values.data();
      for_selected(decoded, selection, [&](int64_t s) {
        std::memcpy(out->values.data() + k * 16, src + s * 16, 16);
        note_validity(s);
        ++k;
      });
      // The views point into the variadic buffers by index: they move whole.
      out->view_buffers = std::move(in->view_buffers);
      break;
    }
    default: {
      const size_t w = static_cast<size_t>(in->width);
      if (w == 0) return make_error(ErrorCode::kCorrupt, "take_selected: a fixed layout of width 0");
      out->values.resize(static_cast<size_t>(selected) * w);
      const uint8_t* src = in->values.data();
      uint8_t* dst = out->values.data();
      if (w == 8) {
        for_selected(decoded, selection, [&](int64_t s) {
          std::memcpy(dst + k * 8, src + s * 8, 8);
          note_validity(s);
          ++k;
        });
      } else if (w == 4) {
        for_selected(decoded, selection, [&](int64_t s) {
          std::memcpy(dst + k * 4, src + s * 4, 4);
          note_validity(s);
          ++k;
        });
      } else {
        for_selected(decoded, selection, [&](int64_t s) {
          std::memcpy(dst + static_cast<size_t>(k) * w, src + static_cast<size_t>(s) * w, w);
          note_validity(s);
          ++k;
        });
      }
      break;
    }
  }
  if (k != selected) {
    return make_error(ErrorCode::kCorrupt, "take_selected: the selection holds " + std::to_string(k) +
                                                " decoded rows, " + std::to_string(selected) + " expected");
  }
  out->null_count = nulls;
  if (has_validity && nulls == 0) out->validity = ReadBuffer();
  return ColumnArray(std::move(out));
}

}  // namespace pqfast::parquet
