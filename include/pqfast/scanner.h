// The streaming scanner: a plan over files -> row groups -> projected leaves
// (-> an optional filter), run as a state machine that says which byte
// ranges it needs, is fed them, and hands out Arrow record batches in
// file-then-row order. It does no I/O of its own: whoever holds the bytes
// (positional reads on a pool, LocalScan below; ranged GETs from object
// storage; an fsspec filesystem) asks needs(), fetches, and feeds. arrow-rs's
// ParquetPushDecoder separates decoding from I/O the same way.
//
// The protocol, for one consumer thread:
//
//   auto s = pqfast::parquet::Scanner::make(plan, options);
//   for (;;) {
//     ArrowArray batch; ArrowSchema schema;
//     auto step = (*s)->next_batch(&batch, &schema);
//     if (!step.ok()) fail(step.error());
//     if (*step == ScanStep::kEnd) break;
//     if (*step == ScanStep::kNeedData) {
//       for (const FileRange& r : (*s)->needs()) (*s)->feed(r.file, r.offset, fetch(r));   // any order, any split
//       continue;
//     }
//     use(batch, schema);   // a struct array of the projected columns; the consumer releases both
//   }
//
// How a file is scanned:
//   1. footer: the file's tail (ScannerOptions::footer_tail bytes) is asked
//      for, then, when the footer is longer, the rest of it (skipped when
//      the plan gives the footer);
//   2. each planned row group in order becomes a unit: without a filter its
//      projected column chunks are asked for (coalesced: chunks fewer than
//      coalesce_gap bytes apart are one range); with a filter the scan
//      engine (pqfast/scan.h: statistics, Bloom filters, dictionaries,
//      page index, filter pages, projected pages) runs over the bytes fed so
//      far, and every range it reads and has not got becomes a need, until
//      a run completes (a row group ruled out by its statistics asks nothing);
//   3. once a unit's ranges are all fed it is decoded (by next_batch, or
//      ahead of the consumer by run_task() on a driver's threads), its
//      bytes released, and cut into batches of at most batch_size rows.
//
// Memory: bytes fed, pages inflated and columns decoded but not yet handed
// out are charged to one MemoryBudget. needs() asks for a further unit only
// while the units asked for and not yet consumed fit in readahead_bytes
// (the first unit in order is always asked for); a unit that alone cannot
// fit the budget ends the scan with ErrorCode::kMemoryLimit. A batch handed
// out is the consumer's: its bytes leave the budget when the unit's last
// batch is taken.
//
// Input is hostile: a feed outside the ranges asked for, past the file's
// size, or given twice is refused (kInvalidArgument); short or garbage bytes
// make the unit's decode fail with an error that names the file, row group
// and column. Errors are sticky: after one, next_batch returns it again.
//
// Thread safety: every method may be called from any thread (one mutex
// inside); run_task() decodes outside it, so a driver's threads decode
// several units at once while batches still come out in order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pqfast/arrow_c_data.h"
#include "pqfast/memory_budget.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"
#include "pqfast/scan.h"
#include "pqfast/status.h"

