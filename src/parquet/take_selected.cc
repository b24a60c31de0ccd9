// Late materialization's last step: from a column decoded page by page (the
// rows of whole pages), keep the rows a selection bitmap names. Values move
// once (fixed widths and views a word of the selection at a time: whole
// words as blocks, dense ones packed by the nulls family's compress
// kernels), bytes by run for binary; the validity bitmap and null count are
// rebuilt (bits packed by its extract_bits: pext).
#include <cstring>

#include "pqfast/parquet_read.h"
#include "parquet/bit_load.h"
#include "parquet/decode.h"
#include "nulls/kernels.h"

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

// Calls chunk(first element, bits, count) for each piece of a range that
// lies in one word of the selection: bit j of `bits` (j < count) selects
// element first + j. Pieces without a selected row are skipped.
template <class Chunk>
void for_chunks(const std::vector<RowRange>& decoded, const uint64_t* selection, Chunk&& chunk) {
  int64_t base = 0;
  for (const auto& r : decoded) {
    for (int64_t row = r.begin; row < r.end;) {
      const int count = static_cast<int>(std::min<int64_t>(64 - (row & 63), r.end - row));
      const uint64_t ones = count == 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1);
      const uint64_t bits = (selection[row >> 6] >> (row & 63)) & ones;
      if (bits != 0) chunk(base + (row - r.begin), bits, count);
      row += count;
    }
    base += r.end - r.begin;
  }
}

// The selected W-byte elements of src, appended at dst[*k]. A piece whose
// rows are all selected moves as one block; a dense one (a quarter or more)
// packed without a branch per row (8- and 4-byte elements by the active
// compress kernel, others with every element written and the cursor
// advanced by its bit): up to 32 bytes past the last may be written, into
// the buffer's slack (ReadBuffer::kSlack); a sparse one bit by bit.
template <size_t W>
void take_fixed(const std::vector<RowRange>& decoded, const uint64_t* selection, const uint8_t* src, uint8_t* dst,
                int64_t* k) {
  const nulls::NullKernels& nk = nulls::active_null_kernels();
  int64_t at = *k;
  for_chunks(decoded, selection, [&](int64_t first, uint64_t bits, int count) {
    const uint8_t* s = src + static_cast<size_t>(first) * W;
    if (count == 64 ? bits == ~uint64_t{0} : bits == (uint64_t{1} << count) - 1) {
      std::memcpy(dst + static_cast<size_t>(at) * W, s, static_cast<size_t>(count) * W);
      at += count;
    } else if (count_bits(bits) * 4 >= count) {
      if constexpr (W == 8 || W == 4) {
        uint8_t* d = dst + static_cast<size_t>(at) * W;
        at += static_cast<int64_t>(W == 8 ? nk.compress8(s, bits, count, d) : nk.compress4(s, bits, count, d));
        return;
      }
      for (int j = 0; j < count; ++j) {
        std::memcpy(dst + static_cast<size_t>(at) * W, s + static_cast<size_t>(j) * W, W);
        at += static_cast<int64_t>((bits >> j) & 1);
      }
    } else {
      for (uint64_t b = bits; b != 0; b &= b - 1) {
        std::memcpy(dst + static_cast<size_t>(at) * W, s + static_cast<size_t>(__builtin_ctzll(b)) * W, W);
        ++at;
      }
    }
  });
  *k = at;
}

// ORs the low n bits of x (n <= 64, higher bits zero) into `out` at bit k
// (out has slack past its end: 9 bytes may be written).
inline void or_bits(uint8_t* out, int64_t k, uint64_t x, int n) {
  uint64_t w;
  std::memcpy(&w, out + (k >> 3), 8);
  const int shift = static_cast<int>(k & 7);
  w |= x << shift;
  std::memcpy(out + (k >> 3), &w, 8);
  if (shift && n > 64 - shift) out[(k >> 3) + 8] |= static_cast<uint8_t>(x >> (64 - shift));
}

// The selected bits of an LSB-first bitmap, set in `out` (zeroed, with
// slack) from bit 0, a word of the selection at a time (extract_bits);
// *taken gets how many were selected. Returns how many of them were unset.
int64_t take_bits(const std::vector<RowRange>& decoded, const uint64_t* selection, const uint8_t* src, uint8_t* out,
                  int64_t* taken) {
  const nulls::NullKernels& nk = nulls::active_null_kernels();
  int64_t k = 0, set = 0;
  for_chunks(decoded, selection, [&](int64_t first, uint64_t bits, int count) {
    const uint64_t v = load_bits(src, first, count);
    if (count == 64 ? bits == ~uint64_t{0} : bits == (uint64_t{1} << count) - 1) {
      or_bits(out, k, v, count);
      k += count;
      set += count_bits(v);
      return;
    }
    const uint64_t x = nk.extract_bits(v, bits);
    const int n = count_bits(bits);
    or_bits(out, k, x, n);
    k += n;
    set += count_bits(x);
  });
  *taken = k;
  return k - set;
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
  // Counted before anything is written: the output is sized by `selected`.
  int64_t in_selection = 0;
  for_chunks(decoded, selection, [&](int64_t, uint64_t bits, int) { in_selection += count_bits(bits); });
  if (in_selection != selected) {
    return make_error(ErrorCode::kCorrupt, "take_selected: the selection holds " + std::to_string(in_selection) +
                                                " decoded rows, " + std::to_string(selected) + " expected");
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
  // The validity of the selected rows, in a pass of its own (for the
  // layouts whose values are taken a word of the selection at a time).
  auto take_validity = [&]() {
    int64_t taken = 0;
    if (has_validity) nulls = take_bits(decoded, selection, valid, out->validity.data(), &taken);
  };
  switch (in->layout) {
    case ArrowLayout::kBool: {
      out->values.resize_zeroed(static_cast<size_t>((selected + 7) / 8));
      take_bits(decoded, selection, in->values.data(), out->values.data(), &k);
      take_validity();
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
      take_fixed<16>(decoded, selection, in->values.data(), out->values.data(), &k);
      take_validity();
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
        take_fixed<8>(decoded, selection, src, dst, &k);
        take_validity();
      } else if (w == 4) {
        take_fixed<4>(decoded, selection, src, dst, &k);
        take_validity();
      } else if (w == 2) {
        take_fixed<2>(decoded, selection, src, dst, &k);
        take_validity();
      } else if (w == 1) {
        take_fixed<1>(decoded, selection, src, dst, &k);
        take_validity();
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
