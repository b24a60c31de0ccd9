// Bindings: pqfast.LocalBloom's native class and RocksDB's key hash
// (python/pqfast/local_bloom.py adds the key-or-hash dispatch on top).
#include <nanobind/stl/string.h>

#include "common.h"
#include "pqfast/local_bloom.h"

namespace pqfast::py {
namespace {

nb::ndarray<nb::numpy, bool, nb::ndim<1>> check_keys(const LocalBloom& f, In1D<uint8_t> data,
                                                     In1D<int64_t> offsets) {
  const size_t n = offsets.shape(0) > 0 ? offsets.shape(0) - 1 : 0;
  auto out = new_array<bool>(n);
  Status st;
  {
    nb::gil_scoped_release release;
    st = f.check_keys(data.data(), data.shape(0), offsets.data(), n,
                      reinterpret_cast<uint8_t*>(out.data()));
  }
  throw_if_error(st);
  return out;
}

}  // namespace

void bind_local_bloom(nb::module_& m) {
  m.def("rocksdb_hash64", [](nb::handle data) {
    ByteView v = byte_view(data);
    return rocksdb_hash64(v.data, v.size);
  }, nb::arg("data"), "RocksDB's 64-bit key hash (Hash64 / GetSliceHash64, seed 0) of a bytes-like object.");
  m.def("_rocksdb_hash64_keys", [](In1D<uint8_t> data, In1D<int64_t> offsets) {
    return hash_offset_keys(data, offsets, rocksdb_hash64_keys);
  });
  m.def("local_bloom_num_probes", [](double bits_per_key) {
    return local_bloom_num_probes(unwrap(local_bloom_millibits_per_key(bits_per_key)));
  }, nb::arg("bits_per_key"), "RocksDB's FastLocalBloom probe count for a bits/key setting.");

  nb::class_<LocalBloom>(m, "_LocalBloom")
      .def_static("build_from_hashes", [](In1D<uint64_t> hashes, double bits_per_key) {
        Result<LocalBloom> r = make_error(ErrorCode::kInvalidArgument, "");
        {
          nb::gil_scoped_release release;
          r = LocalBloom::build_from_hashes(hashes.data(), hashes.shape(0), bits_per_key);
        }
        return unwrap(std::move(r));
      })
      .def_static("build_from_keys", [](In1D<uint8_t> data, In1D<int64_t> offsets, double bits_per_key) {
        const size_t n = offsets.shape(0) > 0 ? offsets.shape(0) - 1 : 0;
        Result<LocalBloom> r = make_error(ErrorCode::kInvalidArgument, "");
        {
          nb::gil_scoped_release release;
          r = LocalBloom::build_from_keys(data.data(), data.shape(0), offsets.data(), n, bits_per_key);
        }
        return unwrap(std::move(r));
      })
      .def_static("with_shape", [](size_t payload_bytes, int num_probes) {
        return unwrap(LocalBloom::with_shape(payload_bytes, num_probes));
      })
      .def_static("parse", [](nb::handle buf) {
        ByteView v = byte_view(buf);
        return unwrap(LocalBloom::parse(v.data, v.size));
      })
      .def_prop_ro("num_probes", &LocalBloom::num_probes)
      .def_prop_ro("num_lines", &LocalBloom::num_lines)
      .def_prop_ro("payload_bytes", &LocalBloom::payload_bytes)
      .def_prop_ro("block_bytes", &LocalBloom::block_bytes)
      .def_prop_ro("kind", [](const LocalBloom& f) { return std::string(filter_block_kind_name(f.kind())); })
      .def("fill_ratio", [](const LocalBloom& f) { return f.view().fill_ratio(); })
      .def("insert_hashes", [](LocalBloom& f, In1D<uint64_t> hashes) {
        nb::gil_scoped_release release;
        f.insert_hashes(hashes.data(), hashes.shape(0));
      })
      .def("check_hashes", [](const LocalBloom& f, In1D<uint64_t> hashes) {
        auto out = new_array<bool>(hashes.shape(0));
        static_assert(sizeof(bool) == 1);
        {
          nb::gil_scoped_release release;
          f.check_hashes(hashes.data(), hashes.shape(0), reinterpret_cast<uint8_t*>(out.data()));
        }
        return out;
      })
      .def("check_keys", &check_keys)
      .def("check_hash", &LocalBloom::check_hash)
      .def("serialize", [](const LocalBloom& f) {
        auto bytes = f.serialize();
        return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      })
      .def("copy", [](const LocalBloom& f) { return LocalBloom(f); });
}

}  // namespace pqfast::py
