// Interop driver: Arrow C++ (libparquet from the pyarrow wheel) reads a
// column chunk's Bloom filter from a Parquet file, hashes PLAIN-encoded
// values with its own hasher and answers FindHash. Used by the interop tests
// to compare pqfast's hashes and verdicts with Arrow's on the same files.
//
//   arrow_sbbf_probe FILE OFFSET LENGTH|-1 TYPE TYPE_LENGTH < plain_values
//
// TYPE is INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY or
// INT96; stdin holds the values in PLAIN encoding (BYTE_ARRAY with its 4-byte
// length prefix). Prints one line per value: "<hash as 16 hex digits> <0|1>".
#include <arrow/io/file.h>
#include <parquet/bloom_filter.h>
#include <parquet/properties.h>
#include <parquet/types.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s FILE OFFSET LENGTH|-1 TYPE TYPE_LENGTH < values\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int64_t offset = std::stoll(argv[2]);
  const int64_t length = std::stoll(argv[3]);
  const std::string type = argv[4];
  const int type_length = std::stoi(argv[5]);

  auto file = arrow::io::ReadableFile::Open(path);
  if (!file.ok()) {
    std::fprintf(stderr, "%s\n", file.status().ToString().c_str());
    return 1;
  }
  if (!(*file)->Seek(offset).ok()) return 1;
  std::optional<int64_t> len;
  if (length >= 0) len = length;
  parquet::BlockSplitBloomFilter filter = parquet::BlockSplitBloomFilter::Deserialize(
      parquet::default_reader_properties(), file->get(), len);

  std::vector<uint8_t> in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  auto emit = [&](uint64_t h) {
    std::printf("%016" PRIx64 " %d\n", h, filter.FindHash(h) ? 1 : 0);
  };
  while (pos < in.size()) {
    if (type == "INT32") {
      int32_t v;
      std::memcpy(&v, in.data() + pos, 4);
      pos += 4;
      emit(filter.Hash(v));
    } else if (type == "INT64") {
      int64_t v;
      std::memcpy(&v, in.data() + pos, 8);
      pos += 8;
      emit(filter.Hash(v));
    } else if (type == "FLOAT") {
      float v;
      std::memcpy(&v, in.data() + pos, 4);
      pos += 4;
      emit(filter.Hash(v));
    } else if (type == "DOUBLE") {
      double v;
      std::memcpy(&v, in.data() + pos, 8);
      pos += 8;
      emit(filter.Hash(v));
    } else if (type == "BYTE_ARRAY") {
      uint32_t n;
      std::memcpy(&n, in.data() + pos, 4);
      pos += 4;
      parquet::ByteArray ba(n, in.data() + pos);
      pos += n;
      emit(filter.Hash(&ba));
    } else if (type == "FIXED_LEN_BYTE_ARRAY") {
      parquet::FLBA flba(in.data() + pos);
      pos += static_cast<size_t>(type_length);
      emit(filter.Hash(&flba, static_cast<uint32_t>(type_length)));
    } else if (type == "INT96") {
      parquet::Int96 v;
      std::memcpy(v.value.data(), in.data() + pos, 12);
      pos += 12;
      emit(filter.Hash(&v));
    } else {
      std::fprintf(stderr, "unknown type %s\n", type.c_str());
      return 2;
    }
  }
  return 0;
}
