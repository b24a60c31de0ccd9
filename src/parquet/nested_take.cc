// The selected top-level rows of an assembled nested field (a filtered
// scan's: the scan engine selects rows on the flat filter columns, the
// streaming scanner assembles each nested field of a matching row group and
// keeps those rows here). Node by node from the top: a node keeps its
// selected slots' validity bits; a list or map keeps its selected lists'
// offsets, rebased, and hands its child the bitmap of the entries those
// lists span; a struct hands its children its own bitmap; a leaf's values
// are taken by take_selected (every layout the column reader gives).
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "parquet/decode.h"
#include "parquet/thrift_util.h"
#include "pqfast/parquet_nested.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {

using Impl = ColumnArray::Impl;

inline bool bit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void set_bit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }

// Calls each(i) for every set bit i of `sel` below n, in order.
template <class Each>
void for_each_set(const uint64_t* sel, int64_t n, Each&& each) {
  const int64_t words = (n + 63) / 64;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word = sel[w];
    while (word) {
      const int64_t i = w * 64 + __builtin_ctzll(word);
      if (i >= n) return;
      each(i);
      word &= word - 1;
    }
  }
}

// Sets bits [b, e) of `bits`.
void set_range(uint64_t* bits, int64_t b, int64_t e) {
  while (b < e && (b & 63)) {
    bits[b >> 6] |= uint64_t{1} << (b & 63);
    ++b;
  }
  while (b + 64 <= e) {
    bits[b >> 6] = ~uint64_t{0};
    b += 64;
  }
  while (b < e) {
    bits[b >> 6] |= uint64_t{1} << (b & 63);
    ++b;
  }
}

class Taker {
 public:
  explicit Taker(const std::string& where) : where_(where) {}

  // Node `in` (length in->length) reduced to the `selected` slots `sel` names.
  Result<std::unique_ptr<Impl>> take(std::unique_ptr<Impl> in, const uint64_t* sel, int64_t selected) {
    if (selected == in->length) return in;  // every slot: the node as it is
    if (in->nest == Impl::Nest::kNone) return leaf(std::move(in), sel, selected);
    auto out = std::make_unique<Impl>();
    out->nest = in->nest;
    out->name = std::move(in->name);
    out->nullable = in->nullable;
    out->layout = in->layout;
    out->format = std::move(in->format);
    out->width = in->width;
    out->length = selected;
    take_validity(*in, sel, selected, out.get());
    if (in->nest == Impl::Nest::kStruct) {
      for (auto& c : in->children) {
        if (c->length != in->length) return corrupt("a struct's child has " + std::to_string(c->length) +
                                                    " slots for " + std::to_string(in->length));
        PQFAST_ASSIGN_OR_RETURN(auto taken, take(std::move(c), sel, selected));
        out->children.push_back(std::move(taken));
      }
      return out;
    }
    // A list or map: int32 offsets in `values`, one child.
    if (in->children.size() != 1) return corrupt("a list with " + std::to_string(in->children.size()) + " children");
    std::unique_ptr<Impl>& child = in->children[0];
    const int64_t n = in->length;
    if (in->values.size() < static_cast<size_t>(n + 1) * 4) return corrupt("a list's offsets are short");
    const int32_t* o = in->values.as<int32_t>();
    out->values.resize(static_cast<size_t>(selected + 1) * 4);
    int32_t* oo = out->values.as<int32_t>();
    std::vector<uint64_t> child_sel(static_cast<size_t>((child->length + 63) / 64), 0);
    int64_t at = 0, k = 0;
    bool bad = false;
    oo[0] = 0;
    for_each_set(sel, n, [&](int64_t i) {
      const int64_t b = o[i], e = o[i + 1];
      if (b < 0 || e < b || e > child->length) {
        bad = true;
        return;
      }
      set_range(child_sel.data(), b, e);
      at += e - b;
      oo[++k] = static_cast<int32_t>(at);
    });
    if (bad) return corrupt("a list's offsets leave its child's " + std::to_string(child->length) + " entries");
    if (k != selected) return corrupt("the selection names " + std::to_string(k) + " rows, not " + std::to_string(selected));
    PQFAST_ASSIGN_OR_RETURN(auto taken, take(std::move(child), child_sel.data(), at));
    out->children.push_back(std::move(taken));
    return out;
  }

 private:
  Error corrupt(const std::string& what) const { return make_error(ErrorCode::kCorrupt, where_ + ": " + what); }

  // The node's validity bits of the selected slots (none when they hold no null).
  static void take_validity(const Impl& in, const uint64_t* sel, int64_t selected, Impl* out) {
    if (in.null_count == 0 || in.validity.size() == 0) return;
    out->validity.resize_zeroed(static_cast<size_t>((selected + 7) / 8));
    const uint8_t* v = in.validity.data();
    int64_t k = 0, nulls = 0;
    for_each_set(sel, in.length, [&](int64_t i) {
      if (bit(v, i)) {
        set_bit(out->validity.data(), k);
      } else {
        ++nulls;
      }
      ++k;
    });
    out->null_count = nulls;
    if (nulls == 0) out->validity = ReadBuffer();
  }

  Result<std::unique_ptr<Impl>> leaf(std::unique_ptr<Impl> in, const uint64_t* sel, int64_t selected) {
    std::string name = std::move(in->name);
    const bool nullable = in->nullable;
    const int64_t n = in->length;
    auto got = take_selected(ColumnArray(std::move(in)), {RowRange{0, n}}, sel, selected);
    if (!got.ok()) return make_error(got.error().code, where_ + ": " + got.error().message);
    auto impl = std::make_unique<Impl>(std::move(*got->impl()));
    impl->name = std::move(name);
    impl->nullable = nullable;
    return impl;
  }

  const std::string& where_;
};

}  // namespace

Result<ColumnArray> take_nested_rows(ColumnArray&& column, const uint64_t* selection, int64_t selected,
                                     const std::string& where) {
  Impl* in = column.impl();
  if (!in) return make_error(ErrorCode::kInvalidArgument, where + ": no array to take rows of");
  if (selected < 0 || selected > in->length) {
    return make_error(ErrorCode::kInvalidArgument, where + ": " + std::to_string(selected) + " rows selected of " +
                                                       std::to_string(in->length));
  }
  Taker t(where);
  PQFAST_ASSIGN_OR_RETURN(auto out, t.take(std::make_unique<Impl>(std::move(*in)), selection, selected));
  return ColumnArray(std::move(out));
}

}  // namespace pqfast::parquet
