// Fuzz target: a serialized FileMetaData (the footer without its trailer),
// parsed in full and projected on its first and last leaf; every chunk's
// statistics then judged against a few values. Any input: a value or an error
// with a message, never a crash, a hang or an allocation beyond the input.
// The pruning walk (decode_prune_footer_fast) must agree with the checked
// parser wherever it accepts the bytes: it aborts otherwise.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "parquet/prune_footer.h"
#include "pqfast/parquet.h"

namespace pq = pqfast::parquet;

namespace {

void check_prune_walk(const uint8_t* data, size_t size, const std::string& column) {
  const pq::ParseLimits limits;
  auto fast = pq::decode_prune_footer_fast(data, size, column, limits);
  if (!fast) return;  // deferred: the checked parser decides
  auto checked = pq::decode_prune_footer_checked(data, size, 0, column, limits);
  if (!checked.ok() || !pq::prune_footer_difference(*fast, *checked).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_prune_walk(data, size, "id");  // a common name, whatever the schema
  auto m = pq::parse_file_metadata(data, size);
  if (!m.ok()) {
    if (m.error().message.empty()) std::abort();
    return 0;
  }
  if (m->columns.empty()) return 0;
  for (const auto& rg : m->row_groups) {
    if (rg.columns.size() != m->columns.size()) std::abort();
  }
  for (int leaf : {0, static_cast<int>(m->columns.size()) - 1}) {
    check_prune_walk(data, size, m->columns[leaf].dotted_path);
    pq::ParseLimits limits;
    limits.only_column = m->columns[leaf].dotted_path;
    auto p = pq::parse_file_metadata(data, size, 0, limits);
    if (!p.ok()) continue;  // a projection may skip past what the full parse reads
    for (size_t g = 0; g < p->row_groups.size() && g < m->row_groups.size(); ++g) {
      const auto& c = p->row_groups[g].columns[leaf];
      for (const std::string v : {std::string(), std::string(4, '\0'), std::string(8, '\x7f'), std::string("zz")}) {
        (void)pq::stats_exclude(*p, leaf, c, v);
      }
    }
  }
  return 0;
}
