// The scan engine (see pqfast/scan.h): per file, the pruner's verdicts
// (min/max and Bloom blocks, read before the whole footer), then per row
// group the footer's statistics, dictionaries, page indexes, the filter
// columns' pages, and the projected columns' pages for the selected rows.
#include "pqfast/scan.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <thread>

#include "parquet/bit_load.h"
#include "parquet/chunk_extent.h"
#include "parquet/decode.h"
#include "parquet/internal.h"
#include "parquet/read_buffer.h"
#include "parquet/stats_trust.h"
#include "parquet/thrift_util.h"
#include "pqfast/page_index.h"
#include "scan/dictionary_probe.h"
#include "scan/local_units.h"
#include "scan/metadata_cache.h"
#include "parquet/encodings.h"
#include "scan/parallel.h"
#include "scan/predicate.h"
#include "scan/row_ranges.h"
#include "scan/windowed.h"

namespace pqfast::parquet {

void ScanStats::add(const ScanStats& o) {
  files += o.files;
  files_read += o.files_read;
  row_groups += o.row_groups;
  row_groups_pruned_by_statistics += o.row_groups_pruned_by_statistics;
  row_groups_pruned_by_bloom += o.row_groups_pruned_by_bloom;
  row_groups_pruned_by_dictionary += o.row_groups_pruned_by_dictionary;
  row_groups_pruned_by_page_index += o.row_groups_pruned_by_page_index;
  row_groups_read += o.row_groups_read;
  row_groups_matched += o.row_groups_matched;
  pages_read += o.pages_read;
  pages_skipped += o.pages_skipped;
  bytes_read += o.bytes_read;
  reads += o.reads;
  rows += o.rows;
}

namespace scan {
namespace {

using detail::ReadBuffer;

// A read of bytes a staged reader has not fetched yet (see ErrorCode::kNotFetched).
bool not_fetched(const Error& e) { return e.code == ErrorCode::kNotFetched; }

// The placeholder of work skipped because other work of the scan failed
// first (that failure is the one reported).
Error not_run() { return Error{ErrorCode::kInvalidArgument, "not run"}; }
bool is_not_run(const Error& e) { return e.code == ErrorCode::kInvalidArgument && e.message == "not run"; }

// Whether a data page of `runs` (whole pages, headers first) is
// dictionary-encoded; a header that does not parse counts as one (the
// decoder then says what is wrong, with the dictionary read as before).
bool uses_dictionary(const std::vector<PageRun>& runs) {
  for (const PageRun& r : runs) {
    for (size_t at = 0; at < r.len;) {
      auto h = parse_page_header(r.bytes + at, r.len - at);
      if (!h.ok() || h->compressed_page_size < 0) return true;
      // (Any other page here, a dictionary page say, counts as one: as before.)
      if (h->type != PageType::kDataPage && h->type != PageType::kDataPageV2) return true;
      if (detail::is_dictionary_encoding(h->type == PageType::kDataPageV2 ? h->data_page_v2.encoding
                                                                         : h->data_page.encoding)) {
        return true;
      }
      const size_t next = static_cast<size_t>(h->header_size) + static_cast<size_t>(h->compressed_page_size);
      if (next > r.len - at) return true;
      at += next;
    }
  }
  return false;
}

// A chunk's page index, loaded on first use.
struct ChunkIndex {
  bool loaded = false;
  bool has_offsets = false;
  bool has_columns = false;
  // A staged reader's OffsetIndex read by a try that then lacked the
  // ColumnIndex's bytes: kept (parsed, or found untrusted), not read again.
  bool offsets_read = false;
  bool offsets_untrusted = false;
  OffsetIndex offsets;
  ColumnIndex columns;
};

// A row group between the two steps of its scan: the rows the filter kept.
struct RowSelection {
  int rg = -1;
  int64_t num_rows = 0;
  int64_t selected = 0;
  std::vector<uint64_t> selection;
  std::vector<RowRange> keep;
  std::unique_ptr<detail::ScopedCharge> charge;  // the bitmaps' bytes, held until the piece is made
  // Values of a projected column that the filter's atoms decoded in the
  // column's output layout, and the rows they hold: read_column(j) takes
  // the selected rows from them instead of decoding the column again (a
  // filter column that is also returned is decoded once). Each read_column
  // touches only its own element, from whichever thread runs it.
  struct Decoded {
    ColumnArray values;
    std::vector<RowRange> rows;
  };
  mutable std::vector<std::optional<Decoded>> decoded;
};

class FileScan {
 public:
  FileScan(RandomAccessFile& file, int32_t index, const std::vector<ScanColumn>& columns, const ScanFilter& filter,
           const ScanOptions& options, const FileIdentity* identity = nullptr)
      : file_(file), index_(index), columns_(columns), filter_(filter), opts_(options), identity_(identity) {}

  // The whole file, row group after row group.
  Result<ScanResult> run();

  // run() in steps, for a scan of many files whose row groups go on one
  // pool: prepare() reads the footer and runs the pruner (false: the file
  // is done, *early holds its result); then scan_row_group() for each of
  // groups_to_scan(), from any thread once prepare() returned (distinct row
  // groups only), each into its own result and stats; finish() adds them.
  Result<bool> prepare(ScanResult* early);
  Result<std::vector<int32_t>> groups_to_scan();
  Status scan_row_group(int rg, ScanResult* out, ScanStats* st);
  ScanStats finish(const ScanStats& groups) const;

  // scan_row_group() in its two steps, for a scan that puts the projected
  // columns of every matching row group of many files on one pool:
  // select_rows() (the filter; a selection with no row leaves nothing to
  // read), then read_column() for each projected column (any thread,
  // distinct columns or row groups), then add_piece() with what they gave.
  Status select_rows(int rg, RowSelection* sel, ScanStats* st);
  // Step 1 of select_rows: true when no conjunct can be TRUE in row group
  // `rg` by the pruner's verdicts and the footer's statistics (counted in
  // *st as a row group pruned); `alive` gets the conjuncts left.
  bool ruled_out(int rg, ScanStats* st, std::vector<uint8_t>* alive = nullptr) const;
  Result<ColumnArray> read_column(const RowSelection& sel, size_t column, ScanStats* st);
  // The rows `sel` selects of `values` (the decode of `leaf`'s `rows`).
  Result<ColumnArray> selected_rows(const RowSelection& sel, int leaf, ColumnArray&& values,
                                    const std::vector<RowRange>& rows) const;
  // Keeps `values` (an atom's decode of `leaf` with `options`, of `rows`)
  // for the first projected column of that leaf read in the same layout.
  void keep_for_output(int leaf, const ColumnReadOptions& options, ColumnArray&& values,
                       std::vector<RowRange>&& rows, RowSelection* sel) const;
  // The projected column keep_for_output would give `leaf`'s values decoded
  // with `options` to; -1: none.
  int output_slot(int leaf, const ColumnReadOptions& options, const RowSelection& sel) const;
  PhysicalType column_type(int leaf) const { return meta_->columns[static_cast<size_t>(leaf)].physical_type; }
  Status add_piece(RowSelection& sel, std::vector<Result<ColumnArray>>& got, const std::vector<ScanStats>& col_stats,
                   ScanResult* out, ScanStats* st);
  size_t num_columns() const { return columns_.size(); }
  const std::shared_ptr<const FileMetaData>& meta() const { return meta_; }
  // A staged reader's row group waiting for bytes: the page indexes of its
  // filter and projected columns are asked for too (read-ahead: the next
  // run needs them, and they are small), so that the filter's pages and the
  // projected pages need one run each.
  void want_page_indexes(int rg);
  const ScanStats& own_stats() const { return stats_; }
  PrunerVerdicts verdicts() const { return PrunerVerdicts{pruner_alive_, pruned_by_bloom_}; }
  // How much reading `column` of row group `rg` may cost: its compressed
  // bytes (the heaviest columns are claimed first; a chunk the footer lacks
  // weighs nothing here, and read_column says what is wrong).
  int64_t column_weight(int rg, size_t column) const {
    const auto& chunks = meta_->row_groups[static_cast<size_t>(rg)].columns;
    const size_t leaf = static_cast<size_t>(projected_[column]);
    return leaf < chunks.size() ? chunks[leaf].total_compressed_size : 0;
  }

 private:
  // Reads through the tail kept from the footer read; counts into `st`
  // (the file's stats by default; a column's own when columns run in
  // parallel).
  Status read(uint64_t offset, size_t n, uint8_t* out, ScanStats* st = nullptr);
  Status prune_with_bloom(size_t num_row_groups_hint);
  Result<const ChunkIndex*> chunk_index(int rg, int leaf, ScanStats* st = nullptr);
  // Evaluates the atom on the chunk's dictionary when every data page is
  // dictionary-encoded: `hits` gets one byte per entry; true when none is TRUE
  // (and no null row can be).
  Result<bool> dictionary_rules_out(int rg, const AtomPlan& atom, std::vector<uint8_t>* hits, ScanStats* st);
  Result<std::vector<RowRange>> page_index_ranges(int rg, const AtomPlan& atom, int64_t num_rows, ScanStats* st);
  // Thread-safe for distinct leaves once chunk_index(rg, leaf) was called.
  Result<ColumnArray> decode_rows(int rg, int leaf, const std::vector<RowRange>& keep, const ColumnReadOptions& o,
                                  std::vector<RowRange>* decoded, ScanStats* st = nullptr);
  // gather_only: the reads, no decoding (an empty array when all were fetched).
  Result<ColumnArray> decode_rows_charged(int rg, int leaf, const std::vector<RowRange>& keep,
                                          const ColumnReadOptions& o, std::vector<RowRange>* decoded, ScanStats* st,
                                          bool gather_only = false);
  // One try of decode_rows_charged: with the OffsetIndex (when the chunk has
  // one to trust) or reading the whole chunk.
  Result<ColumnArray> decode_rows_once(int rg, int leaf, const std::vector<RowRange>& keep, const ColumnReadOptions& o,
                                       std::vector<RowRange>* decoded, ScanStats* st, bool gather_only,
                                       bool use_index, bool* used_index = nullptr);
  // The reads decode_rows makes for these rows, without decoding: a staged
  // reader learns them all in one pass (each read not fetched is recorded).
  Status want_rows(int rg, int leaf, const std::vector<RowRange>& keep, bool dictionary, ScanStats* st);
  std::string where(int rg, int leaf) const {
    return file_.name() + ": row group " + std::to_string(rg) + ", column '" +
           meta_->columns[static_cast<size_t>(leaf)].dotted_path + "'";
  }

