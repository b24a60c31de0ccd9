// Bindings of the column reader: column chunks read on C++ threads with the
// GIL released, handed to Python as Arrow C Data Interface capsules
// ("arrow_schema", "arrow_array") that pyarrow imports without a copy.
// python/pqfast/reader.py builds read_table and friends on top.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <tuple>
#include <vector>

#include "arrow_capsules.h"
#include "common.h"
#include "parquet_common.h"
#include "pqfast/parquet_read.h"

namespace pqfast::py {

namespace {

nb::tuple to_capsules(pq::ColumnArray&& col) {
  auto* s = new ArrowSchema;
  auto* a = new ArrowArray;
  std::move(col).export_to(a, s, "");
  return pqfast::py::to_capsules(s, a);
}

struct Task {
  int row_group;
  int leaf;
  pq::ColumnReadOptions options;
};

// Reads every task on up to `threads` threads; results in task order.
std::vector<Result<pq::ColumnArray>> run_tasks(pq::RandomAccessFile& file, const pq::FileMetaData& meta,
                                               const std::vector<Task>& tasks, int threads) {
  std::vector<Result<pq::ColumnArray>> out;
  out.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) out.emplace_back(Error{ErrorCode::kInvalidArgument, "not run"});
  std::atomic<size_t> next{0};
  // read_column_chunk returns errors, memory errors included; the catch is
  // the last guard of a thread that nothing may escape.
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < tasks.size();) {
      const Task& t = tasks[i];
      try {
        out[i] = pq::read_column_chunk(file, meta, t.row_group, t.leaf, t.options);
      } catch (const std::bad_alloc&) {
        out[i] = Error{ErrorCode::kMemoryLimit, file.name() + ": out of memory"};
      } catch (const std::exception& e) {
        out[i] = Error{ErrorCode::kInvalidArgument, file.name() + ": " + e.what()};
      }
    }
  };
  const size_t n = std::min<size_t>(tasks.size(), static_cast<size_t>(std::max(threads, 1)));
  std::vector<std::thread> pool;
  for (size_t k = 1; k < n; ++k) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  return out;
}

// The tasks of one read share one memory budget (memory_limit <= 0: the
// default limit).
std::vector<Task> parse_tasks(const std::vector<std::tuple<int, int, std::string, std::string>>& specs,
                              int64_t memory_limit) {
  std::vector<Task> tasks;
  auto budget = MemoryBudget::make(memory_limit);
  for (const auto& [rg, leaf, layout, format] : specs) {
    Task t{rg, leaf, {}};
    t.options.budget = budget;
    if (!pq::parse_arrow_layout(layout, &t.options.layout)) {
      throw FormatError("invalid argument: unknown Arrow layout '" + layout + "'");
    }
    t.options.format = format;
    tasks.push_back(std::move(t));
  }
  return tasks;
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
  using Specs = std::vector<std::tuple<int, int, std::string, std::string>>;
  m.def(
      "_read_chunks_path",
      [](const std::string& path, const PyMeta& meta, const Specs& specs, int threads, int64_t memory_limit) {
        auto tasks = parse_tasks(specs, memory_limit);
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
      "Reads column chunks (row_group, leaf, layout, format) of a local file: [(schema capsule, array capsule)].");
  m.def(
      "_read_chunks_file",
      [](nb::object read_at, uint64_t size, const std::string& name, const PyMeta& meta, const Specs& specs,
         int threads, int64_t memory_limit) {
        auto tasks = parse_tasks(specs, memory_limit);
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
      nb::arg("threads") = 0, nb::arg("memory_limit") = 0);
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
}

}  // namespace pqfast::py
