// Bindings: DELTA_BINARY_PACKED decode/encode of whole streams
// (python/pqfast/delta.py is the documented API on top).
#include "common.h"
#include "pqfast/delta.h"

namespace pqfast::py {
namespace {

template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> decode_stream(nb::handle buffer) {
  ByteView v = byte_view(buffer);
  auto dec = unwrap(DeltaBinaryPackedDecoder<T>::make(v.data, v.size));
  // The count was checked against the bytes by make(): the allocation is
  // bounded by what the input can hold.
  const size_t n = static_cast<size_t>(dec.values_remaining());
  auto out = new_array<T>(n);
  Result<size_t> r = size_t{0};
  {
    nb::gil_scoped_release release;
    r = dec.decode(out.data(), n);
  }
  if (!r.ok()) raise(r.error());
  return out;
}

template <class T>
nb::bytes encode_stream(In1D<T> values, uint32_t block_size, uint32_t miniblocks) {
  Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
  {
    nb::gil_scoped_release release;
    const DeltaGeometry g{block_size, miniblocks};
    if constexpr (sizeof(T) == 4) {
      r = delta_encode_int32(values.data(), values.shape(0), g);
    } else {
      r = delta_encode_int64(values.data(), values.shape(0), g);
    }
  }
  auto bytes = unwrap(std::move(r));
  return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

void bind_delta(nb::module_& m) {
  m.def("_delta_decode_int32", &decode_stream<int32_t>, nb::arg("buffer"));
  m.def("_delta_decode_int64", &decode_stream<int64_t>, nb::arg("buffer"));
  m.def("_delta_encode_int32", &encode_stream<int32_t>, nb::arg("values"), nb::arg("block_size"),
        nb::arg("miniblocks"));
  m.def("_delta_encode_int64", &encode_stream<int64_t>, nb::arg("values"), nb::arg("block_size"),
        nb::arg("miniblocks"));
  m.def("_delta_stream_info", [](nb::handle buffer) {
    ByteView v = byte_view(buffer);
    auto dec = unwrap(DeltaInt64Decoder::make(v.data, v.size));
    nb::dict d;
    d["block_size"] = dec.geometry().block_size;
    d["miniblocks_per_block"] = dec.geometry().miniblocks_per_block;
    d["total_values"] = dec.total_values();
    // Walking every value gives the stream's length: where the bytes of a
    // DELTA_LENGTH_BYTE_ARRAY page begin.
    Result<size_t> r = size_t{0};
    {
      nb::gil_scoped_release release;
      r = dec.skip(static_cast<size_t>(dec.values_remaining()));
    }
    if (!r.ok()) raise(r.error());
    d["stream_bytes"] = dec.bytes_consumed();
    return d;
  }, nb::arg("buffer"));
}

}  // namespace pqfast::py
