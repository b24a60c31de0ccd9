// The streaming scanner (pqfast/scanner.h): a state machine over a plan of
// files -> row groups -> projected leaves that asks for byte ranges, is fed
// them, decodes row groups with the column reader (or, filtered, with the
// scan engine over the bytes fed so far) and cuts them into record batches.
// LocalScan drives it with pread on a few threads.
#include "pqfast/scanner.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "parquet/chunk_extent.h"
#include "parquet/decode.h"
#include "parquet/memory_scope.h"
#include "parquet/read_buffer.h"
#include "parquet/thrift_util.h"
#include "pqfast/parquet_nested.h"
#include "scan/local_units.h"
#include "scan/parallel.h"

namespace pqfast::parquet {

namespace {

// Bytes fed: a vector given by a caller, or a pooled block LocalScan read
// into (freed back to the pool when the last piece holding it goes).
struct Piece {
  uint64_t offset = 0;
  std::shared_ptr<const uint8_t> data;
  size_t n = 0;
  // Deferred (Scanner::feed_deferred): no bytes yet; a chunk inside is read
  // from here when it is decoded (data is null).
  std::shared_ptr<RandomAccessFile> source;
  size_t size() const { return n; }
};

// A range asked for (or to be asked for) and the pieces fed into it.
struct Request {
  int32_t file = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  int unit = -1;  // >= 0: a unit's; kFooterRequest, kPruneRequest: the file's
  bool asked = false;
  uint64_t fed = 0;
  std::vector<Piece> pieces;
  bool complete() const { return fed == length; }
};

// A contiguous view of [offset, offset + n) out of pieces that cover it: a
// pointer into one piece when one holds it all, else a copy in `scratch`.
// False when the pieces leave a hole.
bool view_of(const std::vector<Piece>& pieces, uint64_t offset, uint64_t n, std::vector<uint8_t>* scratch,
             const uint8_t** out) {
  for (const Piece& p : pieces) {
    if (p.data && p.offset <= offset && offset + n <= p.offset + p.size()) {
      *out = p.data.get() + (offset - p.offset);
      return true;
    }
  }
  scratch->assign(static_cast<size_t>(n), 0);
  uint64_t covered = 0;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const Piece& p : pieces) {
    if (!p.data) continue;  // (deferred: read where a chunk is decoded, never viewed)
    const uint64_t b = std::max(offset, p.offset);
    const uint64_t e = std::min(offset + n, p.offset + p.size());
    if (b >= e) continue;
    std::memcpy(scratch->data() + (b - offset), p.data.get() + (b - p.offset), static_cast<size_t>(e - b));
    spans.emplace_back(b, e);
  }
  std::sort(spans.begin(), spans.end());
  uint64_t at = offset;
  for (const auto& [b, e] : spans) {
    if (b > at) return false;
    at = std::max(at, e);
  }
  covered = at - offset;
  if (covered < n) return false;
  *out = scratch->data();
  return true;
}

// The bytes fed so far for one file, read as a file by the scan engine:
// a read of bytes not fed is recorded and answered kNotFetched.
class FedFile final : public RandomAccessFile {
 public:
  FedFile(std::string name, uint64_t size, std::vector<Piece> pieces)
      : name_(std::move(name)), size_(size), pieces_(std::move(pieces)) {}
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
    if (offset > size_ || n > size_ - offset) {
      return make_error(ErrorCode::kTruncated, name_ + ": read of " + std::to_string(n) + " bytes at byte " +
                                                   std::to_string(offset) + " goes past the end of the " +
                                                   std::to_string(size_) + "-byte file");
    }
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<uint8_t> scratch;
    const uint8_t* p = nullptr;
    if (n == 0) return Status::Ok();
    if (view_of(pieces_, offset, n, &scratch, &p)) {
      std::memcpy(out, p, n);
      return Status::Ok();
    }
    missing_.emplace_back(offset, n);
    return make_error(ErrorCode::kNotFetched, name_ + ": bytes " + std::to_string(offset) + "+" + std::to_string(n) +
                                                  " not fed yet");
  }
  std::vector<std::pair<uint64_t, uint64_t>> missing() {
    std::lock_guard<std::mutex> lock(mu_);
    return missing_;
  }
  // The bytes fed by the next run's time (a unit's engine runs read one
  // FedFile: scan::RowGroupRuns keeps a reference to it).
  void refed(std::vector<Piece> pieces) {
    std::lock_guard<std::mutex> lock(mu_);
    pieces_ = std::move(pieces);
    missing_.clear();
  }

 private:
  std::string name_;
  uint64_t size_;
  std::vector<Piece> pieces_;
  std::mutex mu_;
  std::vector<std::pair<uint64_t, uint64_t>> missing_;
};

// A filtered unit of a file fed by a driver: its engine runs, resumed where
// the last one stopped for bytes (scan::RowGroupRuns: the filter evaluated
// once, the page indexes loaded once), over one FedFile refed before each,
// within one budget (its share of the scan's, taken by its first run).
struct FedUnit {
  FedUnit(std::string name, uint64_t size, std::shared_ptr<MemoryBudget> b)
      : file(std::move(name), size, {}), budget(std::move(b)) {}
  FedFile file;
  std::shared_ptr<MemoryBudget> budget;
  std::unique_ptr<scan::RowGroupRuns> runs;
};

// Sorted, merged where fewer than `gap` bytes apart.
std::vector<std::pair<uint64_t, uint64_t>> coalesce(std::vector<std::pair<uint64_t, uint64_t>> spans, uint64_t gap) {
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;  // (begin, end)
  for (const auto& [b, e] : spans) {
    if (!out.empty() && b <= out.back().second + gap) {
      out.back().second = std::max(out.back().second, e);
    } else {
      out.emplace_back(b, e);
    }
  }
  return out;
}

// ---- batches as Arrow C structs --------------------------------------------

// A decoded row group's columns, exported once; batches are views into them.
struct Holder {
  std::vector<ArrowArray> arrays;
  std::vector<ArrowSchema> schemas;
  ~Holder() {
    for (auto& a : arrays) {
      if (a.release) a.release(&a);
    }
    for (auto& s : schemas) {
      if (s.release) s.release(&s);
    }
  }
};

struct ChildPrivate {
  std::shared_ptr<Holder> holder;
};

void release_child(ArrowArray* a) {
  delete static_cast<ChildPrivate*>(a->private_data);
  a->release = nullptr;
}

struct BatchPrivate {
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_ptrs;
  const void* buffers[1] = {nullptr};
};

void release_batch(ArrowArray* a) {
  auto* p = static_cast<BatchPrivate*>(a->private_data);
  for (auto& c : p->children) {
    if (c.release) c.release(&c);
  }
  delete p;
  a->release = nullptr;
}

// Rows [begin, begin + n) of the holder's columns as one struct array.
void make_batch(const std::shared_ptr<Holder>& h, int64_t begin, int64_t n, ArrowArray* out) {
  auto* p = new BatchPrivate;
  p->children.resize(h->arrays.size());
  for (size_t i = 0; i < h->arrays.size(); ++i) {
    const ArrowArray& src = h->arrays[i];
    ArrowArray& c = p->children[i];
    c = src;  // shares buffers, children and dictionary with the holder's array
    c.offset = src.offset + begin;
    c.length = n;
    c.null_count = (begin == 0 && n == src.length) ? src.null_count : (src.null_count == 0 ? 0 : -1);
    c.private_data = new ChildPrivate{h};
    c.release = release_child;
    p->child_ptrs.push_back(&c);
  }
  out->length = n;
  out->null_count = 0;
  out->offset = 0;
  out->n_buffers = 1;
  out->buffers = p->buffers;
  out->n_children = static_cast<int64_t>(p->children.size());
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->private_data = p;
  out->release = release_batch;
}

// Deep copies of schemas (each batch carries its own).
struct SchemaPrivate {
  std::string format, name, metadata;
  bool has_metadata = false;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;
  std::unique_ptr<ArrowSchema> dictionary;
};

void release_schema(ArrowSchema* s) {
  auto* p = static_cast<SchemaPrivate*>(s->private_data);
  for (auto& c : p->children) {
    if (c.release) c.release(&c);
  }
  if (p->dictionary && p->dictionary->release) p->dictionary->release(p->dictionary.get());
  delete p;
  s->release = nullptr;
}

size_t metadata_length(const char* m) {
  // int32 count, then (int32 length, bytes) for each key and value.
  auto i32 = [](const char* at) {
    int32_t v;
    std::memcpy(&v, at, 4);
    return v;
  };
  size_t at = 4;
  const int32_t n = i32(m);
  for (int32_t k = 0; k < 2 * n; ++k) at += 4 + static_cast<size_t>(i32(m + at));
  return at;
}

void fill_schema(SchemaPrivate* p, const char* format, const char* name, const char* metadata, int64_t flags,
                 ArrowSchema* out) {
  p->format = format ? format : "";
  p->name = name ? name : "";
  if (metadata) {
    p->metadata.assign(metadata, metadata_length(metadata));
    p->has_metadata = true;
  }
  p->child_ptrs.clear();
  for (auto& c : p->children) p->child_ptrs.push_back(&c);
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = p->has_metadata ? p->metadata.data() : nullptr;
  out->flags = flags;
  out->n_children = static_cast<int64_t>(p->children.size());
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = p->dictionary.get();
  out->private_data = p;
  out->release = release_schema;
}

void copy_schema(const ArrowSchema& src, ArrowSchema* out) {
  auto* p = new SchemaPrivate;
  p->children.resize(static_cast<size_t>(src.n_children));
  for (int64_t i = 0; i < src.n_children; ++i) copy_schema(*src.children[i], &p->children[static_cast<size_t>(i)]);
  if (src.dictionary) {
    p->dictionary = std::make_unique<ArrowSchema>();
    copy_schema(*src.dictionary, p->dictionary.get());
  }
  fill_schema(p, src.format, src.name, src.metadata, src.flags, out);
}

// A struct schema of copies of `fields`.
void struct_schema(const std::vector<ArrowSchema>& fields, ArrowSchema* out) {
  auto* p = new SchemaPrivate;
  p->children.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) copy_schema(fields[i], &p->children[i]);
  fill_schema(p, "+s", "", nullptr, 0, out);
}

constexpr uint64_t kEngineFooterRead = uint64_t{16} << 10;

// The scan engine's options for one file's pruning or one filtered unit's
// run: one thread, the scan's pruning switches and limits.
ScanOptions pruning_options(const ScannerOptions& o) {
  ScanOptions so;
  so.threads = 1;
  so.use_statistics = o.use_statistics;
  so.use_bloom = o.use_bloom;
  so.use_dictionary = o.use_dictionary;
  so.use_page_index = o.use_page_index;
  so.limits = o.limits;
  return so;
}

// A plan the scanner refuses for its nested columns: more nested entries
// than columns.
Status check_nested(const ScanPlan& plan) {
  if (plan.nested.size() > plan.columns.size()) {
    return make_error(ErrorCode::kInvalidArgument, "scan plan: " + std::to_string(plan.nested.size()) +
                                                       " nested entries for " + std::to_string(plan.columns.size()) +
                                                       " columns");
  }
  return Status::Ok();
}

// The plan's flat columns, in plan order: what the scan engine reads of a
// filtered unit (and checks of a file when pruning it). A nested field's
// rows are taken after the engine's run, by its row selection
// (finish_nested): the engine reads flat leaves only.
std::vector<ScanColumn> flat_columns(const ScanPlan& plan) {
  std::vector<ScanColumn> out;
  for (size_t k = 0; k < plan.columns.size(); ++k) {
    if (k < plan.nested.size() && !plan.nested[k].empty()) continue;
    out.push_back(plan.columns[k]);
  }
  return out;
}

// Requests of a file rather than of a unit: its footer, and what pruning it
// reads (filtered files fed by a driver are pruned once, before their units
// are planned: State::prune).
constexpr int kFooterRequest = -1;
constexpr int kPruneRequest = -2;
// Pruning's ranges fewer than this many bytes apart are asked as one (a
// filter's header and probed blocks, neighbouring filters': the staged
// scan's gap); a Bloom filter is otherwise never asked for whole, which the
// units' coalesce_gap would do to the filters of a file laid side by side.
constexpr uint64_t kPruneGap = uint64_t{64} << 10;
// Runs of a file's pruning that ask for bytes, at most (a lookup: one, or
// two when a filter's header is not the size its length implies).
constexpr int kPruneRounds = 8;
// Filtered files fed by a driver: footers (and so pruning) asked this many
// files ahead at least, so that a lookup's Bloom blocks of many files go
// out in one round of requests (each file holds its tail meanwhile).
constexpr int kPruneAhead = 64;

// [b, e) spans less the bytes `pieces` hold (sorted, disjoint).
std::vector<std::pair<uint64_t, uint64_t>> less_held(const std::vector<std::pair<uint64_t, uint64_t>>& spans,
                                                     const std::vector<Piece>& pieces) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (auto [b, e] : spans) {
    std::vector<std::pair<uint64_t, uint64_t>> held;
    for (const Piece& p : pieces) {
      const uint64_t pb = std::max(b, p.offset), pe = std::min(e, p.offset + p.size());
      if (p.data && pb < pe) held.emplace_back(pb, pe);
    }
    std::sort(held.begin(), held.end());
    for (const auto& [hb, he] : held) {
      if (hb > b) out.emplace_back(b, hb);
      b = std::max(b, he);
    }
    if (b < e) out.emplace_back(b, e);
  }
  return out;
}

Error cancelled_error() { return make_error(ErrorCode::kInvalidArgument, "scan cancelled"); }

// The columns of one plain unit being decoded, shared so that threads with
// no unit of their own decode some of them (UnitColumns, below).
struct UnitColumns;

// A filtered unit's completed engine run that selected rows, for the plan's
// nested fields (finish_nested): the flat columns' selected rows, the
// selection over the row group's rows, and the budget they are charged to.
// A fed unit whose nested chunks were not in yet keeps it while it waits
// for them, so that the engine does not run again.
struct EngineRun {
  std::vector<ColumnArray> columns;
  std::vector<uint64_t> selection;
  int64_t rows = 0;
  ScanStats stats;
  std::shared_ptr<MemoryBudget> budget;
};

}  // namespace

// ---- the state -----------------------------------------------------------------

struct Scanner::State {
  // kPruning: the footer is in, the file is pruned (its units not planned yet).
  enum class FilePhase : uint8_t { kIdle, kTailAsked, kBodyAsked, kPruning, kReady };
  struct File {
    ScanPlanFile spec;
    FilePhase phase = FilePhase::kIdle;
    std::shared_ptr<const FileMetaData> meta;
    std::vector<int> leaves;          // per plan column (a nested field: its first leaf)
    // Per plan column, a nested field's Arrow tree (null: a flat leaf).
    std::vector<std::shared_ptr<const NestedNode>> shapes;
    // Every leaf the plan's columns read (a nested field's all), in order:
    // the chunks a unit asks for and its estimate counts.
    std::vector<int> chunk_leaves;
    std::vector<int> footer_requests;
    std::vector<int> prune_requests;  // kPruneRequest: what pruning asked and reads
    int prune_rounds = 0;
    std::vector<Piece> footer_pieces;  // kept while filtered units of the file may read the footer
    int64_t footer_held = 0;          // bytes of footer_pieces charged
    bool units_made = false;
    bool v2_always_compressed = false;
    bool parquet_mr_816 = false;
    bool engine_counted = false, engine_read = false;  // in stats.engine.files / files_read
  };
  enum class UnitPhase : uint8_t { kPlanned, kWaiting, kReady, kDecoding, kDecoded, kDone, kFailed };
  struct Unit {
    int32_t file = 0;
    int32_t row_group = 0;
    UnitPhase phase = UnitPhase::kPlanned;
    // Bytes counted against readahead while not decoded: the projected
    // chunks' compressed bytes (fed) plus their uncompressed bytes (about
    // what they decode to), from the footer.
    int64_t estimate = 0;
    int64_t chunk_bytes = 0;  // the projected chunks' compressed bytes
    std::vector<int> requests;
    int rounds = 0;  // engine runs (filtered)
    // Filtered, fed by a driver: the engine's runs so far (made by the first).
    std::shared_ptr<FedUnit> fed;
    // A filtered unit whose engine run selected rows, kept while the unit
    // waits for its nested fields' chunks (finish_nested).
    std::shared_ptr<EngineRun> engine_run;
    // Decoded ahead of the consumer and refused by the budget (the units
    // before it hold the memory): decoded again once it is the next unit.
    bool deferred = false;
    std::shared_ptr<Holder> holder;
    // While a plain unit decodes (kDecoding): its columns, for helpers.
    std::shared_ptr<UnitColumns> columns;
    int64_t rows = 0, next_row = 0;
    int64_t decoded_charge = 0;  // charged to the budget until the last batch is taken
    // Per projected column, the page ranges its chunk is cut into (empty:
    // every chunk whole; ScannerOptions::decode_threads).
    std::vector<int> parts;
    Error error;
  };

  ScanPlan plan;
  // The plan's flat columns (flat_columns): the scan engine's of filtered units.
  std::vector<ScanColumn> engine_columns;
  ScannerOptions opts;
  std::shared_ptr<MemoryBudget> budget;
  int64_t readahead = 0;