namespace pqfast::parquet {

namespace scan {
struct OpenedLocalFile;  // (scan/local_units.h)
}  // namespace scan

// One file of a plan.
struct ScanPlanFile {
  std::string name;   // names the file in errors (a path for LocalScan)
  uint64_t size = 0;  // its size in bytes (LocalScan: 0 means "stat it")
  // Known already (a listing's cache): no tail is asked for.
  std::shared_ptr<const FileMetaData> footer;
  // Only these row groups, in this order (each once); empty with
  // all_row_groups false: none.
  bool all_row_groups = true;
  std::vector<int32_t> row_groups;
  // This file's filter, when it differs from the plan's (a lake's hive keys
  // fold the filter per file: atoms on keys are decided by the file's
  // directories); null: the plan's. Inactive: every row of the file.
  std::shared_ptr<const ScanFilter> filter;
  // Filtered files pruned before the plan was made (LocalScan: footer and
  // row_groups are what pruning left): what that read and ruled out, added
  // to ScannerStats::engine.
  bool pruned = false;
  ScanStats pruned_stats;
  std::shared_ptr<const PrunerVerdicts> pruner;  // the pruner's verdicts, for the units' engine runs
  // The object's version (its ETag and modification time; empty: none):
  // with it, what pruning the file learns (its lean footer, its Bloom
  // filters' header layouts) is kept per process, and a later scan of the
  // unchanged object asks for the probed 32-byte blocks alone.
  std::string version;
  // The whole file (`size` bytes), read already with its footer (a lake of
  // small files: one open and one read per file, not two): LocalScan takes
  // the ranges it asks for from these bytes instead of opening the file.
  // Null: read the file.
  std::shared_ptr<const uint8_t> bytes;
  // A filtered local file read as data file + its tail from a sidecar index
  // (LocalScan prunes it and its units read it so: the sidecar's Bloom
  // filters and page indexes used as the file's own). Null: the file alone.
  std::shared_ptr<const LocalOverlay> overlay;
  // A filtered fed file read as the object + its tail from a sidecar index
  // (base_size >= 0): the overlay OverlayFile gives local files
  // (LocalOverlay), for a driver's feeds. `size` is the object's, which
  // must be tail.base_size (else kCorrupt: the object changed since the
  // tail was written); the scan sees base_size + tail.length bytes, and
  // needs() asks the tail's bytes as ranges of the sidecar
  // (FileRange::in_sidecar, through overlay_spans), fed back at the file's
  // own offsets. The footer is the tail's: `footer` and `bytes` must be null.
  SidecarTail sidecar_tail;
  // LocalScan: the file as pruning opened it, kept for its units (a plan of
  // at most LocalScan::kKeepOpened files); null: each run opens it.
  std::shared_ptr<scan::OpenedLocalFile> opened;
};

struct ScanPlan {
  std::vector<ScanPlanFile> files;
  // The projected flat leaves (dotted paths), each read with its options
  // (Arrow layout, format string); a file that lacks one is an error.
  // Empty: no column, batches carry row counts only. A column read with
  // ColumnReadOptions::dictionary_indices comes out as Arrow dictionary
  // arrays: int32 indices over the chunk's dictionary (its dictionary page,
  // then what plain pages add, as the column reader builds it), that one
  // dictionary shared, not copied, by every batch of the row group; batches
  // of other row groups carry their own.
  std::vector<ScanColumn> columns;
  // Per plan column, when it is a nested top-level field (a list, struct or
  // map; its ScanColumn::name is the field's name, its options unused): the
  // read options of the leaves below it, in schema order
  // (NestedNode::leaves). Each unit decodes the leaves with their levels and
  // assembles the field's Arrow tree (parquet_nested.h: decode_leaf_chunk,
  // assemble_nested, as the column reader's read_nested_chunk); batches
  // slice it by top-level rows. An empty entry, or none: a flat leaf.
  // Filtered units: the scan engine reads the flat columns and selects the
  // rows (filters name flat leaves only); each nested field is then
  // assembled from its leaves' whole chunks (a fed unit asks for them once
  // the engine's run selected rows; one read from its file reads them
  // there) and reduced to the selected rows (take_nested_rows).
  std::vector<std::vector<ColumnReadOptions>> nested;
  // Inactive: every row of every planned row group.
  ScanFilter filter;
  // The size of the sidecar index the files' sidecar_tail lie in (a tail
  // past it is refused by Scanner::make, kCorrupt).
  uint64_t sidecar_size = 0;
};

struct ScannerOptions {
  int64_t batch_size = 131072;  // rows per batch at most (> 0)
  // Bytes asked for and not yet consumed (fed or in flight, plus what the
  // decoded units not yet handed out hold): needs() stops asking past it.
  // <= 0: half of the budget's limit.
  int64_t readahead_bytes = 0;
  // Ranges of one unit fewer than this many bytes apart are asked as one.
  uint64_t coalesce_gap = uint64_t{64} << 10;
  // How many bytes of a file's end are asked for first (footer and trailer);
  // with a filter at least 16 KiB (what the scan engine reads of a tail).
  uint64_t footer_tail = uint64_t{64} << 10;
  // Footers asked ahead of the unit being read (files in flight).
  int footers_ahead = 8;
  // Units (row groups) asked for and not yet consumed, at most (0: as many
  // as readahead_bytes allows). 1: nothing read ahead (head(n) reads only
  // the row groups it returns).
  int max_units_ahead = 0;
  // The budget shared by everything the scanner holds; null: one of
  // memory_limit bytes (<= 0: default_memory_limit()).
  std::shared_ptr<MemoryBudget> budget;
  int64_t memory_limit = 0;
  ParseLimits limits;
  // Filtered units: which stages the scan engine may use.
  bool use_statistics = true;
  bool use_bloom = true;
  bool use_dictionary = true;
  bool use_page_index = true;
  // Filtered units run the scan engine straight on their local files (plan
  // names are paths; LocalScan sets it after pruning the files): one run
  // each, footers from the process-wide cache, no bytes asked or fed.
  bool filtered_from_files = false;
  // Filtered units from files run one by one (next_batch, run_task): the
  // threads each engine run spreads a matching row group's projected
  // columns over (scan::parallel_for's parked helpers, as one engine call
  // spreads them). LocalScan sets it to its thread count.
  int filtered_unit_threads = 1;
  // LocalScan, a plan without a filter: how it is scheduled. kUnits: row
  // groups are the state machine's units (above). kFiles: a task per file
  // (LocalScan's file tasks, below): the file read whole with its footer
  // (at most whole_file_bytes; a larger one's footer, then its chunks one by
  // one) and decoded by the one thread that read it, batches still in file
  // then row order, files decoded ahead while readahead_bytes allows. kAuto:
  // kFiles for a plan of several files whose first is at most
  // whole_file_bytes (its size given, or stat'ed): a lake of small files,
  // where a unit is too little work to hand between threads under the
  // state's one lock (10,000 one-row-group files: 2 threads slower than 1).
  enum class FileTasks : uint8_t { kAuto, kUnits, kFiles };
  FileTasks file_tasks = FileTasks::kAuto;
  uint64_t whole_file_bytes = uint64_t{1} << 20;
  // File tasks only: a file whose projected leaf columns are not the first
  // file's (paths, types, levels; a column it lacks) ends the scan before it (LocalScan::stopped_at(); every
  // batch of the files before it handed out), so that a caller that planned
  // the scan from the first file's footer alone reads the rest another way.
  // False: files are not compared (a caller that planned every file).
  bool stop_at_unlike = false;
  // stop_at_unlike: top-level columns the first file lacks that the
  // caller's schema has (a file holding one is unlike the first: the
  // caller fills them with nulls for the first file's run, not for it).
  std::vector<std::string> absent_columns;
  // Threads that decode plain units (LocalScan: its own and the consumer).
  // From 2, a column chunk large against their share (split_parts over the
  // file's planned chunks, as the column reader cuts a read's chunks) is cut
  // into ranges of pages that several of them decode (SplitChunk): a file
  // of one row group, or one large chunk, no longer decodes on one thread.
  int decode_threads = 1;
};

// Bytes [offset, offset + length) of plan file `file`.
struct FileRange {
  int32_t file = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  // A range of an unfiltered unit's column chunks: it may be fed by
  // feed_deferred (read when the unit is decoded) instead of with its bytes.
  bool deferrable = false;
  // Where the bytes are read: the file at `offset`, or, for a file read with
  // a sidecar's tail (ScanPlanFile::sidecar_tail), the sidecar index at
  // `source_offset`. Fed at `offset` of the file either way.
  bool in_sidecar = false;
  uint64_t source_offset = 0;
};

enum class ScanStep : uint8_t {
  kBatch,     // a batch was written out
  kNeedData,  // feed what needs() lists (or, on a driver, wait for its threads)
  kEnd,       // every batch handed out
};

// Where a batch comes from.
struct BatchOrigin {
  int32_t file = 0;
  int32_t row_group = 0;
  int64_t rows = 0;
};

// Counts of what a scan did so far (for tests and benchmarks).
struct ScannerStats {
  int64_t ranges_asked = 0;
  int64_t bytes_asked = 0;
  int64_t bytes_fed = 0;
  int64_t units = 0;          // row groups planned so far (file tasks: files, and below)
  int64_t units_started = 0;  // whose bytes were asked for (or engine run)
  int64_t units_decoded = 0;
  int64_t engine_runs = 0;    // filtered units: runs of the scan engine
  int64_t batches = 0;
  int64_t rows = 0;
  int64_t peak_held = 0;      // most bytes counted against readahead at once
  int64_t chunks_cut = 0;     // plain units' chunks decoded as page ranges (decode_threads)
  int64_t files_whole = 0;    // file tasks: files read in one read with their footer
  // Filtered fed units that asked for their nested fields' chunks after
  // the engine's run selected rows (the run kept, not run again).
  int64_t nested_rounds = 0;
  // Filtered units: what the scan engine's completed runs read, summed (the
  // run that decided each unit; runs that stopped for bytes not fed yet are
  // not counted, the reads they made are made again).
  ScanStats engine;
};

class Scanner {
 public:
  static Result<std::unique_ptr<Scanner>> make(ScanPlan plan, ScannerOptions options = {});
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // Ranges not asked for before that the scan needs next, in the order
  // they will be used; empty when it waits for ranges already asked for,
  // when readahead is full, or at the end. `max_units` > 0: the ranges of
  // at most that many units (footers still all): a driver whose threads
  // read and then decode asks one unit at a time, so that the thread that
  // read a unit's bytes decodes them while they are in its cache, and the
  // others are not kept waiting behind a read of the whole window.
  std::vector<FileRange> needs(int max_units = 0);

