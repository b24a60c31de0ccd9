// prune()'s result table built in C++: one record batch (path, row_group,
// verdict, reason; a row per file x row group) exported through the Arrow C
// Data Interface. pyarrow imports it without a copy, which on a single
// lookup costs less than assembling the table from numpy arrays in Python.
#include "verdict_batch.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrow_capsules.h"
#include "pqfast/arrow_c_data.h"

namespace pqfast::py {

namespace {

namespace pq = pqfast::parquet;

constexpr int kColumns = 4;
constexpr const char* kNames[kColumns] = {"path", "row_group", "verdict", "reason"};
constexpr const char* kFormats[kColumns] = {"u", "i", "u", "u"};  // utf8, int32, utf8, utf8

// The batch's buffers, shared by the struct array and its children: an
// importer may move a child out and release the parent before the child.
struct Buffers {
  std::vector<int32_t> offsets[kColumns];  // string columns: rows + 1 offsets
  std::string bytes[kColumns];             // string columns: the UTF-8 bytes
  std::vector<int32_t> row_group;
};

struct ChildPrivate {
  std::shared_ptr<const Buffers> buffers;
  const void* pointers[3] = {nullptr, nullptr, nullptr};  // validity (none), then data
};

struct ParentPrivate {
  std::shared_ptr<const Buffers> buffers;
  const void* validity = nullptr;
  ArrowArray children[kColumns];
  ArrowArray* child_pointers[kColumns];
};

void release_child(ArrowArray* a) {
  delete static_cast<ChildPrivate*>(a->private_data);
  a->release = nullptr;
}

void release_parent(ArrowArray* a) {
  auto* p = static_cast<ParentPrivate*>(a->private_data);
  for (ArrowArray* c : p->child_pointers) {
    if (c->release) c->release(c);  // not moved out by the importer
  }
  delete p;
  a->release = nullptr;
}

struct SchemaPrivate {
  ArrowSchema children[kColumns];
  ArrowSchema* child_pointers[kColumns];
};

void release_child_schema(ArrowSchema* s) { s->release = nullptr; }  // static strings only

void release_schema(ArrowSchema* s) {
  auto* p = static_cast<SchemaPrivate*>(s->private_data);
  for (ArrowSchema* c : p->child_pointers) {
    if (c->release) c->release(c);
  }
  delete p;
  s->release = nullptr;
}

// The reason column's text for one row (pqfast._assemble._reason says the same).
std::string reason_text(pq::Verdict v, uint32_t by_stats, uint32_t maybe, size_t nv) {
  switch (v) {
    case pq::Verdict::kAbsentByStats: return "min/max";
    case pq::Verdict::kAbsentByBloom: return by_stats ? "min/max + bloom filter" : "bloom filter";
    case pq::Verdict::kMaybe:
      return "bloom filter: " + std::to_string(maybe) + " of " + std::to_string(nv) + " values may be present";
    case pq::Verdict::kNoFilter:
      return "no bloom filter; min/max keep " + std::to_string(maybe) + " of " + std::to_string(nv) + " values";
  }
  return "";
}

void export_schema(ArrowSchema* out) {
  auto* p = new SchemaPrivate;
  for (int i = 0; i < kColumns; ++i) {
    p->children[i] = ArrowSchema{kFormats[i], kNames[i], nullptr, ARROW_FLAG_NULLABLE, 0, nullptr, nullptr,
                                 release_child_schema, nullptr};
    p->child_pointers[i] = &p->children[i];
  }
  *out = ArrowSchema{"+s", "", nullptr, 0, kColumns, p->child_pointers, nullptr, release_schema, p};
}

void export_array(std::shared_ptr<const Buffers> b, int64_t rows, ArrowArray* out) {
  auto* p = new ParentPrivate;
  p->buffers = b;
  for (int i = 0; i < kColumns; ++i) {
    auto* c = new ChildPrivate;
    c->buffers = b;
    const bool strings = i != 1;
    if (strings) {
      c->pointers[1] = b->offsets[i].data();
      c->pointers[2] = b->bytes[i].data();
    } else {
      c->pointers[1] = b->row_group.data();
    }
    p->children[i] = ArrowArray{rows, 0, 0, strings ? 3 : 2, 0, c->pointers, nullptr, nullptr, release_child, c};
    p->child_pointers[i] = &p->children[i];
  }
  *out = ArrowArray{rows, 0, 0, 1, kColumns, &p->validity, p->child_pointers, nullptr, release_parent, p};
}

}  // namespace

std::optional<nb::tuple> verdict_batch(const std::vector<pq::FilePruneResult>& rs, size_t nv) {
  enum { kPath = 0, kVerdict = 2, kReason = 3 };
  // Pass 1: sizes, and each row's reason as an index into the few distinct
  // texts (neighbouring row groups mostly share theirs: formatted once).
  std::vector<std::string> reasons;
  std::vector<uint32_t> reason_of;
  uint64_t bytes[kColumns] = {0, 0, 0, 0};
  size_t rows = 0;
  for (const auto& r : rs) {
    if (r.ok) rows += r.row_groups.size();
  }
  reason_of.reserve(rows);
  pq::Verdict last_v{};
  uint32_t last_bs = 0, last_mb = 0;
  for (const auto& r : rs) {
    if (!r.ok) continue;
    bytes[kPath] += uint64_t{r.path.size()} * r.row_groups.size();
    for (const auto& g : r.row_groups) {
      bytes[kVerdict] += std::strlen(pq::verdict_name(g.verdict));
      if (reasons.empty() || g.verdict != last_v || g.excluded_by_stats != last_bs || g.maybe != last_mb) {
        reasons.push_back(reason_text(g.verdict, g.excluded_by_stats, g.maybe, nv));
        last_v = g.verdict;
        last_bs = g.excluded_by_stats;
        last_mb = g.maybe;
      }
      reason_of.push_back(static_cast<uint32_t>(reasons.size() - 1));
      bytes[kReason] += reasons.back().size();
    }
  }
  // Arrow's utf8 has 32-bit offsets.
  if (std::max({bytes[kPath], bytes[kVerdict], bytes[kReason]}) > static_cast<uint64_t>(INT32_MAX)) {
    return std::nullopt;
  }
  // Pass 2: the buffers.
  auto b = std::make_shared<Buffers>();
  for (int c : {kPath, kVerdict, kReason}) {
    b->offsets[c].reserve(rows + 1);
    b->offsets[c].push_back(0);
    b->bytes[c].reserve(bytes[c]);
  }
  b->row_group.reserve(rows);
  auto add = [&b](int c, std::string_view s) {
    b->bytes[c].append(s);
    b->offsets[c].push_back(static_cast<int32_t>(b->bytes[c].size()));
  };
  size_t k = 0;
  for (const auto& r : rs) {
    if (!r.ok) continue;
    for (const auto& g : r.row_groups) {
      add(kPath, r.path);
      b->row_group.push_back(g.row_group);
      add(kVerdict, pq::verdict_name(g.verdict));
      add(kReason, reasons[reason_of[k++]]);
    }
  }
  auto* schema = new ArrowSchema;
  auto* array = new ArrowArray;
  export_schema(schema);
  export_array(std::move(b), static_cast<int64_t>(rows), array);
  return to_capsules(schema, array);
}

}  // namespace pqfast::py
