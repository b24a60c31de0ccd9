// The codec floor of a Parquet file (see codec_floor_bench.h).
#include "codec_floor_bench.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "parquet/codec.h"
#include "parquet/thrift_util.h"
#include "pqfast/parquet.h"
#include "timer.h"

namespace pqfast::bench {

namespace {

// One compressed page body: where it lies in its chunk's bytes and what it inflates to.
struct Page {
  size_t chunk;
  size_t offset;
  size_t len;
  size_t out_len;
  int32_t codec;
};

}  // namespace

Result<CodecFloor> codec_floor(const std::string& path, int reps, const std::vector<int>& leaves, int threads) {
  PQFAST_ASSIGN_OR_RETURN(auto file, parquet::LocalFile::open(path));
  PQFAST_ASSIGN_OR_RETURN(parquet::FileMetaData meta, parquet::read_file_metadata(*file));
  std::vector<std::vector<uint8_t>> chunks;
  std::vector<Page> pages;
  CodecFloor out;
  size_t largest = 0;
  for (const auto& rg : meta.row_groups) {
    for (size_t leaf = 0; leaf < rg.columns.size(); ++leaf) {
      const auto& c = rg.columns[leaf];
      if (!leaves.empty() && std::find(leaves.begin(), leaves.end(), static_cast<int>(leaf)) == leaves.end()) continue;
      if (c.skipped || !c.has_meta_data || c.codec == 0) continue;
      int64_t start = c.data_page_offset;
      if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < start) start = c.dictionary_page_offset;
      if (start < 0 || c.total_compressed_size < 0 ||
          static_cast<uint64_t>(start) + static_cast<uint64_t>(c.total_compressed_size) > file->size()) {
        return make_error(ErrorCode::kCorrupt, path + ": a column chunk lies outside the file");
      }
      std::vector<uint8_t> bytes(static_cast<size_t>(c.total_compressed_size));
      PQFAST_RETURN_IF_ERROR(file->read_at(static_cast<uint64_t>(start), bytes.size(), bytes.data()));
      for (size_t at = 0; at < bytes.size();) {
        PQFAST_ASSIGN_OR_RETURN(parquet::PageHeader h, parquet::parse_page_header(bytes.data() + at, bytes.size() - at));
        const size_t body = at + h.header_size;
        const size_t csize = static_cast<size_t>(h.compressed_page_size);
        if (csize > bytes.size() - body) return make_error(ErrorCode::kCorrupt, path + ": a page runs past its chunk");
        size_t levels = 0;
        bool compressed = true;
        if (h.type == parquet::PageType::kDataPageV2) {
          // v2: the levels come first, never compressed.
          levels = static_cast<size_t>(h.data_page_v2.repetition_levels_byte_length) +
                   static_cast<size_t>(h.data_page_v2.definition_levels_byte_length);
          compressed = h.data_page_v2.is_compressed;
        }
        const size_t usize = static_cast<size_t>(h.uncompressed_page_size);
        if (compressed && levels <= csize && levels <= usize) {
          pages.push_back({chunks.size(), body + levels, csize - levels, usize - levels, c.codec});
          largest = std::max(largest, usize - levels);
          out.compressed_bytes += static_cast<int64_t>(csize - levels);
          out.uncompressed_bytes += static_cast<int64_t>(usize - levels);
        }
        at = body + csize;
      }
      chunks.push_back(std::move(bytes));
    }
  }
  out.pages = static_cast<int64_t>(pages.size());
  const size_t n_threads = static_cast<size_t>(std::clamp(threads, 1, 256));
  std::vector<std::vector<uint8_t>> dst(n_threads, std::vector<uint8_t>(largest));
  std::vector<Status> status(n_threads, Status::Ok());
  double best = 1e300;
  for (int r = 0; r < std::max(reps, 1); ++r) {
    std::atomic<size_t> next{0};
    auto work = [&](size_t t) {
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < pages.size();) {
        const Page& p = pages[i];
        Status st = parquet::detail::decompress(p.codec, chunks[p.chunk].data() + p.offset, p.len, dst[t].data(),
                                                p.out_len, path);
        if (!st.ok()) {
          status[t] = std::move(st);
          return;
        }
      }
    };
    const double t0 = now_ns();
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n_threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    best = std::min(best, now_ns() - t0);
    for (auto& st : status) PQFAST_RETURN_IF_ERROR(st);
  }
  out.seconds = best / 1e9;
  return out;
}

}  // namespace pqfast::bench
