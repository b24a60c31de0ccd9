// Internal: random access into a raw snappy stream. A lookup that needs a
// few entries of a dictionary page (800 KB of incompressible int64 ids, say)
// extracts their bytes instead of decompressing the page: one walk over the
// stream's tags (a handful for incompressible data, stored as long literals),
// then each range is copied from its literals, following copies back to the
// earlier output they repeat. Input is hostile: every tag, length and offset
// is checked; the index is bounded by the input's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pqfast/status.h"

namespace pqfast::parquet::detail {

class SnappyIndex {
 public:
  // Walks the stream's tags once. Errors: a malformed or truncated stream,
  // output past the length the stream announces.
  static Result<SnappyIndex> build(const uint8_t* src, size_t len, const std::string& where);

  uint64_t uncompressed_size() const { return size_; }
  size_t elements() const { return elems_.size(); }
  // The uncompressed bytes [offset, offset + n) into out.
  Status read(uint64_t offset, size_t n, uint8_t* out) const;

 private:
  struct Element {
    uint64_t out_pos;  // where its output starts
    uint64_t len;
    uint64_t from;     // literal: input offset; copy: distance back
    bool literal;
  };
  const uint8_t* src_ = nullptr;
  size_t src_len_ = 0;
  uint64_t size_ = 0;
  std::vector<Element> elems_;
  std::string where_;
};

}  // namespace pqfast::parquet::detail