  RandomAccessFile& file_;
  int32_t index_;
  const std::vector<ScanColumn>& columns_;
  const ScanFilter& filter_;
  const ScanOptions& opts_;
  const FileIdentity* identity_ = nullptr;  // set for local files: footers may be cached
  std::shared_ptr<const FileMetaData> meta_;
  WriterVersion writer_;  // meta_->created_by parsed once (statistics rules)
  std::shared_ptr<const TailBuffer> tail_;
  ScanStats stats_;
  std::vector<std::vector<AtomPlan>> plans_;  // per conjunct
  std::vector<int> projected_;                // leaf per projected column
  // Per conjunct and row group: false once the pruner proved no row TRUE.
  std::vector<std::vector<uint8_t>> pruner_alive_;
  std::vector<std::vector<uint8_t>> pruned_by_bloom_;
  std::vector<ChunkIndex> index_cache_;  // row group * leaves + leaf
};

Status FileScan::read(uint64_t offset, size_t n, uint8_t* out, ScanStats* st) {
  if (n == 0) return Status::Ok();
  if (tail_ && tail_->covers(offset, n)) {
    std::memcpy(out, tail_->data() + (offset - tail_->offset), n);
    return Status::Ok();
  }
  if (!st) st = &stats_;
  // Counted once read: a staged reader's read of bytes not fed yet is made
  // again once they are (RowGroupRuns keeps the counts of its earlier runs).
  Status r = file_.read_at(offset, n, out);
  if (r.ok()) {
    ++st->reads;
    st->bytes_read += static_cast<int64_t>(n);
  }
  return r;
}

// Runs the pruner (min/max, then Bloom blocks) for the first Bloom-usable
// atom of each conjunct, on the file's lean footer: a file no conjunct can
// match is done without parsing its whole footer.
Status FileScan::prune_with_bloom(size_t) {
  pruner_alive_.assign(filter_.any_of.size(), {});
  pruned_by_bloom_.assign(filter_.any_of.size(), {});
  for (size_t c = 0; c < filter_.any_of.size(); ++c) {
    for (const FilterAtom& a : filter_.any_of[c]) {
      const bool usable = !a.negate && !a.set_has_null && (a.op == FilterOp::kEq || a.op == FilterOp::kIn) &&
                          a.values.type != PhysicalType::kBoolean && a.values.size() > 0;
      if (!usable) continue;
      PruneOptions po;
      po.use_statistics = opts_.use_statistics;
      po.use_bloom = true;
      po.threads = 1;
      po.block_reads = true;
      po.predict_blocks = opts_.predict_bloom_blocks;
      po.limits = opts_.limits;
      FilePruneResult r;
      if (identity_ && opts_.cache_footers) {
        po.footer_cache = &process_prune_cache();
        r = prune_file_identified(file_, *identity_, a.column, a.values, po);
      } else {
        r = prune_file(file_, a.column, a.values, po);
      }
      // The pruner's errors (a column of another physical type in this
      // file, whose values the full path converts) leave it without a
      // verdict: the full footer's path decides, and words what is wrong.
      if (!r.ok) continue;
      stats_.reads += r.reads;
      stats_.bytes_read += r.bytes_read;
      auto& alive = pruner_alive_[c];
      auto& bloom = pruned_by_bloom_[c];
      alive.assign(r.row_groups.size(), 1);
      bloom.assign(r.row_groups.size(), 0);
      for (size_t g = 0; g < r.row_groups.size(); ++g) {
        const Verdict v = r.row_groups[g].verdict;
        if (v == Verdict::kAbsentByStats || v == Verdict::kAbsentByBloom) alive[g] = 0;
        if (v == Verdict::kAbsentByBloom) bloom[g] = 1;
      }
      break;  // one atom per conjunct is enough to rule row groups out
    }
  }
  return Status::Ok();
}

Result<const ChunkIndex*> FileScan::chunk_index(int rg, int leaf, ScanStats* st) {
  const size_t leaves = meta_->columns.size();
  ChunkIndex& ci = index_cache_[static_cast<size_t>(rg) * leaves + static_cast<size_t>(leaf)];
  if (ci.loaded) return &ci;
  const ColumnChunk& c = meta_->row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(leaf)];
  const uint64_t size = file_.size();
  // A page index that cannot be trusted (outside the file, malformed, or
  // contradicting itself: parquetjs's, Impala's) is ignored, as pyarrow and
  // parquet-java ignore it: the read goes on without it. Only a failed read
  // (or a staged reader's range not fetched yet) is an error.
  bool untrusted = ci.offsets_untrusted;
  auto load = [&](int64_t off, int32_t len, auto parse) -> Status {
    if (off < 0 || len <= 0 || static_cast<uint64_t>(off) > size || static_cast<uint64_t>(len) > size - static_cast<uint64_t>(off) ||
        len > (64 << 20)) {
      untrusted = true;
      return Status::Ok();
    }
    ReadBuffer b;
    b.resize(static_cast<size_t>(len));
    PQFAST_RETURN_IF_ERROR(read(static_cast<uint64_t>(off), b.size(), b.data(), st));
    if (!parse(b.data(), b.size(), static_cast<size_t>(off))) untrusted = true;
    return Status::Ok();
  };
  // A staged reader's page index not fetched yet: asked for by both loads,
  // and loaded on the next run (an OffsetIndex read already is kept).
  Status missing = Status::Ok();
  auto staged = [&](Status r) -> Status {
    if (!r.ok() && not_fetched(r.error())) {
      if (missing.ok()) missing = r;
      return Status::Ok();
    }
    return r;
  };
  if (c.offset_index_offset >= 0 && c.offset_index_length > 0) {
    if (!ci.offsets_read) {
      PQFAST_RETURN_IF_ERROR(staged(load(c.offset_index_offset, c.offset_index_length,
                                  [&](const uint8_t* p, size_t n, size_t off) {
                                    auto r = parse_offset_index(p, n, off);
                                    if (r.ok()) ci.offsets = std::move(r).value();
                                    return r.ok();
                                  })));
      if (missing.ok()) {
        ci.offsets_read = true;
        ci.offsets_untrusted = untrusted;
      }
    }
    if (!missing.ok() && c.column_index_offset >= 0 && c.column_index_length > 0) {
      PQFAST_RETURN_IF_ERROR(staged(load(c.column_index_offset, c.column_index_length,
                                         [](const uint8_t*, size_t, size_t) { return true; })));
    }
    if (!missing.ok()) return missing.error();
    const int64_t rows = meta_->row_groups[static_cast<size_t>(rg)].num_rows;
    if (untrusted || !validate_offset_index(ci.offsets, size, rows, where(rg, leaf)).ok()) {
      ci = ChunkIndex{};
      ci.loaded = true;
      return &ci;
    }
    ci.has_offsets = !ci.offsets.page_locations.empty();
  }
  if (ci.has_offsets && c.column_index_offset >= 0 && c.column_index_length > 0) {
    PQFAST_RETURN_IF_ERROR(staged(load(c.column_index_offset, c.column_index_length,
                                [&](const uint8_t* p, size_t n, size_t off) {
                                  auto r = parse_column_index(p, n, off);
                                  if (r.ok()) ci.columns = std::move(r).value();
                                  return r.ok();
                                })));
    if (!missing.ok()) return missing.error();  // (the OffsetIndex kept)
    // An index that contradicts itself or its column (page_index.h) prunes
    // nothing; the OffsetIndex, checked on its own, still locates pages.
    const ColumnDescriptor& d = meta_->columns[static_cast<size_t>(leaf)];
    ci.has_columns = !untrusted && ci.columns.num_pages() == ci.offsets.page_locations.size() &&
                     column_index_usable(ci.columns, ci.offsets, meta_->row_groups[static_cast<size_t>(rg)].num_rows,
                                         d.max_definition_level, d.max_repetition_level);
  }
  ci.loaded = true;
  return &ci;
}

// The chunk's dictionary, when every data page uses it (encoding_stats),
// holds no value that makes the atom TRUE (and no null row can).
Result<bool> FileScan::dictionary_rules_out(int rg, const AtomPlan& atom, std::vector<uint8_t>* hits_out,
                                            ScanStats* st) {
  const ColumnChunk& c = meta_->row_groups[static_cast<size_t>(rg)].columns[static_cast<size_t>(atom.leaf())];
  // encoding_stats say every data page uses the dictionary (read from the
  // tail kept with the footer, where they lie).
  if (c.encoding_stats_offset < 0 || !tail_ ||
      !tail_->covers(static_cast<uint64_t>(c.encoding_stats_offset), static_cast<uint64_t>(c.encoding_stats_length))) {
    return false;
  }
  if (all_data_pages_dictionary(tail_->data() + (static_cast<uint64_t>(c.encoding_stats_offset) - tail_->offset),
                                static_cast<size_t>(c.encoding_stats_length)) != 1) {
    return false;
  }
  if (c.dictionary_page_offset <= 0 || c.dictionary_page_offset >= c.data_page_offset) return false;
  const int64_t off = c.dictionary_page_offset;
  const int64_t len = c.data_page_offset - off;
  if (static_cast<uint64_t>(c.data_page_offset) > file_.size() || len > (int64_t{1} << 30)) return false;
  ReadBuffer b;
  b.resize(static_cast<size_t>(len));
  PQFAST_RETURN_IF_ERROR(read(static_cast<uint64_t>(off), b.size(), b.data(), st));
  const ColumnDescriptor& d = meta_->columns[static_cast<size_t>(atom.leaf())];
  // A lookup's Bloom false positive: proved without inflating the page
  // (dictionary_probe.h). `=`/`in` are never TRUE on a null row.
  if (const std::vector<std::string>* wanted = atom.plain_equal_values()) {
    const size_t width = d.physical_type == PhysicalType::kInt32 ? 4 : 8;
    if (dictionary_lacks_values(b.data(), b.size(), c.codec, width, *wanted)) return true;
  }
  auto dict = decode_dictionary_page(b.data(), b.size(), static_cast<uint64_t>(off), d, c.codec, atom.eval_options(),
                                     where(rg, atom.leaf()));
  if (!dict.ok()) return dict.error();
  int64_t true_count = 0;
  *hits_out = atom.evaluate_dictionary(*dict, &true_count);
  const bool none = true_count == 0;
  // A chunk without a null count (no statistics written) may hold null rows.
  const bool may_hold_nulls = !c.statistics.has_null_count || c.statistics.null_count > 0;
  return none && !(atom.null_row_true() && may_hold_nulls);
}

// The rows of the pages whose ColumnIndex entry may make the atom TRUE
// (all rows when the chunk has no page index).
Result<std::vector<RowRange>> FileScan::page_index_ranges(int rg, const AtomPlan& atom, int64_t num_rows,
                                                          ScanStats* st) {
  std::vector<RowRange> all{{0, num_rows}};
  if (!opts_.use_page_index) return all;
  PQFAST_ASSIGN_OR_RETURN(const ChunkIndex* ci, chunk_index(rg, atom.leaf(), st));
  if (!ci->has_columns) return all;
  const auto& pages = ci->offsets.page_locations;
  const ColumnIndex& x = ci->columns;
  std::vector<RowRange> out;
  for (size_t i = 0; i < pages.size(); ++i) {
    MinMaxView s;
    s.all_null = x.null_pages[i];
    s.has_min = s.has_max = !s.all_null;
    s.min_trusted = s.max_trusted = true;
    s.min = x.min_values[i];
    s.max = x.max_values[i];
    if (!x.null_counts.empty()) s.null_count = x.null_counts[i];
    if (!atom.may_match(s)) continue;
    const int64_t b = pages[i].first_row_index;
    const int64_t e = i + 1 < pages.size() ? pages[i + 1].first_row_index : num_rows;
    append_range(&out, b, e);
  }
  return out;
}

Result<ColumnArray> FileScan::decode_rows(int rg, int leaf, const std::vector<RowRange>& keep,
                                          const ColumnReadOptions& o, std::vector<RowRange>* decoded, ScanStats* st) {
  // The chunk's bytes and its decoded pages are charged to the scan's budget
  // (decode_column_pages takes the thread's budget when o has none); an
  // error past it names the column.
  return detail::guard_memory(opts_.budget, where(rg, leaf),
                              [&] { return decode_rows_charged(rg, leaf, keep, o, decoded, st); });
}

Status FileScan::want_rows(int rg, int leaf, const std::vector<RowRange>& keep, bool dictionary, ScanStats* st) {
  ColumnReadOptions o;
  std::vector<uint8_t> none;
  if (!dictionary) o.dictionary_values = &none;  // the pages after the dictionary only
  std::vector<RowRange> decoded;
  auto r = detail::guard_memory(opts_.budget, where(rg, leaf),
                                [&] { return decode_rows_charged(rg, leaf, keep, o, &decoded, st, true); });
  if (!r.ok()) return r.error();
  return Status::Ok();
}

Result<ColumnArray> FileScan::decode_rows_charged(int rg, int leaf, const std::vector<RowRange>& keep,
                                                  const ColumnReadOptions& o, std::vector<RowRange>* decoded,
                                                  ScanStats* st, bool gather_only) {
  bool used_index = false;
  auto r = decode_rows_once(rg, leaf, keep, o, decoded, st, gather_only, true, &used_index);
  // Pages the OffsetIndex located that do not decode (one running past the
  // length the index gives it, as parquet-go wrote them) are read again
  // without the index: an index is never the reason a file does not read;
  // the whole chunk's own error, if any, is the one reported.
  if (!r.ok() && used_index &&
      (r.error().code == ErrorCode::kCorrupt || r.error().code == ErrorCode::kTruncated)) {
    return decode_rows_once(rg, leaf, keep, o, decoded, st, gather_only, false);
  }
  return r;
}

Result<ColumnArray> FileScan::decode_rows_once(int rg, int leaf, const std::vector<RowRange>& keep,
                                               const ColumnReadOptions& o, std::vector<RowRange>* decoded,
                                               ScanStats* st, bool gather_only, bool use_index,
                                               bool* used_index) {
  if (!st) st = &stats_;
  const RowGroup& g = meta_->row_groups[static_cast<size_t>(rg)];
  const ColumnDescriptor& d = meta_->columns[static_cast<size_t>(leaf)];
  const std::string w = where(rg, leaf);
  PQFAST_RETURN_IF_ERROR(check_column_chunk(g, leaf, d, w));
  const ColumnChunk& c = g.columns[static_cast<size_t>(leaf)];
  const uint64_t size = file_.size();
  PQFAST_ASSIGN_OR_RETURN(const ChunkExtent extent, chunk_extent(c, size, false, w));
  const int64_t start = static_cast<int64_t>(extent.begin);
  const int64_t len = static_cast<int64_t>(extent.length);
  PagesDecoded pd;
  std::vector<ReadBuffer> buffers;
  std::vector<PageRun> runs;
  bool whole = true;
  // Every read is made before any is decoded: a staged reader records all
  // those it has not fetched (kNotFetched) in one run.
  Status missing = Status::Ok();
  auto fetch = [&](uint64_t off, size_t n, uint8_t* out) -> Status {
    Status r = read(off, n, out, st);
    if (!r.ok() && not_fetched(r.error())) {
      if (missing.ok()) missing = r;
      return Status::Ok();
    }
    return r;
  };
  if (use_index && opts_.use_page_index && c.offset_index_offset >= 0) {
    PQFAST_ASSIGN_OR_RETURN(const ChunkIndex* ci, chunk_index(rg, leaf, st));
    const auto* located = ci->has_offsets ? &ci->offsets.page_locations : nullptr;
    // An OffsetIndex whose pages lie outside the column chunk is not followed.
    if (located && ((*located)[0].offset < start ||
                    located->back().offset + located->back().compressed_page_size > start + len + 100)) {
      located = nullptr;
    }
    if (located) {
      const auto& pages = *located;
      whole = false;
      if (used_index) *used_index = true;
      // The pages holding a kept row, adjacent ones read together.
      size_t k = 0;
      for (size_t i = 0; i < pages.size();) {
        const int64_t b0 = pages[i].first_row_index;
        const int64_t e0 = i + 1 < pages.size() ? pages[i + 1].first_row_index : g.num_rows;
        while (k < keep.size() && keep[k].end <= b0) ++k;
        if (!(k < keep.size() && keep[k].begin < e0)) {
          ++pd.pages_skipped;
          ++i;
          continue;
        }
        size_t j = i + 1;
        while (j < pages.size() && pages[j].offset == pages[j - 1].offset + pages[j - 1].compressed_page_size) {
          const int64_t bj = pages[j].first_row_index;
          const int64_t ej = j + 1 < pages.size() ? pages[j + 1].first_row_index : g.num_rows;
          size_t kk = k;
          while (kk < keep.size() && keep[kk].end <= bj) ++kk;
          if (!(kk < keep.size() && keep[kk].begin < ej)) break;
          ++j;
        }
        const int64_t off = pages[i].offset;
        const int64_t end = pages[j - 1].offset + pages[j - 1].compressed_page_size;
        buffers.emplace_back();
        ReadBuffer& b = buffers.back();
        b.resize(static_cast<size_t>(end - off));
        PQFAST_RETURN_IF_ERROR(fetch(static_cast<uint64_t>(off), b.size(), b.data()));
        runs.push_back({b.data(), b.size(), static_cast<uint64_t>(off), b0});
        i = j;
      }
      // The dictionary page, what lies before the first data page: not
      // needed when the dictionary is replaced by its evaluation, nor when
      // none of the pages read uses it (a chunk that fell back to PLAIN: a
      // lookup's row in its PLAIN pages reads no 1 MB dictionary).
      if (pages[0].offset > start && !o.dictionary_values && (!missing.ok() || uses_dictionary(runs))) {
        buffers.emplace_back();
        ReadBuffer& b = buffers.back();
        b.resize(static_cast<size_t>(pages[0].offset - start));
        PQFAST_RETURN_IF_ERROR(fetch(static_cast<uint64_t>(start), b.size(), b.data()));
        runs.insert(runs.begin(), PageRun{b.data(), b.size(), static_cast<uint64_t>(start), 0});
      }
    }
  }
  if (whole) {
    const int64_t read_len = len + static_cast<int64_t>(
        parquet_mr_before_1_2_9(meta_->created_by) ? std::min<uint64_t>(100, size - extent.begin - extent.length) : 0);
    buffers.emplace_back();
    ReadBuffer& b = buffers.back();
    b.resize(static_cast<size_t>(read_len));
    PQFAST_RETURN_IF_ERROR(fetch(static_cast<uint64_t>(start), b.size(), b.data()));
    runs.push_back({b.data(), b.size(), static_cast<uint64_t>(start), 0});
  }
  if (!missing.ok()) return missing.error();
  if (gather_only) return ColumnArray();
  ColumnReadOptions ow = o;  // with the writer's data page v2 rule (ARROW-10353)
  ow.v2_always_compressed = o.v2_always_compressed || writer_.v2_always_compressed;
  auto arr = decode_column_pages(runs, whole, d, c.codec, g.num_rows, keep, &pd, ow, w);
  if (!arr.ok()) return arr.error();
  st->pages_read += pd.pages_decoded;
  st->pages_skipped += pd.pages_skipped;
  *decoded = std::move(pd.rows);
  return arr;
}

Status FileScan::scan_row_group(int rg, ScanResult* out, ScanStats* st) {
  RowSelection sel;
  PQFAST_RETURN_IF_ERROR(select_rows(rg, &sel, st));
  if (sel.selected == 0) return Status::Ok();
  // Columns in parallel: a lookup's one matching row group is most of its
  // work, and its columns are independent.
  std::vector<Result<ColumnArray>> got;
  for (size_t j = 0; j < columns_.size(); ++j) got.emplace_back(not_run());
  std::vector<ScanStats> col_stats(columns_.size());
  // Heaviest first (as scan_windowed orders its column tasks): a heavy
  // column taken last leaves one thread reading it while the others wait.
  std::vector<size_t> order(columns_.size());
  for (size_t j = 0; j < order.size(); ++j) order[j] = j;
  if (opts_.threads > 1) {
    std::vector<int64_t> weight(columns_.size());
    for (size_t j = 0; j < weight.size(); ++j) weight[j] = column_weight(rg, j);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
  }
  scan::parallel_for(order.size(), opts_.threads, [&](size_t k) {
    const size_t j = order[k];
    got[j] = read_column(sel, j, &col_stats[j]);
  });
  return add_piece(sel, got, col_stats, out, st);
}

bool FileScan::ruled_out(int rg, ScanStats* st, std::vector<uint8_t>* alive_out) const {
  const RowGroup& g = meta_->row_groups[static_cast<size_t>(rg)];
  const size_t nc = plans_.size();
  std::vector<uint8_t> alive(nc, 1);
  bool any_bloom = false, any_stats = false;
  for (size_t c = 0; c < nc; ++c) {
    if (!pruner_alive_[c].empty() && static_cast<size_t>(rg) < pruner_alive_[c].size() &&
        !pruner_alive_[c][static_cast<size_t>(rg)]) {
      alive[c] = 0;
      (pruned_by_bloom_[c][static_cast<size_t>(rg)] ? any_bloom : any_stats) = true;
      continue;
    }
    if (!opts_.use_statistics) continue;
    for (const AtomPlan& a : plans_[c]) {
      const ColumnChunk& ch = g.columns[static_cast<size_t>(a.leaf())];
      MinMaxView s;
      if (ch.has_statistics) {
        const Statistics& cs = ch.statistics;
        const size_t leaf = static_cast<size_t>(a.leaf());
        // The bounds pyarrow and parquet-java would believe (stats_trust.h).
        const StatsTrust t = statistics_trust(
            writer_, meta_->columns[leaf], meta_->has_column_orders,
            meta_->has_column_orders && meta_->column_type_defined_order[leaf],
            RawMinMax{cs.has_min, cs.has_max, cs.min_is_legacy, cs.max_is_legacy, cs.min, cs.max}, true);
        s.has_min = cs.has_min;
        s.has_max = cs.has_max;
        s.min_trusted = t.statistics && t.min;
        s.max_trusted = t.statistics && t.max;
        s.min = cs.min;
        s.max = cs.max;
        if (cs.has_null_count) s.null_count = cs.null_count;
      }
      s.num_values = ch.num_values;
      if (!a.may_match(s)) {
        alive[c] = 0;
        any_stats = true;
        break;
      }
    }
  }
  const bool none = std::none_of(alive.begin(), alive.end(), [](uint8_t x) { return x != 0; });
  if (none) {
    ++(any_bloom && !any_stats ? st->row_groups_pruned_by_bloom : any_stats && !any_bloom
                                                                        ? st->row_groups_pruned_by_statistics
                                                                        : st->row_groups_pruned_by_bloom);
  }
  if (alive_out) *alive_out = std::move(alive);
  return none;
}

Status FileScan::select_rows(int rg, RowSelection* sel, ScanStats* st) {
  const RowGroup& g = meta_->row_groups[static_cast<size_t>(rg)];
  const int64_t n = g.num_rows;
  sel->rg = rg;
  sel->num_rows = n;
  if (n <= 0) return Status::Ok();
  const size_t words = static_cast<size_t>((n + 63) / 64);
  // The selection and one conjunct's bitmap: sized by the footer's row
  // count, which a few bytes of RLE runs can make plausible.
  sel->charge = std::make_unique<detail::ScopedCharge>(opts_.budget, static_cast<int64_t>(words) * 16);
  if (!sel->charge->ok()) {
    return detail::memory_error(file_.name() + ": row group " + std::to_string(rg) + " (" + std::to_string(n) +
                                    " rows)",
                                sel->charge->refusal());
  }
  std::vector<uint64_t>& selection = sel->selection;
  selection.assign(words, 0);
  sel->decoded.clear();
  sel->decoded.resize(columns_.size());
  bool read_any = false;
  Status missing = Status::Ok();  // the first read a staged reader has not fetched
  if (!filter_.active) {
    set_range(selection.data(), 0, n);
  } else {
    // 1. Which conjuncts can be TRUE here: pruner verdicts, then the
    // footer's statistics of every atom.
    const size_t nc = plans_.size();
    std::vector<uint8_t> alive;
    if (ruled_out(rg, st, &alive)) return Status::Ok();
    auto none_alive = [&] { return std::none_of(alive.begin(), alive.end(), [](uint8_t x) { return x != 0; }); };
    // 2. Dictionaries (what they say of each atom is kept for step 4).
    std::vector<std::vector<std::vector<uint8_t>>> hits(nc);
    if (opts_.use_dictionary) {
      for (size_t c = 0; c < nc; ++c) {
        hits[c].resize(plans_[c].size());
        if (!alive[c]) continue;
        for (size_t j = 0; j < plans_[c].size(); ++j) {
          const AtomPlan& a = plans_[c][j];
          auto out_ruled = dictionary_rules_out(rg, a, &hits[c][j], st);
          if (!out_ruled.ok() && not_fetched(out_ruled.error())) {
            // A staged reader without the dictionary yet: the pages of the
            // conjunct's first atom on the rows its page index leaves are
            // asked for with it (one round, not two), whatever it will say.
            if (missing.ok()) missing = out_ruled.error();
            if (j == 0) {
              auto cand = page_index_ranges(rg, a, n, st);
              Status w = cand.ok() ? want_rows(rg, a.leaf(), *cand, false, st) : Status(cand.error());
              if (!w.ok() && !not_fetched(w.error())) return w.error();
            }
            continue;
          }
          if (!out_ruled.ok()) return out_ruled.error();
          if (*out_ruled) {
            alive[c] = 0;
            break;
          }
        }
      }
      if (!missing.ok()) return missing.error();
      if (none_alive()) {
        ++st->row_groups_pruned_by_dictionary;
        return Status::Ok();
      }
    }
    // 3. Page indexes, then 4. the atoms on the rows left, conjunct by
    // conjunct, each atom on what the ones before kept.
    std::vector<uint64_t> conj(words);
    bool any_candidate = false;
    for (size_t c = 0; c < nc; ++c) {
      if (!alive[c]) continue;
      std::vector<RowRange> cand{{0, n}};
      bool waiting = false;  // a staged reader's bytes not fetched: the other conjuncts ask for theirs
      for (const AtomPlan& a : plans_[c]) {
        auto r = page_index_ranges(rg, a, n, st);
        if (!r.ok() && not_fetched(r.error())) {
          if (missing.ok()) missing = r.error();
          waiting = true;
          break;
        }
        if (!r.ok()) return r.error();
        cand = intersect_ranges(cand, *r);
        if (cand.empty()) break;
      }
      if (waiting) {
        any_candidate = true;
        continue;
      }
      if (cand.empty()) continue;
      any_candidate = true;
      std::fill(conj.begin(), conj.end(), 0);
      for (const auto& r : cand) set_range(conj.data(), r.begin, r.end);
      // The last atom's decoded values (of every row the next atom can
      // keep): an atom on the same column evaluates them again (a range
      // `lo <= x < hi` decodes its column once).
      int last_leaf = -1;
      std::optional<ColumnArray> last_arr;
      std::vector<RowRange> last_decoded;
      const ColumnReadOptions* last_options = nullptr;
      auto keep_last = [&] {
        if (last_arr) keep_for_output(last_leaf, *last_options, std::move(*last_arr), std::move(last_decoded), sel);
        last_arr.reset();
      };
      for (size_t j = 0; j < plans_[c].size(); ++j) {
        const AtomPlan& a = plans_[c][j];
        std::vector<RowRange> keep = ranges_of(conj.data(), n, kRangeGap);
        if (keep.empty()) break;
        std::vector<RowRange> decoded;
        read_any = true;
        const std::vector<uint8_t>* dict_hits = hits.empty() || hits[c].empty() || hits[c][j].empty() ? nullptr : &hits[c][j];
        // A column the output also takes in the evaluation's layout, under
        // an atom the compare kernels evaluate: its values are decoded once,
        // evaluated and kept for the output. Evaluated on its dictionary the
        // column was decoded twice, once as hits and again for the output
        // (polars' `quantity < 100` asks for quantity too: 50 M indices
        // unpacked twice).
        if (dict_hits && a.compares_values_in_simd(detail::read_layout(a.eval_options().layout, column_type(a.leaf()))) &&
            output_slot(a.leaf(), a.eval_options(), *sel) >= 0) {
          dict_hits = nullptr;
        }
        if (!dict_hits && last_arr && last_leaf == a.leaf()) {
          a.evaluate(*last_arr, last_decoded, n, conj.data());
          continue;
        }
        keep_last();
        ColumnReadOptions o = a.eval_options();
        // Every page is dictionary-encoded and the dictionary evaluated:
        // the indices say which rows match, no value is decoded.
        if (dict_hits) o.dictionary_values = dict_hits;
        auto arr = decode_rows(rg, a.leaf(), keep, o, &decoded, st);
        if (!arr.ok() && not_fetched(arr.error())) {
          if (missing.ok()) missing = arr.error();
          waiting = true;
          break;
        }
        if (!arr.ok()) return arr.error();
        if (dict_hits) {
          a.evaluate_hits(*arr, decoded, n, conj.data());
        } else {
          a.evaluate(*arr, decoded, n, conj.data());
          last_leaf = a.leaf();
          last_arr = std::move(*arr);
          last_decoded = std::move(decoded);
          last_options = &a.eval_options();
        }
      }
      keep_last();
      if (waiting) continue;
      for (size_t i = 0; i < words; ++i) selection[i] |= conj[i];
    }
    if (!missing.ok()) return missing.error();
    if (!any_candidate) {
      ++st->row_groups_pruned_by_page_index;
      return Status::Ok();
    }
  }
  int64_t selected = 0;
  for (uint64_t w : selection) selected += detail::count_bits(w);
  if (read_any || selected > 0) ++st->row_groups_read;
  if (selected == 0) return Status::Ok();
  ++st->row_groups_matched;
  // 5. The projected columns, for the selected rows only (read_column).
  if (opts_.use_page_index) {
    for (int leaf : projected_) {
      auto ci = chunk_index(rg, leaf, st);  // loaded here, read-only in the threads
      if (!ci.ok() && !not_fetched(ci.error())) return ci.error();
      if (!ci.ok() && missing.ok()) missing = ci.error();  // every column's asked for
    }
    if (!missing.ok()) return missing.error();
  }
  sel->keep = ranges_of(selection.data(), n, kRangeGap);
  sel->selected = selected;
  return Status::Ok();
}

int FileScan::output_slot(int leaf, const ColumnReadOptions& options, const RowSelection& sel) const {
  const PhysicalType type = column_type(leaf);
  for (size_t j = 0; j < columns_.size(); ++j) {
    const ColumnReadOptions& out = columns_[j].options;
    if (projected_[j] != leaf || sel.decoded[j]) continue;
    // The same decoder in the same layout makes the same values; the
    // output's format (a date or a timestamp over the same integers) is
    // only what the array is exported as.
    if (out.dictionary_values || out.dictionary_indices || options.dictionary_values ||
        detail::read_layout(out.layout, type) != detail::read_layout(options.layout, type)) {
      continue;
    }
    return static_cast<int>(j);
  }
  return -1;
}

void FileScan::keep_for_output(int leaf, const ColumnReadOptions& options, ColumnArray&& values,
                               std::vector<RowRange>&& rows, RowSelection* sel) const {
  const int j = output_slot(leaf, options, *sel);
  if (j < 0) return;
  const ColumnReadOptions& out = columns_[static_cast<size_t>(j)].options;
  if (!out.format.empty()) values.impl()->format = out.format;
  sel->decoded[static_cast<size_t>(j)] = RowSelection::Decoded{std::move(values), std::move(rows)};
}

Result<ColumnArray> FileScan::read_column(const RowSelection& sel, size_t j, ScanStats* st) {
  const int leaf = projected_[j];
  if (j < sel.decoded.size() && sel.decoded[j]) {
    RowSelection::Decoded kept = std::move(*sel.decoded[j]);
    sel.decoded[j].reset();
    // Rows another conjunct of an OR selected may lie outside what this
    // atom decoded: then the column is read as any other.
    if (set_bits_within(sel.selection.data(), sel.num_rows, kept.rows)) {
      return selected_rows(sel, leaf, std::move(kept.values), kept.rows);
    }
  }
  std::vector<RowRange> decoded;
  auto arr = decode_rows(sel.rg, leaf, sel.keep, columns_[j].options, &decoded, st);
  if (!arr.ok()) return arr;
  return selected_rows(sel, leaf, std::move(*arr), decoded);
}

Result<ColumnArray> FileScan::selected_rows(const RowSelection& sel, int leaf, ColumnArray&& values,
                                            const std::vector<RowRange>& rows) const {
  if (sel.selected == sel.num_rows && values.length() == sel.num_rows) return std::move(values);
  auto taken = take_selected(std::move(values), rows, sel.selection.data(), sel.selected);
  if (!taken.ok()) return make_error(taken.error().code, where(sel.rg, leaf) + ": " + taken.error().message);
  return taken;
}

Status FileScan::add_piece(RowSelection& sel, std::vector<Result<ColumnArray>>& got,
                           const std::vector<ScanStats>& col_stats, ScanResult* out, ScanStats* st) {
  // Errors first; then bytes a staged reader must fetch (every column's
  // reads were made, so all of them are asked for at once); then columns
  // left unread because another failed.
  auto rank = [](const Error& e) { return is_not_run(e) ? 2 : not_fetched(e) ? 1 : 0; };
  const Result<ColumnArray>* first = nullptr;
  for (const auto& r : got) {
    if (!r.ok() && (!first || rank(r.error()) < rank(first->error()))) first = &r;
  }
  if (first) return first->error();
  ScanPiece piece;
  piece.file = index_;
  piece.row_group = sel.rg;
  piece.num_rows = sel.selected;
  if (opts_.keep_selection) piece.selection = std::move(sel.selection);
  for (size_t j = 0; j < columns_.size(); ++j) {
    st->add(col_stats[j]);
    piece.columns.push_back(std::move(got[j]).value());
  }
  st->rows += sel.selected;
  out->pieces.push_back(std::move(piece));
  return Status::Ok();
}

void FileScan::want_page_indexes(int rg) {
  if (!opts_.use_page_index) return;
  // Errors (a corrupt index) are left to the run that uses the index.
  for (const auto& conj : plans_) {
    for (const AtomPlan& a : conj) (void)chunk_index(rg, a.leaf());
  }
  for (int leaf : projected_) (void)chunk_index(rg, leaf);
}

Result<bool> FileScan::prepare(ScanResult* early) {
  ScanResult& out = *early;
  stats_.files = 1;
  const bool filtered = filter_.active;
  if (filtered && filter_.any_of.empty()) return false;  // a filter no row satisfies
  if (filtered && opts_.use_bloom) {
    PQFAST_RETURN_IF_ERROR(prune_with_bloom(0));
    bool any = false, decided = true;
    for (const auto& alive : pruner_alive_) {
      if (alive.empty()) {
        decided = false;
        break;
      }
      any = any || std::any_of(alive.begin(), alive.end(), [](uint8_t x) { return x != 0; });
    }
    if (decided && !any) {
      // Every row group ruled out before the whole footer was parsed.
      const size_t groups = pruner_alive_.empty() ? 0 : pruner_alive_[0].size();
      stats_.row_groups = static_cast<int64_t>(groups);
      for (size_t g = 0; g < groups; ++g) {
        bool bloom = false;
        for (const auto& b : pruned_by_bloom_) bloom = bloom || b[g];
        ++(bloom ? stats_.row_groups_pruned_by_bloom : stats_.row_groups_pruned_by_statistics);
      }
      out.stats = stats_;
      return false;
    }
  }
  if (filtered && !opts_.use_bloom && opts_.pruner) {
    pruner_alive_ = opts_.pruner->alive;
    pruned_by_bloom_ = opts_.pruner->by_bloom;
  }
  std::optional<CachedFooter> cached;
  const bool use_cache = identity_ && opts_.cache_footers;
  if (use_cache) cached = MetadataCache::process().get(identity_->key_or(file_.name()), *identity_);
  if (cached) {
    meta_ = cached->meta;
    tail_ = cached->tail;
  } else if (opts_.footer) {
    meta_ = opts_.footer;
    // The footer's bytes (the encoding statistics lie there) as the tail,
    // when the file has them at hand (a staged reader's fed tail): read as
    // a cached footer's tail is, not counted.
    const uint64_t size = file_.size();
    const uint64_t n = std::min<uint64_t>(size, uint64_t{meta_->footer_length} + 8);
    auto t = std::make_shared<TailBuffer>();
    t->offset = size - n;
    t->size = static_cast<size_t>(n);
    t->bytes.reset(new uint8_t[t->size]);
    if (file_.read_at(t->offset, t->size, t->data()).ok()) tail_ = std::move(t);
  } else {
    ReadStats rs;
    TailBuffer tail;
    auto meta = read_file_metadata_tail(file_, opts_.limits, &rs, &tail);
    stats_.reads += rs.reads;
    stats_.bytes_read += rs.bytes;
    if (!meta.ok()) return meta.error();
    meta_ = std::make_shared<const FileMetaData>(std::move(meta).value());
    tail_ = std::make_shared<const TailBuffer>(std::move(tail));
    if (use_cache) {
      MetadataCache::process().put(identity_->key_or(file_.name()), *identity_, CachedFooter{meta_, tail_},
                                   tail_->size + size_t{meta_->footer_length} * 4 + 1024);
    }
  }
  writer_ = parse_created_by(meta_->created_by);
  if (meta_->plaintext_footer_encrypted) {
    return make_error(ErrorCode::kUnsupported, file_.name() + ": encrypted file, not supported");
  }
  // A name the file gives several leaves (a file with two columns "a")
  // takes them in order on each mention, as the plans list them.
  std::vector<std::pair<std::string_view, int>> mentions;
  for (const ScanColumn& col : columns_) {
    int& seen = [&]() -> int& {
      for (auto& m : mentions) {
        if (m.first == col.name) return m.second;
      }
      return mentions.emplace_back(col.name, 0).second;
    }();
    int leaf = -1;
    for (size_t i = 0, k = 0; i < meta_->columns.size() && leaf < 0; ++i) {
      if (meta_->columns[i].dotted_path == col.name && k++ == static_cast<size_t>(seen)) leaf = static_cast<int>(i);
    }
    if (leaf < 0) leaf = meta_->find_column(col.name);  // (mentioned more often than the file has it)
    ++seen;
    if (leaf < 0) return prefix_error(file_.name(), missing_column_error(*meta_, col.name));
    const std::string problem = flat_column_problem(*meta_, leaf);
    if (!problem.empty()) return make_error(ErrorCode::kUnsupported, file_.name() + ": " + problem);
    projected_.push_back(leaf);
  }
  for (const auto& conj : filter_.any_of) {
    plans_.emplace_back();
    for (const FilterAtom& a : conj) {
      PQFAST_ASSIGN_OR_RETURN(AtomPlan p, AtomPlan::make(a, *meta_, file_.name()));
      plans_.back().push_back(std::move(p));
    }
  }
  if (pruner_alive_.size() != plans_.size()) {
    pruner_alive_.assign(plans_.size(), {});
    pruned_by_bloom_.assign(plans_.size(), {});
  }
  for (size_t c = 0; c < plans_.size(); ++c) {
    if (!pruner_alive_[c].empty() && pruner_alive_[c].size() != meta_->row_groups.size()) {
      return make_error(ErrorCode::kCorrupt, file_.name() + ": the file changed while it was read");
    }
  }
  index_cache_.assign(meta_->row_groups.size() * meta_->columns.size(), ChunkIndex{});
  return true;
}

Result<std::vector<int32_t>> FileScan::groups_to_scan() {
  std::vector<int32_t> groups;
  if (opts_.row_groups.empty()) {
    stats_.row_groups = static_cast<int64_t>(meta_->row_groups.size());
    groups.resize(meta_->row_groups.size());
    for (size_t rg = 0; rg < groups.size(); ++rg) groups[rg] = static_cast<int32_t>(rg);
    return groups;
  }
  stats_.row_groups = static_cast<int64_t>(opts_.row_groups.size());
  int32_t before = -1;
  for (int32_t rg : opts_.row_groups) {
    if (rg <= before || static_cast<size_t>(rg) >= meta_->row_groups.size()) {
      return make_error(ErrorCode::kInvalidArgument, file_.name() + ": row group " + std::to_string(rg) +
                                                         " is not in the file's " +
                                                         std::to_string(meta_->row_groups.size()) + " (or not ascending)");
    }
    before = rg;
  }
  return opts_.row_groups;
}

ScanStats FileScan::finish(const ScanStats& groups) const {
  ScanStats st = stats_;
  st.add(groups);
  st.files = stats_.files;
  st.row_groups = stats_.row_groups;
  if (st.row_groups_read > 0) st.files_read = 1;
  return st;
}

Result<ScanResult> FileScan::run() {
  ScanResult out;
  PQFAST_ASSIGN_OR_RETURN(const bool more, prepare(&out));
  if (!more) return out;
  PQFAST_ASSIGN_OR_RETURN(const std::vector<int32_t> groups, groups_to_scan());
  // A row group needing bytes a staged reader has not fetched does not stop
  // the others: every range the run needs is asked for at once.
  Status missing = Status::Ok();
  ScanStats st;
  for (int32_t rg : groups) {
    Status r = scan_row_group(rg, &out, &st);
    if (!r.ok() && not_fetched(r.error())) {
      if (missing.ok()) missing = r;
      want_page_indexes(rg);
      continue;
    }
    PQFAST_RETURN_IF_ERROR(r);
  }
  if (!missing.ok()) return missing.error();
  out.stats = finish(st);
  return out;
}

}  // namespace
// Runs a file's scan, turning a refused charge of the scan's budget or a
// failed allocation (on whichever thread) into an Error naming the file.
template <class F>
auto guarded_run(const std::string& name, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const detail::MemoryLimitExceeded& e) {
    return detail::memory_error(name, e);
  } catch (const std::bad_alloc&) {
    return detail::out_of_memory_error(name);
  }
}

}  // namespace scan

