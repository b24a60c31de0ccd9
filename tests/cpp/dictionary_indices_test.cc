// Column chunks read as dictionary arrays (ColumnReadOptions::
// dictionary_indices): over every flat chunk of parquet-testing the indices
// map back to the values the ordinary read gives, on every SIMD level, in
// every dictionary layout; hand-built chunks check nulls, fallback pages
// hashed into the dictionary, hostile indices, the C Data Interface export
// and take_selected. Nested leaves (decode_leaf_chunk) read as dictionary
// arrays keep the same levels and map back to the same slots.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "parquet/column_values.h"
#include "parquet_test_util.h"
#include "page_test_util.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/parquet_read.h"
#include "test_util.h"
#include "thrift/compact.h"

namespace pq = pqfast::parquet;
namespace fs = std::filesystem;

namespace {

using Values = std::vector<std::optional<std::string>>;

// The values a dictionary array stands for: entry indices[i] of its dictionary, or null.
Values through_dictionary(const pq::ColumnArray& a) {
  const auto* c = a.impl();
  EXPECT_EQ(c->format, "i");
  EXPECT_TRUE(c->dictionary != nullptr);
  Values out;
  if (!c->dictionary) return out;
  const Values dict = pq::detail::column_values(*c->dictionary);
  const int32_t* idx = c->values.as<int32_t>();
  for (int64_t i = 0; i < c->length; ++i) {
    const bool valid = !c->nullable || c->null_count == 0 || ((c->validity.data()[i >> 3] >> (i & 7)) & 1);
    if (!valid) {
      out.emplace_back(std::nullopt);
      continue;
    }
    const int32_t k = idx[i];
    EXPECT_GE(k, 0);
    EXPECT_LT(static_cast<size_t>(k), dict.size());
    if (k < 0 || static_cast<size_t>(k) >= dict.size()) return {};
    out.push_back(dict[static_cast<size_t>(k)]);
  }
  return out;
}

struct Chunk {
  std::string name;
  pq::ColumnDescriptor column;
  int32_t codec;
  int64_t rows;
  std::vector<uint8_t> bytes;
};

// Row group 0 of every flat, non-BOOLEAN column of parquet-testing.
std::vector<Chunk> flat_chunks() {
  std::vector<Chunk> out;
  const fs::path dir(PQFAST_TEST_DATA_DIR);
  if (!fs::exists(dir)) return out;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".parquet") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    const auto bytes = pqfast::testing::read_all(path.string());
    pq::BufferFile file(bytes.data(), bytes.size(), path.filename().string());
    auto meta = pq::read_file_metadata(file);
    if (!meta.ok() || meta->row_groups.empty()) continue;
    const auto& rg = meta->row_groups[0];
    for (size_t leaf = 0; leaf < meta->columns.size() && leaf < rg.columns.size(); ++leaf) {
      if (!pq::flat_column_problem(*meta, static_cast<int>(leaf)).empty()) continue;
      const auto& c = rg.columns[leaf];
      const auto& d = meta->columns[leaf];
      if (!c.has_meta_data || rg.num_rows == 0 || d.physical_type == pqfast::PhysicalType::kBoolean) continue;
      int64_t start = c.data_page_offset;
      if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
      if (start < 0 || c.total_compressed_size < 0 ||
          static_cast<uint64_t>(start) + static_cast<uint64_t>(c.total_compressed_size) > bytes.size()) {
        continue;
      }
      out.push_back(Chunk{path.filename().string() + ":" + d.dotted_path, d, c.codec, rg.num_rows,
                          std::vector<uint8_t>(bytes.begin() + start, bytes.begin() + start + c.total_compressed_size)});
    }
  }
  return out;
}