  // Bytes at `offset` of plan file `file`: all or part of a range needs()
  // returned (one range; pieces may come in any order).
  Status feed(int32_t file, uint64_t offset, std::vector<uint8_t>&& bytes);
  // The same for `size` bytes at `bytes`, held (not copied) until the unit
  // that needs them is decoded: a driver reads into blocks it reuses.
  Status feed(int32_t file, uint64_t offset, std::shared_ptr<const uint8_t> bytes, size_t size);
  // The same for a deferrable range (FileRange::deferrable, whole): its
  // bytes are read from `source` by the thread that decodes each column
  // chunk in it, just before decoding it, into a pooled buffer freed right
  // after, as the column reader reads a chunk. The chunk's bytes are then in
  // that thread's cache when it decodes them (a unit read whole ahead of its
  // decode is not), and not held while the unit waits. A read error fails
  // the unit (naming file, row group and column). The range stays charged to
  // the budget as if fed until the unit is decoded.
  Status feed_deferred(int32_t file, uint64_t offset, std::shared_ptr<RandomAccessFile> source, size_t size);

  // The next batch (a struct array of the projected columns, and its
  // schema, unless `schema` is null; the consumer releases both), or kNeedData, or kEnd. Decodes the
  // next unit here when its bytes are in and no run_task() has taken it.
  Result<ScanStep> next_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin = nullptr);

