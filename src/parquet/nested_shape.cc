// The Arrow tree of a nested field, as Arrow C++ (parquet/arrow/schema.cc)
// derives it from the Parquet schema, with each node's level thresholds.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "pqfast/parquet_nested.h"
#include "parquet/thrift_util.h"

namespace pqfast::parquet {

namespace {

constexpr int32_t kConvertedMap = 1, kConvertedMapKeyValue = 2, kConvertedList = 3;

// Levels deeper than a byte are not read (levels are kept as uint8).
constexpr int kMaxLevel = 255;

class ShapeBuilder {
 public:
  explicit ShapeBuilder(const FileMetaData& meta) : meta_(meta), s_(meta.schema) {
    for (size_t k = 0; k < meta.columns.size(); ++k) leaf_of_[meta.columns[k].schema_index] = static_cast<int>(k);
  }

  // Element i (not yet counted in cum_def / cum_rep) with the slot
  // thresholds of the nearest enclosing repeated level.
  Result<NestedNode> node_of(size_t i, int cum_def, int cum_rep, int slot_def, int slot_rep) {
    const SchemaElement& e = s_[i];
    if (e.repetition == Repetition::kRepeated) {
      if (is_list(e)) return unsupported(i, "LIST-annotated groups must not be repeated");
      // A repeated field outside a LIST group: a non-null list of required
      // elements named as the field.
      const int d = cum_def + 1, r = cum_rep + 1;
      PQFAST_RETURN_IF_ERROR(check_depth(d, r, i));
      NestedNode list = make(NestedNode::Kind::kList, e.name, false, slot_def, slot_def, slot_rep);
      PQFAST_ASSIGN_OR_RETURN(NestedNode child, inner(i, d, r, d, r, false));
      list.children.push_back(std::move(child));
      return list;
    }
    const bool optional = e.repetition == Repetition::kOptional;
    const int d = cum_def + (optional ? 1 : 0);
    PQFAST_RETURN_IF_ERROR(check_depth(d, cum_rep, i));
    return inner(i, d, cum_rep, slot_def, slot_rep, optional);
  }

  // Children of element i: indexes in the flattened schema.
  Result<std::vector<size_t>> children_of(size_t i) {
    std::vector<size_t> out;
    size_t at = i + 1;
    for (int32_t k = 0; k < s_[i].num_children; ++k) {
      if (at >= s_.size()) return corrupt(i, "announces more children than the schema holds");
      out.push_back(at);
      PQFAST_ASSIGN_OR_RETURN(at, end_of(at));
    }
    return out;
  }

 private:
  // One past the last element of element i's subtree.
  Result<size_t> end_of(size_t i) {
    size_t at = i, pending = 1;
    while (pending > 0) {
      if (at >= s_.size()) return corrupt(i, "announces more children than the schema holds");
      if (s_[at].num_children < 0) return corrupt(at, "has a negative child count");
      pending += static_cast<size_t>(s_[at].num_children);
      --pending;
      ++at;
    }
    return at;
  }

  static NestedNode make(NestedNode::Kind kind, const std::string& name, bool nullable, int def_valid, int slot_def,
                         int slot_rep) {
    NestedNode n;
    n.kind = kind;
    n.name = name;
    n.nullable = nullable;
    n.def_valid = static_cast<int16_t>(def_valid);
    n.slot_def = static_cast<int16_t>(slot_def);
    n.slot_rep = static_cast<int16_t>(slot_rep);
    return n;
  }

  Error corrupt(size_t i, const std::string& what) const {
    return make_error(ErrorCode::kCorrupt, "schema element " + std::to_string(i) + " ('" +
                                               (i < s_.size() ? s_[i].name : std::string()) + "') " + what);
  }
  Error unsupported(size_t i, const std::string& what) const {
    return make_error(ErrorCode::kUnsupported, "column '" + s_[i].name + "': " + what);
  }
  Status check_depth(int d, int r, size_t i) const {
    if (d > kMaxLevel || r > kMaxLevel) return unsupported(i, "nesting deeper than 255 levels is not read");
    return Status::Ok();
  }

