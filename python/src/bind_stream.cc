// Binding of the streaming scanner (pqfast/scanner.h). `_Scanner` is the
// push protocol for a Python I/O loop (object storage, fsspec): needs() ->
// ranges, feed(file, offset, buffer), next_batch() -> a pyarrow.RecordBatch,
// False when it needs bytes first, None at the end. `_LocalScanner` reads
// local files on its own threads and hands batches out through
// next_batch() (typed pqfast errors) or __arrow_c_stream__ (no Python per
// batch); cancel() stops either. The GIL is released while decoding and
// while waiting for the threads.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <mutex>
#include <utility>
#include <cerrno>
#include <thread>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "arrow_capsules.h"
#include "common.h"
#include "parquet_common.h"
#include "pqfast/scanner.h"
#include "scan_filter_spec.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

namespace {

// (name, size, row groups or None): size 0 for a local file means "stat it".
using FileSpec = std::tuple<std::string, uint64_t, std::optional<std::vector<int32_t>>>;
using FlatSpec = std::tuple<std::string, std::string, std::string>;  // name, layout, format
// A nested top-level field: name, [(layout, format) per leaf, in schema order].
using NestedSpec = std::tuple<std::string, std::vector<std::pair<std::string, std::string>>>;
using ColumnSpec = std::variant<FlatSpec, NestedSpec>;
using Dnf = std::optional<std::vector<std::vector<AtomSpec>>>;
// A sidecar's tail of one file: (data file size, offset, length); size < 0: none.
using TailSpec = std::tuple<int64_t, uint64_t, uint64_t>;

struct Settings {
  int64_t batch_size = 131072;
  int64_t readahead_bytes = 0;
  int64_t memory_limit = 0;
  uint64_t coalesce_gap = uint64_t{64} << 10;
  uint64_t footer_tail = uint64_t{64} << 10;
  int max_units_ahead = 0;
  bool use_statistics = true, use_bloom = true, use_dictionary = true, use_page_index = true;
  // LocalScan: file tasks (None: chosen from the first file's size), and
  // whether a file unlike the first ends the scan before it.
  std::optional<bool> file_tasks;
  bool stop_at_unlike = false;
  std::vector<std::string> absent_columns;
  uint64_t whole_file_bytes = uint64_t{1} << 20;
};

// `footers`: None, or per file None or its parsed footer (FileMetaData, as
// ParquetFile.metadata holds it): a footer known already is not fetched again.
// `file_filters`: None (every file takes `dnf`), or per file its own DNF (None:
// no filter, every row); files given the same list object share one filter.
// `versions`: None, or per file its version (str; None: none), what pruning
// learns of the file kept per process under it (ScanPlanFile::version).
pq::ScanPlan make_plan(const std::vector<FileSpec>& files, const std::vector<ColumnSpec>& columns, const Dnf& dnf,
                       nb::object footers, nb::object file_filters = nb::none(), nb::object versions = nb::none()) {
  pq::ScanPlan plan;
  if (!versions.is_none() && nb::len(versions) != files.size()) {
    throw FormatError("invalid argument: " + std::to_string(nb::len(versions)) + " versions for " +
                      std::to_string(files.size()) + " files");
  }
  if (!footers.is_none() && nb::len(footers) != files.size()) {
    throw FormatError("invalid argument: " + std::to_string(nb::len(footers)) + " footers for " +
                      std::to_string(files.size()) + " files");
  }
  if (!file_filters.is_none() && nb::len(file_filters) != files.size()) {
    throw FormatError("invalid argument: " + std::to_string(nb::len(file_filters)) + " filters for " +
                      std::to_string(files.size()) + " files");
  }
  std::vector<std::pair<PyObject*, std::shared_ptr<const pq::ScanFilter>>> made;  // one per distinct object
  auto filter_for = [&](nb::handle h) {
    for (const auto& [obj, f] : made) {
      if (obj == h.ptr()) return f;
    }
    auto f = std::make_shared<const pq::ScanFilter>(make_filter(nb::cast<Dnf>(h)));
    made.emplace_back(h.ptr(), f);
    return f;
  };
  size_t k = 0;
  for (const auto& [name, size, groups] : files) {
    pq::ScanPlanFile f;
    f.name = name;
    f.size = size;
    if (groups) {
      f.all_row_groups = false;
      f.row_groups = *groups;
    }
    if (!footers.is_none()) {
      nb::object m = footers[k];
      if (!m.is_none()) {
        PyMeta& pm = nb::cast<PyMeta&>(m);
        f.footer = pm.m;
        // The file's bytes, read whole with its footer, go to this scan (and
        // are dropped as it passes the file), not kept by the footer object.
        if (pm.whole && pm.whole_size == size) f.bytes = std::move(pm.whole);
        pm.whole.reset();
      }
    }
    if (!file_filters.is_none()) f.filter = filter_for(file_filters[k]);
    if (!versions.is_none() && !versions[k].is_none()) f.version = nb::cast<std::string>(versions[k]);
    ++k;
    plan.files.push_back(std::move(f));
  }
  for (const ColumnSpec& spec : columns) {
    pq::ScanColumn c;
    std::vector<pq::ColumnReadOptions> leaves;
    if (const auto* flat = std::get_if<FlatSpec>(&spec)) {
      const auto& [name, layout, format] = *flat;
      c.name = name;
      // (a "dictionary:<layout>" column comes out as Arrow dictionary arrays:
      // int32 indices over its chunk's dictionary, shared by the chunk's batches)
      parse_read_layout(layout, format, &c.options);
    } else {
      // A nested field: its leaves' layouts (the scanner assembles the tree).
      const auto& [name, leaf_specs] = std::get<NestedSpec>(spec);
      c.name = name;
      if (leaf_specs.empty()) throw FormatError("invalid argument: nested column '" + name + "' without leaves");
      for (const auto& [layout, format] : leaf_specs) {
        leaves.emplace_back();
        parse_read_layout(layout, format, &leaves.back());
      }
    }
    plan.columns.push_back(std::move(c));
    plan.nested.push_back(std::move(leaves));
  }
  plan.filter = make_filter(dnf);
  return plan;
}

pq::ScannerOptions make_options(const Settings& s) {
  pq::ScannerOptions o;
  o.batch_size = s.batch_size;
  o.readahead_bytes = s.readahead_bytes;
  o.memory_limit = s.memory_limit;
  o.coalesce_gap = s.coalesce_gap;
  o.footer_tail = s.footer_tail;
  o.max_units_ahead = s.max_units_ahead;
  o.use_statistics = s.use_statistics;
  o.use_bloom = s.use_bloom;
  o.use_dictionary = s.use_dictionary;
  o.use_page_index = s.use_page_index;
  using FT = pq::ScannerOptions::FileTasks;
  o.file_tasks = !s.file_tasks ? FT::kAuto : *s.file_tasks ? FT::kFiles : FT::kUnits;
  o.stop_at_unlike = s.stop_at_unlike;
  o.absent_columns = s.absent_columns;
  o.whole_file_bytes = s.whole_file_bytes;
  return o;
}

// A batch the scanner wrote, as a pyarrow.RecordBatch (imported without a copy).
nb::object to_record_batch(ArrowArray* array, ArrowSchema* schema) {
  static nb::object import = nb::module_::import_("pyarrow").attr("RecordBatch").attr("_import_from_c_capsule");
  auto* s = new ArrowSchema(*schema);
  auto* a = new ArrowArray(*array);
  nb::tuple caps = to_capsules(s, a);
  return import(caps[0], caps[1]);
}

nb::dict stats_dict(const pq::ScannerStats& s) {
  nb::dict d;
  d["ranges_asked"] = s.ranges_asked;
  d["bytes_asked"] = s.bytes_asked;
  d["bytes_fed"] = s.bytes_fed;
  d["units"] = s.units;
  d["units_started"] = s.units_started;
  d["units_decoded"] = s.units_decoded;
  d["engine_runs"] = s.engine_runs;
  d["nested_rounds"] = s.nested_rounds;
  d["batches"] = s.batches;
  d["rows"] = s.rows;
  d["peak_held"] = s.peak_held;
  d["files_whole"] = s.files_whole;
  // The scan engine's counts over filtered units (read_table(stats=True)'s names).
  nb::dict e;
  const pq::ScanStats& g = s.engine;
  e["files"] = g.files;
  e["files_read"] = g.files_read;
  e["row_groups"] = g.row_groups;
  e["row_groups_pruned_by_statistics"] = g.row_groups_pruned_by_statistics;
  e["row_groups_pruned_by_bloom"] = g.row_groups_pruned_by_bloom;
  e["row_groups_pruned_by_dictionary"] = g.row_groups_pruned_by_dictionary;
  e["row_groups_pruned_by_page_index"] = g.row_groups_pruned_by_page_index;
  e["row_groups_read"] = g.row_groups_read;
  e["row_groups_matched"] = g.row_groups_matched;
  e["pages_read"] = g.pages_read;
  e["pages_skipped"] = g.pages_skipped;
  e["bytes_read"] = g.bytes_read;
  e["reads"] = g.reads;
  e["rows"] = g.rows;
  d["engine"] = e;
  return d;
}

// One step of a scan (Scanner or LocalScan) for Python: the batch (with its
// plan file index when `with_file`), False when the scanner needs bytes fed
// first, None at the end; errors raised as their typed exceptions.
template <class Scan>
nb::object next_step(Scan& scan, bool with_file) {
  ArrowArray a;
  ArrowSchema s;
  pq::BatchOrigin origin;
  Result<pq::ScanStep> r = Error{ErrorCode::kInvalidArgument, "not run"};
  {
    nb::gil_scoped_release release;
    r = scan.next_batch(&a, &s, &origin);
  }
  if (!r.ok()) raise(r.error());
  if (*r == pq::ScanStep::kEnd) return nb::none();
  if (*r == pq::ScanStep::kNeedData) return nb::bool_(false);
  nb::object batch = to_record_batch(&a, &s);
  return with_file ? nb::object(nb::make_tuple(origin.file, batch)) : batch;
}

// Each local file's footer, parsed on up to `threads` threads (files taken
// in turn from a shared counter), results in the order of `paths`.
//
// A file of at most `whole_max` bytes is read whole, in one read, and its
// footer parsed from the tail of those bytes (a bounds-checked BufferFile:
// a footer that claims more bytes than the file holds fails as it does on
// the file); the bytes are kept in (*wholes)[i] for the scan to read its
// ranges from, while the kept total stays within `keep_max` (then files
// are read as before: the tail only). On the lake of 10,000 files of 57 KB
// this spares each file a second open, read and close.
std::vector<Result<pq::FileMetaData>> read_footers(const std::vector<std::string>& paths, int threads,
                                                   std::vector<uint64_t>* sizes,
                                                   std::vector<std::shared_ptr<const uint8_t>>* wholes,
                                                   uint64_t whole_max, uint64_t keep_max) {
  sizes->assign(paths.size(), 0);
  wholes->assign(paths.size(), nullptr);
  std::atomic<uint64_t> kept{0};
  // A slot of `keep_max` for `n` more bytes, or false.
  auto reserve = [&](uint64_t n) {
    uint64_t k = kept.load();
    while (k <= keep_max && n <= keep_max - k) {
      if (kept.compare_exchange_weak(k, k + n)) return true;
    }
    return false;
  };
  std::vector<Result<pq::FileMetaData>> out;
  out.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) out.emplace_back(Error{ErrorCode::kInvalidArgument, "not read"});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < paths.size(); i = next.fetch_add(1)) {
      try {
        auto f = pq::LocalFile::open_for_reading(paths[i]);
        if (!f.ok()) {
          out[i] = f.error();
          continue;
        }
        const uint64_t size = (*f)->size();
        (*sizes)[i] = size;
        if (size > 0 && size <= whole_max && reserve(size)) {
          std::shared_ptr<uint8_t[]> bytes(new uint8_t[size]);
          Status st = (*f)->read_at(0, static_cast<size_t>(size), bytes.get());
          if (!st.ok()) {
            out[i] = st.error();
            continue;
          }
          pq::BufferFile buf(bytes.get(), static_cast<size_t>(size), paths[i]);
          out[i] = pq::read_file_metadata(buf);
          if (out[i].ok()) (*wholes)[i] = std::shared_ptr<const uint8_t>(bytes, bytes.get());
          continue;
        }
        out[i] = pq::read_file_metadata(**f);
      } catch (const std::bad_alloc&) {
        out[i] = make_error(ErrorCode::kMemoryLimit, paths[i] + ": out of memory reading the footer");
      }
    }
  };
  const size_t n = std::min(paths.size(), static_cast<size_t>(std::max(1, threads)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

class PyScanner {
 public:
  // `sidecar_size` and `tails`: a sidecar index of that many bytes and per
  // file its tail there (TailSpec; size < 0: none): those files are read as
  // object + tail (ScanPlanFile::sidecar_tail), their tails' ranges asked
  // of the sidecar.
  PyScanner(const std::vector<FileSpec>& files, const std::vector<ColumnSpec>& columns, const Dnf& dnf,
            const Settings& settings, nb::object footers, nb::object file_filters, nb::object versions,
            const std::optional<uint64_t>& sidecar_size, const std::optional<std::vector<TailSpec>>& tails) {
    pq::ScanPlan plan = make_plan(files, columns, dnf, footers, file_filters, versions);
    if (tails) {
      if (!sidecar_size || tails->size() != files.size()) {
        throw FormatError("invalid argument: tails need a sidecar size and one entry per file");
      }
      plan.sidecar_size = *sidecar_size;
      for (size_t i = 0; i < tails->size(); ++i) {
        const auto& [base_size, offset, length] = (*tails)[i];
        if (base_size >= 0) plan.files[i].sidecar_tail = pq::SidecarTail{base_size, offset, length};
      }
    }
    auto s = pq::Scanner::make(std::move(plan), make_options(settings));
    if (!s.ok()) raise(s.error());
    scanner_ = std::move(s).value();
  }

  // [(file, offset, length, at)]: `at` None: read from the file at offset;
  // else the range lies in the sidecar index, at `at` there.
  nb::list needs() {
    nb::list out;
    for (const pq::FileRange& r : scanner_->needs()) {
      out.append(nb::make_tuple(r.file, r.offset, r.length,
                                r.in_sidecar ? nb::object(nb::int_(r.source_offset)) : nb::none()));
    }
    return out;
  }

  // An immutable buffer (bytes, obstore's Bytes) is held, not copied: the
  // scanner keeps a view until the unit that needs it is decoded, then the
  // view is retired (retired_) and released here, holding the GIL, at the
  // next call. A writable one (bytearray, a memoryview of one) is copied:
  // its owner could change it meanwhile. (A fed filtered scan on a
  // filesystem copied every fetched range: ~3% of its CPU, and the page
  // faults of a fresh allocation per range.)
  void feed(int32_t file, uint64_t offset, nb::object buffer) {
    release_retired();
    auto view = std::make_unique<Py_buffer>();
    if (PyObject_GetBuffer(buffer.ptr(), view.get(), PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      if (PyObject_GetBuffer(buffer.ptr(), view.get(), PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
    }
    const auto* data = static_cast<const uint8_t*>(view->buf);
    const auto size = static_cast<size_t>(view->len);
    Status st;
    if (!view->readonly) {
      {
        nb::gil_scoped_release release;
        std::vector<uint8_t> bytes(data, data + size);
        st = scanner_->feed(file, offset, std::move(bytes));
      }
      PyBuffer_Release(view.get());
      throw_if_error(st);
      return;
    }
    std::shared_ptr<Retired> retired = retired_;
    Py_buffer* held = view.release();
    std::shared_ptr<const uint8_t> bytes(data, [retired, held](const uint8_t*) { retired->add(held); });
    {
      nb::gil_scoped_release release;
      st = scanner_->feed(file, offset, std::move(bytes), size);
    }
    throw_if_error(st);
  }

  ~PyScanner() {
    scanner_.reset();  // (its views retired: released below, the GIL held)
    release_retired();
  }

  nb::object next_batch() { return next(false); }

  // (plan file index, batch), False or None, as next_batch.
  nb::object next_with_file() { return next(true); }

  // Runs one unit whose bytes are in (a filtered unit's engine, which then
  // asks its next ranges, or a decode) ahead of the consumer, without the
  // GIL; false when none could run. A remote driver's consumer runs them
  // while it waits: otherwise only the unit at the head runs, and filtered
  // units take their rounds of requests one unit at a time.
  bool run_task() {
    nb::gil_scoped_release release;
    return scanner_->run_task(false);
  }

 private:
  nb::object next(bool with_file) {
    release_retired();  // (views the units decoded since let go)
    return next_step(*scanner_, with_file);
  }

 public:

  void cancel() { scanner_->cancel(); }
  nb::dict stats() const { return stats_dict(scanner_->stats()); }
  int64_t held() const { return scanner_->held_bytes(); }
  int64_t budget_used() const { return scanner_->budget()->used(); }
  int64_t budget_peak() const { return scanner_->budget()->peak(); }

 private:
  // Views of fed buffers the scanner let go (from any thread, holding its
  // locks perhaps): released later by a thread that holds the GIL. A view
  // let go after its scanner (never, unless a decoded array kept it) is
  // released when the last of them goes, the GIL taken then.
  struct Retired {
    std::mutex mu;
    std::vector<Py_buffer*> views;
    void add(Py_buffer* v) {
      std::lock_guard<std::mutex> lock(mu);
      views.push_back(v);
    }
    std::vector<Py_buffer*> take() {
      std::lock_guard<std::mutex> lock(mu);
      return std::exchange(views, {});
    }
    ~Retired() {
      if (views.empty() || !Py_IsInitialized()) return;
      PyGILState_STATE g = PyGILState_Ensure();
      for (Py_buffer* v : views) {
        PyBuffer_Release(v);
        delete v;
      }
      PyGILState_Release(g);
    }
  };
  void release_retired() {
    for (Py_buffer* v : retired_->take()) {
      PyBuffer_Release(v);
      delete v;
    }
  }
  std::shared_ptr<Retired> retired_ = std::make_shared<Retired>();
  std::unique_ptr<pq::Scanner> scanner_;
};

void release_stream_capsule(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) {
    // The release cancels and may join the scan's threads: without the GIL.
    PyThreadState* ts = PyEval_SaveThread();
    s->release(s);
    PyEval_RestoreThread(ts);
  }
  delete s;
}

// The ArrowSchema a caller's "arrow_schema" capsule holds, or null for None.
const ArrowSchema* requested_of(const nb::object& requested_schema) {
  if (requested_schema.is_none()) return nullptr;
  auto* requested = static_cast<const ArrowSchema*>(PyCapsule_GetPointer(requested_schema.ptr(), "arrow_schema"));
  if (!requested) throw nb::python_error();
  return requested;
}

// A filled stream handed to Python as an "arrow_array_stream" capsule that
// owns it (by default released without the GIL; `release` says otherwise).
nb::object stream_capsule(ArrowArrayStream* stream, PyCapsule_Destructor release = release_stream_capsule) {
  PyObject* cap = PyCapsule_New(stream, "arrow_array_stream", release);
  if (!cap) {
    stream->release(stream);
    delete stream;
    throw nb::python_error();
  }
  return nb::steal(cap);
}

// The plan's filtered files that have a tail in the sidecar read as data
// file + tail (ScanPlanFile::overlay), the sidecar opened once. An error
// (the sidecar unreadable) comes back as the scan's.
Status with_sidecar(pq::ScanPlan& plan, const std::optional<std::string>& sidecar,
                    const std::optional<std::vector<TailSpec>>& tails) {
  if (!sidecar || !tails) return Status::Ok();
  auto side = pq::LocalSidecar::open(*sidecar);
  if (!side.ok()) return side.error();
  for (size_t i = 0; i < tails->size(); ++i) {
    const auto& [base_size, offset, length] = (*tails)[i];
    if (base_size < 0) continue;
    plan.files[i].overlay =
        std::make_shared<const pq::LocalOverlay>(pq::LocalOverlay{*side, pq::SidecarTail{base_size, offset, length}});
  }
  return Status::Ok();
}

class PyLocalScanner {
 public:
  PyLocalScanner(const std::vector<FileSpec>& files, const std::vector<ColumnSpec>& columns, const Dnf& dnf,
                 const Settings& settings, int threads, nb::object footers, nb::object file_filters,
                 const std::optional<std::string>& sidecar, const std::optional<std::vector<TailSpec>>& tails) {
    pq::ScanPlan plan = make_plan(files, columns, dnf, footers, file_filters);
    if (tails && (!sidecar || tails->size() != files.size())) {
      throw FormatError("invalid argument: tails need a sidecar and one entry per file");
    }
    const pq::ScannerOptions o = make_options(settings);
    Result<std::unique_ptr<pq::LocalScan>> s = Error{ErrorCode::kInvalidArgument, "not run"};
    {
      nb::gil_scoped_release release;
      const Status st = with_sidecar(plan, sidecar, tails);
      if (st.ok()) {
        s = pq::LocalScan::make(std::move(plan), o, threads);
      } else {
        s = st.error();
      }
    }
    if (!s.ok()) raise(s.error());
    scan_ = std::shared_ptr<pq::LocalScan>(std::move(s).value().release());
  }

  ~PyLocalScanner() {
    if (scan_) {
      nb::gil_scoped_release release;  // the last owner joins the threads
      scan_->cancel();
      scan_.reset();
    }
  }

  nb::object next_batch() { return next(false); }

  // (plan file index, batch), or None at the end: for callers that add
  // per-file columns (partition keys).
  nb::object next_with_file() { return next(true); }

 private:
  nb::object next(bool with_file) { return next_step(*scan_, with_file); }

 public:

  nb::object schema() {
    ArrowSchema s;
    Status st;
    {
      nb::gil_scoped_release release;
      st = scan_->schema(&s);
    }
    throw_if_error(st);
    static nb::object import = nb::module_::import_("pyarrow").attr("Schema").attr("_import_from_c");
    auto* heap = new ArrowSchema(s);
    nb::object out;
    try {
      out = import(reinterpret_cast<uintptr_t>(heap));  // moves the schema out (release set to null)
    } catch (...) {
      if (heap->release) heap->release(heap);
      delete heap;
      throw;
    }
    delete heap;
    return out;
  }

  nb::object arrow_c_stream(nb::object requested_schema) {
    const ArrowSchema* requested = requested_of(requested_schema);
    auto* stream = new ArrowArrayStream;
    Status st;
    {
      nb::gil_scoped_release release;
      st = pq::LocalScan::export_stream(scan_, stream, requested);
    }
    if (!st.ok()) {
      delete stream;
      raise(st.error());
    }
    return stream_capsule(stream);
  }

  // Every batch, taken without the GIL (errors raised typed), as an
  // "arrow_array_stream" capsule over them (LocalScan::drain) and the plan
  // file of each batch.
  nb::object read_all(nb::object requested_schema) {
    const ArrowSchema* requested = requested_of(requested_schema);
    auto* stream = new ArrowArrayStream;
    std::vector<int32_t> files;
    Status st;
    {
      nb::gil_scoped_release release;
      st = scan_->drain(stream, requested, &files);
    }
    if (!st.ok()) {
      delete stream;
      raise(st.error());
    }
    nb::object cap = stream_capsule(stream);
    return nb::make_tuple(cap, files);
  }

  void cancel() {
    nb::gil_scoped_release release;
    scan_->cancel();
  }
  nb::dict stats() const { return stats_dict(scan_->stats()); }
  int64_t budget_peak() const { return scan_->scanner().budget()->peak(); }
  bool file_tasks() const { return scan_->file_tasks(); }
  // The plan file before which a scan with stop_at_unlike ended (None: none).
  nb::object stopped_at() const {
    const int32_t at = scan_->stopped_at();
    return at < 0 ? nb::none() : nb::object(nb::int_(at));
  }

 private:
  std::shared_ptr<pq::LocalScan> scan_;
};

// A C stream over a Python iterator of pyarrow.RecordBatch (a dataset
// scan's generator): pyarrow.RecordBatchReader.from_stream takes it, and
// its release (the reader's close(), or the reader dropped) closes the
// iterator, which cancels the scan at once. Errors keep their kind in
// errno (ENOMEM for a MemoryError, EINVAL for a ValueError, EIO else).
struct IteratorStream {
  nb::object iterator;
  nb::object schema;  // pyarrow.Schema
  std::string last_error;
};

// Moves the struct out of a PyCapsule (the capsule keeps nothing to release).
template <class T>
bool move_out_of_capsule(nb::handle capsule, const char* name, T* out) {
  auto* p = static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (!p) return false;
  *out = *p;
  p->release = nullptr;
  return true;
}

int iterator_errno(nb::python_error& e) {
  if (e.matches(PyExc_MemoryError)) return ENOMEM;
  if (e.matches(PyExc_ValueError)) return EINVAL;
  return EIO;
}

int iterator_get_schema(ArrowArrayStream* s, ArrowSchema* out) {
  auto* p = static_cast<IteratorStream*>(s->private_data);
  nb::gil_scoped_acquire gil;
  try {
    nb::object cap = p->schema.attr("__arrow_c_schema__")();
    if (!move_out_of_capsule(cap, "arrow_schema", out)) throw nb::python_error();
    return 0;
  } catch (nb::python_error& e) {
    p->last_error = e.what();
    return iterator_errno(e);
  }
}

int iterator_get_next(ArrowArrayStream* s, ArrowArray* out) {
  auto* p = static_cast<IteratorStream*>(s->private_data);
  nb::gil_scoped_acquire gil;
  try {
    PyObject* item = PyIter_Next(p->iterator.ptr());
    if (!item) {
      if (PyErr_Occurred()) throw nb::python_error();
      out->release = nullptr;  // the end
      return 0;
    }
    nb::object batch = nb::steal(item);
    nb::tuple caps = nb::borrow<nb::tuple>(batch.attr("__arrow_c_array__")());
    if (!move_out_of_capsule(caps[1], "arrow_array", out)) throw nb::python_error();
    return 0;
  } catch (nb::python_error& e) {
    p->last_error = e.what();
    return iterator_errno(e);
  }
}

const char* iterator_last_error(ArrowArrayStream* s) {
  auto* p = static_cast<IteratorStream*>(s->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void iterator_release(ArrowArrayStream* s) {
  auto* p = static_cast<IteratorStream*>(s->private_data);
  {
    nb::gil_scoped_acquire gil;
    // Released while an exception propagates (a reader dropped as the error
    // unwinds): the pending exception is kept aside while the iterator closes.
    nb::error_scope keep;
    try {
      if (nb::hasattr(p->iterator, "close")) p->iterator.attr("close")();
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("pqfast: closing a scan's batches");
    }
    delete p;
  }
  s->release = nullptr;
}

void release_plain_stream_capsule(PyObject* capsule) {
  auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s);  // (called with the GIL held: the iterator's release takes it again)
  delete s;
}

nb::object iterator_stream(nb::object iterator, nb::object schema) {
  auto* stream = new ArrowArrayStream;
  stream->get_schema = iterator_get_schema;
  stream->get_next = iterator_get_next;
  stream->get_last_error = iterator_last_error;
  stream->release = iterator_release;
  stream->private_data = new IteratorStream{std::move(iterator), std::move(schema), {}};
  return stream_capsule(stream, release_plain_stream_capsule);
}

Settings settings_of(int64_t batch_size, int64_t readahead_bytes, int64_t memory_limit, uint64_t coalesce_gap,
                     uint64_t footer_tail, bool use_statistics, bool use_bloom, bool use_dictionary,
                     bool use_page_index, int max_units_ahead = 0) {
  Settings s;
  s.max_units_ahead = max_units_ahead;
  s.batch_size = batch_size;
  s.readahead_bytes = readahead_bytes;
  s.memory_limit = memory_limit;
  s.coalesce_gap = coalesce_gap;
  s.footer_tail = footer_tail;
  s.use_statistics = use_statistics;
  s.use_bloom = use_bloom;
  s.use_dictionary = use_dictionary;
  s.use_page_index = use_page_index;
  return s;
}

}  // namespace

void bind_stream(nb::module_& m) {
  m.def("_iterator_stream", &iterator_stream, nb::arg("iterator"), nb::arg("schema"),
        "An 'arrow_array_stream' capsule over an iterator of pyarrow.RecordBatch of `schema`; releasing it "
        "closes the iterator.");
  nb::class_<PyScanner>(m, "_Scanner")
      .def(
          "__init__",
          [](PyScanner* self, const std::vector<FileSpec>& files, const std::vector<ColumnSpec>& columns,
             const Dnf& dnf, int64_t batch_size, int64_t readahead_bytes, int64_t memory_limit, uint64_t coalesce_gap,
             uint64_t footer_tail, bool use_statistics, bool use_bloom, bool use_dictionary, bool use_page_index,
             int max_units_ahead, nb::object footers, nb::object file_filters, nb::object versions,
             const std::optional<uint64_t>& sidecar_size, const std::optional<std::vector<TailSpec>>& tails) {
            new (self) PyScanner(files, columns, dnf,
                                 settings_of(batch_size, readahead_bytes, memory_limit, coalesce_gap, footer_tail,
                                             use_statistics, use_bloom, use_dictionary, use_page_index,
                                             max_units_ahead),
                                 footers, file_filters, versions, sidecar_size, tails);
          },
          nb::arg("files"), nb::arg("columns"), nb::arg("dnf") = nb::none(), nb::arg("batch_size") = 131072,
          nb::arg("readahead_bytes") = 0, nb::arg("memory_limit") = 0, nb::arg("coalesce_gap") = 65536,
          nb::arg("footer_tail") = 65536, nb::arg("use_statistics") = true, nb::arg("use_bloom") = true,
          nb::arg("use_dictionary") = true, nb::arg("use_page_index") = true, nb::arg("max_units_ahead") = 0,
          nb::arg("footers") = nb::none(), nb::arg("file_filters") = nb::none(), nb::arg("versions") = nb::none(),
          nb::arg("sidecar_size").none() = nb::none(), nb::arg("tails").none() = nb::none(),
          "A scan of files [(name, size, [row group] or None)] for columns [(name, layout, format), or "
          "(name, [(layout, format) per leaf]) for a nested field, unfiltered scans only], filtered by "
          "`dnf` (as _StagedScan takes it) when given, or file by file by `file_filters` (per file a DNF or None); "
          "`versions`: per file its version (ETag and modification time) or None. sidecar_size + tails: a "
          "sidecar index of that many bytes and per file (object size, tail offset, tail length) in it, or a "
          "size < 0: each filtered file with a tail is read as object + tail (its ranges past the object "
          "asked of the sidecar).")
      .def("needs", &PyScanner::needs,
           "[(file, offset, length, at)] to fetch next (each asked once): the file's bytes at offset (at None), "
           "or the sidecar index's at `at`; fed at (file, offset) either way.")
      .def("feed", &PyScanner::feed, nb::arg("file"), nb::arg("offset"), nb::arg("buffer"),
           "Bytes of a range needs() asked for (all or a piece).")
      .def("next_batch", &PyScanner::next_batch,
           "The next pyarrow.RecordBatch; False when bytes must be fed first; None at the end.")
      .def("next_with_file", &PyScanner::next_with_file, "(plan file index, batch), False or None.")
      .def("run_task", &PyScanner::run_task,
           "Runs one unit whose bytes are in ahead of the consumer (GIL released); False when none could.")
      .def("cancel", &PyScanner::cancel)
      .def_prop_ro("stats", &PyScanner::stats)
      .def_prop_ro("held", &PyScanner::held, "bytes counted against readahead now")
      .def_prop_ro("budget_used", &PyScanner::budget_used)
      .def_prop_ro("budget_peak", &PyScanner::budget_peak);
  m.def(
      "_read_footers_local",
      [](const std::vector<std::string>& paths, int threads, uint64_t whole_max, uint64_t keep_max) {
        std::vector<Result<pq::FileMetaData>> got;
        std::vector<uint64_t> sizes;
        std::vector<std::shared_ptr<const uint8_t>> wholes;
        {
          nb::gil_scoped_release release;
          got = read_footers(paths, threads, &sizes, &wholes, whole_max, keep_max);
        }
        nb::list out;
        for (size_t i = 0; i < got.size(); ++i) {
          auto& r = got[i];
          if (!r.ok()) raise(r.error());
          PyMeta pm{std::make_shared<pq::FileMetaData>(std::move(r).value())};
          if (wholes[i]) {
            pm.whole = std::move(wholes[i]);
            pm.whole_size = sizes[i];
          }
          out.append(std::move(pm));
        }
        return nb::make_tuple(out, sizes);
      },
      nb::arg("paths"), nb::arg("threads"), nb::arg("whole_max") = 0, nb::arg("keep_max") = 0,
      "([parsed footer], [size in bytes]) of local files, read on `threads` threads (a lake's files planned at once); the first "
      "file (in order) that fails raises its typed error. Files of at most `whole_max` bytes are read whole in one read "
      "while the bytes kept stay within `keep_max`: a footer so read carries its file's bytes to the first _LocalScanner "
      "given it (which reads its ranges from them).");
  m.def(
      "_whole_file_footer",
      [](nb::object buffer, const std::string& name) {
        ByteView v = byte_view(buffer);
        auto whole = std::shared_ptr<uint8_t>(new uint8_t[v.size > 0 ? v.size : 1], std::default_delete<uint8_t[]>());
        Result<pq::FileMetaData> r = Error{ErrorCode::kInvalidArgument, "not parsed"};
        {
          nb::gil_scoped_release release;
          std::memcpy(whole.get(), v.data, v.size);
          // (bounds-checked against these bytes: a footer that claims more
          // than the object holds fails here, naming it)
          r = pq::parse_file_bytes(whole.get(), v.size);
        }
        if (!r.ok()) raise(make_error(r.error().code, name + ": " + r.error().message));
        PyMeta pm{std::make_shared<pq::FileMetaData>(std::move(r).value())};
        pm.whole = std::move(whole);
        pm.whole_size = v.size;
        return pm;
      },
      nb::arg("data"), nb::arg("name"),
      "The parsed footer of a whole file's bytes (an object fetched in one GET), carrying those bytes to the "
      "first _LocalScanner given it in file tasks (its size the file's): the scan decodes the file from them "
      "and opens nothing. A footer that does not parse raises FormatError naming `name`.");
  m.def(
      "_same_leaves",
      [](const PyMeta& ref, const std::vector<const PyMeta*>& metas) {
        std::vector<bool> out;
        out.reserve(metas.size());
        for (const PyMeta* m : metas) out.push_back(m && pq::same_leaves(*ref.m, *m->m));
        return out;
      },
      nb::arg("ref"), nb::arg("metas"),
      "Per footer: whether its leaf columns are the reference's (paths, physical and logical types, levels), as "
      "equal lists of FileMetaData.columns() say, without building them.");
  nb::class_<PyLocalScanner>(m, "_LocalScanner")
      .def(
          "__init__",
          [](PyLocalScanner* self, const std::vector<FileSpec>& files, const std::vector<ColumnSpec>& columns,
             const Dnf& dnf, int64_t batch_size, int64_t readahead_bytes, int64_t memory_limit, int threads,
             uint64_t coalesce_gap, bool use_statistics, bool use_bloom, bool use_dictionary, bool use_page_index,
             int max_units_ahead, nb::object footers, nb::object file_filters,
             const std::optional<std::string>& sidecar, const std::optional<std::vector<TailSpec>>& tails,
             std::optional<bool> file_tasks, bool stop_at_unlike, uint64_t whole_file_bytes,
             const std::vector<std::string>& absent_columns) {
            Settings s = settings_of(batch_size, readahead_bytes, memory_limit, coalesce_gap, uint64_t{64} << 10,
                                     use_statistics, use_bloom, use_dictionary, use_page_index, max_units_ahead);
            s.file_tasks = file_tasks;
            s.stop_at_unlike = stop_at_unlike;
            s.whole_file_bytes = whole_file_bytes;
            s.absent_columns = absent_columns;
            new (self) PyLocalScanner(files, columns, dnf, s, threads, footers, file_filters, sidecar, tails);
          },
          nb::arg("files"), nb::arg("columns"), nb::arg("dnf") = nb::none(), nb::arg("batch_size") = 131072,
          nb::arg("readahead_bytes") = 0, nb::arg("memory_limit") = 0, nb::arg("threads") = 0,
          nb::arg("coalesce_gap") = 65536, nb::arg("use_statistics") = true, nb::arg("use_bloom") = true,
          nb::arg("use_dictionary") = true, nb::arg("use_page_index") = true, nb::arg("max_units_ahead") = 0,
          nb::arg("footers") = nb::none(), nb::arg("file_filters") = nb::none(),
          nb::arg("sidecar").none() = nb::none(), nb::arg("tails").none() = nb::none(),
          nb::arg("file_tasks") = nb::none(), nb::arg("stop_at_unlike") = false,
          nb::arg("whole_file_bytes") = uint64_t{1} << 20, nb::arg("absent_columns") = std::vector<std::string>{},
          "A scan of local files [(path, size or 0, [row group] or None)] on `threads` threads of its own "
          "(0: one per core, at most 8; -1: none, next_batch reads); filtered as _Scanner is. sidecar + tails: "
          "a sidecar index and per file (data file size, tail offset, tail length) in it, or a size < 0: each "
          "filtered file with a tail is pruned and read as data file + tail (its Bloom filters and page indexes). "
          "Without a filter, `file_tasks` (None: when the first file is at most `whole_file_bytes`) reads file by "
          "file, each file whole with its footer; `stop_at_unlike` (file tasks only) ends the scan before the "
          "first file whose projected leaf columns differ from the first file's, or that holds one of "
          "`absent_columns` (`stopped_at`).")
      .def("next_batch", &PyLocalScanner::next_batch, "The next pyarrow.RecordBatch, or None at the end.")
      .def("next_with_file", &PyLocalScanner::next_with_file, "(plan file index, batch), or None at the end.")
      .def("schema", &PyLocalScanner::schema, "The scan's pyarrow.Schema (from the first file's footer).")
      .def("__arrow_c_stream__", &PyLocalScanner::arrow_c_stream, nb::arg("requested_schema") = nb::none())
      .def("read_all", &PyLocalScanner::read_all, nb::arg("requested_schema") = nb::none(),
           "(an arrow_array_stream capsule over every batch, [plan file of each batch]): the whole scan taken "
           "at once without the GIL; a scan error is raised typed.")
      .def("cancel", &PyLocalScanner::cancel, "Stops the reads; a waiting next_batch raises.")
      .def_prop_ro("stats", &PyLocalScanner::stats)
      .def_prop_ro("budget_peak", &PyLocalScanner::budget_peak)
      .def_prop_ro("file_tasks", &PyLocalScanner::file_tasks, "whether the scan runs file tasks")
      .def_prop_ro("stopped_at", &PyLocalScanner::stopped_at,
                   "stop_at_unlike: the plan file before which the scan ended (None: every file was read)");
}

}  // namespace pqfast::py