  // Decodes one unit whose bytes are all in, ahead of the consumer (the
  // earliest such unit). False when there was none.
  // `help_first`: first the columns of a unit another thread decodes (a
  // consumer waiting for that unit), then a unit of its own. `help`: with
  // no unit of its own, the columns (or page ranges) of a unit another
  // thread decodes; false: none (a driver that can still read a unit of its
  // own asks for one first). `head_only`: of its own, only the unit whose
  // batch is next (a consumer with other threads decoding: a later unit
  // taken whole would hold back the batch it waits for, which another
  // thread is finishing).
  bool run_task(bool help_first = false, bool help = true, bool head_only = false);

  // Filtered units read from their local files (filtered_from_files):
  // every one ready runs now, together, as one engine call runs its row
  // groups (scan/local_units.h, scan_local_row_groups: rows selected row
  // group by row group in parallel, then every matching one's columns as
  // one pool of tasks) on `threads` threads. False when none was ready.
  bool run_filtered_units(int threads);

  // The scan's schema (a struct of the projected columns, as the first
  // planned file decodes them), once that file's footer is in; kNeedData
  // before (the caller feeds and asks again).
  Result<ScanStep> schema(ArrowSchema* out);

  // Ends the scan: needs() asks nothing more, run_task() does nothing,
  // next_batch() fails with "scan cancelled". Bytes held are released.
  void cancel();
  // Fails the scan with `error` (a driver's read error): next_batch returns it.
  void fail(Error error);

  // Something changed (bytes fed, a unit decoded, a batch taken, an error,
  // a cancel) since `seen` (a value changes() returned). Drivers wait so.
  uint64_t changes() const;
  void wait_for_change(uint64_t seen, int64_t timeout_ms);

  ScannerStats stats() const;
  const std::shared_ptr<MemoryBudget>& budget() const;
  int64_t held_bytes() const;  // counted against readahead now
  // Whether the next batch's unit still waits for bytes (or no unit is
  // planned yet: footers to come).
  bool head_needs_bytes() const;

  struct State;