  mutable std::mutex mu;
  std::condition_variable cv;
  uint64_t changes = 0;
  bool cancelled = false;
  bool failed = false;
  Error error;

  std::vector<File> files;
  std::vector<Request> requests;
  std::vector<std::vector<int>> file_requests;  // open requests per file
  std::vector<Unit> units;                      // in file, then row group order
  size_t next_file_for_units = 0;
  size_t head = 0;  // first unit not done
  ScannerStats stats;

  void changed() {
    ++changes;
    cv.notify_all();
  }

  void set_failed(Error e) {
    if (failed) return;
    failed = true;
    error = std::move(e);
    release_all();
    changed();
  }

  void release_request(Request& r) {
    int64_t n = 0;
    for (const Piece& p : r.pieces) n += static_cast<int64_t>(p.size());
    if (n) budget->release(n);
    r.pieces.clear();
    auto& open = file_requests[static_cast<size_t>(r.file)];
    const int id = static_cast<int>(&r - requests.data());
    open.erase(std::remove(open.begin(), open.end(), id), open.end());
  }

  void release_unit(Unit& u) {
    u.fed.reset();
    for (int id : u.requests) release_request(requests[static_cast<size_t>(id)]);
    if (u.decoded_charge) budget->release(u.decoded_charge);
    u.decoded_charge = 0;
    u.holder.reset();
  }

  void release_all() {
    for (auto& u : units) release_unit(u);
    for (auto& f : files) {
      if (f.footer_held) budget->release(f.footer_held);
      f.footer_held = 0;
      f.footer_pieces.clear();
    }
    for (auto& r : requests) {
      if (!r.pieces.empty()) release_request(r);
    }
  }

  int new_request(int32_t file, uint64_t offset, uint64_t length, int unit) {
    Request r;
    r.file = file;
    r.offset = offset;
    r.length = length;
    r.unit = unit;
    requests.push_back(std::move(r));
    const int id = static_cast<int>(requests.size() - 1);
    file_requests[static_cast<size_t>(file)].push_back(id);
    return id;
  }

  std::string rg_where(const Unit& u) const {
    return files[static_cast<size_t>(u.file)].spec.name + ": row group " + std::to_string(u.row_group);
  }

  // File fi's filter: its own, or the plan's.
  const ScanFilter& filter_of(size_t fi) const {
    const auto& own = files[fi].spec.filter;
    return own ? *own : plan.filter;
  }
  bool filtered(size_t fi) const { return filter_of(fi).active; }

  // Units are started in order (admit), so the planned ones are the tail:
  // the loops over the units started stop at the first planned one (a lake
  // of 10,000 one-row-group files has 10,000 units, planned at once).
  int64_t held() const {
    int64_t n = 0;
    for (size_t i = head; i < units.size(); ++i) {
      const Unit& u = units[i];
      if (u.phase == UnitPhase::kPlanned) break;
      if (u.phase == UnitPhase::kDone || u.phase == UnitPhase::kFailed) continue;
      n += u.phase == UnitPhase::kDecoded ? u.decoded_charge : u.estimate;
    }
    return n;
  }

  // ---- footers ----

  // The tree of nested top-level field `name` of a file, checked against the
  // plan: a field of that name holding a nested column (a group, or a
  // repeated leaf) with `leaves` leaves below it.
  static Result<std::shared_ptr<const NestedNode>> nested_column(const FileMetaData& m, const std::string& name,
                                                                 size_t leaves, const std::string& file) {
    const std::vector<TopLevelField> fields = top_level_fields(m);
    for (size_t i = 0; i < fields.size(); ++i) {
      const TopLevelField& t = fields[i];
      if (t.name != name || t.leaves.empty()) continue;
      if (!t.group && t.leaves.size() == 1 && !is_nested_leaf(m, t.leaves[0])) {
        return make_error(ErrorCode::kInvalidArgument, file + ": column '" + name + "' is a flat leaf, not a nested field");
      }
      Result<NestedNode> shape = nested_field(m, static_cast<int>(i));
      if (!shape.ok()) return make_error(shape.error().code, file + ": " + shape.error().message);
      if (static_cast<size_t>(shape->leaf_count()) != leaves) {
        return make_error(ErrorCode::kInvalidArgument, file + ": nested column '" + name + "' has " +
                                                           std::to_string(shape->leaf_count()) + " leaves, the plan " +
                                                           std::to_string(leaves));
      }
      return std::make_shared<const NestedNode>(std::move(shape).value());
    }
    return make_error(ErrorCode::kInvalidArgument, file + ": no column '" + name + "'");
  }

  // Per plan column of file `name` (footer m): its leaf (a nested field:
  // its first) and, for a nested field, its tree (else null); a column the
  // file lacks, or holds in a form the plan cannot read, is an error naming
  // the file. (File tasks resolve each file's columns so too.)
  static Status resolve_columns(const ScanPlan& plan, const FileMetaData& m, const std::string& name,
                                std::vector<int>* leaves, std::vector<std::shared_ptr<const NestedNode>>* shapes) {
    leaves->clear();
    shapes->clear();
    for (size_t k = 0; k < plan.columns.size(); ++k) {
      const ScanColumn& c = plan.columns[k];
      if (k < plan.nested.size() && !plan.nested[k].empty()) {
        PQFAST_ASSIGN_OR_RETURN(auto shape, nested_column(m, c.name, plan.nested[k].size(), name));
        std::vector<int> below;
        shape->leaves(&below);
        leaves->push_back(below.front());
        shapes->push_back(std::move(shape));
        continue;
      }
      // A name the file gives several leaves (a file with two columns "a")
      // takes them in order on each mention, as the scan engine does.
      int mention = 0;
      for (size_t j = 0; j < k; ++j) {
        if (plan.columns[j].name == c.name && (j >= plan.nested.size() || plan.nested[j].empty())) ++mention;
      }
      int leaf = -1;
      for (size_t i = 0, seen = 0; i < m.columns.size() && leaf < 0; ++i) {
        if (m.columns[i].dotted_path == c.name && seen++ == static_cast<size_t>(mention)) leaf = static_cast<int>(i);
      }
      if (leaf < 0) leaf = m.find_column(c.name);  // (mentioned more often than the file has it)
      if (leaf < 0) return make_error(ErrorCode::kInvalidArgument, name + ": no column '" + c.name + "'");
      const std::string problem = flat_column_problem(m, leaf);
      if (!problem.empty()) return make_error(ErrorCode::kUnsupported, name + ": " + problem);
      leaves->push_back(leaf);
      shapes->push_back(nullptr);
    }
    return Status::Ok();
  }

  Status footer_ready(size_t fi, std::shared_ptr<const FileMetaData> meta) {
    File& f = files[fi];
    f.meta = std::move(meta);
    const FileMetaData& m = *f.meta;
    f.v2_always_compressed = v2_pages_always_compressed(m.created_by);
    f.parquet_mr_816 = parquet_mr_before_1_2_9(m.created_by);
    PQFAST_RETURN_IF_ERROR(resolve_columns(plan, m, f.spec.name, &f.leaves, &f.shapes));
    f.chunk_leaves.clear();
    for (size_t k = 0; k < f.leaves.size(); ++k) {
      if (!f.shapes[k]) {
        f.chunk_leaves.push_back(f.leaves[k]);
        continue;
      }
      std::vector<int> below;
      f.shapes[k]->leaves(&below);
      f.chunk_leaves.insert(f.chunk_leaves.end(), below.begin(), below.end());
    }
    if (f.spec.all_row_groups) {
      f.spec.row_groups.clear();
      for (size_t g = 0; g < m.row_groups.size(); ++g) f.spec.row_groups.push_back(static_cast<int32_t>(g));
    }
    for (int32_t g : f.spec.row_groups) {
      if (g < 0 || static_cast<size_t>(g) >= m.row_groups.size()) {
        return make_error(ErrorCode::kInvalidArgument, f.spec.name + ": no row group " + std::to_string(g) + " (the file has " +
                                                           std::to_string(m.row_groups.size()) + ")");
      }
    }
    if (!filtered(fi)) {
      // Unfiltered units never read the footer again.
      if (f.footer_held) budget->release(f.footer_held);
      f.footer_held = 0;
      f.footer_pieces.clear();
    }
    if (filtered(fi) && !opts.filtered_from_files && !f.spec.pruned) {
      f.phase = FilePhase::kPruning;
      return prune(fi);
    }
    f.phase = FilePhase::kReady;
    make_units();
    return Status::Ok();
  }

  // Filtered file fi (kPruning), fed by a driver, pruned over the bytes fed
  // so far (its footer's, what earlier runs asked) as LocalScan prunes a
  // local file (scan/local_units.h): statistics, then the Bloom filters'
  // header and the 32-byte blocks the keys hash to (one read each, from the
  // bitset the filter's length implies), not whole filters. Bytes it lacks
  // become the file's requests and it runs again once they are all in; done,
  // the row groups left become units, which run the engine with its
  // verdicts (ScanOptions::pruner), not the pruner again. Under the lock: a
  // lean footer parse and a few probes, microseconds.
  Status prune(size_t fi) {
    File& f = files[fi];
    std::vector<Piece> pieces = f.footer_pieces;
    for (int id : f.prune_requests) {
      for (const Piece& p : requests[static_cast<size_t>(id)].pieces) pieces.push_back(p);
    }
    FedFile file(f.spec.name, f.spec.size, pieces);
    ScanOptions so = pruning_options(opts);
    so.cache_footers = !f.spec.version.empty();
    so.predict_bloom_blocks = true;
    so.footer = f.meta;
    so.budget = budget->share_of_rest();
    auto r = scan::prune_file_scan(file, f.spec.version, &f.spec.row_groups, engine_columns, filter_of(fi), so);
    const auto missing = file.missing();
    if (!missing.empty()) {
      if (++f.prune_rounds > kPruneRounds) {
        return make_error(ErrorCode::kLimitExceeded, f.spec.name + ": pruning still asks for bytes after " +
                                                         std::to_string(kPruneRounds) + " rounds");
      }
      std::vector<std::pair<uint64_t, uint64_t>> spans;
      for (const auto& [off, n] : missing) spans.emplace_back(off, off + n);
      for (const auto& [b, e] : less_held(coalesce(std::move(spans), kPruneGap), pieces)) {
        f.prune_requests.push_back(new_request(static_cast<int32_t>(fi), b, e - b, kPruneRequest));
      }
      return Status::Ok();
    }
    if (!r.ok()) return r.error();
    for (int id : f.prune_requests) release_request(requests[static_cast<size_t>(id)]);
    f.prune_requests.clear();
    f.spec.row_groups = std::move(r->row_groups);
    f.spec.pruner = std::move(r->pruner);
    f.spec.pruned = true;
    stats.engine.add(r->stats);
    f.engine_counted = true;
    if (f.spec.row_groups.empty()) {
      // No unit will read the footer's bytes.
      if (f.footer_held) budget->release(f.footer_held);
      f.footer_held = 0;
      f.footer_pieces.clear();
    }
    f.phase = FilePhase::kReady;
    make_units();
    return Status::Ok();
  }

  bool prune_fed(const File& f) const {
    for (int id : f.prune_requests) {
      if (!requests[static_cast<size_t>(id)].complete()) return false;
    }
    return true;
  }

  // Units of the files whose footers are in, in plan order.
  void make_units() {
    while (next_file_for_units < files.size() && files[next_file_for_units].phase == FilePhase::kReady) {
      File& f = files[next_file_for_units];
      const FileMetaData& m = *f.meta;
      const std::vector<int> cut = page_ranges(f, next_file_for_units);
      size_t at = 0;  // the unit's first chunk in `cut`
      for (int32_t g : f.spec.row_groups) {
        Unit u;
        u.file = static_cast<int32_t>(next_file_for_units);
        u.row_group = g;
        const RowGroup& rg = m.row_groups[static_cast<size_t>(g)];
        for (int leaf : f.chunk_leaves) {
          if (static_cast<size_t>(leaf) >= rg.columns.size()) continue;
          const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
          u.chunk_bytes += std::max<int64_t>(0, c.total_compressed_size);
          u.estimate += std::max<int64_t>(0, c.total_compressed_size) + std::max<int64_t>(0, c.total_uncompressed_size);
        }
        if (!cut.empty()) {
          const auto first = cut.begin() + static_cast<std::ptrdiff_t>(at), last = first + static_cast<std::ptrdiff_t>(f.leaves.size());
          if (std::any_of(first, last, [](int k) { return k > 1; })) u.parts.assign(first, last);
          at += f.leaves.size();
        }
        units.push_back(std::move(u));
        ++stats.units;
      }
      f.units_made = true;
      // A filtered file whose units are all done no longer needs its footer
      // bytes: dropped in unit_done().
      ++next_file_for_units;
    }
  }

  // How many page ranges each projected chunk of a plain file's planned
  // row groups is cut into (row group by row group, column by column), as
  // the column reader cuts the chunks of one read (split_parts); empty when
  // none is cut. Per file: a lake's threads find other files' units.
  std::vector<int> page_ranges(const File& f, size_t fi) const {
    if (opts.decode_threads < 2 || filtered(fi) || f.leaves.empty()) return {};
    const FileMetaData& m = *f.meta;
    std::vector<int64_t> sizes;
    sizes.reserve(f.spec.row_groups.size() * f.leaves.size());
    for (int32_t g : f.spec.row_groups) {
      const RowGroup& rg = m.row_groups[static_cast<size_t>(g)];
      for (size_t k = 0; k < f.leaves.size(); ++k) {
        const int leaf = f.leaves[k];
        // (a nested field's leaves are decoded whole, one after the other: never cut)
        sizes.push_back(static_cast<size_t>(leaf) < rg.columns.size() && rg.num_rows > 0 && !f.shapes[k]
                            ? std::max<int64_t>(0, rg.columns[static_cast<size_t>(leaf)].total_uncompressed_size)
                            : 0);
      }
    }
    std::vector<int> cut = split_parts(sizes, opts.decode_threads);
    // A chunk read as dictionary indices is decoded whole (its dictionary
    // is the chunk's, built page after page: SplitChunk leaves it whole), so
    // it is one job, not one that decodes and several that do nothing; a
    // nested field's leaves are decoded whole, one after the other.
    for (size_t at = 0; at < cut.size(); ++at) {
      const ColumnReadOptions& o = plan.columns[at % f.leaves.size()].options;
      if (o.dictionary_indices || o.dictionary_values || f.shapes[at % f.leaves.size()]) cut[at] = 1;
    }
    if (std::none_of(cut.begin(), cut.end(), [](int k) { return k > 1; })) return {};
    return cut;
  }

  Status tail_fed(size_t fi) {
    File& f = files[fi];
    const uint64_t size = f.spec.size;
    std::vector<Piece> pieces;
    for (int id : f.footer_requests) {
      for (const Piece& p : requests[static_cast<size_t>(id)].pieces) pieces.push_back(p);
    }
    int64_t held = 0;
    for (const Piece& p : pieces) held += static_cast<int64_t>(p.size());
    // The requests' charges move to the file's footer.
    for (int id : f.footer_requests) {
      Request& r = requests[static_cast<size_t>(id)];
      r.pieces.clear();
      auto& open = file_requests[fi];
      open.erase(std::remove(open.begin(), open.end(), id), open.end());
    }
    f.footer_requests.clear();
    f.footer_pieces.insert(f.footer_pieces.end(), pieces.begin(), pieces.end());
    f.footer_held += held;
    std::vector<uint8_t> scratch;
    const uint8_t* last8 = nullptr;
    if (size < 8 || !view_of(f.footer_pieces, size - 8, 8, &scratch, &last8)) {
      return make_error(ErrorCode::kTruncated, f.spec.name + ": " + std::to_string(size) + " bytes: too small for a Parquet file");
    }
    auto len = parse_trailer(last8, size);
    if (!len.ok()) return make_error(len.error().code, f.spec.name + ": " + len.error().message);
    const uint64_t begin = size - 8 - *len;
    const uint8_t* body = nullptr;
    std::vector<uint8_t> scratch2;
    if (!view_of(f.footer_pieces, begin, *len, &scratch2, &body)) {
      if (f.phase == FilePhase::kBodyAsked) {
        return make_error(ErrorCode::kCorrupt, f.spec.name + ": footer bytes missing after they were fed");
      }
      uint64_t have = size;
      for (const Piece& p : f.footer_pieces) have = std::min(have, p.offset);
      f.footer_requests.push_back(new_request(static_cast<int32_t>(fi), begin, have - begin, kFooterRequest));
      f.phase = FilePhase::kBodyAsked;
      return Status::Ok();
    }
    auto meta = parse_file_metadata(body, *len, begin, opts.limits);
    if (!meta.ok()) return make_error(meta.error().code, f.spec.name + ": " + meta.error().message);
    return footer_ready(fi, std::make_shared<const FileMetaData>(std::move(meta).value()));
  }

  // ---- units ----

