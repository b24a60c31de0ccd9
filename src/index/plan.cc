// plan_index: which chunks get a filter, their bytes, and the new footer.
//
// The appended tail is laid out as
//   [filter 0][filter 1]...[new FileMetaData][footer length: u32 LE]["PAR1"]
// starting at the old end of the file, so each bloom_filter_offset is
// old_size + the filter's position in the tail. The new footer is checked by
// parsing it back before anything is written.
#include <algorithm>
#include <atomic>
#include <thread>
#include <cstring>
#include <optional>
#include <string>

#include "index/chunk_filter.h"
#include "index/footer_patch.h"
#include "index/page_index_build.h"
#include "parquet/internal.h"
#include "parquet/thrift_util.h"
#include "pqfast/index.h"

namespace pqfast::parquet {

const char* index_outcome_name(IndexOutcome o) {
  switch (o) {
    case IndexOutcome::kIndexed: return "indexed";
    case IndexOutcome::kUnchanged: return "unchanged";
    case IndexOutcome::kConflict: return "conflict";
  }
  return "?";
}

namespace {

// Checks the new footer says what the old one said plus the filters.
Status verify_new_footer(const FileMetaData& old_meta, const std::vector<uint8_t>& footer, uint64_t offset,
                         const std::vector<index::ChunkLocation>& filters,
                         const std::vector<index::ChunkLocation>& offset_indexes,
                         const std::vector<index::ChunkLocation>& column_indexes, const ParseLimits& limits,
                         const std::string& name) {
  auto meta = parse_file_metadata(footer.data(), footer.size(), offset, limits);
  if (!meta.ok()) return prefix_error(name + ": the new footer does not parse", meta.error());
  bool same = meta->row_groups.size() == old_meta.row_groups.size() && meta->num_rows == old_meta.num_rows &&
              meta->columns.size() == old_meta.columns.size();
  for (size_t i = 0; same && i < meta->row_groups.size(); ++i) {
    same = meta->row_groups[i].columns.size() == old_meta.row_groups[i].columns.size();
  }
  for (const auto& f : filters) {
    if (!same) break;
    const ColumnChunk& c = meta->row_groups[static_cast<size_t>(f.row_group)].columns[static_cast<size_t>(f.leaf)];
    same = c.bloom_filter_offset == f.offset && c.bloom_filter_length == f.length;
  }
  for (const auto& f : offset_indexes) {
    if (!same) break;
    const ColumnChunk& c = meta->row_groups[static_cast<size_t>(f.row_group)].columns[static_cast<size_t>(f.leaf)];
    same = c.offset_index_offset == f.offset && c.offset_index_length == f.length;
  }
  for (const auto& f : column_indexes) {
    if (!same) break;
    const ColumnChunk& c = meta->row_groups[static_cast<size_t>(f.row_group)].columns[static_cast<size_t>(f.leaf)];
    same = c.column_index_offset == f.offset && c.column_index_length == f.length;
  }
  if (!same) {
    return make_error(ErrorCode::kCorrupt, name + ": the re-encoded footer does not match the old one "
                                                  "(a column chunk without ColumnMetaData?)");
  }
  return Status::Ok();
}

// What one chunk contributes: its info, and the bytes of its new filter
// and page indexes (empty when not built; a dry run keeps only the filter's
// size).
struct ChunkWork {
  ChunkIndexInfo info;
  std::vector<uint8_t> filter;
  uint64_t filter_size = 0;
  std::vector<uint8_t> offset_index;
  std::vector<uint8_t> column_index;
};

Result<ChunkWork> build_chunk(RandomAccessFile& file, const FileMetaData& meta, const FooterBytes& footer,
                              const TailBuffer& tail, int g, int leaf, const IndexOptions& options) {
  ChunkWork w;
  ChunkIndexInfo& info = w.info;
  info.row_group = g;
  info.leaf = leaf;
  info.reason = index::unsupported_reason(meta, g, leaf);
  if (!info.reason.empty()) {
    info.action = ChunkAction::kUnsupported;
    return w;
  }
  const RowGroup& rg = meta.row_groups[static_cast<size_t>(g)];
  const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
  const bool need_filter = c.bloom_filter_offset < 0;
  const bool need_page_index =
      options.page_index && c.offset_index_offset < 0 && c.column_index_offset < 0 && rg.num_rows > 0;
  const uint8_t* es = nullptr;
  size_t es_len = 0;
  if (c.encoding_stats_offset >= 0 && static_cast<uint64_t>(c.encoding_stats_offset) >= footer.start &&
      static_cast<uint64_t>(c.encoding_stats_offset) - footer.start + static_cast<uint64_t>(c.encoding_stats_length) <=
          footer.len) {
    es = footer.data + (static_cast<uint64_t>(c.encoding_stats_offset) - footer.start);
    es_len = static_cast<size_t>(c.encoding_stats_length);
  }
  // Decode the pages once when the page index needs them (the filter is
  // then hashed from them too); otherwise the filter reads what it needs
  // (the dictionary page alone where the footer or the page headers prove
  // every data page dictionary-encoded).
  std::optional<index::DecodedChunk> decoded;
  if (need_page_index) {
    PQFAST_ASSIGN_OR_RETURN(decoded, index::read_decoded_chunk(file, meta, g, leaf));
  }
  if (need_filter) {
    PQFAST_ASSIGN_OR_RETURN(index::ChunkFilter f,
                            index::build_chunk_filter(file, meta, g, leaf, es, es_len, options, &tail,
                                                      decoded ? &*decoded : nullptr));
    info.action = ChunkAction::kIndexed;
    info.from_dictionary = f.from_dictionary;
    info.ndv = f.ndv;
    info.filter_bytes = static_cast<uint32_t>(f.size);
    w.filter = std::move(f.bytes);
    w.filter_size = f.size;
  } else {
    info.action = ChunkAction::kHadFilter;
    info.bloom_filter_offset = c.bloom_filter_offset;
  }
  if (need_page_index) {
    const std::string where = file.name() + ": row group " + std::to_string(g) + ", column '" +
                              meta.columns[static_cast<size_t>(leaf)].dotted_path + "'";
    PQFAST_ASSIGN_OR_RETURN(index::ChunkPageIndex pi,
                            index::build_chunk_page_index(decoded->bytes.data(), decoded->bytes.size(),
                                                          decoded->offset, meta.columns[static_cast<size_t>(leaf)],
                                                          rg.num_rows, decoded->values, where));
    w.offset_index = index::serialize_offset_index(pi.offset_index);
    info.offset_index = true;
    if (pi.column_index) {
      w.column_index = index::serialize_column_index(*pi.column_index);
      info.column_index = true;
    }
  }
  return w;
}

}  // namespace

Result<IndexPlan> plan_index(RandomAccessFile& file, const IndexOptions& options) {
  if (!(options.fpp > 0.0 && options.fpp < 1.0)) {
    return make_error(ErrorCode::kInvalidArgument, "fpp must be in (0, 1), got " + std::to_string(options.fpp));
  }
  if (options.columns.empty()) return make_error(ErrorCode::kInvalidArgument, "no columns to index");
  IndexPlan plan;
  plan.old_size = file.size();
  ReadStats stats;
  TailBuffer tail;
  // One column (the usual request): only its chunks are decoded, from the
  // old footer and from the new one when it is checked; the other columns'
  // chunks cost a skip each, not a decode (a wide table's footer is mostly
  // theirs). The leaf found is the same: both match the exact dotted path.
  ParseLimits limits = options.limits;
  if (options.columns.size() == 1 && limits.only_column.empty()) limits.only_column = options.columns.front();
  PQFAST_ASSIGN_OR_RETURN(FooterBytes footer, read_footer_bytes(file, limits, &stats, &tail));
  auto parsed = parse_file_metadata(footer.data, footer.len, footer.start, limits);
  if (!parsed.ok()) return prefix_error(file.name(), parsed.error());
  const FileMetaData& meta = *parsed;
  if (meta.plaintext_footer_encrypted) {
    return make_error(ErrorCode::kUnsupported, file.name() + ": encrypted file (plaintext footer), not indexed");
  }
  std::vector<int> leaves;
  for (const std::string& col : options.columns) {
    const int leaf = meta.find_column(col);
    if (leaf < 0) return prefix_error(file.name(), missing_column_error(meta, col));
    if (std::find(leaves.begin(), leaves.end(), leaf) == leaves.end()) leaves.push_back(leaf);
  }

  // The chunks to look at, in (row group, leaf) order; each is built on its
  // own (in parallel with options.threads), then laid out in this order, so
  // the bytes do not depend on the thread count.
  std::vector<std::pair<int, int>> tasks;
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    for (int leaf : leaves) tasks.emplace_back(static_cast<int>(g), leaf);
  }
  std::vector<std::optional<Result<ChunkWork>>> done(tasks.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const size_t i = next.fetch_add(1);
      if (i >= tasks.size()) return;
      done[i] = build_chunk(file, meta, footer, tail, tasks[i].first, tasks[i].second, options);
      if (!done[i]->ok()) failed = true;
    }
  };
  const size_t n_threads = std::min<size_t>(options.threads > 1 ? static_cast<size_t>(options.threads) : 1,
                                            tasks.size());
  if (n_threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n_threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }

  // Offsets first (filters, then column indexes, then offset indexes, as
  // writers put all ColumnIndex before all OffsetIndex), bytes last: the
  // tail is assembled once at its final size, and not at all in a dry run,
  // which only reports its size.
  std::vector<index::ChunkLocation> locations, oi_locations, ci_locations;
  std::vector<const std::vector<uint8_t>*> pieces;  // filters, column indexes, offset indexes
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!done[i]) continue;  // not started: an earlier failure stopped the workers
    if (!done[i]->ok()) return done[i]->error();
  }
  uint64_t at = plan.old_size;
  for (size_t i = 0; i < tasks.size(); ++i) {
    ChunkWork& w = done[i]->value();
    ChunkIndexInfo& info = w.info;
    switch (info.action) {
      case ChunkAction::kUnsupported: ++plan.chunks_unsupported; break;
      case ChunkAction::kHadFilter: ++plan.chunks_had_filter; break;
      case ChunkAction::kIndexed:
        info.bloom_filter_offset = static_cast<int64_t>(at);
        locations.push_back({info.row_group, info.leaf, info.bloom_filter_offset,
                             static_cast<int32_t>(w.filter_size)});
        pieces.push_back(&w.filter);
        at += w.filter_size;
        ++plan.chunks_indexed;
        if (info.from_dictionary) ++plan.chunks_from_dictionary;
        break;
    }
    if (info.offset_index) {
      oi_locations.push_back({info.row_group, info.leaf, 0, static_cast<int32_t>(w.offset_index.size())});
      ++plan.offset_indexes;
    }
    if (info.column_index) {
      ci_locations.push_back({info.row_group, info.leaf, 0, static_cast<int32_t>(w.column_index.size())});
      ++plan.column_indexes;
    }
    plan.chunks.push_back(info);
  }
  if (locations.empty() && oi_locations.empty()) return plan;
  for (auto* which : {&ci_locations, &oi_locations}) {
    for (index::ChunkLocation& l : *which) {
      l.offset = static_cast<int64_t>(at);
      at += static_cast<uint64_t>(l.length);
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (done[i]->value().info.column_index) pieces.push_back(&done[i]->value().column_index);
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (done[i]->value().info.offset_index) pieces.push_back(&done[i]->value().offset_index);
  }
  auto footer_bytes =
      index::patch_footer(footer.data, footer.len, footer.start, locations, oi_locations, ci_locations);
  if (!footer_bytes.ok()) return prefix_error(file.name(), footer_bytes.error());
  if (footer_bytes->size() > 0xffffffffu) {
    return make_error(ErrorCode::kLimitExceeded, file.name() + ": the new footer exceeds 4 GiB");
  }
  // The check guards the bytes written; a dry run writes none (and would
  // parse a second footer per file for nothing).
  if (!options.dry_run) {
    PQFAST_RETURN_IF_ERROR(verify_new_footer(meta, *footer_bytes, at, locations, oi_locations, ci_locations, limits,
                                             file.name()));
  }
  const uint32_t flen = static_cast<uint32_t>(footer_bytes->size());
  const uint8_t trailer[8] = {static_cast<uint8_t>(flen), static_cast<uint8_t>(flen >> 8),
                              static_cast<uint8_t>(flen >> 16), static_cast<uint8_t>(flen >> 24),
                              'P', 'A', 'R', '1'};
  plan.tail_size = at - plan.old_size + footer_bytes->size() + sizeof(trailer);
  if (options.dry_run) return plan;
  std::vector<uint8_t>& out = plan.tail;
  out.reserve(static_cast<size_t>(plan.tail_size));
  for (const std::vector<uint8_t>* piece : pieces) out.insert(out.end(), piece->begin(), piece->end());
  out.insert(out.end(), footer_bytes->begin(), footer_bytes->end());
  out.insert(out.end(), trailer, trailer + 8);
  return plan;
}

}  // namespace pqfast::parquet
