// Filter atoms: resolution against a file, min/max pruning, and evaluation
// on decoded rows (integers and floats by the compare kernels, one call per
// run of values; other types value by value, 64 rows a word).
#include "scan/predicate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "compare/kernels.h"
#include "compare/typed.h"
#include "levels/kernels.h"
#include "parquet/bit_load.h"
#include "parquet/decode.h"
#include "parquet/internal.h"

namespace pqfast::parquet::scan {

namespace {

using ::pqfast::parquet::detail::load_bits;

// INT96 (nanoseconds of the day, then the Julian day) as nanoseconds since
// the epoch, as the column reader decodes it (wrapping like Arrow).
int64_t int96_to_nanos(std::string_view s) {
  return int96_nanos(load_plain<uint64_t>(s), load_plain<uint32_t>(s.substr(8)));
}

const char* op_name(FilterOp op) {
  switch (op) {
    case FilterOp::kEq: return "==";
    case FilterOp::kNe: return "!=";
    case FilterOp::kLt: return "<";
    case FilterOp::kLe: return "<=";
    case FilterOp::kGt: return ">";
    case FilterOp::kGe: return ">=";
    case FilterOp::kIn: return "in";
    case FilterOp::kIsNull: return "is_null";
  }
  return "?";
}

bool is_comparison(FilterOp op) { return op != FilterOp::kIn && op != FilterOp::kIsNull; }

// Rows the ranges cover: the length of the array that holds them.
int64_t decoded_rows(const std::vector<RowRange>& decoded) {
  int64_t n = 0;
  for (const auto& r : decoded) n += r.end - r.begin;
  return n;
}

// Runs over the decoded rows a word at a time: for rows [r, r + count) of
// one word (array elements from `at`), truth(at, count) returns the TRUE
// bits of those rows' values (before nulls); the selection keeps them.
template <class Truth>
void apply(const ColumnArray::Impl& a, const std::vector<RowRange>& decoded, int64_t num_rows, bool null_result,
           uint64_t* sel, Truth&& truth) {
  const bool has_validity = a.validity.size() > 0 && a.null_count > 0;
  int64_t base = 0;
  int64_t next_row = 0;  // rows before it that no range covers are cleared
  auto clear_rows = [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e;) {
      const int count = static_cast<int>(std::min<int64_t>(64 - (r & 63), e - r));
      const uint64_t mask = (count == 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1)) << (r & 63);
      sel[r >> 6] &= ~mask;
      r += count;
    }
  };
  for (const auto& range : decoded) {
    clear_rows(next_row, range.begin);
    for (int64_t r = range.begin; r < range.end;) {
      const int count = static_cast<int>(std::min<int64_t>(64 - (r & 63), range.end - r));
      const uint64_t ones = count == 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1);
      const int shift = static_cast<int>(r & 63);
      uint64_t& word = sel[r >> 6];
      if (((word >> shift) & ones) != 0) {
        const int64_t at = base + (r - range.begin);
        uint64_t t = truth(at, count);
        if (has_validity) {
          const uint64_t valid = load_bits(a.validity.data(), at, count);
          t = (t & valid) | (null_result ? (~valid & ones) : 0);
        }
        word &= ~(ones << shift) | (t << shift);
      }
      r += count;
    }
    base += range.end - range.begin;
    next_row = range.end;
  }
  clear_rows(next_row, num_rows);
}

// apply() over the TRUE bits of the array's decoded values (back to back),
// made in one pass by fill(n, words): ceil(n / 64) words, zero past n.
template <class Fill>
void apply_bitmap(const ColumnArray& array, const std::vector<RowRange>& decoded, int64_t num_rows, bool null_result,
                  uint64_t* sel, Fill&& fill) {
  const int64_t rows = decoded_rows(decoded);
  std::vector<uint64_t> truth(static_cast<size_t>(rows + 63) / 64 + 1, 0);  // (+1: load_bits reads 9 bytes)
  fill(static_cast<size_t>(std::min(rows, array.length())), truth.data());
  const uint8_t* t = reinterpret_cast<const uint8_t*>(truth.data());
  apply(*array.impl(), decoded, num_rows, null_result, sel, [&](int64_t at, int count) { return load_bits(t, at, count); });
}

}  // namespace

