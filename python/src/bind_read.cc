// Bindings of the column reader: column chunks read on C++ threads with the
// GIL released, handed to Python as Arrow C Data Interface capsules
// ("arrow_schema", "arrow_array") that pyarrow imports without a copy.
// python/pqfast/reader.py builds read_table and friends on top.
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <thread>
#include <tuple>
#include <vector>

#include "arrow_capsules.h"
#include "common.h"
#include "parquet_common.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/parquet_read.h"

namespace pqfast::py {

namespace {

nb::tuple to_capsules(pq::ColumnArray&& col) {
  auto* s = new ArrowSchema;
  auto* a = new ArrowArray;
  std::move(col).export_to(a, s, "");
  return pqfast::py::to_capsules(s, a);
}

// A flat chunk (leaf >= 0), or a nested field's chunk (shape set): its
// leaves are read as separate jobs, then assembled.
struct Task {
  int row_group;
  int leaf;
  pq::ColumnReadOptions options;
  std::shared_ptr<pq::NestedNode> shape;
  std::vector<pq::ColumnReadOptions> leaf_options;
  std::vector<std::pair<int, int16_t>> leaves;  // (leaf column, slot_def) in shape order
};

// Runs job(i) for i < n on up to `threads` threads (the caller's included);
// nothing a job throws escapes its thread.
template <class Job>
void run_jobs(size_t n, int threads, const std::string& name, std::vector<Error>* thrown, Job&& job) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        job(i);
      } catch (const std::bad_alloc&) {
        std::lock_guard<std::mutex> lock(mu);
        thrown->push_back(Error{ErrorCode::kMemoryLimit, name + ": out of memory"});
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        thrown->push_back(Error{ErrorCode::kInvalidArgument, name + ": " + e.what()});
      }
    }
  };
  const size_t k = std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < k; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
}

