// A nested leaf's page levels: decoded into bytes, checked against the
// maxima and the record structure, and turned into the leaf's validity by
// the levels family (block compares and bit compression, no per-level loop).
#include "parquet/nested_page.h"

#include <cstring>

#include "levels/kernels.h"
#include "parquet/level_decode.h"
#include "parquet/rle.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet::detail {

namespace {

constexpr int32_t kRle = 3, kBitPacked = 4;

uint8_t* grow(ReadBuffer& b, int64_t at, size_t n) {
  b.resize(static_cast<size_t>(at) + n);
  return b.data() + at;
}

// One v1 level stream at *pos of the page.
Status v1_stream(int32_t enc, int width, const uint8_t* p, size_t len, size_t* pos, size_t n, uint8_t* out,
                 const std::string& what) {
  if (enc == kRle) {
    if (len - *pos < 4) return make_error(ErrorCode::kTruncated, what + ": the page lacks the stream's length");
    uint32_t l;
    std::memcpy(&l, p + *pos, 4);
    if (l > len - *pos - 4) {
      return make_error(ErrorCode::kTruncated, what + " of " + std::to_string(l) + " bytes run past the " +
                                                   std::to_string(len) + "-byte page");
    }
    PQFAST_RETURN_IF_ERROR(decode_levels(p + *pos + 4, l, width, n, out, what));
    *pos += 4 + l;
    return Status::Ok();
  }
  if (enc == kBitPacked) {
    const size_t l = static_cast<size_t>((static_cast<uint64_t>(n) * static_cast<uint64_t>(width) + 7) / 8);
    if (l > len - *pos) return make_error(ErrorCode::kTruncated, what + ": BIT_PACKED levels run past the page");
    PQFAST_RETURN_IF_ERROR(decode_levels_bit_packed(p + *pos, l, width, n, out, what));
    *pos += l;
    return Status::Ok();
  }
  const char* name = encoding_name(enc);
  return make_error(ErrorCode::kUnsupported,
                    what + " encoded as " + (name ? std::string(name) : "UNKNOWN(" + std::to_string(enc) + ")"));
}

// The checks every page's levels pass, and the records they begin.
Status check_levels(const ColumnDescriptor& d, const uint8_t* rep, const uint8_t* def, size_t n, int64_t at,
                    PageLevels* out, const std::string& where) {
  const auto& k = levels::active_level_kernels();
  if (def) {
    const int m = k.max_level(def, n);
    if (m > d.max_definition_level) {
      return make_error(ErrorCode::kCorrupt, where + ": definition level " + std::to_string(m) +
                                                 " above the column's maximum " + std::to_string(d.max_definition_level));
    }
  }
  out->records = static_cast<int64_t>(n);
  if (rep) {
    const int m = k.max_level(rep, n);
    if (m > d.max_repetition_level) {
      return make_error(ErrorCode::kCorrupt, where + ": repetition level " + std::to_string(m) +
                                                 " above the column's maximum " + std::to_string(d.max_repetition_level));
    }
    if (at == 0 && n > 0 && rep[0] != 0) {
      return make_error(ErrorCode::kCorrupt, where + ": the column chunk's first repetition level is " +
                                                 std::to_string(rep[0]) + ", not 0 (no record begins there)");
    }
    int64_t zeros = 0;
    for (size_t i = 0; i < n; ++i) zeros += rep[i] == 0;
    out->records = zeros;
  }
  return Status::Ok();
}

}  // namespace

Status page_levels_v1(const PageHeader& h, const ColumnDescriptor& d, const uint8_t* page, size_t len, size_t n,
                      LevelBuffers& lv, int64_t at, PageLevels* out, const std::string& where) {
  size_t pos = 0;
  uint8_t* rep = nullptr;
  uint8_t* def = nullptr;
  if (d.max_repetition_level > 0) {
    rep = grow(lv.rep, at, n);
    PQFAST_RETURN_IF_ERROR(v1_stream(h.data_page.repetition_level_encoding, level_bit_width(d.max_repetition_level),
                                     page, len, &pos, n, rep, where + ", repetition levels"));
  }
  if (d.max_definition_level > 0) {
    def = grow(lv.def, at, n);
    PQFAST_RETURN_IF_ERROR(v1_stream(h.data_page.definition_level_encoding, level_bit_width(d.max_definition_level),
                                     page, len, &pos, n, def, where + ", definition levels"));
  }
  out->values_at = pos;
  return check_levels(d, rep, def, n, at, out, where);
}

Status page_levels_v2(const ColumnDescriptor& d, const uint8_t* rep_bytes, size_t rep_len, const uint8_t* def_bytes,
                      size_t def_len, size_t n, LevelBuffers& lv, int64_t at, PageLevels* out,
                      const std::string& where) {
  uint8_t* rep = nullptr;
  uint8_t* def = nullptr;
  if (d.max_repetition_level > 0) {
    rep = grow(lv.rep, at, n);
    PQFAST_RETURN_IF_ERROR(decode_levels(rep_bytes, rep_len, level_bit_width(d.max_repetition_level), n, rep,
                                         where + ", repetition levels"));
  }
  if (d.max_definition_level > 0) {
    def = grow(lv.def, at, n);
    PQFAST_RETURN_IF_ERROR(decode_levels(def_bytes, def_len, level_bit_width(d.max_definition_level), n, def,
                                         where + ", definition levels"));
  }
  out->values_at = 0;
  return check_levels(d, rep, def, n, at, out, where);
}

void leaf_slots(const uint8_t* def, size_t n, int slot_def, int max_def, ReadBuffer* validity, int64_t pos,
                PageLevels* out, std::vector<uint64_t>& masks) {
  if (def == nullptr) {  // every entry a present value
    out->slots = out->nonnull = n;
    if (validity) {
      validity->resize_zeroed(static_cast<size_t>((pos + static_cast<int64_t>(n) + 7) / 8));
      fill_bits(validity->data(), pos, n, true);
    }
    return;
  }
  const auto& k = levels::active_level_kernels();
  const size_t words = (n + 63) / 64;
  masks.resize(2 * words);
  uint64_t* valid = masks.data();
  uint64_t* slot = masks.data() + words;
  k.ge_mask(def, n, static_cast<uint8_t>(max_def), valid);
  const size_t nonnull = static_cast<size_t>(k.count_bits(valid, words));
  size_t slots = n;
  if (slot_def > 0) {
    k.ge_mask(def, n, static_cast<uint8_t>(slot_def), slot);
    slots = static_cast<size_t>(k.count_bits(slot, words));
  } else {
    for (size_t w = 0; w < words; ++w) slot[w] = ~uint64_t{0};
    if (n % 64) slot[words - 1] = (uint64_t{1} << (n % 64)) - 1;
  }
  out->slots = slots;
  out->nonnull = nonnull;
  if (validity) {
    validity->resize_zeroed(static_cast<size_t>((pos + static_cast<int64_t>(slots) + 7) / 8));
    k.compress_bits(valid, slot, words, validity->data(), pos);
  }
}

}  // namespace pqfast::parquet::detail