namespace {

bool is_decimal(const ColumnDescriptor& d) {
  return d.logical.kind == LogicalType::kDecimal || d.converted_type == 5;
}

// A decimal's unscaled value from one physical representation to another
// (INT32/INT64 little-endian, FIXED_LEN_BYTE_ARRAY/BYTE_ARRAY big-endian two's
// complement); nullopt when it does not fit the target.
std::optional<std::string> convert_decimal(std::string_view v, PhysicalType from, PhysicalType to, int32_t to_len) {
  // To big-endian bytes first.
  std::string be;
  if (from == PhysicalType::kInt32 || from == PhysicalType::kInt64) {
    be.assign(v.rbegin(), v.rend());
  } else {
    be.assign(v);
  }
  if (be.empty()) be.assign(1, '\0');
  const bool neg = static_cast<uint8_t>(be[0]) & 0x80;
  const char fill = neg ? static_cast<char>(0xff) : '\0';
  size_t width = to == PhysicalType::kInt32 ? 4 : to == PhysicalType::kInt64 ? 8
               : to == PhysicalType::kFixedLenByteArray ? static_cast<size_t>(to_len) : be.size();
  if (be.size() > width) {
    // Drop sign-extension bytes; what is left must still carry the sign.
    const size_t extra = be.size() - width;
    for (size_t i = 0; i < extra; ++i) {
      if (be[i] != fill) return std::nullopt;
    }
    be.erase(0, extra);
    if ((static_cast<uint8_t>(be[0]) & 0x80) != (neg ? 0x80 : 0)) return std::nullopt;
  } else {
    be.insert(0, width - be.size(), fill);
  }
  if (to == PhysicalType::kInt32 || to == PhysicalType::kInt64) return std::string(be.rbegin(), be.rend());
  return be;
}

}  // namespace

