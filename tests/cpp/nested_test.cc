// The nested reader: the levels kernels against their scalar reference on
// every SIMD level the CPU has, the Arrow shapes of the schema forms Arrow
// knows (3-level, legacy 2-level, maps, bare repeated fields), and nested
// files of parquet-testing read into the arrays pyarrow gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "levels/kernels.h"
#include "parquet/decode.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/parquet_read.h"
#include "pqfast/simd.h"
#include "test_util.h"

namespace pq = pqfast::parquet;
namespace lv = pqfast::levels;

namespace {

std::vector<const lv::LevelKernels*> supported_tables() {
  std::vector<const lv::LevelKernels*> out;
  const auto& tables = lv::level_kernel_tables();
  for (auto l : pqfast::available_simd_levels()) {
    const auto* k = tables.by_level[static_cast<int>(l)];
    if (k != nullptr) out.push_back(k);
  }
  return out;
}

TEST(LevelKernels, EveryLevelEqualsScalar) {
  std::mt19937_64 rng(11);
  const auto& ref = lv::kScalarLevelKernels;
  for (const lv::LevelKernels* k : supported_tables()) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{200}, size_t{1000}}) {
      std::vector<uint8_t> levels(n);
      for (auto& v : levels) v = static_cast<uint8_t>(rng() % 6);
      const size_t words = (n + 63) / 64;
      for (uint8_t t = 0; t <= 6; ++t) {
        std::vector<uint64_t> want(words), got(words, ~uint64_t{0});
        ref.ge_mask(levels.data(), n, t, want.data());
        k->ge_mask(levels.data(), n, t, got.data());
        ASSERT_EQ(got, want) << "n " << n << " t " << int(t);
      }
      EXPECT_EQ(k->max_level(levels.data(), n), ref.max_level(levels.data(), n));
      // Bit compression at every destination offset, and list offsets.
      std::vector<uint64_t> bits(words), sel(words);
      for (size_t w = 0; w < words; ++w) {
        bits[w] = rng();
        sel[w] = rng() & rng();
      }
      if (n % 64 && words) sel[words - 1] &= (uint64_t{1} << (n % 64)) - 1;
      for (int64_t pos : {0, 3, 64, 77}) {
        std::vector<uint8_t> want(n / 8 + 32, 0), got(n / 8 + 32, 0);
        const int64_t a = ref.compress_bits(bits.data(), sel.data(), words, want.data(), pos);
        const int64_t b = k->compress_bits(bits.data(), sel.data(), words, got.data(), pos);
        ASSERT_EQ(a, b);
        ASSERT_EQ(got, want) << "n " << n << " pos " << pos;
      }
      EXPECT_EQ(k->count_bits(sel.data(), words), ref.count_bits(sel.data(), words));
      std::vector<int32_t> want(n + 1, -1), got(n + 1, -1);
      EXPECT_EQ(k->list_offsets(sel.data(), bits.data(), words, got.data()),
                ref.list_offsets(sel.data(), bits.data(), words, want.data()));
      EXPECT_EQ(got, want);
    }
  }
}

TEST(LevelKernels, CompressAppendsSelectedBitsInOrder) {
  // select 0b1011 over bits 0b0110 -> selected bits 0,1,3 -> values 0,1,0.
  const uint64_t bits = 0b0110, sel = 0b1011;
  for (const lv::LevelKernels* k : supported_tables()) {
    std::vector<uint8_t> dst(16, 0);
    ASSERT_EQ(k->compress_bits(&bits, &sel, 1, dst.data(), 5), 3);
    EXPECT_EQ(dst[0], uint8_t{1u << 6});
    int32_t off[4];
    // slots at 0, 1, 3; children (bits) at 1, 2: offsets 0, 0, 2, total 2.
    ASSERT_EQ(k->list_offsets(&sel, &bits, 1, off), 2);
    EXPECT_EQ(off[0], 0);
    EXPECT_EQ(off[1], 0);
    EXPECT_EQ(off[2], 2);
    EXPECT_EQ(off[3], 2);
  }
}