Result<ScanResult> scan_file(RandomAccessFile& file, int32_t file_index, const std::vector<ScanColumn>& columns,
                             const ScanFilter& filter, const ScanOptions& options) {
  ScanOptions o = options;
  if (!o.budget) o.budget = MemoryBudget::make(options.memory_limit);
  return scan::guarded_run(file.name(), [&] {
    scan::FileScan s(file, file_index, columns, filter, o);
    return s.run();
  });
}

std::vector<Result<ScanResult>> scan_opened_each(const std::vector<RandomAccessFile*>& files,
                                                 const std::vector<std::vector<int32_t>>& row_groups,
                                                 const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                                 const ScanOptions& options) {
  std::vector<Result<ScanResult>> results;
  results.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i) results.emplace_back(scan::not_run());
  std::atomic<bool> failed{false};
  const auto budget = options.budget ? options.budget : MemoryBudget::make(options.memory_limit);
  scan::parallel_for(files.size(), std::max(options.threads, 1), [&](size_t i) {
    if (failed.load(std::memory_order_relaxed)) return;
    ScanOptions o = options;
    o.threads = 1;  // files in parallel, each on one thread
    o.cache_footers = false;
    o.budget = budget;
    if (i < row_groups.size()) o.row_groups = row_groups[i];
    results[i] = scan::guarded_run(files[i]->name(), [&] {
      scan::FileScan s(*files[i], static_cast<int32_t>(i), columns, filter, o);
      return s.run();
    });
    // A file waiting for bytes does not stop the others; an error does.
    if (!results[i].ok() && !scan::not_fetched(results[i].error())) failed.store(true, std::memory_order_relaxed);
  });
  return results;
}

