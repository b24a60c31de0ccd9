// A column chunk read as an Arrow dictionary array: indices unpacked from
// the dictionary-encoded pages, fallback pages' values hashed into the
// dictionary, the dictionary converted to its layout once at the end
// (dictionary_indices.h says why each step is so).
#include "parquet/dictionary_indices.h"

#include <cstring>

#include "pqfast/hash.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet::detail {

int32_t* DictionaryIndexOutput::grow(int64_t at, size_t count) {
  indices_.resize((static_cast<size_t>(at) + count) * 4);
  return indices_.as<int32_t>() + at;
}

Status DictionaryIndexOutput::page_indices(const Dictionary& dict, const uint8_t* p, size_t len, size_t nonnull,
                                           int32_t* out, const std::string& where) {
  if (!dict.present) {
    return make_error(ErrorCode::kCorrupt, where + ": dictionary-encoded page without a dictionary page before it");
  }
  // dict_indices checks every index below the page's size (at most 2^31 - 1
  // entries: the page header's count is an int32), so each fits an int32.
  return dict_indices(dict.size, p, len, nonnull, reinterpret_cast<uint32_t*>(out), where);
}

// The dictionary page's entries become the builder's (moved, not copied:
// the reader needs only the page's size from here on); `hashed`: with the
// table of their indices (needed only once a fallback page comes).
void DictionaryIndexOutput::adopt(Dictionary& dict, bool hashed) {
  adopted_ = true;
  size_ = dict.present ? dict.size : 0;
  if (binary_) {
    if (dict.present) {
      offsets_ = std::move(dict.offsets);
      bytes_ = std::move(dict.bytes);
    }
    if (size_ == 0) offsets_.resize_zeroed(8);
  } else if (dict.present) {
    bytes_ = std::move(dict.fixed);
  }
  if (!hashed) return;
  size_t slots = 64;
  while (slots < size_ * 2) slots *= 2;
  rehash(slots);
}

std::string_view DictionaryIndexOutput::entry(size_t i) const {
  if (binary_) {
    const int64_t* o = offsets_.as<int64_t>();
    return {reinterpret_cast<const char*>(bytes_.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i])};
  }
  const size_t w = static_cast<size_t>(width_);
  return {reinterpret_cast<const char*>(bytes_.data()) + i * w, w};
}

void DictionaryIndexOutput::rehash(size_t slots) {
  slots_.assign(slots, -1);
  const size_t mask = slots - 1;
  for (size_t i = 0; i < size_; ++i) {
    const std::string_view v = entry(i);
    size_t s = xxh64(v.data(), v.size()) & mask;
    // A value the page holds twice keeps its first index (Arrow's memo
    // table would too; the page's indices still address both).
    bool dup = false;
    while (slots_[s] >= 0) {
      if (entry(static_cast<size_t>(slots_[s])) == v) {
        dup = true;
        break;
      }
      s = (s + 1) & mask;
    }
    if (!dup) slots_[s] = static_cast<int32_t>(i);
  }
}

int32_t DictionaryIndexOutput::find_or_add(std::string_view v, bool* added) {
  const size_t mask = slots_.size() - 1;
  size_t s = xxh64(v.data(), v.size()) & mask;
  while (slots_[s] >= 0) {
    if (entry(static_cast<size_t>(slots_[s])) == v) {
      *added = false;
      return slots_[s];
    }
    s = (s + 1) & mask;
  }
  // A new entry at the end (the caller checked the count stays an int32).
  const int32_t idx = static_cast<int32_t>(size_);
  if (binary_) {
    const int64_t end = offsets_.as<int64_t>()[size_];
    bytes_.resize(static_cast<size_t>(end) + v.size());
    if (!v.empty()) std::memcpy(bytes_.data() + end, v.data(), v.size());
    offsets_.resize((size_ + 2) * 8);
    offsets_.as<int64_t>()[size_ + 1] = end + static_cast<int64_t>(v.size());
  } else {
    const size_t w = static_cast<size_t>(width_);
    bytes_.resize((size_ + 1) * w);
    std::memcpy(bytes_.data() + size_ * w, v.data(), w);
  }
  ++size_;
  slots_[s] = idx;
  *added = true;
  if (size_ * 2 > slots_.size()) rehash(slots_.size() * 2);
  return idx;
}

