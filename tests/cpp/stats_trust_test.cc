// Which statistics are believed by writer (created_by), as pyarrow 26 and
// parquet-java believe them: crafted footers' created_by strings and columns.
#include <gtest/gtest.h>

#include <string>

#include "parquet/stats_trust.h"

namespace pqfast::parquet {
namespace {

ColumnDescriptor col(PhysicalType t, LogicalType::Kind k = LogicalType::kNone, bool is_signed = true) {
  ColumnDescriptor d;
  d.physical_type = t;
  d.logical.kind = k;
  d.logical.is_signed = is_signed;
  if (k == LogicalType::kInteger) d.logical.bit_width = 32;
  if (t == PhysicalType::kFixedLenByteArray) d.type_length = 4;
  return d;
}

RawMinMax bounds(std::string_view lo, std::string_view hi, bool legacy) {
  RawMinMax s;
  s.has_min = s.has_max = true;
  s.min = lo;
  s.max = hi;
  s.min_is_legacy = s.max_is_legacy = legacy;
  s.legacy_min_present = s.legacy_max_present = legacy;
  return s;
}

TEST(StatsTrust, ParsesCreatedBy) {
  auto w = parse_created_by("parquet-mr version 1.9.0 (build 38262e2c80015d0935dad20f8e18f2d6f9fbd03c)");
  EXPECT_EQ(w.application, "parquet-mr");
  EXPECT_EQ(w.major, 1);
  EXPECT_EQ(w.minor, 9);
  EXPECT_EQ(w.patch, 0);
  EXPECT_TRUE(w.signed_stats_only);
  EXPECT_FALSE(w.binary_stats_broken);
  w = parse_created_by("parquet-mr version 1.8.0-SNAPSHOT");
  EXPECT_EQ(w.minor, 8);
  EXPECT_FALSE(w.binary_stats_broken);
  w = parse_created_by("parquet-mr version 1.10");  // patch missing: 0
  EXPECT_EQ(w.minor, 10);
  EXPECT_FALSE(w.signed_stats_only);
  w = parse_created_by("parquet-mr");  // no version: 0.0.0, before every fix
  EXPECT_TRUE(w.signed_stats_only);
  EXPECT_TRUE(w.binary_stats_broken);
  w = parse_created_by("parquet-cpp version 1.2.9");
  EXPECT_TRUE(w.signed_stats_only);
  w = parse_created_by("parquet-cpp-arrow version 1.2.0");  // another application
  EXPECT_FALSE(w.signed_stats_only);
  EXPECT_TRUE(parse_created_by("").unknown);
  EXPECT_TRUE(parse_created_by("   ").unknown);
  EXPECT_FALSE(parse_created_by("DuckDB version v2.0.0 (build x)").signed_stats_only);
  // Hostile strings: huge numbers and stray characters parse without overflow.
  w = parse_created_by("parquet-mr version 99999999999999999999.1.1");
  EXPECT_FALSE(w.signed_stats_only);
  w = parse_created_by("parquet-mr version .1");
  EXPECT_EQ(w.major, 0);
}

TEST(StatsTrust, OldParquetMrKeepsOnlySignedOrders) {
  const auto old = parse_created_by("parquet-mr version 1.9.0");
  const auto s = bounds("a", "z", false);
  // Strings, unsigned ints: no statistics at all.
  EXPECT_FALSE(statistics_trust(old, col(PhysicalType::kByteArray, LogicalType::kString), true, true, s, false).statistics);
  EXPECT_FALSE(statistics_trust(old, col(PhysicalType::kInt32, LogicalType::kInteger, false), true, true, s, false).statistics);
  EXPECT_FALSE(statistics_trust(old, col(PhysicalType::kFixedLenByteArray), true, true, s, true).statistics);
  // ... unless min == max (one value: every order agrees).
  const auto one = bounds("k", "k", false);
  auto t = statistics_trust(old, col(PhysicalType::kByteArray, LogicalType::kString), true, true, one, false);
  EXPECT_TRUE(t.statistics && t.min && t.max);
  // Signed INT32 and decimals: kept.
  t = statistics_trust(old, col(PhysicalType::kInt32), true, true, s, true);
  EXPECT_TRUE(t.statistics && t.min && t.max);
  t = statistics_trust(old, col(PhysicalType::kFixedLenByteArray, LogicalType::kDecimal), true, true, s, true);
  EXPECT_TRUE(t.statistics && t.min && t.max);
  // parquet-mr 1.7 (PARQUET-251): no binary statistics even for decimals.
  const auto older = parse_created_by("parquet-mr version 1.7.0");
  EXPECT_FALSE(statistics_trust(older, col(PhysicalType::kFixedLenByteArray, LogicalType::kDecimal), true, true, s,
                                true).statistics);
  EXPECT_TRUE(statistics_trust(older, col(PhysicalType::kInt64), true, true, s, true).statistics);
  // parquet-mr 1.10 and later: everything.
  const auto fixed = parse_created_by("parquet-mr version 1.10.0");
  t = statistics_trust(fixed, col(PhysicalType::kByteArray, LogicalType::kString), true, true, s, false);
  EXPECT_TRUE(t.statistics && t.min && t.max);
}

TEST(StatsTrust, LegacyPairAndColumnOrders) {
  const auto w = parse_created_by("parquet-cpp-arrow version 26.0.1");
  const auto legacy = bounds("a", "z", true);
  const auto modern = bounds("a", "z", false);
  const auto str = col(PhysicalType::kByteArray, LogicalType::kString);
  const auto i32 = col(PhysicalType::kInt32);
  // With TYPE_ORDER the legacy pair is never read.
  auto t = statistics_trust(w, i32, true, true, legacy, true);
  EXPECT_TRUE(t.statistics);
  EXPECT_FALSE(t.min || t.max);
  // Without ColumnOrders: only a signed order, from the legacy pair (pyarrow).
  t = statistics_trust(w, i32, false, false, legacy, false);
  EXPECT_TRUE(t.min && t.max);
  t = statistics_trust(w, i32, false, false, modern, false);  // no legacy pair: pyarrow reads none
  EXPECT_FALSE(t.min || t.max);
  t = statistics_trust(w, str, false, false, legacy, true);
  EXPECT_FALSE(t.min || t.max);
  // A pruner believes min_value/max_value without ColumnOrders (type order by definition) ...
  t = statistics_trust(w, str, false, false, modern, true);
  EXPECT_TRUE(t.min && t.max);
  // ... but not under a declared order it does not know.
  t = statistics_trust(w, str, true, false, modern, true);
  EXPECT_FALSE(t.min || t.max);
}

TEST(StatsTrust, Int96AndMissingCreatedBy) {
  const auto w = parse_created_by("parquet-mr version 1.17.0 (build x)");
  const auto s = bounds(std::string(12, 'a'), std::string(12, 'b'), false);
  auto t = statistics_trust(w, col(PhysicalType::kInt96), true, false, s, false);
  EXPECT_TRUE(t.statistics);  // counts stay
  EXPECT_FALSE(t.min || t.max);
  // An old parquet-mr INT96: not signed, so nothing.
  EXPECT_FALSE(statistics_trust(parse_created_by("parquet-mr version 1.8.1"), col(PhysicalType::kInt96), true,
                                false, s, false).statistics);
  // No created_by: pyarrow believes everything, a pruner no binary bounds (PARQUET-297).
  const auto none = parse_created_by("");
  const auto str = col(PhysicalType::kByteArray, LogicalType::kString);
  t = statistics_trust(none, str, true, true, bounds("a", "z", false), false);
  EXPECT_TRUE(t.statistics && t.min && t.max);
  t = statistics_trust(none, str, true, true, bounds("a", "z", false), true);
  EXPECT_FALSE(t.min || t.max);
  t = statistics_trust(none, col(PhysicalType::kInt64), true, true, bounds("a", "z", false), true);
  EXPECT_TRUE(t.min && t.max);
}

}  // namespace
}  // namespace pqfast::parquet