Result<ScanResult> scan_opened(const std::vector<RandomAccessFile*>& files,
                               const std::vector<std::vector<int32_t>>& row_groups,
                               const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                               const ScanOptions& options) {
  std::vector<Result<ScanResult>> results = scan_opened_each(files, row_groups, columns, filter, options);
  ScanResult out;
  for (auto& r : results) {
    if (!r.ok() && !scan::is_not_run(r.error()) && !scan::not_fetched(r.error())) return r.error();
  }
  for (auto& r : results) {
    if (!r.ok()) return r.error();
  }
  for (auto& r : results) {
    out.stats.add(r->stats);
    for (auto& p : r->pieces) out.pieces.push_back(std::move(p));
  }
  return out;
}

namespace {
// Files whose footers (and, with row groups left, descriptors) a scan holds at once.
constexpr size_t kScanWindow = 256;
}  // namespace

Result<ScanResult> scan_files(const std::vector<std::string>& paths, const std::vector<ScanColumn>& columns,
                              const ScanFilter& filter, const ScanOptions& options) {
  return scan::scan_windowed(
      paths,
      [&](size_t i) -> Result<scan::OpenedFile> {
        auto f = LocalFile::open(paths[i]);  // fstat: the identity footers are cached under
        if (!f.ok()) return f.error();
        FileIdentity id{(*f)->size(), (*f)->mtime_ns()};
        return scan::OpenedFile{std::move(f).value(), std::move(id)};
      },
      columns, filter, options);
}

