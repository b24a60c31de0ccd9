// Internal: the output of a column chunk read as an Arrow dictionary array
// (ColumnReadOptions::dictionary_indices). The column reader walks the pages
// as always; this holds the int32 indices and builds the dictionary:
//   - a dictionary-encoded page's indices are unpacked from its RLE /
//     bit-packed runs straight into the output (checked against the
//     dictionary page's size), no value is gathered;
//   - a page of another encoding (a writer's fallback once its dictionary
//     grew too big) is decoded densely by the reader, then each value is
//     hashed into the dictionary: an existing entry gives its index, a new
//     one is appended, as Arrow C++'s dictionary builder does (pyarrow's
//     read_dictionary= gives that dictionary: the page's then new values).
// Values are kept as the reader decodes them internally: BYTE_ARRAY as
// int64 offsets + bytes, fixed-width layouts as their elements; finish()
// converts the dictionary to the requested layout once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/decode.h"

namespace pqfast::parquet::detail {

class DictionaryIndexOutput {
 public:
  // `layout`/`format`: the dictionary's Arrow layout and format string;
  // `binary`: values are BYTE_ARRAY held as int64 offsets + bytes (else
  // fixed elements of `width` bytes).
  DictionaryIndexOutput(ArrowLayout layout, std::string format, int32_t width, bool binary)
      : layout_(layout), format_(std::move(format)), width_(width), binary_(binary) {}

  // Room for n indices in total.
  void reserve(size_t n) { indices_.reserve(n * 4); }
  // Indices [at, at + count) made writable; returns where `at` is.
  int32_t* grow(int64_t at, size_t count);

  // nonnull indices of a dictionary-encoded page (p: the index width byte
  // then the hybrid runs) into out; each below the dictionary page's size.
  static Status page_indices(const Dictionary& dict, const uint8_t* p, size_t len, size_t nonnull, int32_t* out,
                             const std::string& where);
  // The indices of n values decoded densely by the reader (`values`: its
  // output of them alone, in the internal layout), appending new values to
  // the dictionary. `dict` is the chunk's dictionary page (its entries come
  // first; taken over on the first call).
  Status value_indices(Dictionary& dict, const ColumnArray::Impl& values, size_t n, int32_t* out,
                       const std::string& where);

  // The dictionary array: `out` (the reader's output: validity, counts)
  // becomes the int32 indices of `length` slots over the dictionary.
  Result<std::unique_ptr<ColumnArray::Impl>> finish(std::unique_ptr<ColumnArray::Impl> out, int64_t length,
                                                    Dictionary& dict, const std::string& where);

 private:
  void adopt(Dictionary& dict, bool hashed);
  std::string_view entry(size_t i) const;
  int32_t find_or_add(std::string_view v, bool* added);
  void rehash(size_t slots);
  Result<std::unique_ptr<ColumnArray::Impl>> dictionary_array(const std::string& where);

  ArrowLayout layout_;
  std::string format_;
  int32_t width_;
  bool binary_;
  ReadBuffer indices_;
  // After the first fallback page: the dictionary's entries (the page's
  // then appended ones) and an open-addressing table of their indices.
  bool adopted_ = false;
  size_t size_ = 0;
  ReadBuffer offsets_;  // BYTE_ARRAY: int64, size_ + 1
  ReadBuffer bytes_;    // BYTE_ARRAY bytes, or fixed elements
  std::vector<int32_t> slots_;  // -1: empty
};

}  // namespace pqfast::parquet::detail