// Reads every task on up to `threads` threads; results in task order. The
// leaves of nested tasks are jobs of their own (a struct of five fields
// reads on every thread), assembled once all are read.
std::vector<Result<pq::ColumnArray>> run_tasks(pq::RandomAccessFile& file, const pq::FileMetaData& meta,
                                               const std::vector<Task>& tasks, int threads) {
  std::vector<Result<pq::ColumnArray>> out;
  out.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) out.emplace_back(Error{ErrorCode::kInvalidArgument, "not run"});
  struct Job {
    size_t task;
    size_t leaf;  // index into the task's leaves (nested), 0 for flat
    int part;     // a flat chunk cut into ranges (SplitChunk): which one
  };
  // A flat chunk cut into ranges: the first of its jobs to run opens it
  // (reads the bytes, walks the page headers), the last to end joins it.
  struct Split {
    int parts = 1;
    std::once_flag opened;
    Result<std::unique_ptr<pq::SplitChunk>> chunk{Error{ErrorCode::kInvalidArgument, "not opened"}};
    std::atomic<int> done{0};
  };
  std::vector<Job> jobs;
  std::vector<std::vector<Result<pq::LeafChunk>>> leaf_out(tasks.size());
  const auto& groups = meta.row_groups;
  auto chunk_cost = [&](int row_group, int leaf) -> int64_t {
    if (row_group < 0 || static_cast<size_t>(row_group) >= groups.size()) return 0;
    const auto& cols = groups[static_cast<size_t>(row_group)].columns;
    if (leaf < 0 || static_cast<size_t>(leaf) >= cols.size()) return 0;
    return cols[static_cast<size_t>(leaf)].total_uncompressed_size;
  };
  std::vector<std::unique_ptr<Split>> splits(tasks.size());
  {
    // Chunks large against a thread's share are cut into ranges of pages
    // (pq::split_parts): the last chunks then end on every thread, not one.
    std::vector<int64_t> sizes;
    for (const Task& t : tasks) {
      int64_t s = 0;
      if (t.shape) {
        for (const auto& [leaf, def] : t.leaves) s += chunk_cost(t.row_group, leaf);
      } else {
        s = chunk_cost(t.row_group, t.leaf);
      }
      sizes.push_back(s);
    }
    const std::vector<int> parts = pq::split_parts(sizes, threads);
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (!tasks[i].shape && parts[i] > 1) {
        splits[i] = std::make_unique<Split>();
        splits[i]->parts = parts[i];
      }
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].shape) {
      const int n = splits[i] ? splits[i]->parts : 1;
      for (int p = 0; p < n; ++p) jobs.push_back({i, 0, p});
      continue;
    }
    for (size_t j = 0; j < tasks[i].leaves.size(); ++j) {
      leaf_out[i].emplace_back(Error{ErrorCode::kInvalidArgument, "not run"});
      jobs.push_back({i, j, 0});
    }
  }
  if (threads > 1) {
    // Largest chunks first (by their decoded size, as the footer gives it):
    // the threads then end together, on small chunks, instead of one thread
    // finishing a large l_comment chunk alone while the other waits.
    // (A cut chunk's ranges cost their share of it.)
    auto cost = [&](const Job& j) -> int64_t {
      const Task& t = tasks[j.task];
      const int leaf = t.shape ? t.leaves[j.leaf].first : t.leaf;
      return chunk_cost(t.row_group, leaf) / (splits[j.task] ? splits[j.task]->parts : 1);
    };
    std::stable_sort(jobs.begin(), jobs.end(), [&](const Job& a, const Job& b) { return cost(a) > cost(b); });
  }
  std::vector<Error> thrown;
  run_jobs(jobs.size(), threads, file.name(), &thrown, [&](size_t k) {
    const Job& j = jobs[k];
    const Task& t = tasks[j.task];
    if (!t.shape && splits[j.task]) {
      Split& sp = *splits[j.task];
      std::call_once(sp.opened, [&] { sp.chunk = pq::SplitChunk::open(file, meta, t.row_group, t.leaf, t.options, sp.parts); });
      if (sp.chunk.ok()) (*sp.chunk)->decode(j.part);
      if (sp.done.fetch_add(1) + 1 == sp.parts) {  // the last range to end joins them
        out[j.task] = sp.chunk.ok() ? (*sp.chunk)->finish() : Result<pq::ColumnArray>(sp.chunk.error());
        sp.chunk = Error{ErrorCode::kInvalidArgument, "joined"};  // frees the chunk's bytes and ranges now
      }
      return;
    }
    if (!t.shape) {
      out[j.task] = pq::read_column_chunk(file, meta, t.row_group, t.leaf, t.options);
      return;
    }
    const auto& [leaf, slot_def] = t.leaves[j.leaf];
    leaf_out[j.task][j.leaf] = pq::read_leaf_chunk(file, meta, t.row_group, leaf, slot_def, t.leaf_options[j.leaf]);
  });
  if (!thrown.empty()) {
    for (auto& r : out) r = thrown[0];
    return out;
  }
  std::vector<size_t> nested;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].shape) nested.push_back(i);
  }
  run_jobs(nested.size(), threads, file.name(), &thrown, [&](size_t k) {
    const size_t i = nested[k];
    const Task& t = tasks[i];
    std::vector<pq::LeafChunk> leaves;
    for (auto& r : leaf_out[i]) {
      if (!r.ok()) {
        out[i] = r.error();
        return;
      }
      leaves.push_back(std::move(r).value());
    }
    out[i] = pq::assemble_nested(*t.shape, leaves, meta.row_groups[static_cast<size_t>(t.row_group)].num_rows,
                                 file.name() + ": row group " + std::to_string(t.row_group) + ", column '" +
                                     t.shape->name + "'");
  });
  if (!thrown.empty()) {
    for (auto& r : out) r = thrown[0];
  }
  return out;
}

using Specs = std::vector<std::tuple<int, int, std::string, std::string>>;
// (row group, top-level field, [(layout, format) per leaf])
using NestedSpecs = std::vector<std::tuple<int, int, std::vector<std::pair<std::string, std::string>>>>;

pq::ColumnReadOptions read_options(const std::string& layout, const std::string& format,
                                   const std::shared_ptr<MemoryBudget>& budget) {
  pq::ColumnReadOptions o;
  o.budget = budget;
  parse_read_layout(layout, format, &o);
  return o;
}

void collect_leaves(const pq::NestedNode& n, std::vector<std::pair<int, int16_t>>* out) {
  if (n.kind == pq::NestedNode::Kind::kLeaf) {
    out->emplace_back(n.leaf, n.slot_def);
    return;
  }
  for (const auto& c : n.children) collect_leaves(c, out);
}