namespace scan {

Result<ScanResult> scan_windowed(const std::vector<std::string>& paths, const FileOpener& open,
                                 const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                 const ScanOptions& options) {
  std::vector<Result<ScanResult>> results;
  results.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) results.emplace_back(scan::not_run());
  std::atomic<bool> failed{false};
  unsigned hw = std::thread::hardware_concurrency();
  const int threads = options.threads > 0 ? options.threads : static_cast<int>(hw ? hw : 1);
  ScanOptions per_file = options;
  per_file.threads = threads;
  if (!per_file.budget) per_file.budget = MemoryBudget::make(options.memory_limit);
  // Files go in windows of kScanWindow: 1. the footer and pruner of each
  // file of the window, files in parallel; 2. the row groups left, of every
  // file of the window, on one pool. Not file by file: a lookup's work is a
  // few row groups of a few files (the match, Bloom false positives), which
  // would otherwise fall to whichever thread claimed their file. A window
  // bounds the footers held and the files kept open (those with row groups
  // left) on a lake of many files.
  struct Opened {
    std::unique_ptr<RandomAccessFile> file;
    std::optional<FileIdentity> id;  // none: its footer is not cached
    std::unique_ptr<scan::FileScan> scan;
    std::vector<int32_t> groups;
  };
  struct Group {
    size_t file;
    int32_t rg;
  };
  for (size_t w0 = 0; w0 < paths.size() && !failed.load(); w0 += kScanWindow) {
    const size_t w1 = std::min(paths.size(), w0 + kScanWindow);
    std::vector<Opened> opened(w1 - w0);
    scan::parallel_for(w1 - w0, threads, [&](size_t k) {
      const size_t i = w0 + k;
      if (failed.load(std::memory_order_relaxed)) return;
      results[i] = scan::guarded_run(paths[i], [&]() -> Result<ScanResult> {
        auto f = open(i);
        if (!f.ok()) return f.error();
        Opened& o = opened[k];
        o.file = std::move(f->file);
        o.id = std::move(f->id);
        o.scan = std::make_unique<scan::FileScan>(*o.file, static_cast<int32_t>(i), columns, filter, per_file,
                                                  o.id ? &*o.id : nullptr);
        ScanResult early;
        auto more = o.scan->prepare(&early);
        if (more.ok() && *more) {
          auto groups = o.scan->groups_to_scan();
          if (groups.ok()) {
            o.groups = std::move(groups).value();
            return ScanResult{};
          }
          more = groups.error();
        }
        o.scan.reset();  // done: its footer and descriptor go now
        o.file.reset();
        if (!more.ok()) return more.error();
        return early;
      });
      if (!results[i].ok()) failed.store(true, std::memory_order_relaxed);
    });
    std::vector<Group> groups;
    for (size_t k = 0; k < opened.size() && !failed.load(); ++k) {
      if (!opened[k].scan) continue;
      for (int32_t rg : opened[k].groups) groups.push_back({k, rg});
    }
    std::vector<Result<ScanResult>> done;
    done.reserve(groups.size());
    for (size_t t = 0; t < groups.size(); ++t) done.emplace_back(scan::not_run());
    // 2a. Each row group's filter, giving its selected rows.
    std::vector<RowSelection> selections(groups.size());
    scan::parallel_for(groups.size(), threads, [&](size_t t) {
      if (failed.load(std::memory_order_relaxed)) return;
      const Group& g = groups[t];
      done[t] = scan::guarded_run(paths[w0 + g.file], [&]() -> Result<ScanResult> {
        ScanResult r;
        PQFAST_RETURN_IF_ERROR(opened[g.file].scan->select_rows(g.rg, &selections[t], &r.stats));
        return r;
      });
      if (!done[t].ok()) failed.store(true, std::memory_order_relaxed);
    });
    // 2b. The projected columns of every row group with rows selected, as
    // one pool's tasks, heaviest first: a lookup's matching row group is
    // most of its work and would otherwise fall to one thread, whichever
    // found the match, while the other finishes its Bloom false positives.
    struct ColumnTask {
      size_t group, column;
      int64_t weight;
    };
    std::vector<ColumnTask> tasks;
    std::vector<std::vector<Result<ColumnArray>>> got(groups.size());
    std::vector<std::vector<ScanStats>> col_stats(groups.size());
    for (size_t t = 0; t < groups.size() && !failed.load(); ++t) {
      if (!done[t].ok() || selections[t].selected == 0) continue;
      const scan::FileScan& fs = *opened[groups[t].file].scan;
      for (size_t j = 0; j < fs.num_columns(); ++j) {
        got[t].emplace_back(scan::not_run());
        tasks.push_back({t, j, fs.column_weight(groups[t].rg, j)});
      }
      col_stats[t].resize(fs.num_columns());
    }
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const ColumnTask& a, const ColumnTask& b) { return a.weight > b.weight; });
    scan::parallel_for(tasks.size(), threads, [&](size_t k) {
      if (failed.load(std::memory_order_relaxed)) return;
      const ColumnTask& c = tasks[k];
      const Group& g = groups[c.group];
      Result<ColumnArray>& out = got[c.group][c.column];
      out = scan::guarded_run(paths[w0 + g.file], [&]() -> Result<ColumnArray> {
        return opened[g.file].scan->read_column(selections[c.group], c.column, &col_stats[c.group][c.column]);
      });
      if (!out.ok()) failed.store(true, std::memory_order_relaxed);
    });
    for (size_t t = 0; t < groups.size(); ++t) {
      if (!done[t].ok() || selections[t].selected == 0) continue;
      if (got[t].size() != opened[groups[t].file].scan->num_columns()) {  // another row group failed first
        done[t] = scan::not_run();
        continue;
      }
      Status s = opened[groups[t].file].scan->add_piece(selections[t], got[t], col_stats[t], &*done[t],
                                                        &done[t]->stats);
      if (!s.ok()) done[t] = s.error();
      selections[t] = RowSelection{};  // its bitmaps' charge goes now
    }
    // Each file's row groups back together: its first error, or its pieces
    // in row-group order and its stats.
    size_t t = 0;
    for (size_t k = 0; k < opened.size(); ++k) {
      if (!opened[k].scan) continue;
      ScanResult file_out;
      ScanStats group_stats;
      Status error = Status::Ok();
      for (; t < groups.size() && groups[t].file == k; ++t) {
        if (!error.ok()) continue;
        if (!done[t].ok()) {
          if (!scan::is_not_run(done[t].error())) error = done[t].error();
          continue;
        }
        group_stats.add(done[t]->stats);
        for (auto& p : done[t]->pieces) file_out.pieces.push_back(std::move(p));
      }
      if (!error.ok()) {
        results[w0 + k] = error.error();
        continue;
      }
      file_out.stats = opened[k].scan->finish(group_stats);
      results[w0 + k] = std::move(file_out);
    }
  }
  ScanResult out;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!results[i].ok()) {
      if (scan::is_not_run(results[i].error())) continue;
      return results[i].error();
    }
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!results[i].ok()) continue;
    ScanResult& r = *results[i];
    out.stats.add(r.stats);
    for (auto& p : r.pieces) out.pieces.push_back(std::move(p));
  }
  return out;
}

}  // namespace scan