TEST(DictionaryIndices, EveryChunkMapsBackToItsValuesOnEverySimdLevel) {
  const auto chunks = flat_chunks();
  ASSERT_GT(chunks.size(), 50u);
  size_t compared = 0, binary = 0;
  for (const auto& ch : chunks) {
    SCOPED_TRACE(ch.name);
    // The layouts a dictionary may take: BYTE_ARRAY's three, else the default.
    std::vector<pq::ArrowLayout> layouts = {pq::ArrowLayout::kDefault};
    if (ch.column.physical_type == pqfast::PhysicalType::kByteArray) {
      layouts = {pq::ArrowLayout::kBinary, pq::ArrowLayout::kLargeBinary, pq::ArrowLayout::kBinaryView};
    }
    auto want = pq::decode_column_chunk(ch.bytes.data(), ch.bytes.size(), 0, ch.column, ch.codec, ch.rows);
    if (!want.ok()) continue;  // (a chunk the ordinary read refuses: hostile files, missing codecs)
    const Values ref = pq::detail::column_values(*want->impl());
    for (auto layout : layouts) {
      pq::ColumnReadOptions o;
      o.layout = layout;
      o.dictionary_indices = true;
      pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel) {
        auto got = pq::decode_column_chunk(ch.bytes.data(), ch.bytes.size(), 0, ch.column, ch.codec, ch.rows, o);
        ASSERT_TRUE(got.ok()) << got.error().to_string();
        EXPECT_EQ(got->length(), ch.rows);
        EXPECT_EQ(got->null_count(), want->null_count());
        EXPECT_TRUE(through_dictionary(*got) == ref);
        ++compared;
      });
    }
    binary += ch.column.physical_type == pqfast::PhysicalType::kByteArray;
  }
  EXPECT_GT(compared, 50u);
  EXPECT_GT(binary, 10u);
}

// The slot_def of leaf `leaf` in the tree `node`, or -1.
int slot_def_of(const pq::NestedNode& node, int leaf) {
  if (node.kind == pq::NestedNode::Kind::kLeaf) return node.leaf == leaf ? node.slot_def : -1;
  for (const auto& c : node.children) {
    const int got = slot_def_of(c, leaf);
    if (got >= 0) return got;
  }
  return -1;
}

