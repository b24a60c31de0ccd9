// Bindings: pqfast.Sbbf (the native class; python/pqfast/sbbf.py adds the
// typed insert/check on top).
#include <nanobind/stl/string.h>

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
}

}  // namespace pqfast::py
