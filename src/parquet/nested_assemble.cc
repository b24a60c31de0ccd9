// A nested field's Arrow arrays from its leaves' levels. Each node takes its
// slots, validity and list offsets from the levels of the first leaf below
// it: slots are the entries with def >= slot_def and rep <= slot_rep,
// validity is def >= def_valid over those slots, and a list's offsets count
// its child's slots before each of its own. All of it works on 64-entry
// masks (levels family: compare, popcount, bit compression).
#include <memory>
#include <string>
#include <vector>

#include "levels/kernels.h"
#include "parquet/decode.h"
#include "parquet/memory_scope.h"
#include "parquet/thrift_util.h"
#include "pqfast/parquet_nested.h"

namespace pqfast::parquet {

using namespace detail;  // NOLINT

namespace {

using Impl = ColumnArray::Impl;

class Assembler {
 public:
  Assembler(std::vector<LeafChunk>& leaves, const std::string& where)
      : leaves_(leaves), where_(where), k_(levels::active_level_kernels()) {}

  Result<std::unique_ptr<Impl>> build(const NestedNode& node, size_t* next_leaf) {
    if (*next_leaf >= leaves_.size()) return make_error(ErrorCode::kInvalidArgument, where_ + ": too few leaf chunks");
    if (node.kind == NestedNode::Kind::kLeaf) {
      LeafChunk& leaf = leaves_[(*next_leaf)++];
      std::unique_ptr<Impl> impl = std::make_unique<Impl>(std::move(*leaf.values.impl()));
      impl->name = node.name;
      impl->nullable = node.nullable;
      return impl;
    }
    const LeafChunk& first = leaves_[*next_leaf];
    const size_t n = static_cast<size_t>(first.levels);
    const size_t words = (n + 63) / 64;
    std::vector<uint64_t> slots(words), valid(words);
    slot_mask(first, node.slot_def, node.slot_rep, slots.data());
    ge(first.def, n, node.def_valid, valid.data());
    for (size_t w = 0; w < words; ++w) valid[w] &= slots[w];
    const int64_t length = k_.count_bits(slots.data(), words);
    const int64_t set = k_.count_bits(valid.data(), words);
    auto impl = std::make_unique<Impl>();
    impl->name = node.name;
    impl->nullable = node.nullable;
    impl->length = length;
    impl->null_count = length - set;
    if (impl->null_count > 0) {
      impl->validity.resize_zeroed(static_cast<size_t>((length + 7) / 8));
      k_.compress_bits(valid.data(), slots.data(), words, impl->validity.data(), 0);
    }
    int64_t child_length = length;
    switch (node.kind) {
      case NestedNode::Kind::kStruct: impl->nest = Impl::Nest::kStruct; break;
      case NestedNode::Kind::kList:
      case NestedNode::Kind::kMap: {
        impl->nest = node.kind == NestedNode::Kind::kMap ? Impl::Nest::kMap : Impl::Nest::kList;
        if (node.children.size() != 1) return make_error(ErrorCode::kInvalidArgument, where_ + ": a list needs one child");
        std::vector<uint64_t> child(words);
        slot_mask(first, node.children[0].slot_def, node.children[0].slot_rep, child.data());
        PQFAST_ASSIGN_OR_RETURN(child_length, offsets(slots.data(), child.data(), words, length, impl->values));
        break;
      }
      case NestedNode::Kind::kLeaf: break;
    }
    for (const NestedNode& c : node.children) {
      const size_t leaf_at = *next_leaf;
      PQFAST_ASSIGN_OR_RETURN(std::unique_ptr<Impl> ci, build(c, next_leaf));
      if (ci->length != child_length) {
        return make_error(ErrorCode::kCorrupt,
                          where_ + ": column '" + leaf_name(leaf_at) + "' gives '" + c.name + "' " +
                              std::to_string(ci->length) + " entries where its parent '" + node.name + "' has " +
                              std::to_string(child_length));
      }
      impl->children.push_back(std::move(ci));
    }
    return impl;
  }

 private:
  std::string leaf_name(size_t i) const {
    return i < leaves_.size() ? std::to_string(i) : std::string("?");
  }