  // Asks for an unfiltered unit's column chunks.
  Status admit_plain(size_t ui) {
    Unit& u = units[ui];
    const File& f = files[static_cast<size_t>(u.file)];
    const FileMetaData& m = *f.meta;
    const RowGroup& rg = m.row_groups[static_cast<size_t>(u.row_group)];
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    if (rg.num_rows > 0) {
      for (int leaf : f.chunk_leaves) {
        uint64_t b = 0, n = 0;
        PQFAST_RETURN_IF_ERROR(chunk_span(u, leaf, &b, &n));
        if (n) spans.emplace_back(b, b + n);
      }
    }
    int64_t asked = 0;
    for (const auto& [b, e] : coalesce(std::move(spans), opts.coalesce_gap)) {
      u.requests.push_back(new_request(u.file, b, e - b, static_cast<int>(ui)));
      asked += static_cast<int64_t>(e - b);
    }
    u.estimate = std::max(u.estimate, asked);
    u.phase = u.requests.empty() ? UnitPhase::kReady : UnitPhase::kWaiting;
    return Status::Ok();
  }

  // Where a chunk's pages lie, checked against the file (as the column reader checks).
  Status chunk_span(const Unit& u, int leaf, uint64_t* begin, uint64_t* len) const {
    const File& f = files[static_cast<size_t>(u.file)];
    const FileMetaData& m = *f.meta;
    const RowGroup& rg = m.row_groups[static_cast<size_t>(u.row_group)];
    const ColumnDescriptor& d = m.columns[static_cast<size_t>(leaf)];
    const std::string w = rg_where(u) + ", column '" + d.dotted_path + "'";
    PQFAST_RETURN_IF_ERROR(check_column_chunk(rg, leaf, d, w));
    Result<ChunkExtent> e = chunk_extent(rg.columns[static_cast<size_t>(leaf)], f.spec.size, f.parquet_mr_816, w);
    if (!e.ok()) return e.error();
    *begin = e->begin;
    *len = e->length;
    return Status::Ok();
  }

  void unit_failed(Unit& u, Error e) {
    u.phase = UnitPhase::kFailed;
    u.error = std::move(e);
    release_unit(u);
  }

  void unit_done(size_t ui) {
    Unit& u = units[ui];
    u.phase = UnitPhase::kDone;
    release_unit(u);
    // The last unit of a filtered file drops the file's footer bytes.
    File& f = files[static_cast<size_t>(u.file)];
    if (ui + 1 == units.size() || units[ui + 1].file != u.file) {
      if (f.footer_held) budget->release(f.footer_held);
      f.footer_held = 0;
      f.footer_pieces.clear();
    }
  }

  // Plans the units that readahead allows, in order (their ranges are
  // asked by needs()).
  void admit() {
    int64_t held_now = held();
    int started = opts.max_units_ahead > 0 ? started_not_done() : 0;
    for (size_t ui = head; ui < units.size(); ++ui) {
      Unit& u = units[ui];
      if (u.phase != UnitPhase::kPlanned) continue;
      if (u.chunk_bytes > budget->limit()) {
        unit_failed(u, make_error(ErrorCode::kMemoryLimit,
                                  rg_where(u) + ": the row group's " + format_bytes(u.chunk_bytes) +
                                      " of projected column chunks do not fit the memory limit of " +
                                      format_bytes(budget->limit())));
        return;
      }
      if (held_now > 0 && held_now + u.estimate > readahead) return;
      if (opts.max_units_ahead > 0 && started >= opts.max_units_ahead) return;
      ++started;
      ++stats.units_started;
      if (filtered(static_cast<size_t>(u.file))) {
        u.phase = UnitPhase::kReady;  // the engine's first run says what it reads
      } else {
        Status st = admit_plain(ui);
        if (!st.ok()) {
          unit_failed(u, st.error());
          return;
        }
      }
      held_now += u.estimate;
      stats.peak_held = std::max(stats.peak_held, held_now);
    }
  }

  int started_not_done() const {
    int n = 0;
    for (size_t i = head; i < units.size(); ++i) {
      const UnitPhase p = units[i].phase;
      if (p == UnitPhase::kPlanned) break;
      if (p != UnitPhase::kDone) ++n;
    }
    return n;
  }

  bool all_fed(const Unit& u) const {
    for (int id : u.requests) {
      if (!requests[static_cast<size_t>(id)].complete()) return false;
    }
    return true;
  }
};

// ---- decoding (outside the lock) ----------------------------------------------

namespace {

struct DecodeJob {
  bool filtered = false;
  bool from_file = false;  // filtered, read by the engine from the local file itself
  std::shared_ptr<const PrunerVerdicts> pruner;  // (from_file) the file's pruner verdicts
  std::shared_ptr<const LocalOverlay> overlay;    // (from_file) read with a sidecar's tail
  std::shared_ptr<scan::OpenedLocalFile> opened;  // (from_file) as pruning opened it
  std::string file_name;
  uint64_t file_size = 0;
  int32_t file_index = 0;
  int32_t row_group = 0;
  std::shared_ptr<const FileMetaData> meta;
  std::vector<int> leaves;
  // Per projected column, a nested field's tree (null: flat); its leaves'
  // options are (*nested)[k] (the plan's, held by the scanner's state).
  std::vector<std::shared_ptr<const NestedNode>> shapes;
  const std::vector<std::vector<ColumnReadOptions>>* nested = nullptr;
  std::vector<Piece> pieces;  // the unit's (and, filtered, the footer's) bytes
  std::shared_ptr<FedUnit> fed;  // filtered, fed by a driver: the unit's runs
  // The plan's columns and the unit's filter, held by the scanner's state
  // (fixed once made; it outlives every decode): not copied per unit (a
  // lake of 500 row groups read under a filter copied them 500 times).
  const std::vector<ScanColumn>* columns = nullptr;
  const std::vector<ScanColumn>* engine_columns = nullptr;  // filtered: the plan's flat columns
  const ScanFilter* filter = nullptr;
  std::shared_ptr<EngineRun> engine_run;  // filtered: a run kept while nested chunks were asked for
  ScannerOptions opts;
  bool v2_always_compressed = false;
  bool parquet_mr_816 = false;
  std::shared_ptr<MemoryBudget> budget;  // this unit's, sized to what the scan's budget had left
  std::vector<int> parts;  // plain: page ranges per projected chunk (empty: all whole)
};

struct DecodeOutcome {
  Error error{ErrorCode::kOk, {}};
  std::vector<ColumnArray> columns;
  int64_t rows = 0;
  std::vector<std::pair<uint64_t, uint64_t>> missing;  // filtered: ranges still needed
  ScanStats stats;  // filtered: what the engine's run read (when it completed)
  std::vector<uint64_t> selection;  // filtered, with nested fields: the engine's row selection
  // Filtered, missing the nested fields' chunks: the completed run, kept by the unit.
  std::shared_ptr<EngineRun> engine_run;
};

// Projected column k of a plain unit: where its chunk lies, how it is read,
// its name in errors, and (once load() ran) its bytes.
struct PlainChunk {
  PlainChunk(const DecodeJob& j, size_t k) : PlainChunk(j, j.leaves[k], (*j.columns)[k].options) {}
  // Leaf `leaf` read with `options` (a nested field's leaf).
  PlainChunk(const DecodeJob& j, int leaf, const ColumnReadOptions& options)
      : rg(j.meta->row_groups[static_cast<size_t>(j.row_group)]),
        c(rg.columns[static_cast<size_t>(leaf)]),
        d(j.meta->columns[static_cast<size_t>(leaf)]),
        where(j.file_name + ": row group " + std::to_string(j.row_group) + ", column '" + d.dotted_path + "'"),
        o(options) {
    o.budget = j.budget;
    o.v2_always_compressed = o.v2_always_compressed || j.v2_always_compressed;
  }
  const RowGroup& rg;
  const ColumnChunk& c;
  const ColumnDescriptor& d;
  const std::string where;
  ColumnReadOptions o;
  const uint8_t* bytes = nullptr;
  uint64_t start = 0, len = 0;
  std::vector<uint8_t> scratch;
  detail::ReadBuffer read;  // a deferred chunk's bytes, back to the pool with this

  // The chunk's bytes: a view of the pieces fed, or (deferred) read now.
  Status load(const DecodeJob& j) {
    if (rg.num_rows <= 0) return Status::Ok();
    Result<ChunkExtent> e = chunk_extent(c, j.file_size, j.parquet_mr_816, where);
    if (!e.ok()) return e.error();
    start = e->begin;
    len = e->length;
    const Piece* deferred = nullptr;
    for (const Piece& p : j.pieces) {
      if (p.source && p.offset <= start && start + len <= p.offset + p.size()) deferred = &p;
    }
    if (deferred) {
      read.resize(static_cast<size_t>(len));
      Status st = deferred->source->read_at(start, static_cast<size_t>(len), read.data());
      if (!st.ok()) return make_error(st.error().code, where + ": " + st.error().message);
      bytes = read.data();
    } else if (!view_of(j.pieces, start, len, &scratch, &bytes)) {
      return make_error(ErrorCode::kInvalidArgument, where + ": chunk bytes not fed");
    }
    return Status::Ok();
  }

  // A decoded chunk of the row group's rows, or the error.
  Result<ColumnArray> checked(Result<ColumnArray> col) const {
    if (!col.ok()) return col.error();
    if (col->length() != rg.num_rows) {
      return make_error(ErrorCode::kCorrupt, where + ": " + std::to_string(col->length()) + " values for " +
                                                 std::to_string(rg.num_rows) + " rows");
    }
    return col;
  }
};

// Projected column k of a plain unit, decoded whole.
Result<ColumnArray> decode_plain_column(const DecodeJob& j, size_t k) {
  PlainChunk pc(j, k);
  PQFAST_RETURN_IF_ERROR(pc.load(j));
  return pc.checked(decode_column_chunk(pc.bytes, static_cast<size_t>(pc.len), pc.start, pc.d, pc.c.codec,
                                        pc.rg.num_rows, pc.o, pc.where));
}

// The leaf nodes of a nested field's tree, in schema order (its leaves()).
void leaf_nodes_of(const NestedNode& n, std::vector<const NestedNode*>* out) {
  if (n.kind == NestedNode::Kind::kLeaf) {
    out->push_back(&n);
    return;
  }
  for (const NestedNode& c : n.children) leaf_nodes_of(c, out);
}

// Projected column k of a plain unit that is a nested field: each leaf's
// chunk decoded with its levels (one at a time: a leaf's chunk bytes are
// freed before the next is read), then the Arrow tree assembled from them,
// as the column reader's read_nested_chunk does. The levels are checked
// there (each below its maximum, records begun where the chunk begins, the
// records counted against the row group's rows, every child's slots
// against its parent's): a hostile chunk fails the unit, naming it.
Result<ColumnArray> decode_nested_column(const DecodeJob& j, size_t k) {
  const NestedNode& shape = *j.shapes[k];
  const std::vector<ColumnReadOptions>& options = (*j.nested)[k];
  std::vector<const NestedNode*> nodes;
  leaf_nodes_of(shape, &nodes);
  const RowGroup& rg = j.meta->row_groups[static_cast<size_t>(j.row_group)];
  const std::string where = j.file_name + ": row group " + std::to_string(j.row_group) + ", column '" + shape.name + "'";
  if (nodes.size() != options.size()) {
    return make_error(ErrorCode::kInvalidArgument, where + ": " + std::to_string(options.size()) +
                                                       " leaf options for " + std::to_string(nodes.size()) + " leaves");
  }
  std::vector<LeafChunk> leaves;
  leaves.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    PlainChunk pc(j, nodes[i]->leaf, options[i]);
    PQFAST_RETURN_IF_ERROR(pc.load(j));
    PQFAST_ASSIGN_OR_RETURN(LeafChunk c, decode_leaf_chunk(pc.bytes, static_cast<size_t>(pc.len), pc.start, pc.d,
                                                           pc.c.codec, rg.num_rows, nodes[i]->slot_def,
                                                           pc.c.num_values, pc.o, pc.where));
    leaves.push_back(std::move(c));
  }
  return assemble_nested(shape, leaves, rg.num_rows, where);
}

// What decoding projected column k of a unit costs, about (its chunks'
// decoded bytes, as the footer gives them): the order jobs are taken in.
int64_t column_cost(const DecodeJob& j, size_t k) {
  const RowGroup& rg = j.meta->row_groups[static_cast<size_t>(j.row_group)];
  if (k >= j.shapes.size() || !j.shapes[k]) return rg.columns[static_cast<size_t>(j.leaves[k])].total_uncompressed_size;
  std::vector<int> below;
  j.shapes[k]->leaves(&below);
  int64_t n = 0;
  for (int leaf : below) n += rg.columns[static_cast<size_t>(leaf)].total_uncompressed_size;
  return n;
}

// A plain unit's columns, decoded by whichever threads take them: the thread
// that took the unit, and threads of the driver that find no unit of their
// own to decode (Scanner::run_task). A file of few row groups so still uses
// every thread, as the column reader does with a chunk per thread; a chunk
// cut into page ranges (DecodeJob::parts) is several jobs, one per range.
struct UnitColumns {
  struct Job {
    size_t k;      // the projected column
    int part = 0;  // its page range (a cut chunk), else 0
  };
  // A chunk cut into page ranges: the first of its jobs to run reads it and
  // walks its page headers, the last to end joins the ranges.
  struct Cut {
    explicit Cut(int n) : parts(n) {}
    const int parts;
    std::once_flag opened;
    std::unique_ptr<PlainChunk> chunk;
    Result<std::unique_ptr<SplitChunk>> split{Error{ErrorCode::kInvalidArgument, "not opened"}};
    std::atomic<int> ended{0};
  };

  explicit UnitColumns(DecodeJob job) : j(std::move(job)), cols(j.leaves.size()), cuts(cols.size()) {
    // Largest first (as the column reader schedules them; a range costs its
    // share of its chunk): the last job taken is a small one, so no thread
    // is left with a long tail.
    for (size_t k = 0; k < cols.size(); ++k) {
      const int n = k < j.parts.size() ? std::max(1, j.parts[k]) : 1;
      if (n > 1) cuts[k] = std::make_unique<Cut>(n);
      for (int p = 0; p < n; ++p) jobs.push_back({k, p});
    }
    auto cost = [&](const Job& x) {
      const int64_t size = column_cost(j, x.k);
      return cuts[x.k] ? size / cuts[x.k]->parts : size;
    };
    std::stable_sort(jobs.begin(), jobs.end(), [&](const Job& a, const Job& b) { return cost(a) > cost(b); });
  }

  const DecodeJob j;
  std::atomic<size_t> next{0};  // the next job not taken
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;  // jobs finished (under mu)
  std::vector<ColumnArray> cols;
  std::vector<std::unique_ptr<Cut>> cuts;  // per column, when its chunk is cut
  // In the order they are taken. `next` is checked against jobs.size(), never
  // against cols.size(): outcome() moves `cols` out while a helper that ended
  // the last job may still be taking past the end in work() (or checking
  // has_work()); a size read torn by that move let it decode a column past
  // the end and store it into the moved-out vector (the GPF in
  // decode_plain_column of the 2-thread read bench; a SEGV under TSan).
  std::vector<Job> jobs;
  Error error{ErrorCode::kOk, {}};  // the first job's failure (under mu)

  std::atomic<int> threads{0};  // threads that took a job

  bool has_work() const { return next.load(std::memory_order_relaxed) < jobs.size(); }

  // What a decode throws, as its error.
  template <class F>
  Error guarded(F&& f) const {
    try {
      return f();
    } catch (const std::bad_alloc&) {
      return make_error(ErrorCode::kMemoryLimit, j.file_name + ": row group " + std::to_string(j.row_group) + ": out of memory");
    } catch (const std::exception& e) {
      return make_error(ErrorCode::kInvalidArgument, j.file_name + ": row group " + std::to_string(j.row_group) + ": " + e.what());
    }
  }

  // Column k whole into *out.
  Error decode_one(size_t k, ColumnArray* out) const {
    return guarded([&] {
      auto r = k < j.shapes.size() && j.shapes[k] ? decode_nested_column(j, k) : decode_plain_column(j, k);
      if (!r.ok()) return r.error();
      *out = std::move(r).value();
      return Error{ErrorCode::kOk, {}};
    });
  }

  // Range `part` of cut column k; the last range to end joins the chunk
  // into *out (a failed or skipped range: the chunk's error).
  Error decode_range(size_t k, int part, bool skip, ColumnArray* out, bool* joined) {
    Cut& c = *cuts[k];
    Error err{ErrorCode::kOk, {}};
    if (!skip) {
      err = guarded([&] {
        std::call_once(c.opened, [&] {
          Error e = guarded([&] {
            c.chunk = std::make_unique<PlainChunk>(j, k);
            Status st = c.chunk->load(j);
            if (!st.ok()) return st.error();
            c.split = SplitChunk::plan(c.chunk->bytes, static_cast<size_t>(c.chunk->len), c.chunk->start, c.chunk->d,
                                       c.chunk->c.codec, c.chunk->rg.num_rows, c.chunk->o, c.parts, c.chunk->where);
            return Error{ErrorCode::kOk, {}};
          });
          if (e.code != ErrorCode::kOk) c.split = std::move(e);
        });
        // (a chunk the walk leaves whole has one range: the others have none)
        if (c.split.ok() && part < (*c.split)->parts()) (*c.split)->decode(part);
        return Error{ErrorCode::kOk, {}};
      });
    }
    if (c.ended.fetch_add(1) + 1 != c.parts) return err;
    *joined = true;
    if (err.code != ErrorCode::kOk || skip) return err;
    Error fin = guarded([&] {
      if (!c.split.ok()) return c.split.error();
      auto r = c.chunk->checked((*c.split)->finish());
      if (!r.ok()) return r.error();
      *out = std::move(r).value();
      return Error{ErrorCode::kOk, {}};
    });
    c.split = Error{ErrorCode::kInvalidArgument, "joined"};  // the ranges and the chunk's bytes freed now
    c.chunk.reset();
    return fin;
  }

