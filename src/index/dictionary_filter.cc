// A dictionary-only chunk's filter from its dictionary page: inflate, hash,
// insert. The decoded path (decode_dictionary_page, then hashing the
// decoded array) copies BYTE_ARRAY values into Arrow buffers and allocates
// the hashes of the whole dictionary; here the hashes go from the inflated
// page into the filter a batch at a time, as the filter is what is wanted.
#include "index/dictionary_filter.h"

#include <memory>

#include "hash/xxh64_scalar.h"
#include "parquet/codec.h"
#include "parquet/decode.h"
#include "parquet/internal.h"
#include "parquet/plain_dictionary_page.h"
#include "parquet/thrift_util.h"
#include "pqfast/hash.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/sbbf.h"

namespace pqfast::parquet::index {
namespace {

// Hashes per insert batch: small enough to stay in L1 between the hashing
// and the filter's insert kernel.
constexpr size_t kBatch = 512;

// PLAIN BYTE_ARRAY: the spec hashes each value's bytes without its length.
Status insert_plain_byte_arrays(const uint8_t* p, size_t len, size_t n, Sbbf* filter, const std::string& where) {
  uint64_t hashes[kBatch];
  size_t m = 0;
  auto walked = detail::walk_plain_binary(p, len, n, where, [&](size_t, size_t pos, size_t l) {
    hashes[m++] = hash::xxh64_scalar(p + pos, l, 0);
    if (m == kBatch) {
      filter->insert_hashes(hashes, m);
      m = 0;
    }
    return true;
  });
  if (!walked.ok()) return walked.error();
  if (m > 0) filter->insert_hashes(hashes, m);
  return Status::Ok();
}

}  // namespace

Result<ChunkFilter> filter_from_dictionary_page(const uint8_t* page, size_t len, uint64_t offset, PhysicalType type,
                                                int32_t type_length, int32_t codec, const IndexOptions& options,
                                                const std::string& where) {
  const std::string at = where + " (dictionary page)";
  PQFAST_ASSIGN_OR_RETURN(const detail::PlainDictionaryPage pg, detail::plain_dictionary_page(page, len, offset, at));
  const size_t csize = pg.csize, usize = pg.usize, n = pg.count;
  size_t width = 0;  // 0: BYTE_ARRAY
  if (type != PhysicalType::kByteArray) {
    PQFAST_ASSIGN_OR_RETURN(width, plain_value_width(type, type_length));
  }
  const uint8_t* values = pg.body;
  size_t values_len = csize;
  std::unique_ptr<uint8_t[]> inflated;
  if (codec != 0 && !(csize == 0 && usize == 0)) {
    // Refused before anything is allocated: more than a reader's page
    // limit, more than the codec can make of the bytes, or (fixed widths)
    // more than the values need by far: a bomb, not a dictionary.
    if (static_cast<int64_t>(usize) > ColumnReadOptions{}.max_page_bytes) {
      return make_error(ErrorCode::kLimitExceeded, at + ": uncompressed size " + std::to_string(usize) +
                                                       " exceeds the page limit");
    }
    if (usize > detail::max_inflated_size(codec, csize)) {
      return make_error(ErrorCode::kCorrupt, at + ": " + std::to_string(csize) + " compressed bytes cannot inflate to " +
                                                 std::to_string(usize));
    }
    if (width > 0 && usize / width > n + 4096) {
      return make_error(ErrorCode::kCorrupt, at + ": uncompressed size " + std::to_string(usize) + " for " +
                                                 std::to_string(n) + " values of " + std::to_string(width) + " bytes");
    }
    // Uninitialized: the codec writes every byte or fails.
    inflated.reset(new uint8_t[usize]);
    PQFAST_RETURN_IF_ERROR(detail::decompress(codec, values, csize, inflated.get(), usize, at));
    values = inflated.get();
    values_len = usize;
  }
  if (width > 0 && n > values_len / width) {
    return make_error(ErrorCode::kTruncated, at + ": " + std::to_string(n) + " values of " + std::to_string(width) +
                                                 " bytes cannot fit " + std::to_string(values_len) + " bytes");
  }
  ChunkFilter out;
  out.from_dictionary = true;
  out.ndv = options.ndv > 0 ? options.ndv : n;
  PQFAST_ASSIGN_OR_RETURN(Sbbf filter, Sbbf::for_ndv(out.ndv, options.fpp));
  if (width > 0) {
    PQFAST_RETURN_IF_ERROR(filter.insert_values(type, values, n * width, n, type_length));
  } else {
    PQFAST_RETURN_IF_ERROR(insert_plain_byte_arrays(values, values_len, n, &filter, at));
  }
  finish_filter(filter, options, &out);
  return out;
}

}  // namespace pqfast::parquet::index
