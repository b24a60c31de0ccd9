// Internal: a growable, 64-byte aligned byte buffer with 64 bytes of slack
// past its capacity (decoders may write whole vectors past the last value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace pqfast::parquet::detail {

class ReadBuffer {
 public:
  static constexpr size_t kSlack = 64;
  ReadBuffer() = default;
  ~ReadBuffer() { std::free(data_); }
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  ReadBuffer(ReadBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  ReadBuffer& operator=(ReadBuffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
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
    size_t want = cap_ + cap_ / 2;
    if (want < n) want = n;
    want = (want + 63) & ~size_t{63};
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, want + kSlack));
    if (p == nullptr) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_, size_);
    std::free(data_);
    data_ = p;
    cap_ = want;
  }
  // Exactly n bytes of capacity (for a buffer reused page after page).
  void reserve_exact(size_t n) {
    if (n <= cap_) return;
    std::free(data_);
    data_ = nullptr;
    size_ = cap_ = 0;
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
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace pqfast::parquet::detail