std::string data_file(const char* name) { return (std::filesystem::path(PQFAST_TEST_DATA_DIR) / name).string(); }

pq::FileMetaData open_meta(const std::string& path, std::unique_ptr<pq::LocalFile>* file) {
  auto f = pq::LocalFile::open(path);
  EXPECT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  EXPECT_TRUE(m.ok()) << m.error().message;
  *file = std::move(*f);
  return std::move(*m);
}

TEST(NestedShape, ArrowFormsOfTheSchema) {
  std::unique_ptr<pq::LocalFile> f;
  // required group a (List) { repeated group array (List) { repeated int32 array } }
  auto meta = open_meta(data_file("old_list_structure.parquet"), &f);
  auto s = pq::nested_field(meta, 0);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->kind, pq::NestedNode::Kind::kList);
  EXPECT_FALSE(s->nullable);
  ASSERT_EQ(s->children.size(), 1u);
  EXPECT_EQ(s->children[0].kind, pq::NestedNode::Kind::kList);  // the repeated group is the element
  EXPECT_EQ(s->children[0].name, "array");
  EXPECT_EQ(s->children[0].children[0].kind, pq::NestedNode::Kind::kLeaf);
  EXPECT_EQ(s->children[0].children[0].slot_rep, 2);

  // map with values, map without values (a list of keys), 3-level list.
  meta = open_meta(data_file("map_no_value.parquet"), &f);
  auto m0 = pq::nested_field(meta, 0), m1 = pq::nested_field(meta, 1), m2 = pq::nested_field(meta, 2);
  ASSERT_TRUE(m0.ok() && m1.ok() && m2.ok());
  EXPECT_EQ(m0->kind, pq::NestedNode::Kind::kMap);
  ASSERT_EQ(m0->children.size(), 1u);
  EXPECT_EQ(m0->children[0].kind, pq::NestedNode::Kind::kStruct);
  EXPECT_EQ(m0->children[0].children.size(), 2u);
  EXPECT_EQ(m1->kind, pq::NestedNode::Kind::kList);
  EXPECT_EQ(m1->children[0].name, "key");
  EXPECT_EQ(m2->kind, pq::NestedNode::Kind::kList);
  EXPECT_EQ(m2->children[0].name, "element");
  EXPECT_EQ(pq::nested_field(meta, 3).error().code, pqfast::ErrorCode::kInvalidArgument);

  // Bare repeated fields: non-null lists of required elements.
  meta = open_meta(data_file("repeated_primitive_no_list.parquet"), &f);
  auto r = pq::nested_field(meta, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, pq::NestedNode::Kind::kList);
  EXPECT_FALSE(r->nullable);
  EXPECT_FALSE(r->children[0].nullable);
}

// The exported tree of a column as text: [1,2] lists, {..} structs.
std::string show(const pq::ColumnArray::Impl& a, int64_t i) {
  const bool valid = a.null_count == 0 || a.validity.size() == 0 || ((a.validity.data()[i >> 3] >> (i & 7)) & 1);
  if (!valid) return "null";
  using N = pq::ColumnArray::Impl::Nest;
  if (a.nest == N::kList || a.nest == N::kMap) {
    const int32_t* o = a.values.as<int32_t>();
    std::string s = "[";
    for (int32_t j = o[i]; j < o[i + 1]; ++j) s += (j > o[i] ? "," : "") + show(*a.children[0], j);
    return s + "]";
  }
  if (a.nest == N::kStruct) {
    std::string s = "{";
    for (size_t c = 0; c < a.children.size(); ++c) s += (c ? "," : "") + show(*a.children[c], i);
    return s + "}";
  }
  return std::to_string(a.values.as<int32_t>()[i]);  // the int32 leaves of the files below
}