Result<AtomPlan> AtomPlan::make(const FilterAtom& atom, const FileMetaData& meta, const std::string& file) {
  AtomPlan p;
  p.atom_ = &atom;
  p.leaf_ = meta.find_column(atom.column);
  const std::string where = file + ": filter on column '" + atom.column + "'";
  if (p.leaf_ < 0) {
    Error e = missing_column_error(meta, atom.column);
    return make_error(ErrorCode::kInvalidArgument, file + ": filter: " + e.message);
  }
  const std::string problem = flat_column_problem(meta, p.leaf_);
  if (!problem.empty()) return make_error(ErrorCode::kUnsupported, file + ": filter: " + problem);
  const ColumnDescriptor& d = meta.columns[static_cast<size_t>(p.leaf_)];
  p.column_ = &d;
  // BOOLEAN values are one byte each (ProbeValues has no width for them).
  const bool boolean = atom.values.type == PhysicalType::kBoolean;
  const size_t n = boolean ? atom.values.data.size() : atom.values.size();
  auto value = [&](size_t i) {
    return boolean ? std::string_view(reinterpret_cast<const char*>(atom.values.data.data()) + i, 1)
                   : atom.values.value(i);
  };
  const bool mismatch = atom.values.type != d.physical_type ||
                        (d.physical_type == PhysicalType::kFixedLenByteArray && atom.values.type_length != d.type_length);
  const bool convert = mismatch && atom.op != FilterOp::kIsNull && atom.decimal_scale >= 0 && is_decimal(d);
  if (convert && d.scale != atom.decimal_scale) {
    return make_error(ErrorCode::kInvalidArgument,
                      where + ": the column has scale " + std::to_string(d.scale) + " here, the filter's values were typed for scale " +
                          std::to_string(atom.decimal_scale) + " (files of one scan must agree)");
  }
  if (atom.op != FilterOp::kIsNull && !convert) {
    if (mismatch) {
      return make_error(ErrorCode::kInvalidArgument,
                        where + ": the column is " + physical_type_name(d.physical_type) +
                            (d.physical_type == PhysicalType::kFixedLenByteArray ? "(" + std::to_string(d.type_length) + ")" : "") +
                            " here, the filter's values were typed for " + physical_type_name(atom.values.type) +
                            " (files of one scan must agree)");
    }
    if (is_comparison(atom.op) && n != 1) {
      return make_error(ErrorCode::kInvalidArgument, where + ": '" + op_name(atom.op) + "' takes one value, got " +
                                                         std::to_string(n));
    }
  }
  p.order_ = sort_order(d);
  p.compare_type_ = d.physical_type;
  p.is_float_ = p.order_ == Order::kFloat || p.order_ == Order::kFloat16;
  const bool type_order_ok = !meta.has_column_orders || meta.column_type_defined_order[static_cast<size_t>(p.leaf_)];
  p.stats_usable_ = type_order_ok && p.order_ != Order::kNone;
  if (p.order_ == Order::kNone &&
      (d.physical_type == PhysicalType::kByteArray || d.physical_type == PhysicalType::kFixedLenByteArray)) {
    // No Parquet order (INTERVAL, unknown logical types): read_table gives
    // them as binary, which pyarrow compares byte by byte. Rows are compared
    // so; statistics, written in no known order, stay unused.
    p.order_ = Order::kBytes;
  }
  ColumnReadOptions& o = p.eval_options_;
  switch (d.physical_type) {
    case PhysicalType::kBoolean: o.layout = ArrowLayout::kBool; break;
    case PhysicalType::kInt32: o.layout = ArrowLayout::kInt32; break;
    case PhysicalType::kInt64: o.layout = ArrowLayout::kInt64; break;
    case PhysicalType::kInt96:
      o.layout = ArrowLayout::kTimestampNanos;
      p.order_ = Order::kSigned;  // evaluated as nanoseconds (min/max of INT96 mean nothing)
      p.compare_type_ = PhysicalType::kInt64;
      p.stats_usable_ = false;
      break;
    case PhysicalType::kFloat: o.layout = ArrowLayout::kFloat32; break;
    case PhysicalType::kDouble: o.layout = ArrowLayout::kFloat64; break;
    case PhysicalType::kByteArray: o.layout = ArrowLayout::kLargeBinary; break;
    case PhysicalType::kFixedLenByteArray: o.layout = ArrowLayout::kFixedSizeBinary; break;
  }
  if (p.order_ == Order::kNone && is_comparison(atom.op) && atom.op != FilterOp::kEq && atom.op != FilterOp::kNe &&
      d.physical_type != PhysicalType::kBoolean) {
    return make_error(ErrorCode::kUnsupported, where + ": the column's values have no order to compare with '" +
                                                   op_name(atom.op) + "'");
  }
  for (size_t i = 0; i < n; ++i) {
    std::string_view v = value(i);
    if (d.physical_type == PhysicalType::kInt96) {
      const int64_t ns = int96_to_nanos(v);
      p.values_.emplace_back(reinterpret_cast<const char*>(&ns), 8);
    } else if (d.physical_type == PhysicalType::kBoolean) {
      if (v.size() != 1 || static_cast<uint8_t>(v[0]) > 1) {
        return make_error(ErrorCode::kInvalidArgument, where + ": BOOLEAN filter values are one byte, 0 or 1");
      }
      p.values_.emplace_back(v);
    } else if (convert) {
      auto c = convert_decimal(v, atom.values.type, d.physical_type, d.type_length);
      if (!c) {
        // Out of the column's range here: `=`/`in` cannot match it, an
        // order comparison would need the value itself.
        if (atom.op == FilterOp::kEq || atom.op == FilterOp::kIn || atom.op == FilterOp::kNe) continue;
        return make_error(ErrorCode::kInvalidArgument, where + ": a filter value does not fit the column's " +
                                                           physical_type_name(d.physical_type) + " decimals in this file");
      }
      p.values_.push_back(std::move(*c));
    } else {
      p.values_.emplace_back(v);
    }
  }
  if (convert && p.values_.empty() && atom.op != FilterOp::kIn) {
    // `=` or `!=` with a value out of range: never equal.
    p.never_equal_ = true;
  }
  // false < true: one byte 0/1 each, compared as bytes.
  if (d.physical_type == PhysicalType::kBoolean) p.order_ = Order::kBytes;
  switch (atom.op) {
    case FilterOp::kIn: p.null_result_ = atom.set_has_null != atom.negate; break;
    case FilterOp::kIsNull: p.null_result_ = !atom.negate; break;
    default: p.null_result_ = false; break;
  }
  return p;
}