  static bool is_list(const SchemaElement& e) {
    return e.logical.kind == LogicalType::kList || e.converted_type == kConvertedList;
  }
  static bool is_map(const SchemaElement& e) {
    return e.logical.kind == LogicalType::kMap || e.converted_type == kConvertedMap ||
           e.converted_type == kConvertedMapKeyValue;
  }

  // Element i with its own repetition counted: d and r are the cumulative
  // levels at it; `nullable`: whether it is optional.
  Result<NestedNode> inner(size_t i, int d, int r, int slot_def, int slot_rep, bool nullable) {
    const SchemaElement& e = s_[i];
    // Arrow marks a node null wherever the levels stop above it, whether or
    // not the node itself is optional (a required struct in a null struct).
    const int def_valid = d;
    if (e.num_children == 0) {
      if (!e.has_type) return unsupported(i, "an empty group is not read");
      auto it = leaf_of_.find(static_cast<int32_t>(i));
      if (it == leaf_of_.end()) return corrupt(i, "is a leaf the footer does not list");
      NestedNode leaf = make(NestedNode::Kind::kLeaf, e.name, nullable, def_valid, slot_def, slot_rep);
      leaf.leaf = it->second;
      return leaf;
    }
    PQFAST_ASSIGN_OR_RETURN(std::vector<size_t> kids, children_of(i));
    if (is_list(e)) {
      if (kids.size() != 1) return unsupported(i, "LIST-annotated groups must have a single child");
      const size_t c = kids[0];
      const SchemaElement& ce = s_[c];
      if (ce.repetition != Repetition::kRepeated) {
        return unsupported(i, "non-repeated nodes in a LIST-annotated group are not supported");
      }
      const int dl = d + 1, rl = r + 1;
      PQFAST_RETURN_IF_ERROR(check_depth(dl, rl, c));
      NestedNode list = make(NestedNode::Kind::kList, e.name, nullable, def_valid, slot_def, slot_rep);
      NestedNode element;
      if (ce.num_children == 0) {
        // 2-level: the repeated primitive is the (required) element.
        PQFAST_ASSIGN_OR_RETURN(element, inner(c, dl, rl, dl, rl, false));
      } else {
        PQFAST_ASSIGN_OR_RETURN(std::vector<size_t> gk, children_of(c));
        // 3-level (list -> repeated group -> element) where the repeated
        // group has one field that is not itself repeated and is not named
        // as avro's ("array") or thrift's ("<list>_tuple") 2-level element.
        const bool three_level = gk.size() == 1 && s_[gk[0]].repetition != Repetition::kRepeated &&
                                 ce.name != "array" && ce.name != e.name + "_tuple";
        if (three_level) {
          PQFAST_ASSIGN_OR_RETURN(element, node_of(gk[0], dl, rl, dl, rl));
        } else {
          // 2-level: the repeated group is the (required) element.
          PQFAST_ASSIGN_OR_RETURN(element, inner(c, dl, rl, dl, rl, false));
        }
      }
      list.children.push_back(std::move(element));
      return list;
    }
    if (is_map(e)) {
      if (kids.size() != 1) return unsupported(i, "MAP-annotated groups must have a single child");
      const size_t kv = kids[0];
      const SchemaElement& ke = s_[kv];
      if (ke.repetition != Repetition::kRepeated || ke.num_children == 0) {
        return unsupported(i, "the child of a MAP-annotated group must be a repeated group");
      }
      PQFAST_ASSIGN_OR_RETURN(std::vector<size_t> kvk, children_of(kv));
      if (kvk.size() > 2) return unsupported(i, "a map's key_value group must have at most two children");
      if (s_[kvk[0]].repetition != Repetition::kRequired) {
        return unsupported(i, "Map keys must be annotated as required");
      }
      const int dl = d + 1, rl = r + 1;
      PQFAST_RETURN_IF_ERROR(check_depth(dl, rl, kv));
      if (kvk.size() == 1) {
        // A map without values: Arrow reads the keys as a list.
        NestedNode list = make(NestedNode::Kind::kList, e.name, nullable, def_valid, slot_def, slot_rep);
        PQFAST_ASSIGN_OR_RETURN(NestedNode key, node_of(kvk[0], dl, rl, dl, rl));
        list.children.push_back(std::move(key));
        return list;
      }
      NestedNode map = make(NestedNode::Kind::kMap, e.name, nullable, def_valid, slot_def, slot_rep);
      NestedNode entries = make(NestedNode::Kind::kStruct, e.name, false, dl, dl, rl);
      for (size_t k : kvk) {
        PQFAST_ASSIGN_OR_RETURN(NestedNode f, node_of(k, dl, rl, dl, rl));
        entries.children.push_back(std::move(f));
      }
      map.children.push_back(std::move(entries));
      return map;
    }
    NestedNode st = make(NestedNode::Kind::kStruct, e.name, nullable, def_valid, slot_def, slot_rep);
    for (size_t k : kids) {
      PQFAST_ASSIGN_OR_RETURN(NestedNode f, node_of(k, d, r, slot_def, slot_rep));
      st.children.push_back(std::move(f));
    }
    return st;
  }

