// Arrow C++ (libparquet from the pyarrow wheel) as the reference for Bloom
// filter answers on a file:
//   pqfast_peer_arrow_bloom FILE LEAF_INDEX TYPE VALUE...
// TYPE is INT32, INT64, DOUBLE or BYTE_ARRAY. Prints one JSON line per
// (row group, value): {"row_group": g, "value": k, "maybe": true|false|null}
// (null: the chunk has no Bloom filter).
#include <parquet/bloom_filter.h>
#include <parquet/bloom_filter_reader.h>
#include <parquet/file_reader.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FILE LEAF_INDEX TYPE VALUE...\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int leaf = std::atoi(argv[2]);
  const std::string type = argv[3];
  try {
    auto reader = parquet::ParquetFileReader::OpenFile(path, /*memory_map=*/false);
    auto& blooms = reader->GetBloomFilterReader();
    const int groups = reader->metadata()->num_row_groups();
    for (int g = 0; g < groups; ++g) {
      auto rg = blooms.RowGroup(g);
      std::unique_ptr<parquet::BloomFilter> bf = rg ? rg->GetColumnBloomFilter(leaf) : nullptr;
      for (int k = 4; k < argc; ++k) {
        const char* maybe = "null";
        if (bf) {
          uint64_t h = 0;
          const std::string v = argv[k];
          if (type == "INT32") h = bf->Hash(static_cast<int32_t>(std::stol(v)));
          else if (type == "INT64") h = bf->Hash(static_cast<int64_t>(std::stoll(v)));
          else if (type == "DOUBLE") h = bf->Hash(std::stod(v));
          else {
            parquet::ByteArray ba(static_cast<uint32_t>(v.size()), reinterpret_cast<const uint8_t*>(v.data()));
            h = bf->Hash(&ba);
          }
          maybe = bf->FindHash(h) ? "true" : "false";
        }
        std::printf("{\"row_group\": %d, \"value\": %d, \"maybe\": %s}\n", g, k - 4, maybe);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "arrow: %s\n", e.what());
    return 1;
  }
  return 0;
}