 private:
  explicit Scanner(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// A scan of local files fed by positional reads (pread) on its own threads,
// `threads` of them (0: one per hardware thread, at most 8; < 0: none, the
// consumer's next_batch reads and decodes): they read what needs() asks and
// decode units ahead of the consumer; batches come out in order. The destructor cancels and joins: no thread outlives the object,
// and nothing a thread throws escapes it (it fails the scan instead).
//
// Filtered files are pruned by make(), files in parallel, before any unit
// is planned: footers from the process-wide cache the scan engine keeps,
// then statistics and Bloom filters; each row group left is read by the
// engine straight from its file (ScannerOptions::filtered_from_files). A
// lookup so reads what one scan_files call reads. A plan whose files are
// all filtered starts no threads: the consumer runs the units ready
// together on `threads` threads (Scanner::run_filtered_units, as one
// engine call runs its row groups), and files pruned to no row group leave
// the scanner's plan (batch origins still name the plan given). Otherwise a
// plan left with at most kInlineUnits row groups runs on the consumer's
// thread (a round handed between threads costs more than a lookup's reads).
//
// File tasks (ScannerOptions::file_tasks, a plan without a filter): no
// unit passes through the state machine. A task is one file: the thread
// that takes it (files taken in plan order from an atomic counter: the
// scan's threads and the consumer, which works instead of waiting) opens
// it, reads it whole into a buffer it reuses from file to file (no
// allocation or page fault per file), parses the footer from those bytes,
// and decodes the planned row groups with the units' decoders while the
// bytes are in its cache; the consumer hands the batches out in file then
// row order, cut to batch_size. Threads share the counter, the budget and
// one mutex taken once per file (to publish it): a lake of 10,000
// one-row-group files was 10,000 units handed between threads under the
// state's lock. Memory: a file's bytes are charged while its thread holds
// them (refused past the limit: kMemoryLimit naming the file), its decode
// to a share of what the budget has left; decoded files not yet handed out
// stay charged, and a thread takes a file beyond the next one only while
// they fit in readahead_bytes (and max_units_ahead files, when set). A
// file refused by the budget while files before it held memory is decoded
// again once it is the next. The first file (in order) that fails fails
// the scan, naming it; cancel() stops the tasks (a thread finishes the
// file it holds). The Scanner behind scanner() then holds the first file's
// footer alone (the scan's schema and budget).
class LocalScan {
 public:
  static Result<std::unique_ptr<LocalScan>> make(ScanPlan plan, ScannerOptions options = {}, int threads = 0);
  ~LocalScan();
  LocalScan(const LocalScan&) = delete;
  LocalScan& operator=(const LocalScan&) = delete;

  // Blocks until a batch (kBatch) or the end (kEnd); never kNeedData. While
  // the next batch is not decoded the calling thread reads and decodes
  // beside the scan's own threads. `schema` may be null (no copy of the
  // batch's schema: a stream's consumer has it once).
  Result<ScanStep> next_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin = nullptr);
  Status schema(ArrowSchema* out);
  // Stops the threads' work; a blocked next_batch returns "scan cancelled".
  void cancel();
  Scanner& scanner() { return *scanner_; }
  static constexpr int64_t kInlineUnits = 4;
  // A plan whose files are all filtered runs its units on the consumer's
  // call (with parked helpers) up to this many row groups left after
  // pruning: a lookup's few. Past it, a scan of the whole table under a
  // filter (one row in ten of 500 row groups kept), the scan's own threads
  // read and run units ahead while the consumer takes batches: run on the
  // consumer's call, the decoding stopped whenever the consumer handed a
  // batch on (a polars filter over 50 M rows: 660 ms, the reader alone 300).
  static constexpr int64_t kConsumerRunUnits = 32;
  // What the scan did so far (file tasks: counted per file and batch).
  ScannerStats stats() const;
  // Whether the scan runs file tasks (ScannerOptions::file_tasks).
  bool file_tasks() const { return files_mode_ != nullptr; }
  // ScannerOptions::stop_at_unlike: the plan file before which the scan
  // ended (its leaf columns are not the first file's), once next_batch
  // returned kEnd; -1: none (every file was read).
  int32_t stopped_at() const;
  // Filtered files pruned in a plan of at most this many files stay open for
  // their units (one open per file, as one engine call's window of files).
  static constexpr size_t kKeepOpened = 256;

  // The scan as a C stream (ArrowArrayStream): get_next hands out batches
  // until the end (an array whose release is null), get_schema the schema;
  // errors are errno codes (ENOMEM for kMemoryLimit, EINVAL, EIO) with the
  // message in get_last_error. The stream's release cancels the scan (a
  // reader closed early stops the reads); the last owner joins its threads.
  // With `requested` (the consumer's schema for the stream, e.g. its field
  // names, nullability and metadata) the stream reports it instead of the
  // scan's, which it must match child for child in Arrow format
  // (kInvalidArgument otherwise); the batches are the same.
  static Status export_stream(std::shared_ptr<LocalScan> scan, ArrowArrayStream* out,
                              const ArrowSchema* requested = nullptr);

  // Every batch of the scan taken here (blocking; an error of the scan is
  // returned, typed, before any stream exists), then a C stream over them
  // (schema: `requested`, checked as export_stream checks it, or the
  // scan's). `files`, when given, gets each batch's plan file. For a reader
  // that wants the whole scan as one table: no per-batch call across the
  // stream's consumer (a lake of 10,000 one-row-group files is 10,000 batches).
  Status drain(ArrowArrayStream* out, const ArrowSchema* requested = nullptr, std::vector<int32_t>* files = nullptr);

 private:
  LocalScan() = default;
  void worker();
  // File tasks (ScannerOptions::file_tasks): the files, their slots and
  // whose turn it is; a worker thread's loop; the consumer's next batch.
  struct Files;
  std::unique_ptr<Files> files_mode_;
  void file_worker();
  Result<ScanStep> next_file_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin);
  static Result<std::unique_ptr<LocalScan>> make_file_tasks(std::unique_ptr<LocalScan> ls, ScanPlan plan,
                                                           ScannerOptions options, int threads);
  // One read+feed or one decode; false when none was possible. `consumer`:
  // the thread that takes the batches (helps the unit it waits for first).
  // `head_only`: it decodes no unit of its own but the next batch's (a
  // stream's consumer beside the scan's threads: Scanner::run_task).
  // `reads`: false: no read either (only decoding).
  bool step_io_or_decode(bool consumer = false, bool head_only = false, bool reads = true);
  // Every file pruned (batch_threads_ > 0): the units ready run together
  // on that many threads (Scanner::run_filtered_units), called by the consumer.
  void run_ready_units();
  int batch_threads_ = 0;
  // Per file of the scanner's plan, its index in the plan given (pruned
  // files left with no row group are not in the scanner's); empty: the same.
  std::vector<int32_t> plan_index_;
  std::unique_ptr<Scanner> scanner_;
  // Open files, by plan index (shared: a read in flight keeps its file open
  // while a later read closes the files far behind it).
  static constexpr size_t kFilesKeptOpen = 16;
  std::vector<std::shared_ptr<LocalFile>> files_;
  size_t first_open_ = 0;  // files before it were closed
  // Plain units' ranges fed deferred (Scanner::feed_deferred): each column
  // chunk read by the thread that decodes it, as the column reader does.
  bool defer_reads_ = false;
  // The consumer, waiting for the next batch, first helps decode the unit
  // that batch comes from (a stream's latency); drain() takes whole units first.
  bool help_head_ = true;
  std::vector<std::string> paths_;
  // Per plan file, its whole bytes read already (ScanPlanFile::bytes; null:
  // read the file), dropped with the descriptors once the scan is past it.
  std::vector<std::shared_ptr<const uint8_t>> wholes_;
  std::vector<uint64_t> sizes_;
  std::mutex files_mu_;
  std::atomic<bool> stop_{false};
  // Until a stream's first batch is handed out, the scan's threads decode
  // only the first unit (its columns shared) and read ahead, and the
  // consumer only decodes: the first batch comes after about one row
  // group's decode, not after several decoded side by side on few cores
  // (the latency head() and an engine's first rows see). Later batches
  // keep one unit per thread.
  std::atomic<bool> first_pending_{true};
  std::atomic<int> reads_before_first_{0};
  std::vector<std::thread> threads_;
};

// Whether two footers have the same leaf columns (paths, physical and
// logical types, levels): files a lake reads together as one table.
bool same_leaves(const FileMetaData& a, const FileMetaData& b);

}  // namespace pqfast::parquet