// The tasks of one read share one memory budget (memory_limit <= 0: the
// default limit).
std::vector<Task> parse_tasks(const pq::FileMetaData& meta, const Specs& specs, const NestedSpecs& nested,
                              int64_t memory_limit) {
  std::vector<Task> tasks;
  auto budget = MemoryBudget::make(memory_limit);
  for (const auto& [rg, leaf, layout, format] : specs) {
    tasks.push_back(Task{rg, leaf, read_options(layout, format, budget), nullptr, {}, {}});
  }
  std::vector<std::shared_ptr<pq::NestedNode>> shapes;  // one per field, shared by its row groups
  for (const auto& [rg, field, leaf_specs] : nested) {
    if (field < 0) throw FormatError("invalid argument: no top-level field " + std::to_string(field));
    if (shapes.size() <= static_cast<size_t>(field)) shapes.resize(static_cast<size_t>(field) + 1);
    auto& shape = shapes[static_cast<size_t>(field)];
    if (!shape) {
      auto r = pq::nested_field(meta, field);
      if (!r.ok()) raise(r.error());
      shape = std::make_shared<pq::NestedNode>(std::move(r).value());
    }
    Task t{rg, -1, {}, shape, {}, {}};
    collect_leaves(*shape, &t.leaves);
    if (leaf_specs.size() != t.leaves.size()) {
      throw FormatError("invalid argument: " + std::to_string(leaf_specs.size()) + " leaf layouts for field " +
                        std::to_string(field) + " of " + std::to_string(t.leaves.size()) + " leaves");
    }
    for (const auto& [layout, format] : leaf_specs) t.leaf_options.push_back(read_options(layout, format, budget));
    tasks.push_back(std::move(t));
  }
  return tasks;
}

nb::dict shape_dict(const pq::NestedNode& n) {
  static const char* kinds[] = {"leaf", "struct", "list", "map"};
  nb::dict d;
  d["kind"] = kinds[static_cast<int>(n.kind)];
  d["name"] = name_str(n.name);
  d["nullable"] = n.nullable;
  if (n.kind == pq::NestedNode::Kind::kLeaf) d["leaf"] = n.leaf;
  nb::list children;
  for (const auto& c : n.children) children.append(shape_dict(c));
  d["children"] = children;
  return d;
}

nb::list results_to_list(std::vector<Result<pq::ColumnArray>>&& rs) {
  for (auto& r : rs) {
    if (!r.ok()) raise(r.error());
  }
  nb::list out;
  for (auto& r : rs) out.append(to_capsules(std::move(r).value()));
  return out;
}

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

}  // namespace