namespace scan {

namespace {

// prune_local_file and prune_file_scan: `file` (`id`: its identity, for the
// footer cache; null: none) pruned.
Result<PrunedFile> prune_opened(RandomAccessFile& file, const FileIdentity* id,
                                const std::vector<int32_t>* row_groups, const std::vector<ScanColumn>& columns,
                                const ScanFilter& filter, const ScanOptions& options, bool footer_always) {
  const std::string& path = file.name();
  ScanOptions o = options;
  o.threads = 1;
  o.row_groups.clear();
  if (!o.budget) o.budget = MemoryBudget::make(options.memory_limit);
  return guarded_run(path, [&]() -> Result<PrunedFile> {
    FileScan s(file, 0, columns, filter, o, id);
    ScanResult early;
    PrunedFile out;
    PQFAST_ASSIGN_OR_RETURN(const bool more, s.prepare(&early));
    if (!more) {
      // Every row group ruled out before the whole footer was parsed (or a
      // filter no row satisfies): the footer is still wanted for the plan.
      out.stats = early.stats;
      out.stats.files = 1;
      out.size = file.size();
      if (!footer_always) return out;
      ScanOptions whole = o;
      whole.use_bloom = false;
      const ScanFilter none;  // (FileScan keeps a reference)
      FileScan footer_only(file, 0, columns, none, whole, id);
      ScanResult unused;
      auto whole_footer = footer_only.prepare(&unused);
      if (!whole_footer.ok()) return whole_footer.error();
      out.meta = footer_only.meta();
      out.size = file.size();
      if (row_groups) {
        for (int32_t g : *row_groups) {
          if (g < 0 || static_cast<size_t>(g) >= out.meta->row_groups.size()) {
            return make_error(ErrorCode::kInvalidArgument, path + ": no row group " + std::to_string(g) +
                                                               " (the file has " +
                                                               std::to_string(out.meta->row_groups.size()) + ")");
          }
        }
      }
      return out;
    }
    out.meta = s.meta();
    out.size = file.size();
    out.pruner = std::make_shared<const PrunerVerdicts>(s.verdicts());
    const size_t n = out.meta->row_groups.size();
    std::vector<int32_t> all;
    if (!row_groups) {
      all.resize(n);
      for (size_t g = 0; g < n; ++g) all[g] = static_cast<int32_t>(g);
      row_groups = &all;
    }
    out.stats.files = 1;
    for (int32_t g : *row_groups) {
      if (g < 0 || static_cast<size_t>(g) >= n) {
        return make_error(ErrorCode::kInvalidArgument, path + ": no row group " + std::to_string(g) +
                                                           " (the file has " + std::to_string(n) + ")");
      }
      if (out.meta->row_groups[static_cast<size_t>(g)].num_rows > 0 && s.ruled_out(g, &out.stats)) {
        ++out.stats.row_groups;
        continue;
      }
      out.row_groups.push_back(g);
    }
    // The pruner's reads (Bloom blocks, a footer read for the first time).
    const ScanStats& own = s.own_stats();
    out.stats.reads += own.reads;
    out.stats.bytes_read += own.bytes_read;
    return out;
  });
}

}  // namespace

Result<PrunedFile> prune_local_file(const std::string& path, const std::vector<int32_t>* row_groups,
                                    const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                    const ScanOptions& options, bool footer_always, const LocalOverlay* overlay) {
  PQFAST_ASSIGN_OR_RETURN(OpenedFile f, open_local_file(path, overlay));
  auto opened = std::make_shared<OpenedLocalFile>(OpenedLocalFile{std::move(f.file), std::move(f.id)});
  auto r = prune_opened(*opened->file, opened->id ? &*opened->id : nullptr, row_groups, columns, filter, options,
                        footer_always);
  if (r.ok()) r->opened = std::move(opened);
  return r;
}

Result<PrunedFile> prune_file_scan(RandomAccessFile& file, const std::string& version,
                                   const std::vector<int32_t>* row_groups, const std::vector<ScanColumn>& columns,
                                   const ScanFilter& filter, const ScanOptions& options) {
  if (version.empty()) return prune_opened(file, nullptr, row_groups, columns, filter, options, true);
  // (Never a local path's key: the name and version, apart.)
  const FileIdentity id{file.size(), 0, file.name() + '\n' + version};
  return prune_opened(file, &id, row_groups, columns, filter, options, true);
}

Result<std::shared_ptr<const FileMetaData>> local_footer(const std::string& path,
                                                         const std::vector<ScanColumn>& columns,
                                                         const ScanOptions& options, const LocalOverlay* overlay) {
  PQFAST_ASSIGN_OR_RETURN(OpenedFile f, open_local_file(path, overlay));
  ScanOptions o = options;
  o.threads = 1;
  o.use_bloom = false;
  o.row_groups.clear();
  if (!o.budget) o.budget = MemoryBudget::make(options.memory_limit);
  return guarded_run(path, [&]() -> Result<std::shared_ptr<const FileMetaData>> {
    const ScanFilter none;  // (FileScan keeps a reference)
    FileScan s(*f.file, 0, columns, none, o, f.id ? &*f.id : nullptr);
    ScanResult unused;
    PQFAST_RETURN_IF_ERROR(s.prepare(&unused));
    return s.meta();
  });
}

Result<ScanResult> scan_local_row_group(const std::string& path, int32_t file_index, int32_t rg,
                                        const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                                        const ScanOptions& options, const LocalOverlay* overlay) {
  PQFAST_ASSIGN_OR_RETURN(OpenedFile f, open_local_file(path, overlay));
  ScanOptions o = options;
  o.use_bloom = false;  // (prune_local_file ran the pruner)
  o.row_groups = {rg};
  if (!o.budget) o.budget = MemoryBudget::make(options.memory_limit);
  return guarded_run(path, [&] {
    FileScan s(*f.file, file_index, columns, filter, o, f.id ? &*f.id : nullptr);
    return s.run();
  });
}

std::vector<Result<ScanResult>> scan_local_row_groups(const std::vector<LocalRowGroup>& groups, int threads) {
  // Consecutive row groups of one file (ascending, same columns, filter and
  // pruner verdicts) share one open and one FileScan, as a file of the
  // engine's call does: its footer looked up and its columns resolved once.
  struct File {
    size_t first = 0, count = 0;  // its row groups: groups[first, first + count)
    std::optional<OpenedFile> f;
    std::shared_ptr<OpenedLocalFile> kept;  // opened by pruning (then f is empty)
    ScanOptions o;  // (FileScan keeps a reference)
    std::unique_ptr<FileScan> scan;
    Result<ScanResult> early = not_run();  // prepare() said the file is done
    Status error = Status::Ok();
  };
  struct Group {
    size_t file = 0;
    RowSelection sel;
    ScanStats st;
    std::vector<Result<ColumnArray>> got;
    std::vector<ScanStats> col_stats;
  };
  const size_t n = groups.size();
  std::vector<File> files;
  std::vector<Group> g(n);
  for (size_t k = 0; k < n; ++k) {
    const LocalRowGroup& lg = groups[k];
    bool joins = false;
    if (!files.empty()) {
      const LocalRowGroup& prev = groups[k - 1];
      joins = prev.path == lg.path && prev.row_group < lg.row_group && prev.columns == lg.columns &&
              prev.filter == lg.filter && prev.file_index == lg.file_index &&
              prev.options.pruner == lg.options.pruner && prev.options.budget == lg.options.budget &&
              prev.overlay == lg.overlay && prev.opened == lg.opened;
    }
    if (!joins) {
      files.emplace_back();
      files.back().first = k;
    }
    ++files.back().count;
    g[k].file = files.size() - 1;
  }
  // 1a. Each file's footer (the cache) and columns.
  parallel_for(files.size(), threads, [&](size_t i) {
    File& x = files[i];
    const LocalRowGroup& lg = groups[x.first];
    x.error = guarded_run(lg.path, [&]() -> Status {
      if (lg.opened) {
        x.kept = lg.opened;
      } else {
        PQFAST_ASSIGN_OR_RETURN(OpenedFile f, open_local_file(lg.path, lg.overlay.get()));
        x.f = std::move(f);
      }
      RandomAccessFile& file = x.kept ? *x.kept->file : *x.f->file;
      const std::optional<FileIdentity>& id = x.kept ? x.kept->id : x.f->id;
      x.o = lg.options;
      x.o.threads = 1;
      x.o.use_bloom = false;  // (prune_local_file ran the pruner)
      x.o.row_groups.clear();
      for (size_t k = x.first; k < x.first + x.count; ++k) x.o.row_groups.push_back(groups[k].row_group);
      if (!x.o.budget) x.o.budget = MemoryBudget::make(lg.options.memory_limit);
      x.scan = std::make_unique<FileScan>(file, lg.file_index, *lg.columns, *lg.filter, x.o, id ? &*id : nullptr);
      ScanResult early;
      PQFAST_ASSIGN_OR_RETURN(const bool more, x.scan->prepare(&early));
      if (!more) {
        x.scan.reset();
        x.early = std::move(early);
        return Status::Ok();
      }
      PQFAST_ASSIGN_OR_RETURN(const std::vector<int32_t> checked, x.scan->groups_to_scan());
      (void)checked;
      return Status::Ok();
    });
  });
  std::vector<Result<ScanResult>> out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    File& x = files[g[k].file];
    if (!x.error.ok()) {
      out.emplace_back(x.error.error());
    } else if (!x.scan) {
      // (the file's early result once, for its first row group)
      if (k == x.first && x.early.ok()) {
        out.emplace_back(std::move(x.early).value());
      } else {
        out.emplace_back(ScanResult{});
      }
    } else {
      out.emplace_back(ScanResult{});
    }
  }
  // 1b. Each row group's selected rows.
  parallel_for(n, threads, [&](size_t k) {
    File& x = files[g[k].file];
    if (!x.scan) return;
    Status st = guarded_run(groups[k].path, [&]() -> Status {
      return x.scan->select_rows(groups[k].row_group, &g[k].sel, &g[k].st);
    });
    if (!st.ok()) out[k] = st.error();
  });
  // 2. The projected columns of every row group with rows, heaviest first.
  struct ColumnTask {
    size_t group, column;
    int64_t weight;
  };
  std::vector<ColumnTask> tasks;
  for (size_t k = 0; k < n; ++k) {
    Group& y = g[k];
    FileScan* fs = files[y.file].scan.get();
    if (!out[k].ok() || !fs || y.sel.selected == 0) continue;
    for (size_t j = 0; j < fs->num_columns(); ++j) {
      y.got.emplace_back(not_run());
      tasks.push_back({k, j, fs->column_weight(groups[k].row_group, j)});
    }
    y.col_stats.resize(fs->num_columns());
  }
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const ColumnTask& a, const ColumnTask& b) { return a.weight > b.weight; });
  parallel_for(tasks.size(), threads, [&](size_t t) {
    const ColumnTask& c = tasks[t];
    Group& y = g[c.group];
    FileScan& fs = *files[y.file].scan;
    y.got[c.column] = guarded_run(groups[c.group].path, [&]() -> Result<ColumnArray> {
      return fs.read_column(y.sel, c.column, &y.col_stats[c.column]);
    });
  });
  // 3. Each row group's piece and counts, as scan_local_row_group gives
  // them (the file's own reads, a footer read for the first time, with its
  // first row group).
  for (size_t k = 0; k < n; ++k) {
    Group& y = g[k];
    File& x = files[y.file];
    if (!out[k].ok() || !x.scan) continue;
    ScanResult r;
    if (y.sel.selected > 0) {
      Status st = guarded_run(groups[k].path, [&]() -> Status {
        return x.scan->add_piece(y.sel, y.got, y.col_stats, &r, &y.st);
      });
      if (!st.ok()) {
        out[k] = st.error();
        continue;
      }
    }
    ScanStats total = k == x.first ? x.scan->own_stats() : ScanStats{};
    total.add(y.st);
    total.files = 1;
    total.row_groups = 1;
    total.files_read = total.row_groups_read > 0 ? 1 : 0;
    r.stats = total;
    out[k] = std::move(r);
  }
  return out;
}

