// Internal: a growable, 64-byte aligned byte buffer with 64 bytes of slack
// past its capacity (decoders may write whole vectors past the last value).
// Each block is charged to the calling thread's memory budget when it is
// allocated (memory_scope.h: a refused charge throws MemoryLimitExceeded
// before anything is allocated) and given back to that budget when freed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "parquet/memory_scope.h"

namespace pqfast::parquet::detail {

// Large blocks (>= kPoolMinBytes) freed by ReadBuffers go to a
// process-wide pool and are reused by the next large allocation of their
// size class: a column read after another one reuses memory the kernel has
// already mapped instead of faulting in (and zeroing) fresh pages (on this
// VM a fault on returned memory costs more than decoding the values). From
// 128 KiB: glibc gives blocks that large back to the kernel when freed
// (mmap), so the decompressed pages and chunk bytes of a lookup (an 800 KB
// dictionary page per row group) were faulted in afresh on every call;
// pooled, a one-key lookup in the bench lake went from 5.5 to 3.4 ms and a
// Q12 column read from 609 to 954 M values/s. A whole-file read holds about
// a thousand such blocks (16 columns x 50 row groups: values, bytes, chunk
// bytes): the pool is bounded in bytes (an eighth of the machine's memory,
// between kPoolMaxBytes / 4 and 4 x kPoolMaxBytes), not in blocks, and a
// block idle for 20 s goes back to the system at the next pool call.
// Blocks from 2 MiB are mapped alone (read_buffer.cc says why without huge
// pages). Thread-safe.
inline constexpr size_t kPoolMinBytes = size_t{1} << 17;
inline constexpr size_t kPoolMaxBytes = size_t{1} << 30;
// The size a request of `bytes` is rounded up to (a multiple of 64).
size_t pool_class_size(size_t bytes);
// A block of at least `bytes` (its real size in *got), from the pool or new;
// pool_free takes it back with that size.
uint8_t* pool_allocate(size_t bytes, size_t* got);
void pool_free(uint8_t* p, size_t bytes);
// Blocks from 1 KiB up to kPoolMinBytes freed by a thread stay in that
// thread's cache (at most 32 MiB, eight size classes per power of two) for
// its next allocations of their class, without a lock (read_buffer.cc says
// why). Bytes held idle in the calling thread's cache:
size_t thread_cache_bytes();
// Returns every pooled block (and the calling thread's cached ones) to the system.
void pool_clear();
// Bytes held idle in the pool.
size_t pool_idle_bytes();

class ReadBuffer {
 public:
  static constexpr size_t kSlack = 64;
  ReadBuffer() = default;
  ~ReadBuffer() { release(); }
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  ReadBuffer(ReadBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)),
        block_(std::exchange(o.block_, 0)),
        budget_(std::move(o.budget_)) {}
  ReadBuffer& operator=(ReadBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
      block_ = std::exchange(o.block_, 0);
      budget_ = std::move(o.budget_);
    }
    return *this;
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }

  // Capacity for at least n bytes (contents kept); grows by at least 1.5x.
  void reserve(size_t n) {
    if (n <= cap_) return;
    if (n > (size_t{1} << 56)) throw std::bad_alloc();  // no rounding below may overflow
    size_t want = cap_ + cap_ / 2;
    if (want < n) want = n;
    want = (want + 63) & ~size_t{63};
    const std::shared_ptr<MemoryBudget>& budget = current_budget();
    if (budget) charge_or_throw(static_cast<int64_t>(want + kSlack));
    size_t got = 0;
    uint8_t* p;
    try {
      p = pool_allocate(want + kSlack, &got);
    } catch (...) {
      if (budget) budget->release(static_cast<int64_t>(want + kSlack));
      throw;
    }
    // The charge and the capacity are the request's own size class, even
    // when the pool hands out a larger block (up to twice the size): what a
    // read may hold must not depend on what earlier reads left in the pool
    // (a 4 MiB dataset scan failed after one other read, and passed alone).
    // The rest of a larger block is memory the pool already held.
    const size_t own_class = std::min(got, pool_class_size(want + kSlack));
    if (budget) budget->force_charge(static_cast<int64_t>(own_class - want - kSlack));
    const size_t kept = size_;
    if (kept) std::memcpy(p, data_, kept);
    release();  // (clears size_: the contents moved, their size with them)
    data_ = p;
    size_ = kept;
    cap_ = own_class - kSlack;
    block_ = got;
    budget_ = budget;
  }
  // Exactly n bytes of capacity (for a buffer reused page after page).
  void reserve_exact(size_t n) {
    if (n <= cap_) return;
    release();
    reserve(n);
  }
  void resize(size_t n) {
    reserve(n);
    size_ = n;
  }
  // Zero-filled growth.
  void resize_zeroed(size_t n) {
    reserve(n);
    if (n > size_) std::memset(data_ + size_, 0, n - size_);
    size_ = n;
  }
  template <class T>
  T* as() { return reinterpret_cast<T*>(data_); }
  template <class T>
  const T* as() const { return reinterpret_cast<const T*>(data_); }

 private:
  void release() {
    if (data_) {
      pool_free(data_, block_);
      if (budget_) budget_->release(static_cast<int64_t>(cap_ + kSlack));
    }
    budget_.reset();
    data_ = nullptr;
    size_ = cap_ = block_ = 0;
  }
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;    // usable bytes: what is charged, less the slack
  size_t block_ = 0;  // the block's real size, which pool_free takes back
  std::shared_ptr<MemoryBudget> budget_;  // what data_ is charged to (may be null)
};

}  // namespace pqfast::parquet::detail