  const FileMetaData& meta_;
  const std::vector<SchemaElement>& s_;
  std::unordered_map<int32_t, int> leaf_of_;
};

}  // namespace

int NestedNode::leaf_count() const {
  if (kind == Kind::kLeaf) return 1;
  int n = 0;
  for (const auto& c : children) n += c.leaf_count();
  return n;
}

void NestedNode::leaves(std::vector<int>* out) const {
  if (kind == Kind::kLeaf) {
    out->push_back(leaf);
    return;
  }
  for (const auto& c : children) c.leaves(out);
}

Result<NestedNode> nested_field(const FileMetaData& meta, int field) {
  if (meta.schema.empty()) return make_error(ErrorCode::kCorrupt, "the schema is empty");
  ShapeBuilder b(meta);
  PQFAST_ASSIGN_OR_RETURN(std::vector<size_t> top, b.children_of(0));
  if (field < 0 || static_cast<size_t>(field) >= top.size()) {
    return make_error(ErrorCode::kInvalidArgument, "no top-level field " + std::to_string(field));
  }
  return b.node_of(top[static_cast<size_t>(field)], 0, 0, 0, 0);
}

int top_level_field_of(const FileMetaData& meta, int leaf) {
  if (leaf < 0 || static_cast<size_t>(leaf) >= meta.columns.size()) return -1;
  // Root children in order: the field whose subtree holds the leaf's element.
  const int32_t si = meta.columns[static_cast<size_t>(leaf)].schema_index;
  int field = 0;
  size_t at = 1;
  const auto& s = meta.schema;
  const int32_t n = s.empty() ? 0 : s[0].num_children;
  for (int32_t k = 0; k < n && at < s.size(); ++k) {
    const size_t start = at;
    size_t pending = 1;
    while (pending > 0 && at < s.size()) {
      pending += static_cast<size_t>(std::max(s[at].num_children, 0));
      --pending;
      ++at;
    }
    if (si >= 0 && static_cast<size_t>(si) >= start && static_cast<size_t>(si) < at) return field;
    ++field;
  }
  return -1;
}

std::vector<TopLevelField> top_level_fields(const FileMetaData& meta) {
  std::vector<TopLevelField> out;
  const auto& s = meta.schema;
  const int32_t n = s.empty() ? 0 : s[0].num_children;
  size_t at = 1;
  size_t leaf = 0;  // leaves are numbered in schema order
  for (int32_t k = 0; k < n && at < s.size(); ++k) {
    TopLevelField f;
    f.name = s[at].name;
    f.group = s[at].num_children > 0 || !s[at].has_type;
    f.repetition = s[at].repetition;
    size_t pending = 1;
    while (pending > 0 && at < s.size()) {
      const int32_t kids = std::max(s[at].num_children, 0);
      if (kids == 0 && s[at].has_type) {
        if (leaf < meta.columns.size()) f.leaves.push_back(static_cast<int>(leaf));
        ++leaf;
      }
      pending += static_cast<size_t>(kids);
      --pending;
      ++at;
    }
    out.push_back(std::move(f));
  }
  return out;
}

bool is_nested_leaf(const FileMetaData& meta, int leaf) {
  if (leaf < 0 || static_cast<size_t>(leaf) >= meta.columns.size()) return false;
  const auto& c = meta.columns[static_cast<size_t>(leaf)];
  return c.max_repetition_level > 0 || c.path.size() != 1;
}

}  // namespace pqfast::parquet
