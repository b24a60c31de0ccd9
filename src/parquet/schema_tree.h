// Internal: the walk over a flattened schema (depth-first, each group
// followed by its num_children children) that finds the leaf columns and
// their definition/repetition levels. The footer parser (build_leaves) and
// the pruning walk (prune_footer.cc) share it, so both accept the same trees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::parquet::detail {

enum class SchemaFault : uint8_t {
  kNone,
  kNoElements,            // an empty schema
  kNegativeRootChildren,  // the root's num_children is negative
  kTooFewElements,        // num_children announce more elements than there are
  kTooDeep,               // groups nested deeper than 1000 levels
  kChildrenPastEnd,       // element `index` announces more children than follow it
  kLeafWithoutType,       // element `index` has neither children nor a type
  kLeafRejected,          // on_leaf refused element `index`
  kTrailingElements,      // the tree ends before element `index`, not at the end
};

struct SchemaWalk {
  SchemaFault fault = SchemaFault::kNone;
  size_t index = 0;
};

// Walks `elems` (elems[0] the root): for each leaf in order,
// on_leaf(index, parents, max_def, max_rep) -> bool, where `parents` are the
// names (name_of(index)) of its enclosing groups, root excluded. A group
// without children and with a repetition (an empty struct) is no leaf.
template <class NameOf, class OnLeaf>
SchemaWalk walk_schema_tree(const std::vector<SchemaElement>& elems, NameOf&& name_of, OnLeaf&& on_leaf) {
  if (elems.empty()) return {SchemaFault::kNoElements, 0};
  if (elems[0].num_children < 0) return {SchemaFault::kNegativeRootChildren, 0};
  struct Frame {
    int32_t remaining;
    int16_t def, rep;
  };
  std::vector<Frame> stack;
  std::vector<std::string_view> parents;
  stack.push_back({elems[0].num_children, 0, 0});
  size_t i = 1;
  while (!stack.empty()) {
    if (stack.back().remaining == 0) {
      stack.pop_back();
      if (!parents.empty()) parents.pop_back();
      continue;
    }
    if (i >= elems.size()) return {SchemaFault::kTooFewElements, i};
    --stack.back().remaining;
    const SchemaElement& e = elems[i];
    int16_t def = stack.back().def, rep = stack.back().rep;
    if (e.repetition == Repetition::kOptional) ++def;
    if (e.repetition == Repetition::kRepeated) { ++def; ++rep; }
    if (e.num_children > 0) {
      if (stack.size() > 1000) return {SchemaFault::kTooDeep, i};
      if (static_cast<size_t>(e.num_children) > elems.size() - i - 1) return {SchemaFault::kChildrenPastEnd, i};
      parents.push_back(name_of(i));
      stack.push_back({e.num_children, def, rep});
    } else if (!e.has_type) {
      if (e.num_children != 0 || e.repetition == Repetition::kUnset) return {SchemaFault::kLeafWithoutType, i};
    } else if (!on_leaf(i, parents, def, rep)) {
      return {SchemaFault::kLeafRejected, i};
    }
    ++i;
  }
  if (i != elems.size()) return {SchemaFault::kTrailingElements, i};
  return {};
}

}  // namespace pqfast::parquet::detail