Status DictionaryIndexOutput::value_indices(Dictionary& dict, const ColumnArray::Impl& values, size_t n, int32_t* out,
                                            const std::string& where) {
  if (!adopted_) adopt(dict, true);
  for (size_t i = 0; i < n; ++i) {
    std::string_view v;
    if (binary_) {
      const int64_t* o = values.values.as<int64_t>();
      v = {reinterpret_cast<const char*>(values.data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i])};
    } else {
      const size_t w = static_cast<size_t>(width_);
      v = {reinterpret_cast<const char*>(values.values.data()) + i * w, w};
    }
    if (size_ >= 0x7fffffffu) {
      return make_error(ErrorCode::kLimitExceeded, where + ": the dictionary passes 2^31 - 1 entries");
    }
    bool added;
    out[i] = find_or_add(v, &added);
    if (added && binary_ && layout_ == ArrowLayout::kBinary && offsets_.as<int64_t>()[size_] > 0x7fffffff) {
      return make_error(ErrorCode::kLimitExceeded, where + ": the dictionary's values pass 2 GiB (read it as large_binary)");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<ColumnArray::Impl>> DictionaryIndexOutput::dictionary_array(const std::string& where) {
  auto a = std::make_unique<ColumnArray::Impl>();
  a->layout = layout_;
  a->format = format_;
  a->width = width_;
  a->length = static_cast<int64_t>(size_);
  const size_t n = size_;
  if (!binary_) {
    a->values = std::move(bytes_);
    return a;
  }
  const int64_t* o = offsets_.as<int64_t>();
  switch (layout_) {
    case ArrowLayout::kLargeBinary:
      a->values = std::move(offsets_);
      a->data = std::move(bytes_);
      break;
    case ArrowLayout::kBinary: {
      if (o[n] > 0x7fffffff) {
        return make_error(ErrorCode::kLimitExceeded, where + ": the dictionary's values pass 2 GiB (read it as large_binary)");
      }
      a->values.resize((n + 1) * 4);
      auto* o32 = a->values.as<int32_t>();
      for (size_t i = 0; i <= n; ++i) o32[i] = static_cast<int32_t>(o[i]);
      a->data = std::move(bytes_);
      break;
    }
    case ArrowLayout::kBinaryView: {
      if (o[n] > 0x7fffffff) return make_error(ErrorCode::kLimitExceeded, where + ": the dictionary's view buffer passes 2 GiB");
      a->values.resize(n * 16);
      auto* views = a->values.as<BinaryViewElem>();
      const uint8_t* b = bytes_.data();
      bool refers = false;
      for (size_t i = 0; i < n; ++i) {
        const size_t l = static_cast<size_t>(o[i + 1] - o[i]);
        views[i] = make_view_exact(b + o[i], l, 0, static_cast<int32_t>(o[i]));
        refers = refers || l > 12;
      }
      if (refers) a->view_buffers.push_back(std::move(bytes_));
      break;
    }
    default:
      return make_error(ErrorCode::kUnsupported, where + ": dictionary values in layout " + arrow_layout_name(layout_));
  }
  return a;
}

Result<std::unique_ptr<ColumnArray::Impl>> DictionaryIndexOutput::finish(std::unique_ptr<ColumnArray::Impl> out,
                                                                         int64_t length, Dictionary& dict,
                                                                         const std::string& where) {
  if (!adopted_) adopt(dict, false);
  auto r = std::make_unique<ColumnArray::Impl>();
  r->layout = ArrowLayout::kInt32;
  r->format.push_back('i');  // (GCC 12 warns, falsely, on assigning "i" here: -Wrestrict)
  r->width = 4;
  r->length = length;
  r->null_count = out->null_count;
  r->nullable = out->nullable;
  r->validity = std::move(out->validity);
  indices_.resize(static_cast<size_t>(length) * 4);
  r->values = std::move(indices_);
  PQFAST_ASSIGN_OR_RETURN(r->dictionary, dictionary_array(where));
  return r;
}

}  // namespace pqfast::parquet::detail
