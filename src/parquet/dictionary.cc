// Dictionary-encoded pages: indices (RLE / bit-packed hybrid, width in the
// first byte) unpacked a batch at a time, checked against the dictionary's
// size, then gathered; a repeated run is a fill.
#include <algorithm>
#include <cstring>

#include "parquet/decode.h"
#include "parquet/rle.h"
#include "parquet/thrift_util.h"
#include "unpack/kernels.h"

namespace pqfast::parquet::detail {

namespace {

constexpr size_t kBatch = 1024;
// Dictionary entries up to this long are gathered by fixed 16-, 32- or
// 64-byte moves (ReadBuffer::kSlack covers the bytes moved past an entry's end).
constexpr size_t kShort = 64;

Result<HybridReader> index_reader(const Dictionary& dict, const uint8_t* p, size_t len, const std::string& where) {
  if (!dict.present) {
    return make_error(ErrorCode::kCorrupt, where + ": dictionary-encoded page without a dictionary page before it");
  }
  if (len < 1) return make_error(ErrorCode::kTruncated, where + ": dictionary-encoded page lacks its index width byte");
  if (p[0] > 32) {
    return make_error(ErrorCode::kCorrupt, where + ": dictionary index width " + std::to_string(p[0]) + " is over 32");
  }
  return HybridReader(p + 1, len - 1, p[0], where + ", dictionary indices");
}

Error bad_index(const std::string& where, uint32_t idx, size_t size) {
  return make_error(ErrorCode::kCorrupt, where + ": dictionary index " + std::to_string(idx) +
                                             " is out of range (dictionary of " + std::to_string(size) + " entries)");
}

// The largest index of a batch (the active SIMD level's kernel: SSE2 has
// no unsigned 32-bit max, and its emulation was a third of gathering a
// dictionary-encoded date column).
inline uint32_t max_of(const uint32_t* idx, size_t n) { return pqfast::unpack::active_unpack_kernels().max32(idx, n); }

inline bool all_below(const uint32_t* idx, size_t n, size_t size) { return max_of(idx, n) < size; }

template <size_t E>
void gather(const uint8_t* dict, const uint32_t* idx, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) std::memcpy(out + i * E, dict + size_t{idx[i]} * E, E);
}

template <size_t E>
void fill(const uint8_t* value, size_t n, uint8_t* out) {
  // The value in a local first: `value` may alias `out` as far as the
  // compiler knows, which kept this loop one scalar store per value (a third
  // of gathering TPC-H's dictionary-encoded dates and keys).
  struct alignas(E) Elem {
    uint8_t b[E];
  };
  Elem v;
  std::memcpy(&v, value, E);
  for (size_t i = 0; i < n; ++i) std::memcpy(out + i * E, &v, E);
}

}  // namespace

Status dict_indices(size_t dict_size, const uint8_t* p, size_t len, size_t n, uint32_t* out, const std::string& where) {
  Dictionary probe;  // index_reader only asks whether a dictionary came first
  probe.present = true;
  PQFAST_ASSIGN_OR_RETURN(HybridReader r, index_reader(probe, p, len, where));
  size_t done = 0;
  while (done < n) {
    bool repeat;
    uint32_t v;
    PQFAST_ASSIGN_OR_RETURN(size_t k, r.next(out + done, std::min(kBatch, n - done), &repeat, &v));
    if (repeat) {
      if (v >= dict_size) return bad_index(where, v, dict_size);
      std::fill(out + done, out + done + k, v);
    } else if (!all_below(out + done, k, dict_size)) {
      return bad_index(where, max_of(out + done, k), dict_size);
    }
    done += k;
  }
  return Status::Ok();
}