// Row group 0 of every nested BYTE_ARRAY leaf of parquet-testing, read
// with its levels plain and as a dictionary array (the streaming
// scanner's dictionary:<layout> leaves): the same levels, the same slots.
TEST(DictionaryIndices, NestedLeavesKeepTheirLevelsAndMapBackToTheirSlots) {
  const fs::path dir(PQFAST_TEST_DATA_DIR);
  if (!fs::exists(dir)) GTEST_SKIP() << "parquet-testing data not found";
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".parquet") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  size_t compared = 0;
  for (const auto& path : paths) {
    const auto bytes = pqfast::testing::read_all(path.string());
    pq::BufferFile file(bytes.data(), bytes.size(), path.filename().string());
    auto meta = pq::read_file_metadata(file);
    if (!meta.ok() || meta->row_groups.empty() || meta->row_groups[0].num_rows == 0) continue;
    for (size_t leaf = 0; leaf < meta->columns.size(); ++leaf) {
      const int l = static_cast<int>(leaf);
      if (!pq::is_nested_leaf(*meta, l) || meta->columns[leaf].physical_type != pqfast::PhysicalType::kByteArray) {
        continue;
      }
      auto shape = pq::nested_field(*meta, pq::top_level_field_of(*meta, l));
      if (!shape.ok()) continue;
      const int16_t slot_def = static_cast<int16_t>(slot_def_of(*shape, l));
      SCOPED_TRACE(path.filename().string() + ":" + meta->columns[leaf].dotted_path);
      auto want = pq::read_leaf_chunk(file, *meta, 0, l, slot_def);
      if (!want.ok()) continue;  // (a chunk the ordinary read refuses)
      const Values ref = pq::detail::column_values(*want->values.impl());
      for (auto layout : {pq::ArrowLayout::kBinary, pq::ArrowLayout::kBinaryView}) {
        pq::ColumnReadOptions o;
        o.layout = layout;
        o.dictionary_indices = true;
        auto got = pq::read_leaf_chunk(file, *meta, 0, l, slot_def, o);
        ASSERT_TRUE(got.ok()) << got.error().to_string();
        ASSERT_EQ(got->levels, want->levels);
        if (want->levels > 0 && want->def) {
          EXPECT_EQ(std::memcmp(got->def, want->def, static_cast<size_t>(want->levels)), 0);
        }
        if (want->levels > 0 && want->rep) {
          EXPECT_EQ(std::memcmp(got->rep, want->rep, static_cast<size_t>(want->levels)), 0);
        }
        EXPECT_EQ(got->values.null_count(), want->values.null_count());
        EXPECT_TRUE(through_dictionary(got->values) == ref);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 4u);
}

// ---- hand-built chunks ------------------------------------------------------------------

std::vector<uint8_t> plain_strings(const std::vector<std::string>& v) {
  std::vector<uint8_t> out;
  for (const auto& s : v) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    const auto* p = reinterpret_cast<const uint8_t*>(&n);
    out.insert(out.end(), p, p + 4);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

// One bit-packed run of `bits`-wide values (padded to groups of 8).
std::vector<uint8_t> bit_packed(const std::vector<uint32_t>& v, int bits) {
  const size_t groups = (v.size() + 7) / 8;
  std::vector<uint8_t> out = {static_cast<uint8_t>((groups << 1) | 1)};
  std::vector<uint8_t> packed(groups * static_cast<size_t>(bits), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    for (int b = 0; b < bits; ++b) {
      if ((v[i] >> b) & 1) {
        const size_t bit = i * static_cast<size_t>(bits) + static_cast<size_t>(b);
        packed[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
  }
  out.insert(out.end(), packed.begin(), packed.end());
  return out;
}

// A data page v1 of `n` slots: definition levels (1 per valid slot, RLE
// with its length prefix), then `values` in `encoding`.
std::vector<uint8_t> data_page(const std::vector<bool>& valid, int32_t encoding, const std::vector<uint8_t>& values) {
  std::vector<uint32_t> levels(valid.begin(), valid.end());
  const auto def = bit_packed(levels, 1);
  std::vector<uint8_t> body;
  const uint32_t l = static_cast<uint32_t>(def.size());
  body.insert(body.end(), reinterpret_cast<const uint8_t*>(&l), reinterpret_cast<const uint8_t*>(&l) + 4);
  body.insert(body.end(), def.begin(), def.end());
  body.insert(body.end(), values.begin(), values.end());
  std::vector<uint8_t> out;
  pqfast::thrift::CompactWriter w(&out);
  w.begin_struct();
  w.write_i32_field(1, 0);  // DATA_PAGE
  w.write_i32_field(2, static_cast<int32_t>(body.size()));
  w.write_i32_field(3, static_cast<int32_t>(body.size()));
  w.field_header(pqfast::thrift::CType::kStruct, 5);  // DataPageHeader
  w.begin_struct();
  w.write_i32_field(1, static_cast<int32_t>(valid.size()));
  w.write_i32_field(2, encoding);
  w.write_i32_field(3, 3);  // RLE levels
  w.write_i32_field(4, 3);
  w.end_struct();
  w.end_struct();
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// RLE_DICTIONARY values: the index width byte, then the indices bit-packed.
std::vector<uint8_t> dict_indices(const std::vector<uint32_t>& idx, int bits = 8) {
  std::vector<uint8_t> out = {static_cast<uint8_t>(bits)};
  const auto runs = bit_packed(idx, bits);
  out.insert(out.end(), runs.begin(), runs.end());
  return out;
}

pq::ColumnDescriptor string_column() {
  pq::ColumnDescriptor d;
  d.path = {"s"};
  d.dotted_path = "s";
  d.physical_type = pqfast::PhysicalType::kByteArray;
  d.max_definition_level = 1;
  return d;
}

template <class... Pages>
std::vector<uint8_t> chunk_of(const Pages&... pages) {
  std::vector<uint8_t> out;
  (out.insert(out.end(), pages.begin(), pages.end()), ...);
  return out;
}

constexpr int32_t kPlain = 0, kRleDictionary = 8;

TEST(DictionaryIndices, FallbackPagesAppendNewValuesAsArrowBuildsThem) {
  // Dictionary page [a, bb, ""]; a dictionary page of 5 slots (2 nulls);
  // then a PLAIN fallback page (values bb, new, "", new, zz; one null).
  const auto chunk = chunk_of(pqfast::testing::dictionary_page(plain_strings({"a", "bb", ""}), 3),
                              data_page({true, false, true, true, false}, kRleDictionary, dict_indices({2, 0, 1})),
                              data_page({true, true, false, true, true, true}, kPlain,
                                        plain_strings({"bb", "new", "", "new", "zz"})));
  const Values want = {std::string(""), std::nullopt, std::string("a"), std::string("bb"), std::nullopt,
                       std::string("bb"), std::string("new"), std::nullopt, std::string(""), std::string("new"),
                       std::string("zz")};
  for (auto layout : {pq::ArrowLayout::kBinary, pq::ArrowLayout::kLargeBinary, pq::ArrowLayout::kBinaryView}) {
    pq::ColumnReadOptions o;
    o.layout = layout;
    o.dictionary_indices = true;
    pqfast::testing::for_each_simd_level([&](pqfast::SimdLevel) {
      auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 11, o);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      EXPECT_EQ(r->null_count(), 3);
      EXPECT_TRUE(through_dictionary(*r) == want);
      // The dictionary: the page's entries, then the fallback's new values in order.
      const Values dict = pq::detail::column_values(*r->impl()->dictionary);
      EXPECT_TRUE(dict == (Values{std::string("a"), std::string("bb"), std::string(""), std::string("new"),
                                  std::string("zz")}));
      const int32_t* idx = r->impl()->values.as<int32_t>();
      EXPECT_EQ(idx[0], 2);
      EXPECT_EQ(idx[5], 1);   // "bb" of the fallback page: the page's entry
      EXPECT_EQ(idx[9], 3);   // "new" the second time: the entry appended the first
      EXPECT_EQ(idx[10], 4);
      // The ordinary read gives the same values.
      pq::ColumnReadOptions plain;
      plain.layout = layout;
      auto p = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 11, plain);
      ASSERT_TRUE(p.ok()) << p.error().to_string();
      EXPECT_TRUE(pq::detail::column_values(*p->impl()) == want);
    });
  }
}

TEST(DictionaryIndices, ChunkWithoutDictionaryPageBuildsOneFromItsValues) {
  const auto chunk = chunk_of(data_page({true, true, true, false}, kPlain, plain_strings({"x", "y", "x"})));
  pq::ColumnReadOptions o;
  o.dictionary_indices = true;
  auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 4, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(through_dictionary(*r) == (Values{std::string("x"), std::string("y"), std::string("x"), std::nullopt}));
  EXPECT_EQ(r->impl()->dictionary->length, 2);
}

TEST(DictionaryIndices, FixedWidthColumnsKeepTheirLayoutInTheDictionary) {
  pq::ColumnDescriptor d;
  d.path = {"i"};
  d.dotted_path = "i";
  d.physical_type = pqfast::PhysicalType::kInt32;
  d.max_definition_level = 1;
  auto le = [](std::vector<int32_t> v) {
    std::vector<uint8_t> out(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  const auto chunk = chunk_of(pqfast::testing::dictionary_page(le({7, 9}), 2),
                              data_page({true, true, false}, kRleDictionary, dict_indices({1, 0})),
                              data_page({true, true}, kPlain, le({9, 11})));
  pq::ColumnReadOptions o;
  o.dictionary_indices = true;
  auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, d, 0, 5, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->impl()->dictionary->format, "i");
  EXPECT_EQ(r->impl()->dictionary->length, 3);  // 7, 9, then the fallback's 11
  const Values got = through_dictionary(*r);
  ASSERT_EQ(got.size(), 5u);
  auto int_of = [](const std::optional<std::string>& s) {
    int32_t v = 0;
    std::memcpy(&v, s->data(), 4);
    return v;
  };
  EXPECT_EQ(int_of(got[0]), 9);
  EXPECT_EQ(int_of(got[1]), 7);
  EXPECT_FALSE(got[2].has_value());
  EXPECT_EQ(int_of(got[3]), 9);
  EXPECT_EQ(int_of(got[4]), 11);
}

TEST(DictionaryIndices, HostileIndicesAreErrorsNamingTheColumn) {
  pq::ColumnReadOptions o;
  o.dictionary_indices = true;
  // Index 3 of a 3-entry dictionary (a repeated run and a bit-packed one).
  for (const auto& values : {dict_indices({0, 3}), std::vector<uint8_t>{2, 4, 3}}) {
    const auto chunk = chunk_of(pqfast::testing::dictionary_page(plain_strings({"a", "b", "c"}), 3),
                                data_page({true, true}, kRleDictionary, values));
    auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 2, o, "f.parquet: column 's'");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, pqfast::ErrorCode::kCorrupt);
    EXPECT_NE(r.error().message.find("f.parquet: column 's'"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("out of range"), std::string::npos) << r.error().message;
  }
  // Dictionary-encoded pages without a dictionary page.
  const auto none = chunk_of(data_page({true}, kRleDictionary, dict_indices({0})));
  auto r = pq::decode_column_chunk(none.data(), none.size(), 0, string_column(), 0, 1, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, pqfast::ErrorCode::kCorrupt);
  // Every truncation of a good chunk: an error or fewer rows, never a crash.
  const auto good = chunk_of(pqfast::testing::dictionary_page(plain_strings({"a", "b"}), 2),
                             data_page({true, false, true}, kRleDictionary, dict_indices({1, 0})),
                             data_page({true, true}, kPlain, plain_strings({"q", "b"})));
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto t = pq::decode_column_chunk(cut.data(), cut.size(), 0, string_column(), 0, 5, o);
    EXPECT_FALSE(t.ok()) << n;
  }
  // BOOLEAN columns have no dictionary: refused as an argument.
  pq::ColumnDescriptor b = string_column();
  b.physical_type = pqfast::PhysicalType::kBoolean;
  auto rb = pq::decode_column_chunk(good.data(), good.size(), 0, b, 0, 5, o);
  ASSERT_FALSE(rb.ok());
  EXPECT_EQ(rb.error().code, pqfast::ErrorCode::kInvalidArgument);
}

TEST(DictionaryIndices, ExportsTheDictionaryThroughTheCDataInterface) {
  const auto chunk = chunk_of(pqfast::testing::dictionary_page(plain_strings({"a", "a long value, past 12 bytes"}), 2),
                              data_page({true, false, true}, kRleDictionary, dict_indices({1, 0})));
  pq::ColumnReadOptions o;
  o.layout = pq::ArrowLayout::kBinaryView;
  o.format = "vu";
  o.dictionary_indices = true;
  auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 3, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ArrowArray array;
  ArrowSchema schema;
  std::move(*r).export_to(&array, &schema, "s");
  EXPECT_STREQ(schema.format, "i");
  ASSERT_NE(schema.dictionary, nullptr);
  EXPECT_STREQ(schema.dictionary->format, "vu");
  EXPECT_EQ(array.length, 3);
  EXPECT_EQ(array.null_count, 1);
  ASSERT_NE(array.dictionary, nullptr);
  EXPECT_EQ(array.dictionary->length, 2);
  EXPECT_EQ(array.dictionary->n_buffers, 4);  // validity, views, one variadic buffer, its size
  const auto* idx = static_cast<const int32_t*>(array.buffers[1]);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(idx[2], 0);
  array.release(&array);
  schema.release(&schema);
}

TEST(DictionaryIndices, TakeSelectedKeepsTheDictionary) {
  const auto chunk = chunk_of(pqfast::testing::dictionary_page(plain_strings({"a", "b", "c"}), 3),
                              data_page({true, true, true, true}, kRleDictionary, dict_indices({2, 1, 0, 2})));
  pq::ColumnReadOptions o;
  o.dictionary_indices = true;
  auto r = pq::decode_column_chunk(chunk.data(), chunk.size(), 0, string_column(), 0, 4, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const uint64_t selection = 0b1010;  // rows 1 and 3
  auto t = pq::take_selected(std::move(*r), {{0, 4}}, &selection, 2);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_TRUE(through_dictionary(*t) == (Values{std::string("b"), std::string("c")}));
  EXPECT_EQ(t->impl()->dictionary->length, 3);
}

}  // namespace
