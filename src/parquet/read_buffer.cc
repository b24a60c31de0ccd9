// The pool of large output blocks behind ReadBuffer (see read_buffer.h).
#include "parquet/read_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace pqfast::parquet::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Idle blocks older than this go back to the system at the next pool call
// (a process that stops reading does not keep a read's worth of memory for
// ever; one that reads table after table keeps reusing it).
constexpr auto kIdleLife = std::chrono::seconds(20);

// The most idle bytes the pool keeps: enough for a whole-file read of a
// large table to land in memory the previous one gave back, at most an
// eighth of the machine's memory.
size_t idle_cap() {
  static const size_t cap = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const size_t ram = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
    return std::clamp(ram / 8, kPoolMaxBytes / 4, kPoolMaxBytes * 4);
  }();
  return cap;
}

struct Pool {
  std::mutex mu;
  struct Block {
    uint8_t* p;
    Clock::time_point freed;
  };
  // Idle blocks by size class (their exact size), newest last.
  std::map<size_t, std::vector<Block>> classes;
  size_t total = 0;
  Clock::time_point last_trim{};
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: buffers may be freed after exit handlers
  return *p;
}

// Blocks from kMapMinBytes are mapped alone (not carved from the C heap):
// their pages are ours to keep or to return whole. No MADV_HUGEPAGE: on this
// VM (THP defrag "madvise") the kernel compacts memory to find huge pages on
// a cold read, which doubled its system time (0.65 -> 1.2-1.3 s for the first
// read of lineitem SF1) for fewer faults.
constexpr size_t kMapMinBytes = size_t{1} << 21;

uint8_t* system_allocate(size_t bytes) {
  if (bytes >= kMapMinBytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<uint8_t*>(p);
  }
  // malloc of 64 bytes more, the block aligned up within it and the shift
  // kept in the byte before it, not aligned_alloc: glibc's memalign takes a
  // larger chunk and frees the pieces before and after the aligned block
  // every time, which fragmented the arenas and was most of the cost of
  // the 300,000 small blocks a read of a lake of 10,000 small files makes
  // (_int_memalign 8% of that read's profile, malloc_consolidate 3%).
  // malloc's blocks are 16-aligned: the shift is 16..64, never 0, so the
  // byte before the block is ours.
  auto* raw = static_cast<uint8_t*>(std::malloc(bytes + 64));
  if (raw == nullptr) throw std::bad_alloc();
  const size_t shift = 64 - (reinterpret_cast<uintptr_t>(raw) & 63);
  uint8_t* p = raw + shift;
  p[-1] = static_cast<uint8_t>(shift);
  return p;
}

void system_free(uint8_t* p, size_t bytes) {
  if (bytes >= kMapMinBytes) {
    munmap(p, bytes);
  } else {
    std::free(p - p[-1]);
  }
}

// Blocks from kCacheMinBytes to kPoolMinBytes freed by a thread are kept
// in that thread's cache (eight size classes per power of two, at most
// kCacheMaxBytes in all) and handed to its next allocation of their class,
// without a lock: a lake of 10,000 small files decodes 160,000 column
// chunks, each taking and giving back a decompressed page, scratch, offsets
// and output blocks of one to a few tens of KB, which glibc's bins (its
// per-thread tcache stops at 1 KB; _int_malloc, _int_free, unlink_chunk,
// malloc_consolidate: ~10% of that read) sorted, split and merged on every
// call.
constexpr size_t kCacheMinBytes = size_t{1} << 10;
constexpr size_t kCacheMaxBytes = size_t{32} << 20;
constexpr int kCacheFirstPow = 10;  // log2(kCacheMinBytes)
constexpr size_t kCacheClasses = 8 * (17 - kCacheFirstPow);  // up to kPoolMinBytes (2^17)
constexpr size_t kCacheClassBlocks = 256;  // blocks kept per class at most
// The largest class (7/8 past 64 KiB): requests above it, up to
// kPoolMinBytes, are rounded to 64 bytes and not cached.
constexpr size_t kCacheTopBytes = (size_t{1} << 16) + 7 * (size_t{1} << 13);

// The class of a cached size (a multiple of its power of two's eighth).
size_t cache_class(size_t size) {
  const size_t p = std::bit_floor(size);
  return static_cast<size_t>(std::countr_zero(p) - kCacheFirstPow) * 8 + (size - p) / (p / 8);
}

struct ThreadCache {
  std::vector<uint8_t*> blocks[kCacheClasses];
  size_t bytes = 0;
  ~ThreadCache();
};
// Cleared (and set) by ~ThreadCache: a block freed on this thread after its
// cache is gone (static destructors at exit) goes straight to the system.
thread_local bool t_cache_gone = false;
thread_local ThreadCache t_cache;

