// Bindings: DELTA_BINARY_PACKED decode/encode of whole streams
// (python/pqfast/delta.py is the documented API on top).
#include <cstring>

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

// A heap buffer that numpy takes over without a copy (and without the
// zero-fill a std::vector would do first).
template <class T>
struct Owned {
  T* p = nullptr;
  size_t n = 0;
  explicit Owned(size_t count) : p(new T[count > 0 ? count : 1]), n(count) {}
  Owned(const Owned&) = delete;
  ~Owned() { delete[] p; }
  void grow(size_t count, size_t keep) {
    T* q = new T[count];
    std::memcpy(q, p, keep * sizeof(T));
    delete[] p;
    p = q;
    n = count;
  }
  nb::ndarray<nb::numpy, T, nb::ndim<1>> release(size_t len) {
    T* q = p;
    p = nullptr;
    nb::capsule owner(q, [](void* x) noexcept { delete[] static_cast<T*>(x); });
    return nb::ndarray<nb::numpy, T, nb::ndim<1>>(q, {len}, owner);
  }
};

// One page decoded to Arrow binary: (offsets int32, data uint8). The
// decoder stops early when the data buffer is full; it grows and goes on.
template <class Decoder>
nb::tuple decode_binary(Result<Decoder>&& made, size_t first_capacity) {
  Decoder dec = unwrap(std::move(made));
  const size_t n = static_cast<size_t>(dec.values_remaining());  // checked against the bytes by make()
  Owned<int32_t> offsets(n + 1);
  Owned<uint8_t> data(std::max<size_t>(first_capacity, 64));
  offsets.p[0] = 0;
  Status st;
  {
    nb::gil_scoped_release release;
    size_t done = 0;
    while (done < n) {
      auto r = dec.decode(offsets.p + done, data.p, data.n, n - done);
      if (!r.ok()) {
        st = r.error();
        break;
      }
      done += *r;
      if (done < n) {
        if (data.n >= (size_t{1} << 31)) {
          st = make_error(ErrorCode::kLimitExceeded, "the values of one page pass 2 GiB (int32 offsets)");
          break;
        }
        data.grow(std::min<size_t>(data.n * 2, size_t{1} << 31), static_cast<size_t>(offsets.p[done]));
      }
    }
  }
  throw_if_error(st);
  const size_t bytes = static_cast<size_t>(offsets.p[n]);
  return nb::make_tuple(offsets.release(n + 1), data.release(bytes));
}

nb::tuple decode_length_byte_array(nb::handle buffer) {
  ByteView v = byte_view(buffer);
  auto made = DeltaLengthByteArrayDecoder::make(v.data, v.size);
  const size_t cap = made.ok() ? made->data_bytes_remaining() : 0;  // every value's bytes, at most
  return decode_binary(std::move(made), cap);
}

nb::tuple decode_byte_array(nb::handle buffer) {
  ByteView v = byte_view(buffer);
  // The values' size from the length streams first: a stream of a few KB
  // whose values repeat the one before is refused before it is allocated.
  constexpr uint64_t kMax = (uint64_t{1} << 31) - 1;  // int32 offsets
  uint64_t total;
  {
    nb::gil_scoped_release release;
    auto t = DeltaByteArrayDecoder::decoded_size(v.data, v.size, kMax);
    if (!t.ok()) {
      nb::gil_scoped_acquire acquire;
      raise(t.error());
    }
    total = *t;
  }
  if (total > kMax) {
    raise(make_error(ErrorCode::kLimitExceeded, "the values of the stream pass 2 GiB (int32 offsets)"));
  }
  return decode_binary(DeltaByteArrayDecoder::make(v.data, v.size), static_cast<size_t>(total));
}

nb::bytes encode_binary(In1D<uint8_t> data, In1D<int64_t> offsets, bool incremental) {
  const size_t n = offsets.shape(0) > 0 ? offsets.shape(0) - 1 : 0;
  if (n > 0 && (offsets.data()[0] < 0 || static_cast<uint64_t>(offsets.data()[n]) > data.shape(0))) {
    raise(make_error(ErrorCode::kInvalidArgument, "offsets outside the data"));
  }
  Result<std::vector<uint8_t>> r = std::vector<uint8_t>{};
  {
    nb::gil_scoped_release release;
    r = incremental ? delta_encode_byte_array(offsets.data(), data.data(), n)
                    : delta_encode_length_byte_array(offsets.data(), data.data(), n);
  }
  auto bytes = unwrap(std::move(r));
  return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

void bind_delta(nb::module_& m) {
  m.def("_delta_decode_length_byte_array", &decode_length_byte_array, nb::arg("buffer"));
  m.def("_delta_decode_byte_array", &decode_byte_array, nb::arg("buffer"));
  m.def("_delta_encode_length_byte_array",
        [](In1D<uint8_t> data, In1D<int64_t> offsets) { return encode_binary(data, offsets, false); },
        nb::arg("data"), nb::arg("offsets"));
  m.def("_delta_encode_byte_array",
        [](In1D<uint8_t> data, In1D<int64_t> offsets) { return encode_binary(data, offsets, true); },
        nb::arg("data"), nb::arg("offsets"));
  m.def("_delta_string_stream_info", [](nb::handle buffer, bool incremental) {
    ByteView v = byte_view(buffer);
    nb::dict d;
    auto first = unwrap(delta_stream_length(v.data, v.size));
    auto header = unwrap(DeltaInt32Decoder::make(v.data, v.size));
    d["total_values"] = header.total_values();
    d["block_size"] = header.geometry().block_size;
    d["miniblocks_per_block"] = header.geometry().miniblocks_per_block;
    if (incremental) {
      d["prefix_stream_bytes"] = first;
      d["suffix_stream_bytes"] = unwrap(delta_stream_length(v.data + first, v.size - first));
      d["data_offset"] = first + nb::cast<size_t>(d["suffix_stream_bytes"]);
    } else {
      d["lengths_stream_bytes"] = first;
      d["data_offset"] = first;
    }
    d["data_bytes"] = v.size - nb::cast<size_t>(d["data_offset"]);
    return d;
  }, nb::arg("buffer"), nb::arg("incremental"));
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
