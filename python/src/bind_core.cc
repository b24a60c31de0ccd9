// Bindings: SIMD selection, version, XXH64 and typed hashing, batched stat.
#include <sys/stat.h>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "pqfast/hash.h"
#include "pqfast/simd.h"

namespace pqfast::py {

void bind_core(nb::module_& m) {
  m.attr("__version__") = PQFAST_VERSION;

  m.def("simd_status", [] {
    Status s = simd_status();
    return s.ok() ? std::string() : s.error().message;
  }, "Empty, or why PQFAST_SIMD cannot be honoured.");
  m.def("simd_level", [] { return std::string(simd_level_name(simd_level())); },
        "The active SIMD implementation.");
  m.def("available_simd_levels", [] {
    std::vector<std::string> names;
    for (SimdLevel l : available_simd_levels()) names.emplace_back(simd_level_name(l));
    return names;
  }, "Implementations this CPU and build can run, best last.");
  m.def("set_simd_level", [](const std::string& name) {
    throw_if_error(set_simd_level(unwrap(parse_simd_level(name))));
  }, nb::arg("name"), "Force an implementation for the whole process (tests, benchmarks).");

  // stat(2) of many paths in one call, the GIL released: per path the key
  // pqfast._sidecar._StatCache keeps values under, (st_dev, st_ino, st_size,
  // st_mtime_ns, st_ctime_ns) as os.stat gives them, or None when stat fails.
  // A lookup through a sidecar checks every data file: a Python os.stat per
  // file cost more than the scan's own work.
  m.def("_stat_keys", [](const std::vector<std::string>& paths) {
    struct Key {
      bool ok;
      struct stat st;
    };
    std::vector<Key> keys(paths.size());
    {
      nb::gil_scoped_release release;
      for (size_t i = 0; i < paths.size(); ++i) keys[i].ok = ::stat(paths[i].c_str(), &keys[i].st) == 0;
    }
    nb::list out;
    for (const Key& k : keys) {
      if (!k.ok) {
        out.append(nb::none());
        continue;
      }
      auto ns = [](const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
      out.append(nb::make_tuple(static_cast<uint64_t>(k.st.st_dev), static_cast<uint64_t>(k.st.st_ino),
                                static_cast<int64_t>(k.st.st_size), ns(k.st.st_mtim), ns(k.st.st_ctim)));
    }
    return out;
  }, nb::arg("paths"));
  m.def("xxh64", [](nb::handle data, uint64_t seed) {
    ByteView v = byte_view(data);
    return xxh64(v.data, v.size, seed);
  }, nb::arg("data"), nb::arg("seed") = 0, "XXH64 of a bytes-like object.");

  // Fixed-width values: a contiguous buffer of n values of `width` bytes.
  m.def("_hash_fixed", [](In1D<uint8_t> data, size_t n, const std::string& type,
                          int32_t type_length) {
    const PhysicalType t = unwrap(parse_physical_type(type));
    auto out = new_array<uint64_t>(n);
    Status st;
    {
      nb::gil_scoped_release release;
      st = hash_fixed_width_values(t, data.data(), data.shape(0), n, type_length, out.data());
    }
    throw_if_error(st);
    return out;
  });
  // BYTE_ARRAY: Arrow layout, int64 offsets (n + 1 of them).
  m.def("_hash_byte_arrays", [](In1D<uint8_t> data, In1D<int64_t> offsets) {
    return hash_offset_keys(data, offsets, [](const uint8_t* d, size_t len, const int64_t* o, size_t n,
                                              uint64_t* out) { return hash_byte_arrays(d, len, o, n, out); });
  });
}

}  // namespace pqfast::py