namespace {

// Gathers a bit-packed batch of `k` indices into entries of E bytes (4, 8,
// 16) at o: whole groups by the active level's one-pass kernel, the rest
// (an unaligned start, the stream's last bytes, widths a kernel leaves)
// unpacked into idx and gathered after the bound check.
template <size_t E>
Status gather_span(const Dictionary& dict, const uint8_t* d, const HybridReader::PackedSpan& s, size_t k, uint32_t* idx,
                   uint8_t* o, const std::string& where) {
  // A span starting inside a group (a read of row ranges starts where the
  // range does): its first values up to the next group by the scalar path,
  // the whole groups after them by the kernel (all of a span went the
  // scalar way before: 4% of a filtered scan's profile).
  size_t i = std::min(k, (8 - (s.first & 7)) & 7);
  if (i > 0) {
    unpack_bits32(s.src, s.nbytes, s.width, s.first, i, idx);
    if (!all_below(idx, i, dict.size)) return bad_index(where, max_of(idx, i), dict.size);
    gather<E>(d, idx, i, o);
  }
  if (k - i >= 8 && dict.size <= 0xffffffffu) {
    const size_t byte0 = (s.first + i) / 8 * static_cast<size_t>(s.width);
    bool bad = false;
    i += pqfast::unpack::active_unpack_kernels().unpack_gather(s.src + byte0, s.nbytes - byte0, s.width, (k - i) / 8, d,
                                                                static_cast<uint32_t>(dict.size), static_cast<int>(E),
                                                                o + i * E, &bad) * 8;
    if (bad) {  // the error names the largest index: unpack the batch again
      unpack_bits32(s.src, s.nbytes, s.width, s.first, k, idx);
      return bad_index(where, max_of(idx, k), dict.size);
    }
  }
  if (i < k) {
    unpack_bits32(s.src, s.nbytes, s.width, s.first + i, k - i, idx);
    if (!all_below(idx, k - i, dict.size)) return bad_index(where, max_of(idx, k - i), dict.size);
    gather<E>(d, idx, k - i, o + i * E);
  }
  return Status::Ok();
}

// Entries of 1, 2, 4, 8 or 16 bytes: repeated runs filled, bit-packed batches by
// gather_span.
Status dict_gather_fixed_onepass(const Dictionary& dict, const uint8_t* d, size_t e, HybridReader& r, size_t n,
                                 uint8_t* out, const std::string& where) {
  uint32_t idx[kBatch];
  size_t done = 0;
  while (done < n) {
    bool repeat;
    uint32_t v;
    HybridReader::PackedSpan span;
    PQFAST_ASSIGN_OR_RETURN(size_t k, r.next_span(std::min(kBatch, n - done), &repeat, &v, &span));
    uint8_t* o = out + done * e;
    if (repeat) {
      if (v >= dict.size) return bad_index(where, v, dict.size);
      switch (e) {
        case 1: fill<1>(d + size_t{v}, k, o); break;
        case 2: fill<2>(d + size_t{v} * 2, k, o); break;
        case 4: fill<4>(d + size_t{v} * 4, k, o); break;
        case 8: fill<8>(d + size_t{v} * 8, k, o); break;
        default: fill<16>(d + size_t{v} * 16, k, o); break;
      }
    } else {
      switch (e) {
        case 1: PQFAST_RETURN_IF_ERROR(gather_span<1>(dict, d, span, k, idx, o, where)); break;
        case 2: PQFAST_RETURN_IF_ERROR(gather_span<2>(dict, d, span, k, idx, o, where)); break;
        case 4: PQFAST_RETURN_IF_ERROR(gather_span<4>(dict, d, span, k, idx, o, where)); break;
        case 8: PQFAST_RETURN_IF_ERROR(gather_span<8>(dict, d, span, k, idx, o, where)); break;
        default: PQFAST_RETURN_IF_ERROR(gather_span<16>(dict, d, span, k, idx, o, where)); break;
      }
    }
    done += k;
  }
  return Status::Ok();
}

}  // namespace

Status dict_gather_fixed(const Dictionary& dict, int32_t elem, const uint8_t* p, size_t len, size_t n, uint8_t* out,
                         const std::string& where) {
  PQFAST_ASSIGN_OR_RETURN(HybridReader r, index_reader(dict, p, len, where));
  // 1, 2 (small ints narrowed; a filter's verdict per entry), 4, 8 and 16
  // bytes (almost every fixed column) in one pass; 12 (INT96) and 32
  // (decimal256) bytes below.
  if (elem == 1 || elem == 2 || elem == 4 || elem == 8 || elem == 16) {
    return dict_gather_fixed_onepass(dict, dict.fixed.data(), static_cast<size_t>(elem), r, n, out, where);
  }
  const size_t e = static_cast<size_t>(elem);
  const uint8_t* d = dict.fixed.data();
  uint32_t idx[kBatch];
  size_t done = 0;
  while (done < n) {
    bool repeat;
    uint32_t v;
    PQFAST_ASSIGN_OR_RETURN(size_t k, r.next(idx, std::min(kBatch, n - done), &repeat, &v));
    uint8_t* o = out + done * e;
    if (repeat) {
      if (v >= dict.size) return bad_index(where, v, dict.size);
      for (size_t i = 0; i < k; ++i) std::memcpy(o + i * e, d + size_t{v} * e, e);
    } else {
      if (!all_below(idx, k, dict.size)) return bad_index(where, max_of(idx, k), dict.size);
      switch (e) {
        case 32: gather<32>(d, idx, k, o); break;
        default: for (size_t i = 0; i < k; ++i) std::memcpy(o + i * e, d + size_t{idx[i]} * e, e);
      }
    }
    done += k;
  }
  return Status::Ok();
}