struct RowGroupRuns::State {
  State(RandomAccessFile& file, int32_t index, int32_t rg, const std::vector<ScanColumn>& columns,
        const ScanFilter& filter, const ScanOptions& options)
      : name(file.name()), o(options), row_group(rg), scan(file, index, columns, filter, o) {}
  std::string name;
  ScanOptions o;  // (FileScan keeps a reference)
  int32_t row_group;
  FileScan scan;
  bool prepared = false;
  bool selected = false;
  RowSelection sel;
  ScanStats sel_stats;  // the run that selected the rows: its counts
  // Per projected column, what the run that read it gave (not read yet: empty).
  std::vector<std::optional<ColumnArray>> columns;
  std::vector<ScanStats> column_stats;
};

RowGroupRuns::RowGroupRuns(RandomAccessFile& file, int32_t file_index, int32_t row_group,
                           const std::vector<ScanColumn>& columns, const ScanFilter& filter,
                           const ScanOptions& options) {
  ScanOptions o = options;
  o.threads = 1;
  o.use_bloom = false;  // (the file's pruning ran the pruner: options.pruner)
  o.cache_footers = false;
  o.row_groups = {row_group};
  if (!o.budget) o.budget = MemoryBudget::make(options.memory_limit);
  s_ = std::make_unique<State>(file, file_index, row_group, columns, filter, o);
}