  // Decodes jobs until none is left to take; true when it decoded one.
  bool work() {
    bool any = false;
    for (;;) {
      const size_t taken = next.fetch_add(1);
      if (taken >= jobs.size()) return any;
      const Job job = jobs[taken];
      if (!any) threads.fetch_add(1);
      any = true;
      // After a job failed the others are taken but not decoded.
      const bool skip = failed.load();
      ColumnArray col;
      bool joined = !cuts[job.k];
      Error err{ErrorCode::kOk, {}};
      if (cuts[job.k]) {
        err = decode_range(job.k, job.part, skip, &col, &joined);
      } else if (!skip) {
        err = decode_one(job.k, &col);
      }
      if (err.code != ErrorCode::kOk) failed.store(true);
      std::lock_guard<std::mutex> lock(mu);
      if (err.code != ErrorCode::kOk) {
        if (error.code == ErrorCode::kOk) error = std::move(err);
      } else if (joined && !skip) {
        cols[job.k] = std::move(col);
      }
      ++done;
      cv.notify_all();
    }
  }

  // Once every job taken is finished: the unit's outcome.
  DecodeOutcome outcome() {
    DecodeOutcome out;
    std::unique_lock<std::mutex> lock(mu);
    // Every job is taken once and counted done (decoded, failed, or
    // skipped after a failure): then no thread touches `cols` any more.
    cv.wait(lock, [&] { return done >= jobs.size(); });
    if (error.code == ErrorCode::kMemoryLimit && threads.load() > 1) {
      // Columns decoded at once hold their inflated pages at once: a unit
      // that fits decoded column after column may not. Decoded again so,
      // on this thread alone, chunks whole (what was decoded is freed first).
      error = Error{ErrorCode::kOk, {}};
      for (auto& c : cols) c = ColumnArray();
      for (size_t k = 0; k < cols.size() && error.code == ErrorCode::kOk; ++k) error = decode_one(k, &cols[k]);
    }
    if (error.code != ErrorCode::kOk) {
      out.error = error;
      return out;
    }
    out.rows = j.meta->row_groups[static_cast<size_t>(j.row_group)].num_rows;
    out.columns = std::move(cols);
    return out;
  }
};

// The engine's counts, and the one row group a unit asked for, from its run.
void take_row_group(ScanResult& r, int64_t row_group, DecodeOutcome& out) {
  out.stats = r.stats;
  for (auto& p : r.pieces) {
    if (p.row_group != row_group) continue;
    out.rows = p.num_rows;
    out.columns = std::move(p.columns);
    out.selection = std::move(p.selection);
  }
}

bool job_has_nested(const DecodeJob& j) {
  return std::any_of(j.shapes.begin(), j.shapes.end(), [](const auto& s) { return s != nullptr; });
}

// Filtered unit j's nested fields, once the engine's run selected rows
// (`out`: its flat columns, rows and selection): each field assembled from
// its leaves' whole chunks (which entries a record spans is known from its
// levels alone, so no page can be skipped), as a plain unit assembles it,
// then reduced to the selected rows (take_nested_rows). `out.columns`
// become the plan's, flat and nested in plan order. A unit read from its
// local file reads the chunks from it; a fed unit whose chunks are not all
// in asks for them (out.missing) and keeps the run (out.engine_run) for its
// next decode. Hostile levels and offsets fail the unit (assemble_nested's
// checks, take_nested_rows'), naming file, row group and field.
void finish_nested(const DecodeJob& j, DecodeOutcome& out) {
  if (out.rows <= 0) {
    out.columns.clear();  // (no row: no batch is cut from the unit)
    return;
  }
  const RowGroup& rg = j.meta->row_groups[static_cast<size_t>(j.row_group)];
  const std::string where = j.file_name + ": row group " + std::to_string(j.row_group);
  size_t flat = 0;
  for (const auto& sh : j.shapes) flat += sh ? 0 : 1;
  if (out.columns.size() != flat || out.rows > rg.num_rows) {
    out.error = make_error(ErrorCode::kCorrupt, where + ": the scan engine gave " + std::to_string(out.columns.size()) +
                                                    " columns of " + std::to_string(out.rows) + " rows");
    return;
  }
  const size_t words = static_cast<size_t>((rg.num_rows + 63) / 64);
  if (out.selection.size() < words) {
    if (out.rows != rg.num_rows) {
      out.error = make_error(ErrorCode::kCorrupt, where + ": the scan engine kept no row selection");
      return;
    }
    out.selection.assign(words, ~uint64_t{0});  // every row
  }
  DecodeJob nj = j;  // (its pieces: the fed bytes, or the local file itself)
  if (j.from_file) {
    auto file = LocalFile::open_for_reading(j.file_name);
    if (!file.ok()) {
      out.error = file.error();
      return;
    }
    std::shared_ptr<RandomAccessFile> source = std::move(file).value();
    Piece whole;
    whole.offset = 0;
    whole.n = static_cast<size_t>(j.file_size);
    whole.source = std::move(source);
    nj.pieces = {std::move(whole)};
  } else {
    // Every nested leaf's chunk must be in: those that are not are asked for.
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (size_t k = 0; k < j.shapes.size(); ++k) {
      if (!j.shapes[k]) continue;
      std::vector<int> below;
      j.shapes[k]->leaves(&below);
      for (int leaf : below) {
        const ColumnChunk& c = rg.columns[static_cast<size_t>(leaf)];
        Result<ChunkExtent> e = chunk_extent(c, j.file_size, j.parquet_mr_816,
                                             where + ", column '" + j.meta->columns[static_cast<size_t>(leaf)].dotted_path + "'");
        if (!e.ok()) {
          out.error = e.error();
          return;
        }
        spans.emplace_back(e->begin, e->begin + e->length);
      }
    }
    std::vector<std::pair<uint64_t, uint64_t>> lacking = less_held(spans, j.pieces);
    if (!lacking.empty()) {
      auto run = std::make_shared<EngineRun>();
      run->columns = std::move(out.columns);
      run->selection = std::move(out.selection);
      run->rows = out.rows;
      run->stats = out.stats;
      run->budget = j.budget;
      out.engine_run = std::move(run);
      out.columns.clear();
      for (const auto& [b, e] : lacking) out.missing.emplace_back(b, e - b);
      return;
    }
  }
  detail::BudgetScope scope(j.budget);
  std::vector<ColumnArray> cols;
  cols.reserve(j.shapes.size());
  size_t next_flat = 0;
  for (size_t k = 0; k < j.shapes.size(); ++k) {
    if (!j.shapes[k]) {
      cols.push_back(std::move(out.columns[next_flat++]));
      continue;
    }
    Result<ColumnArray> col = decode_nested_column(nj, k);
    if (col.ok()) {
      col = take_nested_rows(std::move(col).value(), out.selection.data(), out.rows,
                             where + ", column '" + j.shapes[k]->name + "'");
    }
    if (!col.ok()) {
      out.error = col.error();
      out.columns.clear();
      return;
    }
    cols.push_back(std::move(col).value());
  }
  out.columns = std::move(cols);
  out.selection.clear();
}

// The engine's options for filtered unit `j`'s run.
ScanOptions engine_options(const DecodeJob& j) {
  ScanOptions o = pruning_options(j.opts);
  o.cache_footers = false;
  o.row_groups = {j.row_group};
  o.footer = j.meta;  // parsed once per file, not again by each run
  o.budget = j.budget;
  o.keep_selection = job_has_nested(j);
  if (j.from_file) {
    o.threads = std::max(1, j.opts.filtered_unit_threads);
    o.footer = nullptr;
    o.cache_footers = true;
    o.pruner = j.pruner;
  }
  return o;
}

DecodeOutcome decode_filtered(const DecodeJob& j) {
  DecodeOutcome out;
  const bool nested = job_has_nested(j);
  if (j.engine_run) {
    // The engine's run is done (kept while the nested chunks were fed).
    out.columns = std::move(j.engine_run->columns);
    out.selection = std::move(j.engine_run->selection);
    out.rows = j.engine_run->rows;
    out.stats = j.engine_run->stats;
    finish_nested(j, out);
    return out;
  }
  ScanOptions o = engine_options(j);
  if (j.from_file) {
    auto r = scan::scan_local_row_group(j.file_name, j.file_index, j.row_group, *j.engine_columns, *j.filter, o,
                                        j.overlay.get());
    if (!r.ok()) {
      out.error = r.error();
      return out;
    }
    take_row_group(*r, j.row_group, out);
    if (nested) finish_nested(j, out);
    return out;
  }
  // The file was pruned before its units were planned (State::prune): its
  // verdicts, not the pruner again (RowGroupRuns runs none).
  o.pruner = j.pruner;
  FedUnit& fu = *j.fed;
  fu.file.refed(j.pieces);
  if (!fu.runs) {
    fu.runs = std::make_unique<scan::RowGroupRuns>(fu.file, j.file_index, j.row_group, *j.engine_columns, *j.filter, o);
  }
  auto r = fu.runs->run();
  if (!r.ok()) {
    if (r.error().code == ErrorCode::kNotFetched) {
      out.missing = fu.file.missing();
      if (!out.missing.empty()) return out;
    }
    out.error = r.error();
    return out;
  }
  take_row_group(*r, j.row_group, out);
  if (nested) finish_nested(j, out);
  return out;
}

DecodeOutcome run_filtered(const DecodeJob& j) {
  try {
    return decode_filtered(j);
  } catch (const std::bad_alloc&) {
    DecodeOutcome o;
    o.error = make_error(ErrorCode::kMemoryLimit, j.file_name + ": row group " + std::to_string(j.row_group) + ": out of memory");
    return o;
  } catch (const std::exception& e) {
    DecodeOutcome o;
    o.error = make_error(ErrorCode::kInvalidArgument, j.file_name + ": row group " + std::to_string(j.row_group) + ": " + e.what());
    return o;
  }
}

}  // namespace

// ---- Scanner ------------------------------------------------------------------------

Scanner::Scanner(std::unique_ptr<State> state) : state_(std::move(state)) {}

Scanner::~Scanner() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->release_all();
}