template <class Offset>
Status dict_gather_binary(const Dictionary& dict, const uint8_t* p, size_t len, size_t n, Offset* offsets,
                          ReadBuffer& data, const std::string& where) {
  PQFAST_ASSIGN_OR_RETURN(HybridReader r, index_reader(dict, p, len, where));
  const int64_t* doff = dict.offsets.as<int64_t>();
  // A dictionary of empty entries may have no bytes at all: the fixed moves
  // below read zeros then.
  static const uint8_t kNoBytes[64] = {};
  const uint8_t* dbytes = dict.bytes.data() ? dict.bytes.data() : kNoBytes;
  uint32_t idx[kBatch];
  size_t done = 0;
  uint64_t end = static_cast<uint64_t>(offsets[0]);
  while (done < n) {
    bool repeat;
    uint32_t v;
    PQFAST_ASSIGN_OR_RETURN(size_t k, r.next(idx, std::min(kBatch, n - done), &repeat, &v));
    uint64_t need = 0;
    // Short entries (the longest at most kShort): room for k of the longest
    // instead of a pass summing the k lengths (a fifth of this function).
    const bool short_entries = dict.max_len <= kShort;
    if (repeat) {
      if (v >= dict.size) return bad_index(where, v, dict.size);
      need = uint64_t(doff[v + 1] - doff[v]) * k;
    } else {
      if (!all_below(idx, k, dict.size)) return bad_index(where, max_of(idx, k), dict.size);
      const uint64_t bound = uint64_t{dict.max_len} * k;
      if (short_entries && (sizeof(Offset) == 8 || end + bound <= 0x7fffffffu)) {
        need = bound;
      } else {
        for (size_t i = 0; i < k; ++i) need += uint64_t(doff[idx[i] + 1] - doff[idx[i]]);
      }
    }
    if constexpr (sizeof(Offset) == 4) {
      if (end + need > 0x7fffffffu) {
        return make_error(ErrorCode::kLimitExceeded, where + ": binary data of the column chunk passes 2 GiB "
                                                             "(read it as large_binary)");
      }
    }
    data.reserve(std::max<uint64_t>(end + need, 1));  // (never null: the fixed moves write into its slack)
    uint8_t* out = data.data();
    Offset* o = offsets + done + 1;
    if (repeat) {
      const size_t l = static_cast<size_t>(doff[v + 1] - doff[v]);
      const uint8_t* src = dbytes + doff[v];
      // A run of one entry: its bytes k times by fixed moves (a memcpy call
      // per value was 12% of reading pyarrow's l_linestatus, whose 1-byte
      // flags come in many short runs), the offsets end + (i + 1) * l. An
      // empty value repeated: no bytes to move, and `out`/`src` may be null
      // then (memcpy must not see a null pointer, even for 0 bytes).
      uint8_t* b = out + end;
      if (l == 1) {
        std::memset(b, src[0], k);
      } else if (l != 0 && l <= 16) {
        uint8_t tmp[16];  // (the dictionary's and the output's slack cover the bytes past l)
        std::memcpy(tmp, src, 16);
        for (size_t i = 0; i < k; ++i) std::memcpy(b + i * l, tmp, 16);
      } else if (l != 0 && l <= kShort) {
        uint8_t tmp[kShort];
        std::memcpy(tmp, src, kShort);
        for (size_t i = 0; i < k; ++i) std::memcpy(b + i * l, tmp, kShort);
      } else if (l != 0) {
        for (size_t i = 0; i < k; ++i) std::memcpy(b + i * l, src, l);
      }
      for (size_t i = 0; i < k; ++i) o[i] = static_cast<Offset>(end + (i + 1) * l);
      end += k * l;
    } else if (dict.same_len != 0) {
      // Entries of one length L (entry i at byte i * L): the bytes are a
      // fixed-width gather, the offsets end + (i + 1) * L. One-byte flags
      // (TPC-H's l_returnflag, l_linestatus) took 3-4 ns a value by the
      // per-entry moves below.
      const size_t l = dict.same_len;
      uint8_t* b = out + end;
      switch (l) {
        case 1: gather<1>(dbytes, idx, k, b); break;
        case 2: gather<2>(dbytes, idx, k, b); break;
        case 4: pqfast::unpack::active_unpack_kernels().gather4(dbytes, idx, k, b); break;
        default: pqfast::unpack::active_unpack_kernels().gather8(dbytes, idx, k, b); break;
      }
      for (size_t i = 0; i < k; ++i) o[i] = static_cast<Offset>(end + (i + 1) * l);
      end += k * l;
    } else if (short_entries && dict.max_len <= 16) {
      for (size_t i = 0; i < k; ++i) {  // every entry one 16-byte move (see below)
        const int64_t a = doff[idx[i]], b = doff[idx[i] + 1];
        uint8_t tmp[16];
        std::memcpy(tmp, dbytes + a, 16);
        std::memcpy(out + end, tmp, 16);
        end += static_cast<size_t>(b - a);
        o[i] = static_cast<Offset>(end);
      }
    } else if (short_entries && dict.max_len <= 32) {
      for (size_t i = 0; i < k; ++i) {  // every entry one 32-byte move
        const int64_t a = doff[idx[i]], b = doff[idx[i] + 1];
        uint8_t tmp[32];
        std::memcpy(tmp, dbytes + a, 32);
        std::memcpy(out + end, tmp, 32);
        end += static_cast<size_t>(b - a);
        o[i] = static_cast<Offset>(end);
      }
    } else if (short_entries) {
      // Up to 64 bytes (TPC-H's l_comment, 10 to 43): one 64-byte move
      // each, where a branch on each value's length mispredicted.
      for (size_t i = 0; i < k; ++i) {
        const int64_t a = doff[idx[i]], b = doff[idx[i] + 1];
        uint8_t tmp[64];
        std::memcpy(tmp, dbytes + a, 64);
        std::memcpy(out + end, tmp, 64);
        end += static_cast<size_t>(b - a);
        o[i] = static_cast<Offset>(end);
      }
    } else {
      for (size_t i = 0; i < k; ++i) {
        const int64_t a = doff[idx[i]], b = doff[idx[i] + 1];
        const size_t l = static_cast<size_t>(b - a);
        if (l <= 16) {
          // A short value: one fixed 16-byte move (both buffers have
          // ReadBuffer::kSlack bytes past their ends; the bytes past l are
          // overwritten by the next value) instead of a call to memcpy.
          uint8_t tmp[16];
          std::memcpy(tmp, dbytes + a, 16);
          std::memcpy(out + end, tmp, 16);
        } else if (l <= 32) {
          // Up to 32 bytes (TPC-H's l_shipinstruct, most short comments):
          // two fixed moves, within the same slack.
          uint8_t tmp[32];
          std::memcpy(tmp, dbytes + a, 32);
          std::memcpy(out + end, tmp, 32);
        } else {
          std::memcpy(out + end, dbytes + a, l);
        }
        end += l;
        o[i] = static_cast<Offset>(end);
      }
    }
    data.resize(end);
    done += k;
  }
  return Status::Ok();
}
template Status dict_gather_binary<int32_t>(const Dictionary&, const uint8_t*, size_t, size_t, int32_t*, ReadBuffer&,
                                            const std::string&);
template Status dict_gather_binary<int64_t>(const Dictionary&, const uint8_t*, size_t, size_t, int64_t*, ReadBuffer&,
                                            const std::string&);

Status dict_gather_views(const Dictionary& dict, const uint8_t* p, size_t len, size_t n, BinaryViewElem* out,
                         const std::string& where) {
  PQFAST_ASSIGN_OR_RETURN(HybridReader r, index_reader(dict, p, len, where));
  static_assert(sizeof(BinaryViewElem) == 16);
  return dict_gather_fixed_onepass(dict, dict.views.data(), 16, r, n, reinterpret_cast<uint8_t*>(out), where);
}

}  // namespace pqfast::parquet::detail
