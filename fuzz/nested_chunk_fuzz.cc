// Fuzz target: the leaves of a nested field decoded with their levels and
// assembled into Arrow lists, structs and maps. Byte 0 picks the shape (a
// list, a list of lists, a struct holding a list, a map, a legacy 2-level
// list, a bare repeated field), byte 1 the codec, bytes 2-3 the row count;
// then each leaf's chunk as a 2-byte length and its bytes. Differential:
// every SIMD implementation must give the same arrays or the same error
// code. Never out of bounds, never an array whose lengths disagree.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "differential.h"
#include "parquet/column_values.h"
#include "parquet/decode.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/simd.h"

namespace pq = pqfast::parquet;

namespace {

using R = pq::Repetition;

pq::SchemaElement group(const std::string& name, R rep, int children, int converted = -1) {
  pq::SchemaElement e;
  e.name = name;
  e.repetition = rep;
  e.num_children = children;
  e.converted_type = converted;
  return e;
}

pq::SchemaElement leaf(const std::string& name, R rep, pqfast::PhysicalType t) {
  pq::SchemaElement e;
  e.name = name;
  e.repetition = rep;
  e.has_type = true;
  e.type = t;
  return e;
}

// The schema of shape `k` (root first) with its leaves' levels filled in.
pq::FileMetaData shape_meta(int k) {
  using T = pqfast::PhysicalType;
  pq::FileMetaData m;
  std::vector<pq::SchemaElement>& s = m.schema;
  s.push_back(group("schema", R::kUnset, 1));
  switch (k) {
    case 0:  // optional list of optional int64
      s.push_back(group("l", R::kOptional, 1, 3));
      s.push_back(group("list", R::kRepeated, 1));
      s.push_back(leaf("element", R::kOptional, T::kInt64));
      break;
    case 1:  // list of lists of int32
      s.push_back(group("l", R::kOptional, 1, 3));
      s.push_back(group("list", R::kRepeated, 1));
      s.push_back(group("element", R::kOptional, 1, 3));
      s.push_back(group("list", R::kRepeated, 1));
      s.push_back(leaf("element", R::kOptional, T::kInt32));
      break;
    case 2:  // struct { a: int32, b: list<binary> }
      s.push_back(group("s", R::kOptional, 2));
      s.push_back(leaf("a", R::kOptional, T::kInt32));
      s.push_back(group("b", R::kOptional, 1, 3));
      s.push_back(group("list", R::kRepeated, 1));
      s.push_back(leaf("element", R::kOptional, T::kByteArray));
      break;
    case 3:  // map<binary, int64>
      s.push_back(group("m", R::kOptional, 1, 1));
      s.push_back(group("key_value", R::kRepeated, 2));
      s.push_back(leaf("key", R::kRequired, T::kByteArray));
      s.push_back(leaf("value", R::kOptional, T::kInt64));
      break;
    case 4:  // legacy 2-level list of required int32
      s.push_back(group("l", R::kRequired, 1, 3));
      s.push_back(leaf("array", R::kRepeated, T::kInt32));
      break;
    default:  // bare repeated double
      s.push_back(leaf("r", R::kRepeated, T::kDouble));
      break;
  }
  // Leaves with their levels, by walking the tree.
  struct Frame {
    int left;
    int16_t def, rep;
    std::vector<std::string> path;
  };
  std::vector<Frame> st{{s[0].num_children, 0, 0, {}}};
  for (size_t i = 1; i < s.size(); ++i) {
    while (st.back().left == 0) st.pop_back();
    --st.back().left;
    Frame f{0, st.back().def, st.back().rep, st.back().path};
    if (s[i].repetition == R::kOptional) ++f.def;
    if (s[i].repetition == R::kRepeated) {
      ++f.def;
      ++f.rep;
    }
    f.path.push_back(s[i].name);
    if (s[i].num_children > 0) {
      f.left = s[i].num_children;
      st.push_back(f);
      continue;
    }
    pq::ColumnDescriptor d;
    d.path = f.path;
    for (const auto& p : f.path) d.dotted_path += (d.dotted_path.empty() ? "" : ".") + p;
    d.physical_type = s[i].type;
    d.repetition = s[i].repetition;
    d.max_definition_level = f.def;
    d.max_repetition_level = f.rep;
    d.schema_index = static_cast<int32_t>(i);
    m.columns.push_back(d);
  }
  return m;
}

// What a result is, recursively: lengths, null counts, offsets, leaf values.
void digest(const pq::ColumnArray::Impl& a, std::vector<std::optional<std::string>>* out) {
  out->push_back(std::to_string(a.length) + "/" + std::to_string(a.null_count) + "/" +
                 std::to_string(static_cast<int>(a.nest)));
  if (a.nest == pq::ColumnArray::Impl::Nest::kNone) {
    for (auto& v : pq::detail::column_values(a)) out->push_back(std::move(v));
    return;
  }
  if (a.nest != pq::ColumnArray::Impl::Nest::kStruct) {
    const auto* o = a.values.as<int32_t>();
    for (int64_t i = 0; i <= a.length; ++i) out->push_back(std::to_string(o[i]));
    for (const auto& c : a.children) {
      if (c->length != o[a.length]) std::abort();  // a list's child holds its elements
    }
  } else {
    for (const auto& c : a.children) {
      if (c->length != a.length) std::abort();
    }
  }
  for (const auto& c : a.children) digest(*c, out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const pq::FileMetaData meta = shape_meta(data[0] % 6);
  const int32_t codecs[] = {0, 1, 2, 6};
  const int32_t codec = codecs[data[1] % 4];
  const int64_t rows = data[2] | (data[3] << 8);
  auto shape = pq::nested_field(meta, 0);
  if (!shape.ok()) std::abort();  // every shape above is one Arrow reads
  std::vector<const pq::NestedNode*> leaves;
  std::vector<const pq::NestedNode*> todo{&*shape};
  while (!todo.empty()) {
    const pq::NestedNode* n = todo.back();
    todo.pop_back();
    if (n->kind == pq::NestedNode::Kind::kLeaf) leaves.push_back(n);
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) todo.push_back(&*it);
  }
  // Each leaf's chunk bytes: a 2-byte length, then the bytes.
  std::vector<std::pair<const uint8_t*, size_t>> chunks;
  size_t at = 4;
  for (size_t i = 0; i < leaves.size(); ++i) {
    size_t len = 0;
    if (at + 2 <= size) {
      len = std::min<size_t>(data[at] | (data[at + 1] << 8), size - at - 2);
      at += 2;
    }
    chunks.emplace_back(data + at, len);
    at += len;
  }
  pq::ColumnReadOptions o;
  o.max_page_values = 1 << 20;
  o.max_page_bytes = 1 << 24;
  o.budget = pqfast::MemoryBudget::make(32 << 20);

  pqfast::fuzz::same_on_every_level([&]() -> pqfast::Result<pqfast::fuzz::Values> {
    std::vector<pq::LeafChunk> got;
    for (size_t i = 0; i < leaves.size(); ++i) {
      const auto& d = meta.columns[static_cast<size_t>(leaves[i]->leaf)];
      auto c = pq::decode_leaf_chunk(chunks[i].first, chunks[i].second, 0, d, codec, rows, leaves[i]->slot_def, 0, o);
      if (!c.ok()) return c.error();
      got.push_back(std::move(c).value());
    }
    auto r = pq::assemble_nested(*shape, got, rows);
    if (!r.ok()) return r.error();
    if (r->length() != rows) std::abort();
    pqfast::fuzz::Values vals;
    digest(*r->impl(), &vals);
    return vals;
  });
  return 0;
}