namespace {

// The fed files read with a sidecar's tail (ScanPlanFile::sidecar_tail)
// checked as OverlayFile::make checks a local one, and sized as the scan
// sees them (object + tail). The sidecar is untrusted: a tail outside it
// is refused, kCorrupt.
Status with_sidecar_tails(ScanPlan& plan, const ScannerOptions& options) {
  for (ScanPlanFile& f : plan.files) {
    const SidecarTail& t = f.sidecar_tail;
    if (t.base_size < 0) continue;
    if (options.filtered_from_files || f.footer || f.bytes || f.overlay) {
      return make_error(ErrorCode::kInvalidArgument, f.name + ": a sidecar tail is for a fed file without a footer");
    }
    if (f.size != static_cast<uint64_t>(t.base_size)) {
      return make_error(ErrorCode::kCorrupt, f.name + ": " + std::to_string(f.size) +
                                                 " bytes, the sidecar index was written for " +
                                                 std::to_string(t.base_size) + " (the file changed since)");
    }
    if (t.offset > plan.sidecar_size || t.length > plan.sidecar_size - t.offset) {
      return make_error(ErrorCode::kCorrupt, f.name + ": its tail in the sidecar index (" + std::to_string(t.length) +
                                                 " bytes at " + std::to_string(t.offset) + ") lies past the end of the " +
                                                 std::to_string(plan.sidecar_size) + "-byte sidecar");
    }
    if (t.length > UINT64_MAX - f.size) {
      return make_error(ErrorCode::kCorrupt, f.name + ": a tail of " + std::to_string(t.length) +
                                                 " bytes overflows the file's size");
    }
    f.size += t.length;
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Scanner>> Scanner::make(ScanPlan plan, ScannerOptions options) {
  if (options.batch_size <= 0) {
    return make_error(ErrorCode::kInvalidArgument, "batch_size must be a positive number of rows, not " + std::to_string(options.batch_size));
  }
  PQFAST_RETURN_IF_ERROR(check_nested(plan));
  if (options.footer_tail < 8) options.footer_tail = 8;
  // Filtered units run the scan engine, which reads a footer with one
  // speculative read of the file's last 16 KiB (read_file_metadata): a tail
  // that holds it is kept for them, instead of each unit asking it again.
  bool any_filtered = plan.filter.active;
  for (const ScanPlanFile& f : plan.files) any_filtered = any_filtered || (f.filter && f.filter->active);
  if (any_filtered) options.footer_tail = std::max<uint64_t>(options.footer_tail, kEngineFooterRead);
  if (any_filtered && !options.filtered_from_files) options.footers_ahead = std::max(options.footers_ahead, kPruneAhead);
  if (options.footers_ahead < 1) options.footers_ahead = 1;
  PQFAST_RETURN_IF_ERROR(with_sidecar_tails(plan, options));
  auto st = std::make_unique<State>();
  st->budget = options.budget ? options.budget : MemoryBudget::make(options.memory_limit);
  st->readahead = options.readahead_bytes > 0 ? options.readahead_bytes : std::max<int64_t>(1, st->budget->limit() / 2);
  st->opts = std::move(options);
  st->plan = std::move(plan);
  st->engine_columns = flat_columns(st->plan);
  st->files.resize(st->plan.files.size());
  st->file_requests.resize(st->plan.files.size());
  for (size_t i = 0; i < st->plan.files.size(); ++i) {
    st->files[i].spec = st->plan.files[i];
    if (st->plan.files[i].pruned) {
      st->stats.engine.add(st->plan.files[i].pruned_stats);
      st->files[i].engine_counted = st->plan.files[i].pruned_stats.files > 0;
    }
    if (st->plan.files[i].footer) {
      Status s = st->footer_ready(i, st->plan.files[i].footer);
      if (!s.ok()) return s.error();
    }
  }
  return std::unique_ptr<Scanner>(new Scanner(std::move(st)));
}

std::vector<FileRange> Scanner::needs(int max_units) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  std::vector<FileRange> out;
  if (s.cancelled || s.failed) return out;
  auto ask = [&](int id) {
    Request& r = s.requests[static_cast<size_t>(id)];
    if (r.asked) return;
    r.asked = true;
    const SidecarTail& t = s.files[static_cast<size_t>(r.file)].spec.sidecar_tail;
    if (t.base_size < 0) {
      out.push_back({r.file, r.offset, r.length, r.unit >= 0 && !s.filtered(static_cast<size_t>(r.file)), false,
                     r.offset});
    } else {
      // Object + tail: each piece asked where it lives (a range across the
      // object's end is two), fed back at the file's offsets.
      uint64_t at = r.offset;
      for (const OverlaySpan& sp : overlay_spans(static_cast<uint64_t>(t.base_size), t.offset, r.offset, r.length)) {
        out.push_back({r.file, at, sp.length, false, sp.in_tail, sp.offset});
        at += sp.length;
      }
    }
    ++s.stats.ranges_asked;
    s.stats.bytes_asked += static_cast<int64_t>(r.length);
  };
  // Footers: of the next file to plan, and a few after it.
  const size_t last = std::min(s.files.size(), s.next_file_for_units + static_cast<size_t>(s.opts.footers_ahead));
  for (size_t fi = s.next_file_for_units; fi < last; ++fi) {
    State::File& f = s.files[fi];
    if (f.phase == State::FilePhase::kIdle) {
      const uint64_t n = std::min<uint64_t>(f.spec.size, s.opts.footer_tail);
      if (f.spec.size < 12) {
        s.set_failed(make_error(ErrorCode::kTruncated, f.spec.name + ": " + std::to_string(f.spec.size) +
                                                           " bytes: too small for a Parquet file"));
        return {};
      }
      f.footer_requests.push_back(s.new_request(static_cast<int32_t>(fi), f.spec.size - n, n, kFooterRequest));
      f.phase = State::FilePhase::kTailAsked;
    }
    for (int id : f.footer_requests) ask(id);
    for (int id : f.prune_requests) ask(id);
  }
  // Units, in order, while readahead allows.
  s.admit();
  int units_asked = 0;
  for (size_t ui = s.head; ui < s.units.size(); ++ui) {
    if (max_units > 0 && units_asked >= max_units) break;
    const State::Unit& u = s.units[ui];
    if (u.phase == State::UnitPhase::kPlanned) break;
    const size_t before = out.size();
    for (int id : u.requests) ask(id);
    if (out.size() != before) ++units_asked;
  }
  return out;
}

namespace {
Status feed_piece(Scanner::State& s, int32_t file, Piece piece);
}  // namespace

Status Scanner::feed(int32_t file, uint64_t offset, std::vector<uint8_t>&& bytes) {
  const size_t n = bytes.size();
  auto owner = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  return feed(file, offset, std::shared_ptr<const uint8_t>(owner, owner->data()), n);
}

Status Scanner::feed(int32_t file, uint64_t offset, std::shared_ptr<const uint8_t> bytes, size_t size) {
  Piece p;
  p.offset = offset;
  p.data = std::move(bytes);
  p.n = size;
  return feed_piece(*state_, file, std::move(p));
}

Status Scanner::feed_deferred(int32_t file, uint64_t offset, std::shared_ptr<RandomAccessFile> source, size_t size) {
  if (!source) return make_error(ErrorCode::kInvalidArgument, "feed_deferred: no source");
  Piece p;
  p.offset = offset;
  p.n = size;
  p.source = std::move(source);
  return feed_piece(*state_, file, std::move(p));
}

namespace {

// Bytes (or, deferred, where to read them) fed into the request that asked for them.
Status feed_piece(Scanner::State& s, int32_t file, Piece piece) {
  using State = Scanner::State;
  const uint64_t offset = piece.offset;
  const size_t size = piece.n;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.cancelled) return cancelled_error();
  if (s.failed) return s.error;
  if (file < 0 || static_cast<size_t>(file) >= s.files.size()) {
    return make_error(ErrorCode::kInvalidArgument, "feed: no file " + std::to_string(file) + " in the plan of " +
                                                       std::to_string(s.files.size()));
  }
  State::File& f = s.files[static_cast<size_t>(file)];
  const uint64_t n = size;
  if (offset > f.spec.size || n > f.spec.size - offset) {
    return make_error(ErrorCode::kInvalidArgument, f.spec.name + ": " + std::to_string(n) + " bytes fed at byte " +
                                                       std::to_string(offset) + " pass the end of the " +
                                                       std::to_string(f.spec.size) + "-byte file");
  }
  if (n == 0) return Status::Ok();
  // The open request that holds the piece and has none of its bytes yet;
  // first one asked for exactly these bytes: filtered units ask ranges that
  // overlap (one unit's page index range inside another's), and a range fed
  // whole must not fill the larger request that holds it, leaving its own
  // unfed and the larger one's bytes refused.
  Request* target = nullptr;
  for (int pass = 0; pass < 2 && !target; ++pass) {
    for (int id : s.file_requests[static_cast<size_t>(file)]) {
      Request& r = s.requests[static_cast<size_t>(id)];
      if (!r.asked || offset < r.offset || offset + n > r.offset + r.length) continue;
      if (pass == 0 && (offset != r.offset || n != r.length)) continue;
      bool overlaps = false;
      for (const Piece& p : r.pieces) {
        if (offset < p.offset + p.size() && p.offset < offset + n) overlaps = true;
      }
      if (!overlaps) {
        target = &r;
        break;
      }
    }
  }
  if (!target) {
    return make_error(ErrorCode::kInvalidArgument, f.spec.name + ": bytes " + std::to_string(offset) + "+" +
                                                       std::to_string(n) + " were not asked for (or were fed already)");
  }
  if (piece.source && (target->unit < 0 || s.filtered(static_cast<size_t>(file)) || offset != target->offset ||
                       n != target->length)) {
    // Footers and filtered units read the bytes fed (the scan engine reads
    // them as a file); a deferred piece is a whole range of a plain unit.
    return make_error(ErrorCode::kInvalidArgument, f.spec.name + ": bytes " + std::to_string(offset) + "+" +
                                                       std::to_string(n) + " are not a deferrable range");
  }
  // Bytes of an asked range were admitted under readahead: charged as they
  // are (refusing them now would only fail a scan that fits). A footer
  // (asked before any unit) past the whole limit is refused.
  if (target->unit < 0 && !s.budget->try_charge(static_cast<int64_t>(n))) {
    Error e = make_error(ErrorCode::kMemoryLimit, f.spec.name + ": " + format_bytes(static_cast<int64_t>(n)) +
                                                      " of footer fed pass the scan's memory limit of " +
                                                      format_bytes(s.budget->limit()) + " (" +
                                                      format_bytes(s.budget->used()) + " held)");
    s.set_failed(e);
    return e;
  }
  if (target->unit >= 0) s.budget->force_charge(static_cast<int64_t>(n));
  target->pieces.push_back(std::move(piece));
  target->fed += n;
  s.stats.bytes_fed += static_cast<int64_t>(n);
  if (target->complete()) {
    if (target->unit < 0) {
      State::File& tf = s.files[static_cast<size_t>(file)];
      Status st = Status::Ok();
      if (target->unit == kFooterRequest) {
        st = s.tail_fed(static_cast<size_t>(file));
      } else if (tf.phase == State::FilePhase::kPruning && s.prune_fed(tf)) {
        st = s.prune(static_cast<size_t>(file));
      }
      if (!st.ok()) {
        s.set_failed(st.error());
        return st;
      }
    } else {
      State::Unit& u = s.units[static_cast<size_t>(target->unit)];
      if (u.phase == State::UnitPhase::kWaiting && s.all_fed(u)) u.phase = State::UnitPhase::kReady;
    }
  }
  s.changed();
  return Status::Ok();
}

// Takes unit `ui` (kReady) for decoding: builds its job under the lock.
DecodeJob job_for(Scanner::State& s, size_t ui) {
  Scanner::State::Unit& u = s.units[ui];
  const Scanner::State::File& f = s.files[static_cast<size_t>(u.file)];
  DecodeJob j;
  j.filtered = s.filtered(static_cast<size_t>(u.file));
  j.from_file = j.filtered && s.opts.filtered_from_files;
  j.pruner = f.spec.pruner;
  j.overlay = f.spec.overlay;
  j.opened = f.spec.opened;
  j.file_name = f.spec.name;
  j.file_size = f.spec.size;
  j.file_index = u.file;
  j.row_group = u.row_group;
  j.meta = f.meta;
  j.leaves = f.leaves;
  j.shapes = f.shapes;
  j.nested = &s.plan.nested;
  for (int id : u.requests) {
    for (const Piece& p : s.requests[static_cast<size_t>(id)].pieces) j.pieces.push_back(p);
  }
  if (j.filtered && !j.from_file) j.pieces.insert(j.pieces.end(), f.footer_pieces.begin(), f.footer_pieces.end());
  j.columns = &s.plan.columns;
  j.engine_columns = &s.engine_columns;
  j.filter = &s.filter_of(static_cast<size_t>(u.file));
  j.opts = s.opts;
  j.v2_always_compressed = f.v2_always_compressed;
  j.parquet_mr_816 = f.parquet_mr_816;
  // A run kept while nested chunks were fed: its columns are charged to its budget.
  j.engine_run = std::move(u.engine_run);
  if (j.engine_run) {
    j.budget = j.engine_run->budget;
  } else if (j.filtered && !j.from_file) {
    // Runs after the first resume its work, within the budget it took.
    if (!u.fed) u.fed = std::make_shared<FedUnit>(f.spec.name, f.spec.size, s.budget->share_of_rest());
    j.fed = u.fed;
    j.budget = u.fed->budget;
  } else {
    j.budget = s.budget->share_of_rest();
  }
  j.parts = u.parts;
  u.phase = Scanner::State::UnitPhase::kDecoding;
  return j;
}

// Stores what decoding unit `ui` gave. `charge`: the bytes its decoded
// columns hold (< 0: what its own budget holds now, j.budget->used()).
void store_outcome(Scanner::State& s, size_t ui, const DecodeJob& j, DecodeOutcome&& o, int64_t charge = -1) {
  using UnitPhase = Scanner::State::UnitPhase;
  Scanner::State::Unit& u = s.units[ui];
  if (s.cancelled || s.failed) return;
  if (o.error.code != ErrorCode::kOk) {
    if (o.error.code == ErrorCode::kMemoryLimit && ui != s.head) {
      u.phase = UnitPhase::kReady;
      u.deferred = true;
      u.fed.reset();  // run again from the start, with the budget's share then
      s.changed();
      return;
    }
    s.unit_failed(u, std::move(o.error));
    s.changed();
    return;
  }
  if (!o.missing.empty()) {
    // (a run kept for the nested chunks counts once, when the unit completes)
    if (o.engine_run) ++s.stats.nested_rounds;
    if (!o.engine_run) ++s.stats.engine_runs;
    u.engine_run = std::move(o.engine_run);
    if (++u.rounds > 32) {
      s.unit_failed(u, make_error(ErrorCode::kLimitExceeded, s.rg_where(u) + ": the scan engine still asks for bytes after 32 rounds"));
      s.changed();
      return;
    }
    uint64_t asked = 0;
    for (const auto& [b, e] : coalesce([&] {
           std::vector<std::pair<uint64_t, uint64_t>> v;
           for (const auto& [off, n] : o.missing) v.emplace_back(off, off + n);
           return v;
         }(), s.opts.coalesce_gap)) {
      u.requests.push_back(s.new_request(u.file, b, e - b, static_cast<int>(ui)));
      asked += e - b;
    }
    u.estimate = std::max<int64_t>(u.estimate, static_cast<int64_t>(asked));
    u.phase = UnitPhase::kWaiting;
    s.changed();
    return;
  }
  if (j.filtered) {
    ++s.stats.engine_runs;
    // Per unit the engine counts its file once: here each file counts once.
    ScanStats add = o.stats;
    Scanner::State::File& f = s.files[static_cast<size_t>(u.file)];
    add.files = f.engine_counted ? 0 : 1;
    add.files_read = (o.stats.row_groups_read > 0 && !f.engine_read) ? 1 : 0;
    f.engine_counted = true;
    f.engine_read = f.engine_read || o.stats.row_groups_read > 0;
    s.stats.engine.add(add);
  }
  // Fed bytes go back to the budget; the decoded columns take their place.
  for (int id : u.requests) s.release_request(s.requests[static_cast<size_t>(id)]);
  u.requests.clear();
  u.decoded_charge = charge >= 0 ? charge : j.budget->used();
  s.budget->force_charge(u.decoded_charge);
  auto h = std::make_shared<Holder>();
  h->arrays.resize(o.columns.size());
  h->schemas.resize(o.columns.size());
  for (size_t k = 0; k < o.columns.size(); ++k) {
    std::move(o.columns[k]).export_to(&h->arrays[k], &h->schemas[k], s.plan.columns[k].name);
  }
  u.holder = std::move(h);
  u.fed.reset();  // (its runs' state: the selection, page indexes)
  u.rows = o.rows;
  u.next_row = 0;
  u.phase = UnitPhase::kDecoded;
  ++s.stats.units_decoded;
  s.stats.chunks_cut += std::count_if(j.parts.begin(), j.parts.end(), [](int k) { return k > 1; });
  s.changed();
}

// Takes unit `ui` (kReady), decodes it outside the lock (`lock` held on
// entry and on return) and stores the outcome. A plain unit's columns are
// put where threads without a unit of their own help decode them.
void decode_unit(Scanner::State& s, std::unique_lock<std::mutex>& lock, size_t ui) {
  DecodeJob j = job_for(s, ui);
  std::shared_ptr<UnitColumns> cols;
  if (!j.filtered) {
    cols = std::make_shared<UnitColumns>(std::move(j));
    s.units[ui].columns = cols;
    if (cols->jobs.size() > 1) s.changed();  // idle threads may take a column (or a page range)
  }
  lock.unlock();
  DecodeOutcome o;
  if (cols) {
    cols->work();
    o = cols->outcome();
  } else {
    o = run_filtered(j);
  }
  lock.lock();
  s.units[ui].columns.reset();
  store_outcome(s, ui, cols ? cols->j : j, std::move(o));
}

// Decodes columns of a unit another thread decodes (the earliest with
// columns not taken yet); false when there is none.
bool help_decode(Scanner::State& s, std::unique_lock<std::mutex>& lock) {
  std::shared_ptr<UnitColumns> help;
  for (size_t i = s.head; i < s.units.size(); ++i) {
    if (s.units[i].phase == Scanner::State::UnitPhase::kPlanned) break;  // (the rest are planned too)
    const auto& c = s.units[i].columns;
    if (s.units[i].phase == Scanner::State::UnitPhase::kDecoding && c && c->has_work()) {
      help = c;
      break;
    }
  }
  if (!help) return false;
  lock.unlock();
  const bool did = help->work();
  lock.lock();
  return did;
}

}  // namespace

bool Scanner::run_task(bool help_first, bool help, bool head_only) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.cancelled || s.failed) return false;
  if (help_first && help && help_decode(s, lock)) return true;
  size_t ui = s.units.size();
  for (size_t i = s.head; i < s.units.size(); ++i) {
    if (s.units[i].phase == State::UnitPhase::kReady && (!s.units[i].deferred || i == s.head)) {
      ui = i;
      break;
    }
    if (s.units[i].phase == State::UnitPhase::kPlanned) break;
  }
  if (ui == s.units.size()) return help && help_decode(s, lock);
  // (A stream's first batch of the SF10 lineitem lake, 60 files, came after
  // 58 ms, a row group read alone after 25: its consumer had taken the
  // second unit whole while a scan thread finished the first.)
  if (head_only && ui != s.head) return false;
  decode_unit(s, lock, ui);
  return true;
}

bool Scanner::run_filtered_units(int threads) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  if (s.cancelled || s.failed || !s.opts.filtered_from_files) return false;
  std::vector<size_t> taken;
  std::vector<DecodeJob> jobs;
  for (size_t i = s.head; i < s.units.size(); ++i) {
    const State::Unit& u = s.units[i];
    if (u.phase == State::UnitPhase::kPlanned) break;
    if (u.phase != State::UnitPhase::kReady || (u.deferred && i != s.head)) continue;
    if (!s.filtered(static_cast<size_t>(u.file))) continue;  // (a plain unit: run_task's)
    taken.push_back(i);
    jobs.push_back(job_for(s, i));
  }
  if (taken.empty()) return false;
  // One budget for the call, as one engine call has (what the scan's budget
  // has left): the row groups of one file then share one open file and one
  // FileScan in scan_local_row_groups (a budget per unit kept every row
  // group apart: 500 opens and footer lookups for the polars lake's 500).
  const std::shared_ptr<MemoryBudget> shared = s.budget->share_of_rest();
  for (DecodeJob& j : jobs) j.budget = shared;
  lock.unlock();
  std::vector<DecodeOutcome> outs(jobs.size());
  try {
    std::vector<scan::LocalRowGroup> groups(jobs.size());
    for (size_t k = 0; k < jobs.size(); ++k) {
      const DecodeJob& j = jobs[k];
      groups[k] = {j.file_name, j.file_index, j.row_group, j.engine_columns, j.filter, engine_options(j), j.overlay,
                   j.opened};
    }
    auto got = scan::scan_local_row_groups(groups, std::max(1, threads));
    std::vector<size_t> nested;  // jobs with nested fields and selected rows
    for (size_t k = 0; k < jobs.size(); ++k) {
      if (!got[k].ok()) {
        outs[k].error = got[k].error();
      } else {
        take_row_group(*got[k], jobs[k].row_group, outs[k]);
        if (job_has_nested(jobs[k])) nested.push_back(k);
      }
    }
    // Their nested fields, units in parallel as the engine ran them.
    scan::parallel_for(nested.size(), std::max(1, threads), [&](size_t i) {
      DecodeOutcome& o = outs[nested[i]];
      const DecodeJob& j = jobs[nested[i]];
      try {
        finish_nested(j, o);
      } catch (const std::bad_alloc&) {
        o = DecodeOutcome{};
        o.error = make_error(ErrorCode::kMemoryLimit, j.file_name + ": row group " + std::to_string(j.row_group) + ": out of memory");
      } catch (const std::exception& e) {
        o = DecodeOutcome{};
        o.error = make_error(ErrorCode::kInvalidArgument, j.file_name + ": row group " + std::to_string(j.row_group) + ": " + e.what());
      }
    });
  } catch (const std::bad_alloc&) {
    for (size_t k = 0; k < jobs.size(); ++k) {
      outs[k] = DecodeOutcome{};
      outs[k].error = make_error(ErrorCode::kMemoryLimit, jobs[k].file_name + ": row group " +
                                                              std::to_string(jobs[k].row_group) + ": out of memory");
    }
  }
  lock.lock();
  // What the call's columns hold is charged to its last unit that succeeded
  // (taken in order: the last one consumed), none to the others: the scan's budget
  // counts it until every unit of the call has been handed out.
  const int64_t held = shared->used();
  size_t last = jobs.size();  // the last unit that succeeded
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (outs[k].error.code == ErrorCode::kOk) last = k;
  }
  for (size_t k = 0; k < jobs.size(); ++k) {
    store_outcome(s, taken[k], jobs[k], std::move(outs[k]), k == last ? held : 0);
  }
  return true;
}

Result<ScanStep> Scanner::next_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    if (s.cancelled) return cancelled_error();
    if (s.failed) return s.error;
    if (s.head >= s.units.size()) {
      if (s.next_file_for_units >= s.files.size()) return ScanStep::kEnd;
      return ScanStep::kNeedData;
    }
    State::Unit& u = s.units[s.head];
    switch (u.phase) {
      case State::UnitPhase::kDone:
        ++s.head;
        continue;
      case State::UnitPhase::kFailed:
        s.set_failed(u.error);
        return s.error;
      case State::UnitPhase::kDecoded: {
        if (u.next_row >= u.rows) {
          s.unit_done(s.head);
          ++s.head;
          s.changed();
          continue;
        }
        const int64_t n = std::min<int64_t>(s.opts.batch_size, u.rows - u.next_row);
        make_batch(u.holder, u.next_row, n, array);
        if (schema) struct_schema(u.holder->schemas, schema);
        if (origin) *origin = {u.file, u.row_group, n};
        u.next_row += n;
        ++s.stats.batches;
        s.stats.rows += n;
        if (u.next_row >= u.rows) {
          s.unit_done(s.head);
          ++s.head;
        }
        s.changed();
        return ScanStep::kBatch;
      }
      case State::UnitPhase::kReady: {
        decode_unit(s, lock, s.head);
        continue;
      }
      case State::UnitPhase::kPlanned:
        s.admit();
        if (u.phase == State::UnitPhase::kPlanned) return ScanStep::kNeedData;
        continue;
      default:
        return ScanStep::kNeedData;
    }
  }
}