bool AtomPlan::bloom_usable() const {
  const FilterAtom& a = *atom_;
  return !a.negate && !a.set_has_null && (a.op == FilterOp::kEq || a.op == FilterOp::kIn) &&
         column_->physical_type != PhysicalType::kBoolean;
}

const std::vector<std::string>* AtomPlan::plain_equal_values() const {
  const PhysicalType t = column_->physical_type;
  if (!bloom_usable() || is_float_ || order_ == Order::kDecimalBytes ||
      (t != PhysicalType::kInt32 && t != PhysicalType::kInt64)) {
    return nullptr;
  }
  // (equal() compares such values by their bytes; decimals were converted
  // to the column's own unscaled integers, those out of its range dropped.)
  return &values_;
}

bool AtomPlan::equal(std::string_view a, std::string_view b, bool bitwise) const {
  if (is_float_) {
    // `in` is Arrow's is_in, a hash lookup: floats match by their bits (a
    // NaN matches the same NaN, 0.0 does not match -0.0). `==` is IEEE.
    if (bitwise) return a == b;
    auto c = compare(order_, compare_type_, a, b);
    return c && *c == 0;
  }
  if (order_ == Order::kDecimalBytes) return compare_decimal(a, b) == 0;
  return a == b;
}

bool AtomPlan::value_true(std::string_view v) const {
  const FilterAtom& a = *atom_;
  if (never_equal_) return (a.op == FilterOp::kNe) != a.negate;
  bool t = false;
  switch (a.op) {
    case FilterOp::kEq: t = equal(v, values_[0], false); break;
    case FilterOp::kNe: t = !equal(v, values_[0], false); break;
    case FilterOp::kLt: case FilterOp::kLe: case FilterOp::kGt: case FilterOp::kGe: {
      auto c = compare(order_, compare_type_, v, values_[0]);
      if (c) {
        t = a.op == FilterOp::kLt ? *c < 0 : a.op == FilterOp::kLe ? *c <= 0 : a.op == FilterOp::kGt ? *c > 0 : *c >= 0;
      }
      break;
    }
    case FilterOp::kIn:
      for (const auto& x : values_) {
        if (equal(v, x, true)) {
          t = true;
          break;
        }
      }
      break;
    case FilterOp::kIsNull: t = false; break;
  }
  return t != a.negate;
}