TEST(NestedRead, FilesReadAsPyarrowGivesThem) {
  const auto saved = pqfast::simd_level();
  for (auto level : pqfast::available_simd_levels()) {
    ASSERT_TRUE(pqfast::set_simd_level(level).ok());
    std::unique_ptr<pq::LocalFile> f;
    auto meta = open_meta(data_file("old_list_structure.parquet"), &f);
    auto shape = pq::nested_field(meta, 0);
    auto a = pq::read_nested_chunk(*f, meta, 0, *shape, {});
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(show(*a->impl(), 0), "[[1,2],[3,4]]");  // pyarrow: [[1, 2], [3, 4]]

    meta = open_meta(data_file("map_no_value.parquet"), &f);
    const char* want[3][3] = {{"[{1,null},{2,null},{3,null}]", "[1,2,3]", "[1,2,3]"},
                              {"[{4,null},{5,null},{6,null}]", "[4,5,6]", "[4,5,6]"},
                              {"[{7,null},{8,null},{9,null}]", "[7,8,9]", "[7,8,9]"}};
    for (int field = 0; field < 3; ++field) {
      auto s = pq::nested_field(meta, field);
      auto c = pq::read_nested_chunk(*f, meta, 0, *s, {});
      ASSERT_TRUE(c.ok()) << c.error().message;
      ASSERT_EQ(c->length(), 3);
      for (int64_t row = 0; row < 3; ++row) EXPECT_EQ(show(*c->impl(), row), want[row][field]) << field;
    }
  }
  (void)pqfast::set_simd_level(saved);
}

// tests/data/compat's legacy nested files (issue 34; gen_nested.py writes them).
std::string compat_file(const char* name) {
  return (std::filesystem::path(PQFAST_TEST_DATA_DIR) / ".." / ".." / "compat" / name).string();
}

TEST(NestedShape, ListOfOneRepeatedFieldIsTwoLevel) {
  // optional group a (LIST) { repeated group list { repeated int32 element } }:
  // pyarrow reads list<list: struct<element: list<int32 not null> not null> not null>.
  std::unique_ptr<pq::LocalFile> f;
  auto meta = open_meta(compat_file("legacy_list_of_repeated.parquet"), &f);
  if (!pq::codec_supported(meta.row_groups.at(0).columns.at(0).codec)) GTEST_SKIP() << "a build without its codec";
  auto s = pq::nested_field(meta, 1);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->kind, pq::NestedNode::Kind::kList);
  const auto& element = s->children.at(0);
  EXPECT_EQ(element.kind, pq::NestedNode::Kind::kStruct);
  EXPECT_EQ(element.name, "list");
  EXPECT_FALSE(element.nullable);
  ASSERT_EQ(element.children.size(), 1u);
  EXPECT_EQ(element.children[0].kind, pq::NestedNode::Kind::kList);
  EXPECT_EQ(element.children[0].name, "element");
  auto a = pq::read_nested_chunk(*f, meta, 0, *s, {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(show(*a->impl(), 0), "[{[1]},{[2,3]}]");  // pyarrow: [{'element': [1]}, {'element': [2, 3]}]
  EXPECT_EQ(show(*a->impl(), 2), "null");
}

TEST(NestedRead, PaddedParquetMrChunkEndsAtItsLevels) {
  // created_by "parquet-mr" (no version): each chunk is read with up to 100
  // bytes more (PARQUET-816), which hold the next chunk's pages; a nested
  // leaf stops at its num_values levels, as Arrow does.
  for (const char* name : {"legacy_nested_unversioned.parquet", "legacy_nested_unversioned_list.parquet",
                           "legacy_nested_unversioned_levels.parquet", "legacy_nested_unversioned_dict.parquet"}) {
    std::unique_ptr<pq::LocalFile> f;
    auto meta = open_meta(compat_file(name), &f);
    if (!pq::codec_supported(meta.row_groups.at(0).columns.at(0).codec)) GTEST_SKIP() << "a build without its codec";
    for (int field = 1; field < 5; ++field) {
      auto s = pq::nested_field(meta, field);
      ASSERT_TRUE(s.ok()) << name << " " << s.error().message;
      if (s->kind == pq::NestedNode::Kind::kLeaf) continue;  // the flat column
      auto a = pq::read_nested_chunk(*f, meta, 0, *s, {});
      ASSERT_TRUE(a.ok()) << name << " field " << field << ": " << a.error().message;
      EXPECT_EQ(a->length(), 4);
    }
  }
}

}  // namespace