namespace {

// A nested field of no rows (its type): each leaf decoded from no bytes,
// then assembled.
Result<ColumnArray> empty_nested(const FileMetaData& m, const NestedNode& shape,
                                 const std::vector<ColumnReadOptions>& options,
                                 const std::shared_ptr<MemoryBudget>& budget, const std::string& where) {
  std::vector<const NestedNode*> nodes;
  leaf_nodes_of(shape, &nodes);
  std::vector<LeafChunk> leaves;
  for (size_t i = 0; i < nodes.size() && i < options.size(); ++i) {
    ColumnReadOptions o = options[i];
    o.budget = budget;
    o.dictionary_values = nullptr;
    PQFAST_ASSIGN_OR_RETURN(LeafChunk c, decode_leaf_chunk(nullptr, 0, 0, m.columns[static_cast<size_t>(nodes[i]->leaf)],
                                                           0, 0, nodes[i]->slot_def, 0, o, where));
    leaves.push_back(std::move(c));
  }
  return assemble_nested(shape, leaves, 0, where);
}

}  // namespace

Result<ScanStep> Scanner::schema(ArrowSchema* out) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.failed) return s.error;
  std::vector<ArrowSchema> fields;
  if (!s.files.empty()) {
    const State::File& f = s.files[0];
    if (f.phase != State::FilePhase::kReady && f.phase != State::FilePhase::kPruning) return ScanStep::kNeedData;
    const FileMetaData& m = *f.meta;
    for (size_t k = 0; k < f.leaves.size(); ++k) {
      ColumnReadOptions o = s.plan.columns[k].options;
      o.budget = s.budget;
      o.dictionary_values = nullptr;
      auto col = f.shapes[k] ? empty_nested(m, *f.shapes[k], s.plan.nested[k], s.budget, f.spec.name)
                             : decode_column_chunk(nullptr, 0, 0, m.columns[static_cast<size_t>(f.leaves[k])], 0, 0, o,
                                                   f.spec.name);
      if (!col.ok()) {
        for (auto& sc : fields) sc.release(&sc);
        return col.error();
      }
      ArrowArray a;
      fields.emplace_back();
      std::move(col).value().export_to(&a, &fields.back(), s.plan.columns[k].name);
      a.release(&a);
    }
  }
  struct_schema(fields, out);
  for (auto& sc : fields) sc.release(&sc);
  return ScanStep::kBatch;
}

void Scanner::cancel() {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.cancelled) return;
  s.cancelled = true;
  s.release_all();
  s.changed();
}

void Scanner::fail(Error error) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.set_failed(std::move(error));
}

uint64_t Scanner::changes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->changes;
}

void Scanner::wait_for_change(uint64_t seen, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return state_->changes != seen; });
}

ScannerStats Scanner::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

const std::shared_ptr<MemoryBudget>& Scanner::budget() const { return state_->budget; }

bool Scanner::head_needs_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  const State& s = *state_;
  if (s.head >= s.units.size()) return s.units.empty();  // (no unit yet: footers to come)
  const State::UnitPhase p = s.units[s.head].phase;
  return p == State::UnitPhase::kPlanned || p == State::UnitPhase::kWaiting;
}

int64_t Scanner::held_bytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->held();
}

// ---- file tasks (LocalScan, ScannerOptions::file_tasks) ------------------------------

bool same_leaf(const ColumnDescriptor& x, const ColumnDescriptor& y);  // (below, beside same_leaves)

namespace {

// A thread's read buffer, reused from file to file: grown from the pool
// when a file is larger, never shrunk during a scan. A fresh buffer per
// file was ~14 page faults and a malloc/free pair per 55 KB file, 10,000
// times a read. Decoded columns never point into it (the units' decoders
// copy what they keep), so the next file may overwrite it.
class ReusedBuffer {
 public:
  ReusedBuffer() = default;
  ReusedBuffer(const ReusedBuffer&) = delete;
  ReusedBuffer& operator=(const ReusedBuffer&) = delete;
  ~ReusedBuffer() { drop(); }
  uint8_t* get(size_t n) {
    if (n > cap_ || !p_) {
      const size_t want = std::max({n, cap_ + cap_ / 2, size_t{64} << 10});
      drop();
      p_ = detail::pool_allocate(want, &block_);
      cap_ = want;
    }
    return p_;
  }

 private:
  void drop() {
    if (p_) detail::pool_free(p_, block_);
    p_ = nullptr;
    cap_ = block_ = 0;
  }
  uint8_t* p_ = nullptr;
  size_t cap_ = 0, block_ = 0;
};

// Bytes charged to a budget while held, released on leaving scope.
class HeldCharge {
 public:
  explicit HeldCharge(MemoryBudget& b) : b_(b) {}
  HeldCharge(const HeldCharge&) = delete;
  HeldCharge& operator=(const HeldCharge&) = delete;
  ~HeldCharge() {
    if (n_) b_.release(n_);
  }
  bool take(int64_t n) {
    if (!b_.try_charge(n)) return false;
    n_ += n;
    return true;
  }

 private:
  MemoryBudget& b_;
  int64_t n_ = 0;
};

// One file's task: what its thread decoded, for the consumer.
struct FileSlot {
  std::atomic<bool> done{false};  // set (release) once the fields below are the task's
  Error error{ErrorCode::kOk, {}};
  bool unlike = false;  // stop_at_unlike: its leaves are not the first file's
  bool retry = false;   // refused by the budget while not the next file: decoded again when it is
  std::vector<std::shared_ptr<Holder>> groups;  // per planned row group with rows
  std::vector<int32_t> row_groups;
  std::vector<int64_t> rows;
  int64_t charge = 0;  // the decoded bytes, charged to the budget until the file's last batch is taken
  int64_t bytes_read = 0;
  bool whole = false;

  void reset() {
    done.store(false);
    error = Error{ErrorCode::kOk, {}};
    unlike = retry = whole = false;
    groups.clear();
    row_groups.clear();
    rows.clear();
    charge = bytes_read = 0;
  }
};

}  // namespace

struct LocalScan::Files {
  Files(ScanPlan p, const ScannerOptions& o, std::shared_ptr<const FileMetaData> first)
      : plan(std::move(p)), opts(o), budget(o.budget), reference(std::move(first)), n(plan.files.size()),
        slots(new FileSlot[plan.files.size()]), limit(plan.files.size()) {
    readahead = o.readahead_bytes > 0 ? o.readahead_bytes : std::max<int64_t>(1, budget->limit() / 2);
  }
  ~Files() {
    // Files decoded and not handed out (a scan ended early) leave the budget.
    for (size_t i = 0; i < n; ++i) {
      if (slots[i].done.load() && slots[i].charge) budget->release(slots[i].charge);
    }
  }

  ScanPlan plan;
  ScannerOptions opts;
  std::shared_ptr<MemoryBudget> budget;
  std::shared_ptr<const FileMetaData> reference;  // the first file's footer
  const size_t n;
  std::unique_ptr<FileSlot[]> slots;
  int64_t readahead = 0;
  // Files taken from the consumer's on, at most (max_units_ahead: in file
  // tasks the unit is a file; 0: as readahead allows).
  size_t ahead = 0;

  std::atomic<size_t> next{0};      // the first file no thread has taken
  std::atomic<size_t> limit;        // files from here are not taken (a failure, a file unlike the first, a cancel)
  std::atomic<size_t> head_at{0};   // the consumer's file (published for the readahead test)
  std::atomic<int64_t> held{0};     // decoded bytes of files not yet handed out

  std::mutex mu;  // publishing a file, waiting, the counts
  std::condition_variable cv;
  int waiting = 0;
  ScannerStats stats;

  // A whole read (LocalScan::drain): the batches' row ranges, kept here and
  // made into ArrowArrays once every file is decoded, not file by file.
  // (Made between files, each batch's small long-lived blocks sat among the
  // next file's short-lived ones (footer, pages): glibc's malloc then spent
  // ~2.5x the time in _int_malloc / unlink_chunk / malloc_consolidate, +25%
  // CPU for Q12's columns of the 10,000-file lake, as read_whole_files,
  // which made them last, did not.)
  struct Deferred {
    std::shared_ptr<Holder> holder;
    int64_t begin = 0, n = 0;
  };
  std::vector<Deferred>* deferred = nullptr;

  // The consumer's place and read buffer (its thread only).
  ReusedBuffer consumer_buf;
  size_t head = 0, group = 0;
  int64_t row = 0;
  bool failed = false;
  Error error{ErrorCode::kOk, {}};
  int32_t stopped_at = -1;

  static constexpr size_t kNone = static_cast<size_t>(-1);  // no file left to take
  static constexpr size_t kWait = static_cast<size_t>(-2);  // none may be taken now (readahead full)

  // The next file to decode, taken: the consumer's file always may be;
  // one after it while the files decoded ahead fit in readahead.
  size_t take() {
    size_t i = next.load();
    for (;;) {
      if (i >= std::min(n, limit.load())) return kNone;
      const size_t h = head_at.load();
      if (i != h && (held.load() >= readahead || (ahead > 0 && i >= h + static_cast<size_t>(ahead)))) {
        return kWait;
      }
      if (next.compare_exchange_weak(i, i + 1)) return i;
    }
  }

  void lower_limit(size_t i) {
    size_t l = limit.load();
    while (i < l && !limit.compare_exchange_weak(l, i)) {
    }
  }

  // Wakes threads waiting for a file or for room.
  void wake() {
    std::lock_guard<std::mutex> lock(mu);
    if (waiting) cv.notify_all();
  }

  // The consumer handed a file out: threads waiting for room are woken once
  // a quarter of the window is free again, not file by file (a stream whose
  // consumer is the slower one made each file a wait and a wake-up: 76,000
  // futex calls a read of the 10,000-file lake at 2 threads).
  void room_freed() {
    const size_t h = head_at.load();
    const bool bytes_room = held.load() <= readahead - readahead / 4;
    const bool count_room = ahead == 0 || next.load() <= h + ahead - std::max<size_t>(1, ahead / 4);
    if (bytes_room && count_room) wake();
  }

  // Waits (at most 20 ms) for a change: a file published, a file handed out, a cancel.
  void wait_a_while(const std::atomic<bool>& stop, const FileSlot* for_slot) {
    std::unique_lock<std::mutex> lock(mu);
    ++waiting;
    cv.wait_for(lock, std::chrono::milliseconds(20),
                [&] { return stop.load() || (for_slot && for_slot->done.load()); });
    --waiting;
  }

  // File i's task, run by the calling thread into its slot.
  void run(size_t i, ReusedBuffer& buf, bool at_head) {
    FileSlot& s = slots[i];
    try {
      s.error = decode(i, buf, s);
    } catch (const std::bad_alloc&) {
      s.error = make_error(ErrorCode::kMemoryLimit, plan.files[i].name + ": out of memory");
    } catch (const std::exception& e) {
      s.error = make_error(ErrorCode::kInvalidArgument, plan.files[i].name + ": " + e.what());
    }
    if (s.error.code != ErrorCode::kOk) {
      s.groups.clear();
      if (s.charge) budget->release(s.charge);
      s.charge = 0;
      if (s.error.code == ErrorCode::kMemoryLimit && !at_head) {
        s.retry = true;  // (the files before it may hold the memory it lacked)
      } else {
        lower_limit(i + 1);
      }
    }
    if (s.unlike) lower_limit(i + 1);
    held.fetch_add(s.charge);
    std::lock_guard<std::mutex> lock(mu);
    s.done.store(true, std::memory_order_release);
    ++stats.units_decoded;
    stats.bytes_fed += s.bytes_read;
    stats.files_whole += s.whole ? 1 : 0;
    stats.peak_held = std::max(stats.peak_held, held.load());
    if (waiting) cv.notify_all();
  }

  // The chunk leaves of the plan's columns in file m (resolved into j), per
  // column in order.
  static std::vector<int> chunk_leaves(const DecodeJob& j) {
    std::vector<int> out;
    for (size_t k = 0; k < j.leaves.size(); ++k) {
      if (!j.shapes[k]) {
        out.push_back(j.leaves[k]);
        continue;
      }
      std::vector<int> below;
      j.shapes[k]->leaves(&below);
      out.insert(out.end(), below.begin(), below.end());
    }
    return out;
  }

  // stop_at_unlike: whether the plan's columns in file m (resolved into j)
  // are leaves like the first file's (paths, physical and logical types,
  // levels: same_leaf), and m holds none of the absent_columns. Other
  // columns may differ: a projection of columns every file holds alike
  // reads the lake in one scan.
  std::vector<int> first_leaves;  // the first file's chunk leaves (make_file_tasks)
  bool like_the_first(const FileMetaData& m, const DecodeJob& j) const {
    for (const ColumnDescriptor& d : m.columns) {
      if (!d.path.empty() && std::find(opts.absent_columns.begin(), opts.absent_columns.end(), d.path[0]) !=
                                 opts.absent_columns.end()) {
        return false;
      }
    }
    const std::vector<int> mine = chunk_leaves(j);
    if (mine.size() != first_leaves.size()) return false;
    for (size_t k = 0; k < mine.size(); ++k) {
      if (!same_leaf(reference->columns[static_cast<size_t>(first_leaves[k])], m.columns[static_cast<size_t>(mine[k])])) {
        return false;
      }
    }
    return true;
  }

  // File i read and decoded into s (see LocalScan's doc): its error, or kOk.
  Error decode(size_t i, ReusedBuffer& buf, FileSlot& s) {
    const ScanPlanFile& spec = plan.files[i];
    const std::string& path = spec.name;
    std::shared_ptr<LocalFile> file;
    uint64_t size = spec.size;
    if (!spec.bytes) {
      auto opened = LocalFile::open_for_reading(path);
      if (!opened.ok()) return opened.error();
      file = std::move(opened).value();
      size = file->size();
    }
    HeldCharge held_bytes(*budget);
    Piece piece;  // the file's bytes (or, large, where its chunks are read from)
    std::shared_ptr<const FileMetaData> meta = i == 0 ? reference : spec.footer;
    if (spec.bytes) {
      piece.data = spec.bytes;  // (read whole with its footer already: a lake's footers, a fetched object)
      piece.n = static_cast<size_t>(size);
      s.whole = true;
    } else if (!plan.columns.empty() && size >= 12 && size <= opts.whole_file_bytes) {
      // One read: the footer parsed from the file's own bytes (bounds-
      // checked against them: a footer that claims more than the file
      // holds fails as on the file), the chunks views of them.
      if (!held_bytes.take(static_cast<int64_t>(size))) {
        return make_error(ErrorCode::kMemoryLimit, path + ": " + format_bytes(static_cast<int64_t>(size)) +
                                                       " of file bytes do not fit the memory limit of " +
                                                       format_bytes(budget->limit()) + " (" +
                                                       format_bytes(budget->used()) + " held)");
      }
      uint8_t* p = buf.get(static_cast<size_t>(size));
      PQFAST_RETURN_IF_ERROR(file->read_at(0, static_cast<size_t>(size), p));
      s.whole = true;
      s.bytes_read = static_cast<int64_t>(size);
      piece.data = std::shared_ptr<const uint8_t>(std::shared_ptr<const uint8_t>(), p);  // (not owned: buf's)
      piece.n = static_cast<size_t>(size);
      if (!meta) {
        auto len = parse_trailer(p + size - 8, size);
        if (!len.ok()) return make_error(len.error().code, path + ": " + len.error().message);
        const uint64_t begin = size - 8 - *len;
        auto parsed = parse_file_metadata(p + begin, *len, begin, opts.limits);
        if (!parsed.ok()) return make_error(parsed.error().code, path + ": " + parsed.error().message);
        meta = std::make_shared<const FileMetaData>(std::move(parsed).value());
      }
    } else {
      // The footer alone (a scan of no column needs nothing else); a large
      // file's chunks are read one by one by the decoders (a deferred piece).
      piece.source = file;
      piece.n = static_cast<size_t>(size);
    }
    if (!meta) {
      auto parsed = read_file_metadata(*file, opts.limits);
      if (!parsed.ok()) return parsed.error();
      meta = std::make_shared<const FileMetaData>(std::move(parsed).value());
    }
    const FileMetaData& m = *meta;
    DecodeJob j;
    j.file_name = path;
    j.file_size = size;
    j.file_index = static_cast<int32_t>(i);
    j.meta = meta;
    Status resolved = Scanner::State::resolve_columns(plan, m, path, &j.leaves, &j.shapes);
    if (opts.stop_at_unlike && i > 0 && (!resolved.ok() || !like_the_first(m, j))) {
      // (the caller plans this file's columns from its own footer: a column it
      // lacks, or holds otherwise, is the caller's to conform or report)
      s.unlike = true;
      return Error{ErrorCode::kOk, {}};
    }
    PQFAST_RETURN_IF_ERROR(resolved);
    j.nested = &plan.nested;
    j.columns = &plan.columns;
    j.pieces.push_back(std::move(piece));
    j.v2_always_compressed = v2_pages_always_compressed(m.created_by);
    j.parquet_mr_816 = parquet_mr_before_1_2_9(m.created_by);
    // The file's decode, charged to a share of what the budget has left (as a unit's is).
    j.budget = budget->share_of_rest();
    std::vector<int32_t> groups;
    if (spec.all_row_groups) {
      for (size_t g = 0; g < m.row_groups.size(); ++g) groups.push_back(static_cast<int32_t>(g));
    } else {
      groups = spec.row_groups;
    }
    for (int32_t g : groups) {
      if (g < 0 || static_cast<size_t>(g) >= m.row_groups.size()) {
        return make_error(ErrorCode::kInvalidArgument, path + ": no row group " + std::to_string(g) +
                                                           " (the file has " + std::to_string(m.row_groups.size()) + ")");
      }
      const RowGroup& rg = m.row_groups[static_cast<size_t>(g)];
      if (rg.num_rows <= 0) continue;  // (no batch, as a unit gives none)
      j.row_group = g;
      auto h = std::make_shared<Holder>();
      h->arrays.resize(j.leaves.size());
      h->schemas.resize(j.leaves.size());
      for (size_t k = 0; k < j.leaves.size(); ++k) {
        // Each chunk checked against the row group first, as a unit's are when it asks for them.
        Result<ColumnArray> col = Error{ErrorCode::kInvalidArgument, "not decoded"};
        if (j.shapes[k]) {
          std::vector<int> below;
          j.shapes[k]->leaves(&below);
          for (int leaf : below) {
            const ColumnDescriptor& d = m.columns[static_cast<size_t>(leaf)];
            PQFAST_RETURN_IF_ERROR(check_column_chunk(rg, leaf, d, path + ": row group " + std::to_string(g) +
                                                                       ", column '" + d.dotted_path + "'"));
          }
          col = decode_nested_column(j, k);
        } else {
          PlainChunk pc(j, k);
          PQFAST_RETURN_IF_ERROR(check_column_chunk(rg, j.leaves[k], pc.d, pc.where));
          PQFAST_RETURN_IF_ERROR(pc.load(j));
          col = pc.checked(decode_column_chunk(pc.bytes, static_cast<size_t>(pc.len), pc.start, pc.d, pc.c.codec,
                                               pc.rg.num_rows, pc.o, pc.where));
        }
        if (!col.ok()) return col.error();
        std::move(col).value().export_to(&h->arrays[k], &h->schemas[k], plan.columns[k].name);
      }
      s.groups.push_back(std::move(h));
      s.row_groups.push_back(g);
      s.rows.push_back(rg.num_rows);
    }
    s.charge = j.budget->used();
    budget->force_charge(s.charge);
    return Error{ErrorCode::kOk, {}};
  }
};