bool AtomPlan::may_match(const MinMaxView& s) const {
  const FilterAtom& a = *atom_;
  const bool all_null = s.all_null || (s.null_count >= 0 && s.num_values >= 0 && s.null_count == s.num_values);
  const bool no_null = s.null_count == 0;
  if (all_null) return null_result_;
  if (null_result_ && !no_null) return true;  // a null row may be TRUE
  if (a.op == FilterOp::kIsNull) return a.negate;  // is_null with no null: FALSE; is_valid with a value: TRUE
  if (never_equal_) return (a.op == FilterOp::kNe) != a.negate;
  if (a.negate || !stats_usable_) return true;
  // Not negated: some non-null value must satisfy the comparison.
  auto below_min = [&](std::string_view v, bool or_equal) {  // v < min (or <=)
    if (!s.has_min || !s.min_trusted) return false;
    auto c = compare(order_, compare_type_, v, s.min);
    return c && (or_equal ? *c <= 0 : *c < 0);
  };
  auto above_max = [&](std::string_view v, bool or_equal) {
    if (!s.has_max || !s.max_trusted) return false;
    auto c = compare(order_, compare_type_, v, s.max);
    return c && (or_equal ? *c >= 0 : *c > 0);
  };
  switch (a.op) {
    case FilterOp::kEq: return !(below_min(values_[0], false) || above_max(values_[0], false));
    case FilterOp::kIn:
      for (const auto& v : values_) {
        if (!(below_min(v, false) || above_max(v, false))) return true;
      }
      return false;
    case FilterOp::kLt: return !below_min(values_[0], true);   // x < v needs min < v
    case FilterOp::kLe: return !below_min(values_[0], false);  // min <= v
    case FilterOp::kGt: return !above_max(values_[0], true);   // max > v
    case FilterOp::kGe: return !above_max(values_[0], false);  // max >= v
    default: return true;
  }
}

namespace {

compare::CmpOp cmp_op_of(FilterOp op) {
  switch (op) {
    case FilterOp::kNe: return compare::CmpOp::kNe;
    case FilterOp::kLt: return compare::CmpOp::kLt;
    case FilterOp::kLe: return compare::CmpOp::kLe;
    case FilterOp::kGt: return compare::CmpOp::kGt;
    case FilterOp::kGe: return compare::CmpOp::kGe;
    default: return compare::CmpOp::kEq;
  }
}

// Sets above this size are looked up by binary search, not compared member
// by member.
constexpr size_t kLinearSetMax = 32;

// Bits of x[0..n) (words of `out`, bits past n zero) TRUE for a comparison
// or a set of fixed-width numbers, before negation and nulls: one kernel
// call per run of values. `in` matches floats by their bits (Arrow's is_in,
// a hash lookup: a NaN matches the same NaN, 0.0 does not match -0.0).
template <class T>
void truth_bits(const T* x, size_t n, FilterOp op, const std::vector<std::string>& values, uint64_t* out) {
  const compare::CompareKernels& k = compare::active_compare_kernels();
  if (op != FilterOp::kIn) {
    T v;
    std::memcpy(&v, values[0].data(), sizeof v);
    compare::compare_values(k, x, n, cmp_op_of(op), v, out);
    return;
  }
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::vector<U> set(values.size());
  for (size_t i = 0; i < set.size(); ++i) std::memcpy(&set[i], values[i].data(), sizeof(U));
  const U* bits = reinterpret_cast<const U*>(x);
  if (set.size() == 1) {  // one member: one compare of bit patterns
    if constexpr (sizeof(U) == 4) k.cmp_u32(bits, n, compare::CmpOp::kEq, set[0], out);
    else k.cmp_u64(bits, n, compare::CmpOp::kEq, set[0], out);
    return;
  }
  if (set.size() <= kLinearSetMax) {
    if constexpr (sizeof(U) == 4) k.in_u32(bits, n, set.data(), set.size(), out);
    else k.in_u64(bits, n, set.data(), set.size(), out);
    return;
  }
  std::sort(set.begin(), set.end());
  std::fill(out, out + (n + 63) / 64, uint64_t{0});
  for (size_t i = 0; i < n; ++i) {
    U b;
    std::memcpy(&b, bits + i, sizeof b);
    if (std::binary_search(set.begin(), set.end(), b)) out[i >> 6] |= uint64_t{1} << (i & 63);
  }
}

// Inverts bits [0, n) of a bitmap of ceil(n / 64) words, leaving the rest zero.
void invert_bits(uint64_t* w, size_t n) {
  for (size_t i = 0; i < (n + 63) / 64; ++i) w[i] = ~w[i];
  if (n & 63) w[n / 64] &= (uint64_t{1} << (n & 63)) - 1;
}

}  // namespace