void bind_read(nb::module_& m) {
  m.def(
      "_read_chunks_path",
      [](const std::string& path, const PyMeta& meta, const Specs& specs, int threads, int64_t memory_limit,
         const NestedSpecs& nested) {
        auto tasks = parse_tasks(*meta.m, specs, nested, memory_limit);
        std::vector<Result<pq::ColumnArray>> rs;
        {
          nb::gil_scoped_release release;
          auto f = pq::LocalFile::open(path);
          if (!f.ok()) {
            rs.emplace_back(f.error());
          } else {
            rs = run_tasks(**f, *meta.m, tasks, threads <= 0 ? hardware_threads() : threads);
          }
        }
        return results_to_list(std::move(rs));
      },
      nb::arg("path"), nb::arg("meta"), nb::arg("specs"), nb::arg("threads") = 0, nb::arg("memory_limit") = 0,
      nb::arg("nested") = NestedSpecs{},
      "Reads column chunks (row_group, leaf, layout, format) and nested fields' chunks (row_group, field, "
      "[(layout, format) per leaf]) of a local file: [(schema capsule, array capsule)], flat ones first.");
  m.def(
      "_read_chunks_file",
      [](nb::object read_at, uint64_t size, const std::string& name, const PyMeta& meta, const Specs& specs,
         int threads, int64_t memory_limit, const NestedSpecs& nested) {
        auto tasks = parse_tasks(*meta.m, specs, nested, memory_limit);
        PyFile f(std::move(read_at), size, name);
        std::vector<Result<pq::ColumnArray>> rs;
        {
          // Reads take the GIL back (PyFile::read_at); decoding runs without it.
          nb::gil_scoped_release release;
          rs = run_tasks(f, *meta.m, tasks, threads <= 0 ? hardware_threads() : threads);
        }
        return results_to_list(std::move(rs));
      },
      nb::arg("read_at"), nb::arg("size"), nb::arg("name"), nb::arg("meta"), nb::arg("specs"),
      nb::arg("threads") = 0, nb::arg("memory_limit") = 0, nb::arg("nested") = NestedSpecs{});
  m.def(
      "_nested_field",
      [](const PyMeta& meta, int field) {
        auto r = pq::nested_field(*meta.m, field);
        if (!r.ok()) raise(r.error());
        return shape_dict(*r);
      },
      nb::arg("meta"), nb::arg("field"),
      "The Arrow tree of the root's field-th child: {kind, name, nullable, leaf?, children}.");
  m.def("_is_nested_leaf", [](const PyMeta& meta, int leaf) { return pq::is_nested_leaf(*meta.m, leaf); });
  m.def("_top_level_field_of", [](const PyMeta& meta, int leaf) { return pq::top_level_field_of(*meta.m, leaf); });
  m.def("_top_level_fields", [](const PyMeta& meta) {
    nb::list out;
    for (const auto& f : pq::top_level_fields(*meta.m)) {
      nb::list leaves;
      for (int l : f.leaves) leaves.append(l);
      out.append(nb::make_tuple(f.name, leaves, f.group, static_cast<int>(f.repetition)));
    }
    return out;
  }, "The root's children: (name, [leaf columns], is a group, repetition) each, empty groups and repeated names kept.");
  m.def("_default_memory_limit", [] { return default_memory_limit(); },
        "The default memory budget of a read, in bytes (pqfast/memory_budget.h).");
  m.def(
      "_dictionary_page",
      [](nb::bytes data, const PyMeta& meta, int row_group, int leaf, const std::string& layout,
         const std::string& format) -> nb::object {
        // The values of a chunk's dictionary page, in order: pyarrow builds a
        // dictionary column's dictionary from them (polars writes an Enum's
        // categories there, in category order). `data`: the bytes from
        // dictionary_page_offset on, header first. None when the chunk has no
        // dictionary page.
        const auto& m = *meta.m;
        if (row_group < 0 || static_cast<size_t>(row_group) >= m.row_groups.size() || leaf < 0 ||
            static_cast<size_t>(leaf) >= m.columns.size()) {
          throw FormatError("invalid argument: no row group " + std::to_string(row_group) + " / leaf " +
                            std::to_string(leaf));
        }
        const pq::ColumnChunk& c = m.row_groups[static_cast<size_t>(row_group)].columns[static_cast<size_t>(leaf)];
        if (c.dictionary_page_offset < 0) return nb::none();
        pq::ColumnReadOptions o;
        if (!pq::parse_arrow_layout(layout, &o.layout)) {
          throw FormatError("invalid argument: unknown Arrow layout '" + layout + "'");
        }
        o.format = format;
        const auto* bytes = reinterpret_cast<const uint8_t*>(data.c_str());
        const size_t n = data.size();
        Result<pq::ColumnArray> r = Error{ErrorCode::kInvalidArgument, "not run"};
        {
          nb::gil_scoped_release release;
          r = pq::decode_dictionary_page(bytes, n, static_cast<uint64_t>(c.dictionary_page_offset),
                                         m.columns[static_cast<size_t>(leaf)], c.codec, o);
        }
        if (!r.ok()) raise(r.error());
        return to_capsules(std::move(r).value());
      },
      nb::arg("data"), nb::arg("meta"), nb::arg("row_group"), nb::arg("leaf"), nb::arg("layout"),
      nb::arg("format"));
  m.def("_flat_column_problem", [](const PyMeta& meta, int leaf) { return pq::flat_column_problem(*meta.m, leaf); });
  m.def("_codec_supported", [](int32_t codec) { return pq::codec_supported(codec); });
  m.def("_codec_libraries", [] {
    nb::list out;
    for (const pq::CodecLibrary& c : pq::codec_libraries()) out.append(nb::make_tuple(c.name, c.built_in));
    return out;
  }, "(library, built in) for each compression library a build may link.");
}

}  // namespace pqfast::py