// Releases blocks idle longer than kIdleLife (at most one scan a second).
void trim_locked(Pool& pl, Clock::time_point now) {
  if (now - pl.last_trim < std::chrono::seconds(1)) return;
  pl.last_trim = now;
  for (auto it = pl.classes.begin(); it != pl.classes.end();) {
    auto& v = it->second;
    size_t keep = 0;
    for (auto& b : v) {
      if (now - b.freed > kIdleLife) {
        system_free(b.p, it->first);
        pl.total -= it->first;
      } else {
        v[keep++] = b;
      }
    }
    v.resize(keep);
    it = v.empty() ? pl.classes.erase(it) : std::next(it);
  }
}

ThreadCache::~ThreadCache() {
  t_cache_gone = true;
  for (size_t c = 0; c < kCacheClasses; ++c) {
    const size_t p = size_t{1} << (kCacheFirstPow + c / 8);
    const size_t size = p + (c % 8) * (p / 8);
    for (uint8_t* b : blocks[c]) system_free(b, size);
    blocks[c].clear();
  }
  bytes = 0;
}

}  // namespace

size_t pool_class_size(size_t bytes) {
  if (bytes >= kCacheMinBytes && bytes <= kCacheTopBytes) {
    // (the thread caches' classes: an eighth of the power of two at most more)
    const size_t step = std::bit_floor(bytes) / 8;
    const size_t size = (bytes + step - 1) / step * step;
    return size;
  }
  if (bytes < kPoolMinBytes) return (bytes + 63) & ~size_t{63};
  // Eight classes per power of two (at most 1/8 more than asked): a read
  // after another of the same table asks for the same classes again.
  const size_t step = std::bit_floor(bytes) / 8;
  return (bytes + step - 1) / step * step;
}

uint8_t* pool_allocate(size_t bytes, size_t* got) {
  const size_t size = pool_class_size(bytes);
  if (size >= kCacheMinBytes && size <= kCacheTopBytes && !t_cache_gone) {
    auto& v = t_cache.blocks[cache_class(size)];
    *got = size;
    if (!v.empty()) {
      uint8_t* p = v.back();
      v.pop_back();
      t_cache.bytes -= size;
      return p;
    }
    return system_allocate(size);
  }
  if (size >= kPoolMinBytes) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    trim_locked(pl, Clock::now());
    // This class, else the smallest larger one up to twice the size (as the
    // 64-block pool did: a lookup's pages vary in size from call to call).
    auto it = pl.classes.lower_bound(size);
    if (it != pl.classes.end() && it->first <= 2 * size) {
      const Pool::Block b = it->second.back();
      it->second.pop_back();
      *got = it->first;
      pl.total -= it->first;
      if (it->second.empty()) pl.classes.erase(it);
      return b.p;
    }
  }
  uint8_t* p = system_allocate(size);
  *got = size;
  return p;
}

void pool_free(uint8_t* p, size_t bytes) {
  if (bytes >= kCacheMinBytes && bytes <= kCacheTopBytes && !t_cache_gone && pool_class_size(bytes) == bytes) {
    auto& v = t_cache.blocks[cache_class(bytes)];
    if (t_cache.bytes + bytes <= kCacheMaxBytes && v.size() < kCacheClassBlocks) {
      v.push_back(p);
      t_cache.bytes += bytes;
      return;
    }
    system_free(p, bytes);
    return;
  }
  if (bytes >= kPoolMinBytes) {
    Pool& pl = pool();
    std::lock_guard<std::mutex> lock(pl.mu);
    const auto now = Clock::now();
    trim_locked(pl, now);
    if (pl.total + bytes <= idle_cap()) {
      pl.classes[bytes].push_back({p, now});
      pl.total += bytes;
      return;
    }
  }
  system_free(p, bytes);
}

void pool_clear() {
  if (!t_cache_gone) {
    for (size_t c = 0; c < kCacheClasses; ++c) {
      const size_t p = size_t{1} << (kCacheFirstPow + c / 8);
      for (uint8_t* b : t_cache.blocks[c]) system_free(b, p + (c % 8) * (p / 8));
      t_cache.blocks[c].clear();
    }
    t_cache.bytes = 0;
  }
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  for (auto& [size, v] : pl.classes) {
    for (auto& b : v) system_free(b.p, size);
  }
  pl.classes.clear();
  pl.total = 0;
}

size_t thread_cache_bytes() { return t_cache_gone ? 0 : t_cache.bytes; }

size_t pool_idle_bytes() {
  Pool& pl = pool();
  std::lock_guard<std::mutex> lock(pl.mu);
  return pl.total;
}

}  // namespace pqfast::parquet::detail
