// Which statistics to believe by writer version: see stats_trust.h.
#include "parquet/stats_trust.h"

#include <cctype>

#include "parquet/value_order.h"

namespace pqfast::parquet {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Digits at the front of `s` as a bounded int (consumed); false when none.
bool take_number(std::string_view& s, int* out) {
  size_t i = 0;
  int v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    v = v > 100000000 ? v : v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == 0) return false;
  *out = v;
  s.remove_prefix(i);
  return true;
}

// The three orders Arrow C++ knows: signed (including floats, decimals and
// booleans), unsigned (integers declared unsigned, bytes), unknown.
enum class ArrowOrder { kSigned, kUnsigned, kUnknown };

ArrowOrder arrow_order(const ColumnDescriptor& d) {
  if (d.physical_type == PhysicalType::kBoolean) return ArrowOrder::kSigned;
  switch (sort_order(d)) {
    case Order::kSigned:
    case Order::kFloat:
    case Order::kFloat16:
    case Order::kDecimalBytes: return ArrowOrder::kSigned;
    case Order::kUnsigned:
    case Order::kBytes: return ArrowOrder::kUnsigned;
    case Order::kNone: break;
  }
  return ArrowOrder::kUnknown;  // INT96, INTERVAL, logical types without an order
}

}  // namespace

bool WriterVersion::before(std::string_view app, int ma, int mi, int pa) const {
  if (application != app) return false;
  if (major != ma) return major < ma;
  if (minor != mi) return minor < mi;
  return patch < pa;
}

WriterVersion parse_created_by(std::string_view created_by) {
  WriterVersion w;
  if (trim(created_by).empty()) {
    w.application = "unknown";
    w.unknown = true;
    return w;
  }
  const size_t mark = created_by.find(" version ");
  w.application = std::string(trim(created_by.substr(0, mark)));
  if (mark != std::string_view::npos) {
    std::string_view v = trim(created_by.substr(mark + 9));
    // Each part is kept as far as it parses: "1.10" is 1.10.0, "1.8.0-SNAPSHOT" 1.8.0.
    if (take_number(v, &w.major) && !v.empty() && v.front() == '.') {
      v.remove_prefix(1);
      if (take_number(v, &w.minor) && !v.empty() && v.front() == '.') {
        v.remove_prefix(1);
        take_number(v, &w.patch);
      }
    }
  }
  w.unknown = w.application == "unknown";
  w.signed_stats_only = w.before("parquet-mr", 1, 10, 0) || w.before("parquet-cpp", 1, 3, 0);
  w.binary_stats_broken = w.before("parquet-mr", 1, 8, 0);
  // Arrow C++'s PARQUET_CPP_10353_FIXED_VERSION: parquet-cpp 1.5.1 (the
  // last release so named) wrote is_compressed=false on compressed data
  // pages v2; the writer was renamed parquet-cpp-arrow before the fix.
  w.v2_always_compressed = w.before("parquet-cpp", 2, 0, 0);
  return w;
}

StatsTrust statistics_trust(const WriterVersion& writer, const ColumnDescriptor& column,
                            bool has_column_orders, bool type_defined_order, const RawMinMax& s,
                            bool for_pruning) {
  StatsTrust t;
  const ArrowOrder order = arrow_order(column);

  // Which bounds are read: with a TYPE_ORDER ColumnOrder only min_value and
  // max_value (the legacy pair was written in some other order); without one
  // the writer never said how it compared, and only a signed order is safe.
  // There pyarrow reads only the deprecated pair, and only in a signed order.
  bool use_min = s.has_min, use_max = s.has_max;
  if (type_defined_order) {
    use_min = use_min && !s.min_is_legacy;
    use_max = use_max && !s.max_is_legacy;
  } else if (for_pruning && has_column_orders) {
    // The writer declared an order this reader does not know: no bounds.
    use_min = use_max = false;
  } else if (for_pruning) {
    // min_value/max_value are in the type's order by definition (PARQUET-1025):
    // a pruner believes them (parquet-java does); the legacy pair only in a
    // signed order.
    if (order != ArrowOrder::kSigned) {
      use_min = use_min && !s.min_is_legacy;
      use_max = use_max && !s.max_is_legacy;
    }
  } else if (order != ArrowOrder::kSigned) {
    use_min = use_max = false;
  } else {
    use_min = use_min && (s.min_is_legacy || s.legacy_min_present);
    use_max = use_max && (s.max_is_legacy || s.legacy_max_present);
  }
  // No order (INT96, whose order writers disagree on, INTERVAL...): counts only.
  if (order == ArrowOrder::kUnknown) use_min = use_max = false;
  t.min = use_min;
  t.max = use_max;

  const bool binary = column.physical_type == PhysicalType::kByteArray ||
                      column.physical_type == PhysicalType::kFixedLenByteArray;
  // parquet-mr before 1.10 and parquet-cpp before 1.3 compared everything
  // signed: only signed-order statistics hold, or bounds equal to each other
  // (one value: any order agrees).
  if (writer.signed_stats_only) {
    const bool one_value = use_min && use_max && s.min == s.max;
    if (order != ArrowOrder::kSigned && !one_value) {
      t.statistics = false;
      return t;
    }
    if (!binary) return t;
  }
  if (writer.unknown) {
    // pyarrow believes a file without created_by; parquet-java does not
    // believe its binary bounds (PARQUET-297): pruning follows the stricter.
    if (for_pruning && binary) t.min = t.max = false;
    return t;
  }
  // PARQUET-251: parquet-mr before 1.8.0 could keep binary bounds that
  // point into reused buffers.
  if (writer.binary_stats_broken) t.statistics = false;
  return t;
}

}  // namespace pqfast::parquet