void LocalScan::file_worker() {
  Files& f = *files_mode_;
  ReusedBuffer buf;
  while (!stop_.load()) {
    const size_t i = f.take();
    if (i == Files::kNone) return;
    if (i == Files::kWait) {
      f.wait_a_while(stop_, nullptr);
      continue;
    }
    f.run(i, buf, i == f.head_at.load());
  }
}

Result<ScanStep> LocalScan::next_file_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin) {
  Files& f = *files_mode_;
  for (;;) {
    if (stop_.load()) return cancelled_error();
    if (f.failed) return f.error;
    if (f.head >= f.n || f.stopped_at >= 0) return ScanStep::kEnd;
    FileSlot& s = f.slots[f.head];
    if (!s.done.load(std::memory_order_acquire)) {
      // Work instead of waiting: a file of its own (the next one when no
      // thread took it), else wait for the thread that has it.
      const size_t i = f.take();
      if (i != Files::kNone && i != Files::kWait) {
        f.run(i, f.consumer_buf, i == f.head);
        continue;
      }
      f.wait_a_while(stop_, &s);
      continue;
    }
    if (s.retry) {
      // Refused by the budget while files before it held memory: again, now that it is next.
      if (s.charge) f.budget->release(s.charge);
      f.held.fetch_sub(s.charge);
      s.reset();
      f.run(f.head, f.consumer_buf, true);
      continue;
    }
    if (s.error.code != ErrorCode::kOk) {
      f.failed = true;
      f.error = s.error;
      f.lower_limit(0);
      return f.error;
    }
    if (s.unlike) {
      f.stopped_at = static_cast<int32_t>(f.head);
      f.lower_limit(0);
      return ScanStep::kEnd;
    }
    if (f.group < s.groups.size()) {
      const int64_t rows = s.rows[f.group];
      const int64_t n = std::min<int64_t>(f.opts.batch_size, rows - f.row);
      if (f.deferred) {
        f.deferred->push_back({s.groups[f.group], f.row, n});  // (array left unset: drain makes it)
      } else {
        make_batch(s.groups[f.group], f.row, n, array);
      }
      if (schema) struct_schema(s.groups[f.group]->schemas, schema);
      if (origin) *origin = {static_cast<int32_t>(f.head), s.row_groups[f.group], n};
      f.row += n;
      if (f.row >= rows) {
        s.groups[f.group].reset();  // (the batches hold what they show)
        ++f.group;
        f.row = 0;
      }
      {
        std::lock_guard<std::mutex> lock(f.mu);
        ++f.stats.batches;
        f.stats.rows += n;
      }
      return ScanStep::kBatch;
    }
    // The file's last batch is out: its charge leaves the budget, and a
    // thread waiting for room may take a file.
    f.budget->release(s.charge);
    f.held.fetch_sub(s.charge);
    s.charge = 0;
    // The slot's vectors freed now, not when the scan ends (three small
    // blocks a file, kept among the next files' short-lived ones).
    std::vector<std::shared_ptr<Holder>>().swap(s.groups);
    std::vector<int32_t>().swap(s.row_groups);
    std::vector<int64_t>().swap(s.rows);
    ++f.head;
    f.group = 0;
    f.row = 0;
    f.head_at.store(f.head);
    f.room_freed();
  }
}

ScannerStats LocalScan::stats() const {
  if (!files_mode_) return scanner_->stats();
  std::lock_guard<std::mutex> lock(files_mode_->mu);
  // (in file tasks the unit is a file: planned, taken, decoded)
  ScannerStats s = files_mode_->stats;
  s.units = static_cast<int64_t>(files_mode_->n);
  s.units_started = static_cast<int64_t>(std::min(files_mode_->next.load(), files_mode_->n));
  return s;
}

int32_t LocalScan::stopped_at() const { return files_mode_ ? files_mode_->stopped_at : -1; }

// ---- LocalScan ----------------------------------------------------------------------

namespace {

int hardware_threads() { return static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency()))); }

// The filtered files of a local plan pruned (scan/local_units.h), files in
// parallel on `threads`: each gets its footer, its size and the row groups
// statistics and Bloom filters leave. The first file (in plan order) that
// fails fails the scan. Returns the row groups left in all.
Result<int64_t> prune_filtered_files(ScanPlan& plan, const ScannerOptions& options, int threads) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.files.size(); ++i) {
    const ScanFilter& f = plan.files[i].filter ? *plan.files[i].filter : plan.filter;
    if (f.active) todo.push_back(i);
  }
  if (todo.empty()) return int64_t{-1};
  ScanOptions so = pruning_options(options);
  so.cache_footers = true;
  so.budget = options.budget;
  const std::vector<ScanColumn> columns = flat_columns(plan);  // (nested fields are checked by the scanner)
  std::vector<Result<scan::PrunedFile>> got;
  got.reserve(todo.size());
  for (size_t k = 0; k < todo.size(); ++k) got.emplace_back(make_error(ErrorCode::kInvalidArgument, "not run"));
  std::vector<uint8_t> ran(todo.size(), 0);
  std::atomic<bool> failed{false};
  scan::parallel_for(todo.size(), std::max(1, threads), [&](size_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    ran[k] = 1;
    const ScanPlanFile& f = plan.files[todo[k]];
    const ScanFilter& filter = f.filter ? *f.filter : plan.filter;
    got[k] = scan::prune_local_file(f.name, f.all_row_groups ? nullptr : &f.row_groups, columns, filter, so,
                                    /*footer_always=*/false, f.overlay.get());
    if (!got[k].ok()) failed.store(true, std::memory_order_relaxed);
  });
  int64_t left = 0;
  for (size_t k = 0; k < todo.size(); ++k) {
    if (ran[k] && !got[k].ok()) return got[k].error();  // (files not run: after another's failure)
  }
  for (size_t k = 0; k < todo.size(); ++k) {
    if (!got[k].ok()) return got[k].error();
    ScanPlanFile& f = plan.files[todo[k]];
    scan::PrunedFile& p = *got[k];
    f.footer = std::move(p.meta);
    f.size = p.size;
    f.all_row_groups = false;
    f.row_groups = std::move(p.row_groups);
    f.pruned = true;
    f.pruned_stats = p.stats;
    f.pruner = std::move(p.pruner);
    // Kept open for the units of a small plan (a lake's thousands of files
    // would hold a descriptor each until the scan ends).
    if (plan.files.size() <= LocalScan::kKeepOpened && !f.row_groups.empty()) f.opened = std::move(p.opened);
    left += static_cast<int64_t>(f.row_groups.size());
  }
  return left;
}

// The pruned files left with no row group leave the plan (`index` gets,
// per file kept, its index in the plan given): the scanner plans nothing
// for them, and needs no whole footer of a file the lean footer's Bloom
// filters ruled out (the engine's call reads none either). Their counts
// go to the first pruned file kept; when none is kept, the first of them
// stays, its whole footer read (the scan's schema comes from a footer).
Status drop_pruned_out(ScanPlan& plan, const ScannerOptions& options, std::vector<int32_t>* index) {
  auto out = [](const ScanPlanFile& f) { return f.pruned && f.row_groups.empty(); };
  size_t carrier = plan.files.size();
  for (size_t i = 0; i < plan.files.size() && carrier == plan.files.size(); ++i) {
    if (plan.files[i].pruned && !out(plan.files[i])) carrier = i;
  }
  if (carrier == plan.files.size()) {
    for (size_t i = 0; i < plan.files.size() && carrier == plan.files.size(); ++i) {
      if (out(plan.files[i])) carrier = i;
    }
    if (carrier == plan.files.size()) return Status::Ok();  // (nothing pruned out)
    ScanPlanFile& c = plan.files[carrier];
    if (!c.footer) {
      ScanOptions so;
      so.cache_footers = true;
      so.limits = options.limits;
      so.budget = options.budget;
      auto footer = scan::local_footer(c.name, flat_columns(plan), so, c.overlay.get());
      if (!footer.ok()) return footer.error();
      c.footer = std::move(footer).value();
    }
  }
  ScanStats dropped;
  std::vector<ScanPlanFile> kept;
  for (size_t i = 0; i < plan.files.size(); ++i) {
    if (i != carrier && out(plan.files[i])) {
      dropped.add(plan.files[i].pruned_stats);
      continue;
    }
    index->push_back(static_cast<int32_t>(i));
    kept.push_back(std::move(plan.files[i]));
  }
  for (ScanPlanFile& f : kept) {
    if (f.pruned) {
      f.pruned_stats.add(dropped);
      break;
    }
  }
  plan.files = std::move(kept);
  return Status::Ok();
}

}  // namespace

namespace {

// Whether a local plan without a filter runs file tasks
// (ScannerOptions::file_tasks): kAuto decides from the first file's size
// (given, or stat'ed: one open).
Result<bool> file_tasks_for(const ScanPlan& plan, const ScannerOptions& o) {
  if (o.file_tasks != ScannerOptions::FileTasks::kAuto) return o.file_tasks == ScannerOptions::FileTasks::kFiles;
  if (plan.files.size() < 2) return false;
  uint64_t size = plan.files[0].size;
  if (size == 0) {
    auto f = LocalFile::open_for_reading(plan.files[0].name);
    if (!f.ok()) return f.error();
    size = (*f)->size();
  }
  return size <= o.whole_file_bytes;
}

}  // namespace

Result<std::unique_ptr<LocalScan>> LocalScan::make_file_tasks(std::unique_ptr<LocalScan> ls, ScanPlan plan,
                                                            ScannerOptions options, int threads) {
  if (options.batch_size <= 0) {
    return make_error(ErrorCode::kInvalidArgument, "batch_size must be a positive number of rows, not " + std::to_string(options.batch_size));
  }
  // The first file's footer: the scan's schema (the Scanner below holds it)
  // and, with stop_at_unlike, the leaves every file must have.
  std::shared_ptr<const FileMetaData> first;
  if (!plan.files.empty()) {
    first = plan.files[0].footer;
    if (!first) {
      auto f = LocalFile::open_for_reading(plan.files[0].name);
      if (!f.ok()) return f.error();
      auto m = read_file_metadata(**f, options.limits);
      if (!m.ok()) return m.error();
      first = std::make_shared<const FileMetaData>(std::move(m).value());
    }
  }
  ScanPlan head;
  head.columns = plan.columns;
  head.nested = plan.nested;
  if (!plan.files.empty()) {
    ScanPlanFile f = plan.files[0];
    f.footer = first;
    f.bytes.reset();
    head.files.push_back(std::move(f));
  }
  ScannerOptions so = options;
  so.file_tasks = ScannerOptions::FileTasks::kUnits;
  so.stop_at_unlike = false;
  auto s = Scanner::make(std::move(head), std::move(so));
  if (!s.ok()) return s.error();
  ls->scanner_ = std::move(s).value();
  ls->files_mode_ = std::make_unique<Files>(std::move(plan), options, std::move(first));
  Files& fm = *ls->files_mode_;
  if (fm.reference) {
    // (the Scanner above resolved them already: an error there returned)
    DecodeJob j;
    PQFAST_RETURN_IF_ERROR(Scanner::State::resolve_columns(fm.plan, *fm.reference, fm.plan.files[0].name, &j.leaves, &j.shapes));
    fm.first_leaves = Files::chunk_leaves(j);
  }
  const size_t n = ls->files_mode_->n;
  const int own = threads < 0 ? 0 : static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), n > 0 ? n - 1 : 0));
  ls->files_mode_->ahead = static_cast<size_t>(std::max(0, options.max_units_ahead));
  for (int t = 0; t < own; ++t) ls->threads_.emplace_back([p = ls.get()] { p->file_worker(); });
  return ls;
}

Result<std::unique_ptr<LocalScan>> LocalScan::make(ScanPlan plan, ScannerOptions options, int threads) {
  PQFAST_RETURN_IF_ERROR(check_nested(plan));
  std::unique_ptr<LocalScan> ls(new LocalScan());
  if (!options.budget) options.budget = MemoryBudget::make(options.memory_limit);
  const int workers = threads == 0 ? hardware_threads() : threads;
  auto left = prune_filtered_files(plan, options, workers);
  if (!left.ok()) return left.error();
  if (*left < 0 && !plan.filter.active) {
    auto tasks = file_tasks_for(plan, options);
    if (!tasks.ok()) return tasks.error();
    if (*tasks) return make_file_tasks(std::move(ls), std::move(plan), std::move(options), workers);
  }
  if (options.stop_at_unlike) {
    return make_error(ErrorCode::kInvalidArgument, "scan plan: stop_at_unlike takes file tasks (a plan without a filter)");
  }
  if (*left >= 0) {
    options.filtered_from_files = true;
    // A matching row group's columns go to `workers` threads, as the
    // engine call's do: a lookup's one match is most of its work (1 id on
    // the 100-file bench lake: 8 units, one reading 12 MB of pages).
    options.filtered_unit_threads = workers;
    int64_t plain = 0;  // row groups of unfiltered files
    for (const ScanPlanFile& f : plan.files) {
      if (!f.pruned) plain += f.all_row_groups ? kInlineUnits + 1 : static_cast<int64_t>(f.row_groups.size());
    }
    if (plain == 0 && *left <= kConsumerRunUnits) {
      // Every file pruned: no bytes to read, each unit one engine run from
      // its file. No threads of its own; the consumer runs the units ready
      // on `workers` threads at once (parked helpers), as one engine call
      // runs its row groups: threads of the scan's own, each taking a unit
      // and waking the consumer, made a lookup wait on hand-offs (1 id on
      // the 100-file bench lake: 8 units, 5.1 ms vs the engine's 3.0).
      ls->batch_threads_ = std::max(1, workers);
      threads = -1;
    } else if (*left + plain <= kInlineUnits) {
      threads = -1;
    }
    PQFAST_RETURN_IF_ERROR(drop_pruned_out(plan, options, &ls->plan_index_));
  }
  ls->files_.resize(plan.files.size());
  ls->wholes_.resize(plan.files.size());
  ls->sizes_.resize(plan.files.size());
  for (size_t i = 0; i < plan.files.size(); ++i) {
    ls->paths_.push_back(plan.files[i].name);
    if (plan.files[i].bytes) {
      // (its size is the one it was read at: the ranges are checked against it)
      ls->wholes_[i] = std::move(plan.files[i].bytes);
      plan.files[i].bytes.reset();
    }
    if (plan.files[i].size == 0) {
      auto f = LocalFile::open_for_reading(plan.files[i].name);
      if (!f.ok()) return f.error();
      plan.files[i].size = (*f)->size();
      // (kept open only for a small plan: a lake of thousands of files
      // would hold a descriptor each; the reads open it again)
      if (plan.files.size() <= kFilesKeptOpen) ls->files_[i] = std::move(f).value();
    }
    ls->sizes_[i] = plan.files[i].size;
  }
  // A small plan's files stay open (above), so a deferred range can hold
  // its file; a lake's would hold a descriptor per unit read ahead.
  ls->defer_reads_ = plan.files.size() <= kFilesKeptOpen;
  if (threads == 0) threads = hardware_threads();
  // Plain units decode on the scan's threads and the consumer's.
  options.decode_threads = std::max(1, threads + 1);
  auto s = Scanner::make(std::move(plan), std::move(options));
  if (!s.ok()) return s.error();
  ls->scanner_ = std::move(s).value();
  for (int t = 0; t < threads; ++t) ls->threads_.emplace_back([p = ls.get()] { p->worker(); });
  return ls;
}