RowGroupRuns::~RowGroupRuns() = default;

Result<ScanResult> RowGroupRuns::run() {
  State& s = *s_;
  return guarded_run(s.name, [&]() -> Result<ScanResult> {
    if (!s.prepared) {
      ScanResult early;
      PQFAST_ASSIGN_OR_RETURN(const bool more, s.scan.prepare(&early));
      if (!more) return early;  // a filter no row satisfies
      PQFAST_RETURN_IF_ERROR(s.scan.groups_to_scan());
      s.prepared = true;
    }
    if (!s.selected) {
      // Each try selects afresh (its counts and charge its own): a try that
      // stops for bytes not fed counts nothing.
      RowSelection sel;
      ScanStats st;
      Status r = s.scan.select_rows(s.row_group, &sel, &st);
      if (!r.ok()) {
        if (not_fetched(r.error())) s.scan.want_page_indexes(s.row_group);
        return r.error();
      }
      s.sel = std::move(sel);
      s.sel_stats = st;
      s.selected = true;
      s.columns.clear();
      s.columns.resize(s.scan.num_columns());
      s.column_stats.assign(s.scan.num_columns(), ScanStats{});
    }
    ScanResult out;
    ScanStats st = s.sel_stats;
    if (s.sel.selected > 0) {
      // Every column not read yet is read (each read not fed is recorded),
      // those that read keep what they gave for the next run.
      std::vector<Result<ColumnArray>> got;
      for (size_t j = 0; j < s.columns.size(); ++j) {
        if (s.columns[j]) {
          got.emplace_back(ColumnArray());
          continue;
        }
        ScanStats cs;
        got.push_back(s.scan.read_column(s.sel, j, &cs));
        if (got.back().ok()) {
          s.columns[j] = std::move(got.back()).value();
          s.column_stats[j] = cs;
          got.back() = ColumnArray();
        }
      }
      // Errors first, then bytes not fed (every column's are asked at once).
      const Result<ColumnArray>* first = nullptr;
      for (const auto& r : got) {
        if (!r.ok() && (!first || (not_fetched(first->error()) && !not_fetched(r.error())))) first = &r;
      }
      if (first) return first->error();
      for (size_t j = 0; j < s.columns.size(); ++j) got[j] = std::move(*s.columns[j]);
      PQFAST_RETURN_IF_ERROR(s.scan.add_piece(s.sel, got, s.column_stats, &out, &st));
    }
    out.stats = s.scan.finish(st);
    return out;
  });
}

}  // namespace scan

}  // namespace pqfast::parquet
