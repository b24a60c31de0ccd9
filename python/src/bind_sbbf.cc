// Bindings: pqfast.Sbbf (the native class; python/pqfast/sbbf.py adds the
// typed insert/check on top).
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "common.h"
#include "pqfast/sbbf.h"

namespace pqfast::py {

void bind_sbbf(nb::module_& m) {
  nb::class_<Sbbf>(m, "_Sbbf")
      .def_static("with_num_bytes", [](size_t n) { return unwrap(Sbbf::with_num_bytes(n)); })
      .def_static("for_ndv", [](uint64_t ndv, double fpp) { return unwrap(Sbbf::for_ndv(ndv, fpp)); })
      .def_static("optimal_num_bytes", &Sbbf::optimal_num_bytes)
      .def_static("from_bitset", [](nb::handle buf) {
        ByteView v = byte_view(buf);
        return unwrap(Sbbf::from_bitset(v.data, v.size));
      })
      .def_static("parse", [](nb::handle buf) {
        ByteView v = byte_view(buf);
        return unwrap(Sbbf::parse(v.data, v.size));
      })
      .def_prop_ro("num_bytes", &Sbbf::num_bytes)
      .def_prop_ro("num_blocks", &Sbbf::num_blocks)
      .def("fill_ratio", [](const Sbbf& f) { return f.view().fill_ratio(); })
      .def("insert_hashes", [](Sbbf& f, In1D<uint64_t> hashes) {
        nb::gil_scoped_release release;
        f.insert_hashes(hashes.data(), hashes.shape(0));
      })
      .def("check_hashes", [](const Sbbf& f, In1D<uint64_t> hashes) {
        auto out = new_array<bool>(hashes.shape(0));
        static_assert(sizeof(bool) == 1);
        {
          nb::gil_scoped_release release;
          f.check_hashes(hashes.data(), hashes.shape(0), reinterpret_cast<uint8_t*>(out.data()));
        }
        return out;
      })
      // Fixed-width typed values: hash and probe in one pass (SIMD XXH64 ahead
      // of the probe pipeline); data holds n values of the type's width.
      .def("check_values", [](const Sbbf& f, In1D<uint8_t> data, size_t n, const std::string& type,
                              int32_t type_length) {
        const PhysicalType t = unwrap(parse_physical_type(type));
        auto out = new_array<bool>(n);
        Status st;
        {
          nb::gil_scoped_release release;
          st = f.view().check_values(t, data.data(), data.shape(0), n, type_length,
                                     reinterpret_cast<uint8_t*>(out.data()));
        }
        throw_if_error(st);
        return out;
      })
      .def("insert_hash", &Sbbf::insert_hash)
      .def("check_hash", &Sbbf::check_hash)
      .def("fold", &Sbbf::fold, nb::arg("target_fpp"))
      .def("bitset", [](const Sbbf& f) {
        return nb::bytes(reinterpret_cast<const char*>(f.data()), f.num_bytes());
      })
      .def("serialize", [](const Sbbf& f) {
        auto bytes = f.serialize();
        return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      })
      .def("copy", [](const Sbbf& f) { return Sbbf(f); });

  // The IN-list x filters product: out[h, f] = hashes[h] may be in filters[f].
  m.def("_sbbf_check_product", [](const std::vector<const Sbbf*>& filters, In1D<uint64_t> hashes) {
    std::vector<SbbfRef> refs;
    refs.reserve(filters.size());
    for (const Sbbf* f : filters) {
      if (f == nullptr) throw nb::type_error("filters must be pqfast Sbbf objects");
      refs.push_back(f->view().ref());
    }
    const size_t n = hashes.shape(0), m_filters = refs.size();
    bool* data = new bool[n * m_filters > 0 ? n * m_filters : 1];
    nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<bool*>(p); });
    {
      nb::gil_scoped_release release;
      sbbf_check_product(refs.data(), m_filters, hashes.data(), n, reinterpret_cast<uint8_t*>(data));
    }
    return nb::ndarray<nb::numpy, bool, nb::ndim<2>>(data, {n, m_filters}, owner);
  }, nb::arg("filters"), nb::arg("hashes"));
}

}  // namespace pqfast::py
