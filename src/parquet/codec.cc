// Page decompression: SNAPPY by pqfast's own decoder (snappy_decode.h),
// always built in; the other codecs through their libraries, each optional.
#include "parquet/codec.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "parquet/snappy_decode.h"

#if defined(PQFAST_HAVE_ZLIB)
#include <zlib.h>
#endif
#if defined(PQFAST_HAVE_ZSTD)
#include <zstd.h>
#endif
#if defined(PQFAST_HAVE_LZ4)
#include <lz4.h>
#endif
#if defined(PQFAST_HAVE_BROTLI)
#include <brotli/decode.h>
#endif

namespace pqfast::parquet {

bool codec_supported(int32_t codec) {
  switch (codec) {
    case 0: return true;
    case 1: return true;  // (pqfast's own decoder: in every build)
#if defined(PQFAST_HAVE_ZLIB)
    case 2: return true;
#endif
#if defined(PQFAST_HAVE_BROTLI)
    case 4: return true;
#endif
#if defined(PQFAST_HAVE_LZ4)
    case 5: return true;
    case 7: return true;
#endif
#if defined(PQFAST_HAVE_ZSTD)
    case 6: return true;
#endif
    default: return false;
  }
}

std::vector<CodecLibrary> codec_libraries() {
  return {
      {"snappy", codec_supported(1)}, {"zlib", codec_supported(2)},   {"zstd", codec_supported(6)},
      {"lz4", codec_supported(7)},    {"brotli", codec_supported(4)},
  };
}

namespace detail {

namespace {

Error bad(const std::string& where, const char* codec, const std::string& msg) {
  return make_error(ErrorCode::kCorrupt, where + ": " + codec + " data does not decompress: " + msg);
}

Error wrong_size(const std::string& where, const char* codec, size_t got, size_t want) {
  return make_error(ErrorCode::kCorrupt, where + ": " + codec + " data decompresses to " + std::to_string(got) +
                                             " bytes, the page header says " + std::to_string(want));
}

#if defined(PQFAST_HAVE_LZ4)
bool lz4_block(const uint8_t* src, size_t n, uint8_t* dst, size_t dst_len, size_t* got) {
  if (n > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      dst_len > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return false;
  }
  const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                                    static_cast<int>(n), static_cast<int>(dst_len));
  if (r < 0) return false;
  *got = static_cast<size_t>(r);
  return true;
}

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Hadoop's framing: blocks of <uncompressed BE32><compressed BE32><LZ4 block>.
bool lz4_hadoop(const uint8_t* src, size_t n, uint8_t* dst, size_t dst_len) {
  size_t out = 0;
  while (n >= 8) {
    const uint32_t usize = be32(src), csize = be32(src + 4);
    src += 8;
    n -= 8;
    if (csize > n || usize > dst_len - out) return false;
    size_t got;
    if (!lz4_block(src, csize, dst + out, usize, &got) || got != usize) return false;
    src += csize;
    n -= csize;
    out += usize;
  }
  return n == 0 && out == dst_len;
}
#endif

}  // namespace

Status decompress(int32_t codec, const uint8_t* src, size_t src_len, uint8_t* dst, size_t dst_len,
                  const std::string& where) {
  switch (codec) {
    case 0:
      if (src_len != dst_len) return wrong_size(where, "UNCOMPRESSED", src_len, dst_len);
      if (dst_len) std::memcpy(dst, src, dst_len);
      return Status::Ok();
    case 1: {
      // pqfast's own decoder (snappy_decode.h), not the library's: a read
      // of TPC-H lineitem's PLAIN int64 columns takes 0.57-0.80x the CPU it
      // took through Debian's libsnappy 1.1.9, of its text ~0.9x.
      uint64_t announced = 0;
      switch (snappy_inflate(src, src_len, dst, dst_len, &announced)) {
        case SnappyResult::kOk: return Status::Ok();
        case SnappyResult::kBadLength: return bad(where, "SNAPPY", "bad length header");
        case SnappyResult::kWrongSize: return wrong_size(where, "SNAPPY", static_cast<size_t>(announced), dst_len);
        case SnappyResult::kCorrupt: break;
      }
      return bad(where, "SNAPPY", "corrupt stream");
    }
#if defined(PQFAST_HAVE_ZLIB)
    case 2: {
      if (src_len > 0xffffffffu || dst_len > 0xffffffffu) return bad(where, "GZIP", "page too large");
      z_stream s{};
      if (inflateInit2(&s, 15 + 32) != Z_OK) return bad(where, "GZIP", "inflateInit2 failed");
      s.next_in = const_cast<Bytef*>(src);
      s.avail_in = static_cast<uInt>(src_len);
      uint8_t none = 0;
      s.next_out = dst_len ? dst : &none;
      s.avail_out = static_cast<uInt>(dst_len);
      int r;
      while (true) {
        r = inflate(&s, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
          // gzip members may be concatenated: inflate the next one.
          if (s.avail_in > 0 && s.avail_out > 0 && inflateReset(&s) == Z_OK) continue;
          break;
        }
        if (r != Z_OK || s.avail_in == 0 || s.avail_out == 0) {
          if (r == Z_OK) r = Z_BUF_ERROR;
          break;
        }
      }
      const size_t out_done = dst_len - s.avail_out;
      const std::string msg = s.msg ? s.msg : "truncated stream, or more data than the page header says";
      inflateEnd(&s);
      if (r != Z_STREAM_END) return bad(where, "GZIP", msg);
      if (out_done != dst_len) return wrong_size(where, "GZIP", out_done, dst_len);
      return Status::Ok();
    }
#endif
#if defined(PQFAST_HAVE_BROTLI)
    case 4: {
      size_t out = dst_len;
      if (BrotliDecoderDecompress(src_len, src, &out, dst) != BROTLI_DECODER_RESULT_SUCCESS) {
        return bad(where, "BROTLI", "corrupt stream or larger than the page header says");
      }
      if (out != dst_len) return wrong_size(where, "BROTLI", out, dst_len);
      return Status::Ok();
    }
#endif
#if defined(PQFAST_HAVE_LZ4)
    case 5: {
      // Hadoop framing (what parquet-java and Arrow write), else a bare LZ4
      // block (older Arrow wrote those under this codec).
      if (lz4_hadoop(src, src_len, dst, dst_len)) return Status::Ok();
      size_t got;
      if (!lz4_block(src, src_len, dst, dst_len, &got)) return bad(where, "LZ4", "neither Hadoop-framed nor a raw LZ4 block");
      if (got != dst_len) return wrong_size(where, "LZ4", got, dst_len);
      return Status::Ok();
    }
    case 7: {
      size_t got;
      if (!lz4_block(src, src_len, dst, dst_len, &got)) return bad(where, "LZ4_RAW", "corrupt block or larger than the page header says");
      if (got != dst_len) return wrong_size(where, "LZ4_RAW", got, dst_len);
      return Status::Ok();
    }
#endif
#if defined(PQFAST_HAVE_ZSTD)
    case 6: {
      // One context per thread, reused by every page it inflates, and freed
      // with the thread (short-lived pool threads would otherwise leak one
      // each).
      struct FreeDCtx {
        void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
      };
      thread_local std::unique_ptr<ZSTD_DCtx, FreeDCtx> ctx(ZSTD_createDCtx());
      if (ctx == nullptr) return make_error(ErrorCode::kIoError, where + ": ZSTD_createDCtx failed");
      const size_t r = ZSTD_decompressDCtx(ctx.get(), dst, dst_len, src, src_len);
      if (ZSTD_isError(r)) return bad(where, "ZSTD", ZSTD_getErrorName(r));
      if (r != dst_len) return wrong_size(where, "ZSTD", r, dst_len);
      return Status::Ok();
    }
#endif
    default: {
      const char* name = codec_name(codec);
      if (name == nullptr) {
        return make_error(ErrorCode::kCorrupt, where + ": unknown compression codec " + std::to_string(codec));
      }
      return make_error(ErrorCode::kUnsupported,
                        where + ": compression codec " + name + " is not supported by this build of pqfast");
    }
  }
}

uint64_t max_inflated_size(int32_t codec, uint64_t src_len) {
  uint64_t ratio;
  switch (codec) {
    case 0: return src_len;                 // UNCOMPRESSED
    case 1: ratio = 22; break;              // SNAPPY
    case 2: ratio = 1032; break;            // GZIP
    case 5: case 7: ratio = 256; break;     // LZ4 (Hadoop), LZ4_RAW
    case 6: ratio = 32768; break;           // ZSTD
    default: return UINT64_MAX;             // BROTLI (its windows allow far more), unknown
  }
  if (src_len > UINT64_MAX / ratio - 4096) return UINT64_MAX;
  return src_len * ratio + 4096;
}

}  // namespace detail
}  // namespace pqfast::parquet
