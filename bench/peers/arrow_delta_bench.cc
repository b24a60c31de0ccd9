// Arrow C++ 26's DELTA decoders on the same pages as `pqfast bench delta`
// (same generators, same timing). Prints one JSON object per line.
// Integers: type, width_class, implementation "arrow", ns_per_value,
// gvalues_per_s. With --strings: DELTA_LENGTH_BYTE_ARRAY and
// DELTA_BYTE_ARRAY, encoding, dataset, implementation "arrow" (DecodeArrow
// into a BinaryBuilder, then Finish: what pyarrow's reader does) or
// "arrow pointers" (Decode into ByteArray pointer pairs, no copy), ns_per_value.
// Usage: arrow_delta_bench [--quick] [--values N] [--strings]
#include <arrow/array/builder_binary.h>
#include <parquet/encoding.h>
#include <parquet/exception.h>
#include <parquet/types.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "delta_bench.h"
#include "delta_strings_bench.h"

namespace {

template <class DType>
double time_arrow(const pqfast::bench::DeltaPage& p, int reps, int iters) {
  using T = typename DType::c_type;
  auto decoder = parquet::MakeTypedDecoder<DType>(parquet::Encoding::DELTA_BINARY_PACKED);
  std::vector<T> out(p.values);
  const int n = static_cast<int>(p.values);
  // Check once that Arrow reads the page (and our encoder's output) as we do.
  decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
  if (decoder->Decode(out.data(), n) != n) return -1;
  return pqfast::bench::median_ns_per_value(reps, iters, p.values, [&] {
    decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
    decoder->Decode(out.data(), n);
    pqfast::bench::keep(static_cast<uint64_t>(out[p.values - 1]));
  });
}

// The decoded values must equal what the page was made from: check once.
bool same_total(const pqfast::bench::StringPage& p, int64_t bytes) {
  return bytes == static_cast<int64_t>(p.decoded_bytes);
}

void time_strings(const pqfast::bench::DeltaBenchOptions& o) {
  using parquet::ByteArrayType;
  for (const auto& p : pqfast::bench::make_string_pages(o.page_values)) {
    const auto enc = p.encoding == "DELTA_BYTE_ARRAY" ? parquet::Encoding::DELTA_BYTE_ARRAY
                                                      : parquet::Encoding::DELTA_LENGTH_BYTE_ARRAY;
    auto decoder = parquet::MakeTypedDecoder<ByteArrayType>(enc);
    const int n = static_cast<int>(p.values);
    typename parquet::EncodingTraits<ByteArrayType>::Accumulator acc;
    acc.builder = std::make_unique<::arrow::BinaryBuilder>();
    auto* builder = static_cast<::arrow::BinaryBuilder*>(acc.builder.get());
    decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
    if (decoder->DecodeArrowNonNull(n, &acc) != n || !same_total(p, builder->value_data_length())) {
      std::fprintf(stderr, "arrow_delta_bench: %s %s decoded differently\n", p.encoding.c_str(), p.dataset.c_str());
      continue;
    }
    builder->Reset();
    const double arrow_ns = pqfast::bench::median_ns_per_value(o.reps, o.iters, p.values, [&] {
      decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
      decoder->DecodeArrowNonNull(n, &acc);
      std::shared_ptr<::arrow::Array> out;
      (void)builder->Finish(&out);
      pqfast::bench::keep(static_cast<uint64_t>(out->length()));
    });
    std::vector<parquet::ByteArray> pointers(p.values);
    const double pointer_ns = pqfast::bench::median_ns_per_value(o.reps, o.iters, p.values, [&] {
      decoder->SetData(n, p.bytes.data(), static_cast<int>(p.bytes.size()));
      decoder->Decode(pointers.data(), n);
      pqfast::bench::keep(pointers[p.values - 1].len);
    });
    std::vector<parquet::ByteArray> values(p.values);
    for (size_t i = 0; i < p.values; ++i) {
      values[i] = parquet::ByteArray(static_cast<uint32_t>(p.offsets[i + 1] - p.offsets[i]),
                                     reinterpret_cast<const uint8_t*>(p.data.data()) + p.offsets[i]);
    }
    auto encoder = parquet::MakeTypedEncoder<ByteArrayType>(enc);
    encoder->Put(values.data(), n);
    if (encoder->FlushValues()->size() != static_cast<int64_t>(p.bytes.size())) {
      std::fprintf(stderr, "arrow_delta_bench: %s %s encoded differently\n", p.encoding.c_str(), p.dataset.c_str());
    }
    const double encode_ns = pqfast::bench::median_ns_per_value(o.reps, o.iters, p.values, [&] {
      encoder->Put(values.data(), n);
      pqfast::bench::keep(static_cast<uint64_t>(encoder->FlushValues()->size()));
    });
    for (auto [impl, ns] : {std::pair<const char*, double>{"arrow", arrow_ns}, {"arrow pointers", pointer_ns},
                            {"arrow encode", encode_ns}}) {
      std::printf("{\"encoding\": \"%s\", \"dataset\": \"%s\", \"implementation\": \"%s\", "
                  "\"ns_per_value\": %.6f}\n", p.encoding.c_str(), p.dataset.c_str(), impl, ns);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  pqfast::bench::DeltaBenchOptions o;
  bool strings = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      o.iters = 4;
      o.reps = 3;
    } else if (std::strcmp(argv[i], "--values") == 0 && i + 1 < argc) {
      o.page_values = std::stoul(argv[++i]);
    } else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      o.reps = std::stoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--strings") == 0) {
      strings = true;
    }
  }
  if (strings) {
    try {
      time_strings(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arrow_delta_bench: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  for (const auto& p : pqfast::bench::make_delta_pages(o.page_values)) {
    if (!p.arrow_readable) continue;
    double ns = -1;
    try {
      ns = p.int64 ? time_arrow<parquet::Int64Type>(p, o.reps, o.iters)
                   : time_arrow<parquet::Int32Type>(p, o.reps, o.iters);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "arrow_delta_bench: %s %s: %s\n", p.type.c_str(), p.width_class.c_str(), e.what());
      continue;
    }
    if (ns <= 0) continue;
    std::printf("{\"type\": \"%s\", \"width_class\": \"%s\", \"implementation\": \"arrow\", "
                "\"ns_per_value\": %.6f, \"gvalues_per_s\": %.6f}\n",
                p.type.c_str(), p.width_class.c_str(), ns, 1.0 / ns);
  }
  return 0;
}