bool AtomPlan::compares_values_in_simd(ArrowLayout layout) const {
  if (never_equal_ || atom_->op == FilterOp::kIsNull) return false;
  if (atom_->op == FilterOp::kIn && values_.size() > kLinearSetMax) return false;
  switch (layout) {
    case ArrowLayout::kInt32:
    case ArrowLayout::kInt64:
    case ArrowLayout::kTimestampNanos:
    case ArrowLayout::kFloat32:
    case ArrowLayout::kFloat64:
      return true;
    default:
      return false;
  }
}

void AtomPlan::evaluate(const ColumnArray& array, const std::vector<RowRange>& decoded, int64_t num_rows,
                        uint64_t* selection) const {
  const ColumnArray::Impl& a = *array.impl();
  const FilterAtom& atom = *atom_;
  if (atom.op == FilterOp::kIsNull) {
    const uint64_t v = atom.negate ? ~uint64_t{0} : 0;  // a non-null value: is_null FALSE, is_valid TRUE
    apply(a, decoded, num_rows, null_result_, selection, [&](int64_t, int count) {
      return count == 64 ? v : (v & ((uint64_t{1} << count) - 1));
    });
    return;
  }
  if (a.layout == ArrowLayout::kBool) {
    // A boolean's truth is decided once for false and once for true; then a
    // word of values at a time (the generic loop below, a compare per value,
    // made a one-in-two filter on a boolean 9x slower than reading it).
    static constexpr char kFalse = 0, kTrue = 1;
    const bool if_false = value_true(std::string_view(&kFalse, 1));
    const bool if_true = value_true(std::string_view(&kTrue, 1));
    const uint8_t* values = a.values.data();
    apply(a, decoded, num_rows, null_result_, selection, [&](int64_t at, int count) {
      const uint64_t ones = count == 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1);
      const uint64_t v = load_bits(values, at, count);
      return (if_true ? v : 0) | (if_false ? ~v & ones : 0);
    });
    return;
  }
  if ((a.layout == ArrowLayout::kLargeBinary || a.layout == ArrowLayout::kBinary) && order_ == Order::kBytes &&
      is_comparison(atom.op) && !never_equal_) {
    // Byte strings against one literal, compared inline (the generic loop's
    // dispatch per value cost as much as decoding the strings): the sign
    // of the comparison picks the verdict from a table made once.
    const std::string_view lit = values_[0];
    bool verdict[3];  // for value <, == and > the literal, negation applied
    for (int sign = -1; sign <= 1; ++sign) {
      bool t = false;
      switch (atom.op) {
        case FilterOp::kEq: t = sign == 0; break;
        case FilterOp::kNe: t = sign != 0; break;
        case FilterOp::kLt: t = sign < 0; break;
        case FilterOp::kLe: t = sign <= 0; break;
        case FilterOp::kGt: t = sign > 0; break;
        default: t = sign >= 0; break;  // kGe
      }
      verdict[sign + 1] = t != atom.negate;
    }
    const uint8_t* data = a.data.data();
    const bool large = a.layout == ArrowLayout::kLargeBinary;
    apply(a, decoded, num_rows, null_result_, selection, [&](int64_t at, int count) {
      uint64_t m = 0;
      for (int j = 0; j < count; ++j) {
        const int64_t i = at + j;
        // (Offsets are valid on null slots too; their verdicts are replaced.)
        const int64_t b = large ? a.values.as<int64_t>()[i] : a.values.as<int32_t>()[i];
        const int64_t e = large ? a.values.as<int64_t>()[i + 1] : a.values.as<int32_t>()[i + 1];
        const size_t len = static_cast<size_t>(e - b);
        const size_t k = std::min(len, lit.size());
        int c = k ? std::memcmp(data + b, lit.data(), k) : 0;
        if (c == 0) c = len < lit.size() ? -1 : len > lit.size() ? 1 : 0;
        m |= uint64_t{verdict[(c > 0) - (c < 0) + 1]} << j;
      }
      return m;
    });
    return;
  }
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    apply_bitmap(array, decoded, num_rows, null_result_, selection, [&](size_t n, uint64_t* truth) {
      truth_bits<T>(reinterpret_cast<const T*>(a.values.data()), n, atom.op, values_, truth);
      if (atom.negate) invert_bits(truth, n);
    });
  };
  const bool unsig = order_ == Order::kUnsigned;
  switch (never_equal_ ? ArrowLayout::kDefault : a.layout) {
    case ArrowLayout::kInt32:
      if (unsig) typed(uint32_t{}); else typed(int32_t{});
      return;
    case ArrowLayout::kInt64:
    case ArrowLayout::kTimestampNanos:
      if (unsig) typed(uint64_t{}); else typed(int64_t{});
      return;
    case ArrowLayout::kFloat32: typed(float{}); return;
    case ArrowLayout::kFloat64: typed(double{}); return;
    default: break;
  }
  // Generic: each value as PLAIN bytes, compared in the column's order.
  auto value_at = [&](int64_t i) -> std::string_view {
    switch (a.layout) {
      case ArrowLayout::kLargeBinary: {
        const int64_t* o = a.values.as<int64_t>();
        return std::string_view(reinterpret_cast<const char*>(a.data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
      }
      case ArrowLayout::kBinary: {
        const int32_t* o = a.values.as<int32_t>();
        return std::string_view(reinterpret_cast<const char*>(a.data.data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
      }
      default: {
        const size_t w = static_cast<size_t>(a.width);
        return std::string_view(reinterpret_cast<const char*>(a.values.data()) + static_cast<size_t>(i) * w, w);
      }
    }
  };
  const bool has_validity = a.validity.size() > 0 && a.null_count > 0;
  apply(a, decoded, num_rows, null_result_, selection, [&](int64_t at, int count) {
    uint64_t m = 0;
    for (int j = 0; j < count; ++j) {
      // Null slots hold no value worth comparing (their bits are replaced).
      if (has_validity && !((a.validity.data()[(at + j) >> 3] >> ((at + j) & 7)) & 1)) continue;
      m |= uint64_t{value_true(value_at(at + j))} << j;
    }
    return m;
  });
}

std::vector<uint8_t> AtomPlan::evaluate_dictionary(const ColumnArray& dictionary, int64_t* true_count) const {
  // The dictionary as a row group of its own, every row selected, with no
  // nulls: the typed loops apply (negate included).
  const int64_t n = dictionary.length();
  std::vector<uint64_t> bits(static_cast<size_t>((n + 63) / 64), ~uint64_t{0});
  evaluate(dictionary, {{0, n}}, n, bits.data());
  if (n & 63) bits.back() &= (uint64_t{1} << (n & 63)) - 1;  // (the words start all ones)
  std::vector<uint8_t> out(static_cast<size_t>(n), 0);
  int64_t count = 0;
  for (size_t w = 0; w < bits.size(); ++w) {
    count += std::popcount(bits[w]);
    for (uint64_t b = bits[w]; b != 0; b &= b - 1) out[w * 64 + static_cast<size_t>(std::countr_zero(b))] = 1;
  }
  if (true_count) *true_count = count;
  return out;
}

void AtomPlan::evaluate_hits(const ColumnArray& hits, const std::vector<RowRange>& decoded, int64_t num_rows,
                             uint64_t* selection) const {
  const uint8_t* x = hits.impl()->values.data();
  apply_bitmap(hits, decoded, num_rows, null_result_, selection, [&](size_t n, uint64_t* truth) {
    levels::active_level_kernels().ge_mask(x, n, 1, truth);  // hit byte != 0
  });
}

}  // namespace pqfast::parquet::scan