  // Bits of levels >= t (levels null: every level is 0).
  void ge(const uint8_t* levels, size_t n, int t, uint64_t* out) const {
    const size_t words = (n + 63) / 64;
    if (levels == nullptr || t == 0) {
      const uint64_t all = (levels == nullptr && t > 0) ? 0 : ~uint64_t{0};
      for (size_t w = 0; w < words; ++w) out[w] = all;
      if (n % 64 && words) out[words - 1] &= (uint64_t{1} << (n % 64)) - 1;
      return;
    }
    k_.ge_mask(levels, n, static_cast<uint8_t>(t), out);
  }

  // Entries that make a slot: def >= slot_def and rep <= slot_rep.
  void slot_mask(const LeafChunk& l, int slot_def, int slot_rep, uint64_t* out) const {
    const size_t n = static_cast<size_t>(l.levels);
    const size_t words = (n + 63) / 64;
    ge(l.def, n, slot_def, out);
    if (l.rep != nullptr) {
      std::vector<uint64_t> deeper(words);
      k_.ge_mask(l.rep, n, static_cast<uint8_t>(slot_rep + 1), deeper.data());  // rep > slot_rep
      for (size_t w = 0; w < words; ++w) out[w] &= ~deeper[w];
    }
  }

  // A list's int32 offsets: before each of its slots, the child slots so far.
  Result<int64_t> offsets(const uint64_t* slots, const uint64_t* child, size_t words, int64_t length, ReadBuffer& out) {
    out.resize(static_cast<size_t>(length + 1) * 4);
    const int64_t total = k_.list_offsets(slots, child, words, out.as<int32_t>());
    if (total < 0) {
      return make_error(ErrorCode::kUnsupported, where_ + ": a row group's list holds more than 2^31-1 elements");
    }
    return total;
  }

  std::vector<LeafChunk>& leaves_;
  const std::string& where_;
  const levels::LevelKernels& k_;
};

void leaf_nodes(const NestedNode& n, std::vector<const NestedNode*>* out) {
  if (n.kind == NestedNode::Kind::kLeaf) {
    out->push_back(&n);
    return;
  }
  for (const auto& c : n.children) leaf_nodes(c, out);
}

}  // namespace

Result<ColumnArray> assemble_nested(const NestedNode& shape, std::vector<LeafChunk>& leaves, int64_t num_rows,
                                    const std::string& where) {
  const std::string at = where.empty() ? "column '" + shape.name + "'" : where;
  if (static_cast<int>(leaves.size()) != shape.leaf_count()) {
    return make_error(ErrorCode::kInvalidArgument, at + ": " + std::to_string(leaves.size()) + " leaf chunks for " +
                                                       std::to_string(shape.leaf_count()) + " leaves");
  }
  return guard_memory(nullptr, at, [&]() -> Result<ColumnArray> {
    Assembler a(leaves, at);
    size_t next = 0;
    PQFAST_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl, a.build(shape, &next));
    if (impl->length != num_rows) {
      return make_error(ErrorCode::kCorrupt, at + ": the levels hold " + std::to_string(impl->length) +
                                                 " records where the row group has " + std::to_string(num_rows) + " rows");
    }
    return ColumnArray(std::move(impl));
  });
}

Result<ColumnArray> read_nested_chunk(RandomAccessFile& file, const FileMetaData& meta, int row_group,
                                      const NestedNode& shape, const std::vector<ColumnReadOptions>& leaf_options) {
  std::vector<const NestedNode*> nodes;
  leaf_nodes(shape, &nodes);
  if (!leaf_options.empty() && leaf_options.size() != nodes.size()) {
    return make_error(ErrorCode::kInvalidArgument, "read_nested_chunk: " + std::to_string(leaf_options.size()) +
                                                       " leaf options for " + std::to_string(nodes.size()) + " leaves");
  }
  if (row_group < 0 || static_cast<size_t>(row_group) >= meta.row_groups.size()) {
    return make_error(ErrorCode::kInvalidArgument, file.name() + ": no row group " + std::to_string(row_group));
  }
  std::vector<LeafChunk> leaves;
  const ColumnReadOptions none;
  for (size_t i = 0; i < nodes.size(); ++i) {
    PQFAST_ASSIGN_OR_RETURN(LeafChunk c, read_leaf_chunk(file, meta, row_group, nodes[i]->leaf, nodes[i]->slot_def,
                                                         leaf_options.empty() ? none : leaf_options[i]));
    leaves.push_back(std::move(c));
  }
  return assemble_nested(shape, leaves, meta.row_groups[static_cast<size_t>(row_group)].num_rows,
                         file.name() + ": row group " + std::to_string(row_group) + ", column '" + shape.name + "'");
}

}  // namespace pqfast::parquet
