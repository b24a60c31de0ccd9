// The pool of large output blocks behind ReadBuffer (see read_buffer.h).
#include "parquet/read_buffer.h"

#include <mutex>
#include <vector>

namespace pqfast::parquet::detail {

namespace {

struct Pool {
  std::mutex mu;
  struct Block {
    uint8_t* p;
    size_t bytes;
  };
  std::vector<Block> blocks;
  size_t total = 0;
  ~Pool() {
    for (auto& b : blocks) std::free(b.p);
  }
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: buffers may be freed after exit handlers
  return *p;
}

}  // namespace

uint8_t* pool_allocate(size_t bytes, size_t* got) {
  if (bytes >= kPoolMinBytes) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    // The smallest block that fits, if not more than twice the request.
    size_t best = pl.blocks.size();
    for (size_t i = 0; i < pl.blocks.size(); ++i) {
      const size_t b = pl.blocks[i].bytes;
      if (b >= bytes && b <= 2 * bytes && (best == pl.blocks.size() || b < pl.blocks[best].bytes)) best = i;
    }
    if (best != pl.blocks.size()) {
      auto blk = pl.blocks[best];
      pl.blocks.erase(pl.blocks.begin() + static_cast<std::ptrdiff_t>(best));
      pl.total -= blk.bytes;
      *got = blk.bytes;
      return blk.p;
    }
  }
  const size_t rounded = (bytes + 63) & ~size_t{63};
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (p == nullptr) throw std::bad_alloc();
  *got = rounded;
  return p;
}

void pool_free(uint8_t* p, size_t bytes) {
  if (bytes >= kPoolMinBytes) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    if (pl.blocks.size() < kPoolMaxBlocks && pl.total + bytes <= kPoolMaxBytes) {
      pl.blocks.push_back({p, bytes});
      pl.total += bytes;
      return;
    }
  }
  std::free(p);
}

void pool_clear() {
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  for (auto& b : pl.blocks) std::free(b.p);
  pl.blocks.clear();
  pl.total = 0;
}

}  // namespace pqfast::parquet::detail