LocalScan::~LocalScan() {
  cancel();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void LocalScan::cancel() {
  stop_.store(true);
  if (scanner_) scanner_->cancel();
  if (files_mode_) files_mode_->wake();
}

bool LocalScan::step_io_or_decode(bool consumer, bool head_only, bool reads) {
  // A unit of its own first (a stream's consumer first helps the unit it
  // waits for), then a read of the next unit, and only when there is
  // neither the columns of a unit another thread decodes: threads that
  // share every unit's columns end each unit with one waiting for the
  // other's last column, where the column reader's threads never wait.
  if (scanner_->run_task(consumer, consumer, head_only)) return true;
  if (!reads) return false;
  // Before a stream's first batch, the first unit's bytes and one unit's
  // more are read: reading the readahead window then (hundreds of MB) took
  // the CPU and memory bandwidth the first unit's decode waits for.
  if (help_head_ && first_pending_.load(std::memory_order_relaxed) && !scanner_->head_needs_bytes() &&
      reads_before_first_.fetch_add(1, std::memory_order_relaxed) >= 1) {
    return false;
  }
  // One unit's ranges (and any footers) per step: the thread then decodes
  // what it read (run_task takes the earliest unit whose bytes are in)
  // while those bytes are still in its cache, and a second thread finds a
  // unit to read at once instead of waiting behind a read of the whole
  // readahead window (lineitem SF1, Q12's columns at 2 threads: 3-5% more
  // CPU than the column reader when one thread read 16 units ahead).
  std::vector<FileRange> rs = scanner_->needs(1);
  if (rs.empty()) return !head_only && scanner_->run_task(false, true);
  for (const FileRange& r : rs) {
    if (stop_.load()) return true;
    std::shared_ptr<LocalFile> f;
    std::shared_ptr<const uint8_t> whole;
    {
      std::lock_guard<std::mutex> lock(files_mu_);
      // Ranges come in plan order: files well before this one are read
      // (a file asked again is opened again). A lake of 10,000 files so
      // holds a few descriptors, not 10,000 (RLIMIT_NOFILE is often 1,024),
      // and the bytes of a few files read whole, not of all of them.
      const size_t at = static_cast<size_t>(r.file);
      const size_t keep_from = at > kFilesKeptOpen ? at - kFilesKeptOpen : 0;
      for (; first_open_ < keep_from; ++first_open_) {
        files_[first_open_].reset();
        wholes_[first_open_].reset();
      }
      whole = wholes_[at];
    }
    if (whole) {
      // The file was read whole with its footer: the range is a view of
      // those bytes (no open, no read, no copy), checked against the size
      // they were read at as a read of the file would be.
      const uint64_t size = sizes_[static_cast<size_t>(r.file)];
      if (r.offset > size || r.length > size - r.offset) {
        scanner_->fail(make_error(ErrorCode::kTruncated, paths_[static_cast<size_t>(r.file)] + ": read of " +
                                                             std::to_string(r.length) + " bytes at byte " +
                                                             std::to_string(r.offset) + " goes past the end of the " +
                                                             std::to_string(size) + "-byte file"));
        return true;
      }
      std::shared_ptr<const uint8_t> view(whole, whole.get() + r.offset);
      Status st = scanner_->feed(r.file, r.offset, std::move(view), static_cast<size_t>(r.length));
      if (!st.ok()) {
        scanner_->fail(st.error());
        return true;
      }
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(files_mu_);
      auto& slot = files_[static_cast<size_t>(r.file)];
      if (!slot) {
        auto opened = LocalFile::open_for_reading(paths_[static_cast<size_t>(r.file)]);
        if (!opened.ok()) {
          scanner_->fail(opened.error());
          return true;
        }
        slot = std::move(opened).value();
      }
      f = slot;
    }
    // Into a pooled block, not a fresh zero-filled vector: a row group's
    // chunks are megabytes, which glibc maps afresh (and the kernel faults
    // in and zeroes) on every allocation; pooled, a read reuses the blocks
    // of the one before, as the column reader's ReadBuffers do (lineitem
    // SF1 at 2 threads: 12,000-27,000 page faults per read -> see the
    // commit). The budget charge is the scanner's (feed), not the pool's.
    const size_t len = static_cast<size_t>(r.length);
    if (r.deferrable && defer_reads_) {
      Status st = scanner_->feed_deferred(r.file, r.offset, f, len);
      if (!st.ok()) {
        scanner_->fail(st.error());
        return true;
      }
      continue;
    }
    size_t got = 0;
    uint8_t* block = detail::pool_allocate(std::max<size_t>(len, 1), &got);
    std::shared_ptr<const uint8_t> buf(block, [got](const uint8_t* p) { detail::pool_free(const_cast<uint8_t*>(p), got); });
    Status st = f->read_at(r.offset, len, block);
    if (!st.ok()) {
      scanner_->fail(st.error());
      return true;
    }
    st = scanner_->feed(r.file, r.offset, std::move(buf), len);
    if (!st.ok()) {
      scanner_->fail(st.error());
      return true;
    }
  }
  return true;
}

void LocalScan::worker() {
  while (!stop_.load()) {
    try {
      const uint64_t seen = scanner_->changes();
      // Until a stream's first batch: the columns of the first unit, or the
      // first unit, or reads, but no later unit taken whole (first_pending_).
      const bool first = help_head_ && first_pending_.load(std::memory_order_relaxed);
      if (!step_io_or_decode(first, first)) {
        scanner_->wait_for_change(seen, 20);
      }
    } catch (const std::bad_alloc&) {
      scanner_->fail(make_error(ErrorCode::kMemoryLimit, "local scan: out of memory"));
      return;
    } catch (const std::exception& e) {
      scanner_->fail(make_error(ErrorCode::kInvalidArgument, std::string("local scan: ") + e.what()));
      return;
    }
  }
}

void LocalScan::run_ready_units() {
  // (No ranges come back: every file's footer is in and its units read
  // their file themselves; needs() here admits what readahead allows.)
  if (!scanner_->needs().empty()) {
    scanner_->fail(make_error(ErrorCode::kInvalidArgument, "local scan: a pruned plan asks for bytes"));
    return;
  }
  (void)scanner_->run_filtered_units(batch_threads_);
}

Result<ScanStep> LocalScan::next_batch(ArrowArray* array, ArrowSchema* schema, BatchOrigin* origin) {
  if (files_mode_) return next_file_batch(array, schema, origin);
  for (;;) {
    if (batch_threads_ > 0) run_ready_units();
    const uint64_t seen = scanner_->changes();
    auto r = scanner_->next_batch(array, schema, origin);
    if (r.ok() && *r == ScanStep::kBatch && origin && !plan_index_.empty()) {
      origin->file = plan_index_[static_cast<size_t>(origin->file)];
    }
    if (r.ok() && *r != ScanStep::kNeedData) first_pending_.store(false, std::memory_order_relaxed);
    if (!r.ok() || *r != ScanStep::kNeedData) return r;
    if (threads_.empty()) {
      if (!step_io_or_decode(true)) {
        return make_error(ErrorCode::kInvalidArgument, "local scan: the scanner waits for bytes it does not ask for");
      }
      continue;
    }
    // A consumer that would wait works instead: the columns of the unit it
    // waits for first, then reads or other units (as the column reader's
    // calling thread takes chunks beside its helpers). What it does not
    // find to do it waits for.
    bool worked = false;
    try {
      // (Before the first batch the reads are the scan's threads': a unit
      // read ahead here is CPU the first unit's decode waits for.)
      worked = step_io_or_decode(help_head_, help_head_, !first_pending_.load(std::memory_order_relaxed));
    } catch (const std::bad_alloc&) {
      scanner_->fail(make_error(ErrorCode::kMemoryLimit, "local scan: out of memory"));
      continue;
    } catch (const std::exception& e) {
      scanner_->fail(make_error(ErrorCode::kInvalidArgument, std::string("local scan: ") + e.what()));
      continue;
    }
    if (!worked) scanner_->wait_for_change(seen, 20);
  }
}

Status LocalScan::schema(ArrowSchema* out) {
  for (;;) {
    const uint64_t seen = scanner_->changes();
    auto r = scanner_->schema(out);
    if (!r.ok()) return r.error();
    if (*r != ScanStep::kNeedData) return Status::Ok();
    if (threads_.empty()) {
      if (!step_io_or_decode()) {
        return make_error(ErrorCode::kInvalidArgument, "local scan: the scanner waits for bytes it does not ask for");
      }
      continue;
    }
    scanner_->wait_for_change(seen, 20);
  }
}

namespace {

struct StreamPrivate {
  std::shared_ptr<LocalScan> scan;
  std::string last_error;
  bool has_requested = false;
  ArrowSchema requested{};  // a copy of the consumer's schema, when given
  ~StreamPrivate() {
    if (has_requested && requested.release) requested.release(&requested);
  }
};

int stream_errno(const Error& e) { return e.code == ErrorCode::kMemoryLimit ? ENOMEM : e.code == ErrorCode::kInvalidArgument ? EINVAL : EIO; }

int stream_get_schema(ArrowArrayStream* s, ArrowSchema* out) {
  auto* p = static_cast<StreamPrivate*>(s->private_data);
  try {
    if (p->has_requested) {
      copy_schema(p->requested, out);
      return 0;
    }
    Status st = p->scan->schema(out);
    if (st.ok()) return 0;
    p->last_error = st.error().to_string();
    return stream_errno(st.error());
  } catch (const std::exception& e) {
    p->last_error = e.what();
    return EIO;
  }
}

int stream_get_next(ArrowArrayStream* s, ArrowArray* out) {
  auto* p = static_cast<StreamPrivate*>(s->private_data);
  try {
    auto r = p->scan->next_batch(out, nullptr);  // (the stream's schema is given once: no copy per batch)
    if (!r.ok()) {
      p->last_error = r.error().to_string();
      return stream_errno(r.error());
    }
    if (*r == ScanStep::kEnd) out->release = nullptr;
    return 0;
  } catch (const std::exception& e) {
    p->last_error = e.what();
    return EIO;
  }
}

const char* stream_last_error(ArrowArrayStream* s) {
  auto* p = static_cast<StreamPrivate*>(s->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void stream_release(ArrowArrayStream* s) {
  auto* p = static_cast<StreamPrivate*>(s->private_data);
  p->scan->cancel();
  delete p;  // the last owner joins the threads
  s->release = nullptr;
}


// Whether two fields have one Arrow format, child for child at every depth
// (a nested column's children too: a consumer reading a list's values as
// another type would read its buffers wrong), and, for dictionary arrays,
// dictionaries of one format (an int32-indexed dictionary of strings is
// not one of binary).
bool same_format(const ArrowSchema& a, const ArrowSchema& b) {
  if (std::string(a.format) != b.format || !a.dictionary != !b.dictionary || a.n_children != b.n_children) {
    return false;
  }
  for (int64_t i = 0; i < a.n_children; ++i) {
    if (!same_format(*a.children[i], *b.children[i])) return false;
  }
  return !a.dictionary || same_format(*a.dictionary, *b.dictionary);
}

// Whether the consumer's schema has the scan's Arrow types, child for child.
Status check_requested(LocalScan& scan, const ArrowSchema& requested) {
  ArrowSchema own;
  PQFAST_RETURN_IF_ERROR(scan.schema(&own));
  const bool same = std::string(requested.format) == "+s" && same_format(requested, own);
  own.release(&own);
  if (!same) {
    return make_error(ErrorCode::kInvalidArgument, "the requested schema's columns are not of the scan's Arrow types");
  }
  return Status::Ok();
}

// A stream over batches taken already (LocalScan::drain).
struct DrainedPrivate {
  ArrowSchema schema{};
  std::vector<ArrowArray> arrays;
  size_t next = 0;
  ~DrainedPrivate() {
    for (auto& a : arrays) {
      if (a.release) a.release(&a);
    }
    if (schema.release) schema.release(&schema);
  }
};

int drained_get_schema(ArrowArrayStream* s, ArrowSchema* out) {
  try {
    copy_schema(static_cast<DrainedPrivate*>(s->private_data)->schema, out);
    return 0;
  } catch (const std::bad_alloc&) {
    return ENOMEM;
  }
}

int drained_get_next(ArrowArrayStream* s, ArrowArray* out) {
  auto* p = static_cast<DrainedPrivate*>(s->private_data);
  if (p->next >= p->arrays.size()) {
    out->release = nullptr;
    return 0;
  }
  *out = p->arrays[p->next];  // moved out: the consumer releases it
  p->arrays[p->next++].release = nullptr;
  return 0;
}

const char* drained_last_error(ArrowArrayStream*) { return nullptr; }

void drained_release(ArrowArrayStream* s) {
  delete static_cast<DrainedPrivate*>(s->private_data);
  s->release = nullptr;
}

}  // namespace

Status LocalScan::drain(ArrowArrayStream* out, const ArrowSchema* requested, std::vector<int32_t>* files) {
  auto p = std::make_unique<DrainedPrivate>();
  if (requested) {
    PQFAST_RETURN_IF_ERROR(check_requested(*this, *requested));
    copy_schema(*requested, &p->schema);
  } else {
    PQFAST_RETURN_IF_ERROR(schema(&p->schema));
  }
  // Every batch is taken before any is handed on: the consumer thread
  // decodes whole units beside the scan's threads, helping with the columns
  // of the unit it waits for only when no unit is left to take (as a stream
  // it helps first, for the next batch's latency). A unit whose columns two
  // threads share ends with one of them waiting for the other's last column.
  help_head_ = false;
  std::vector<Files::Deferred> deferred;
  if (files_mode_) files_mode_->deferred = &deferred;  // (see Files::deferred)
  for (;;) {
    ArrowArray a;
    BatchOrigin origin;
    auto r = next_batch(&a, nullptr, &origin);  // (the stream's schema is the scan's: no copy per batch)
    if (!r.ok()) {
      if (files_mode_) files_mode_->deferred = nullptr;
      return r.error();
    }
    if (*r == ScanStep::kEnd) break;
    if (!files_mode_) p->arrays.push_back(a);
    if (files) files->push_back(origin.file);
  }
  if (files_mode_) {
    files_mode_->deferred = nullptr;
    p->arrays.reserve(deferred.size());
    for (Files::Deferred& d : deferred) {
      ArrowArray a;
      make_batch(d.holder, d.begin, d.n, &a);
      p->arrays.push_back(a);
      d.holder.reset();
    }
  }
  out->get_schema = drained_get_schema;
  out->get_next = drained_get_next;
  out->get_last_error = drained_last_error;
  out->release = drained_release;
  out->private_data = p.release();
  return Status::Ok();
}

Status LocalScan::export_stream(std::shared_ptr<LocalScan> scan, ArrowArrayStream* out, const ArrowSchema* requested) {
  auto p = std::make_unique<StreamPrivate>();
  if (requested) {
    PQFAST_RETURN_IF_ERROR(check_requested(*scan, *requested));
    copy_schema(*requested, &p->requested);
    p->has_requested = true;
  }
  p->scan = std::move(scan);
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = p.release();
  return Status::Ok();
}

// ---- files alike -------------------------------------------------------------------

namespace {

bool same_logical(const LogicalType& a, const LogicalType& b) {
  return a.kind == b.kind && a.decimal_scale == b.decimal_scale && a.decimal_precision == b.decimal_precision &&
         a.bit_width == b.bit_width && a.is_signed == b.is_signed && a.adjusted_to_utc == b.adjusted_to_utc &&
         a.unit == b.unit;
}

}  // namespace

bool same_leaf(const ColumnDescriptor& x, const ColumnDescriptor& y) {
  return x.path == y.path && x.physical_type == y.physical_type && x.type_length == y.type_length &&
         same_logical(x.logical, y.logical) && x.converted_type == y.converted_type && x.scale == y.scale &&
         x.precision == y.precision && x.max_definition_level == y.max_definition_level &&
         x.max_repetition_level == y.max_repetition_level;
}

bool same_leaves(const FileMetaData& a, const FileMetaData& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t i = 0; i < a.columns.size(); ++i) {
    if (!same_leaf(a.columns[i], b.columns[i])) return false;
  }
  return true;
}

}  // namespace pqfast::parquet
