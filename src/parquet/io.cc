// Positional reads (pread on local files, memcpy on buffers) and the footer
// read: one speculative read of the tail covers the footer of most files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "pqfast/parquet.h"
#include "parquet/internal.h"

namespace pqfast::parquet {

Error prefix_error(const std::string& name, const Error& e) {
  return Error{e.code, name + ": " + e.message};
}

Error missing_column_error(const FileMetaData& meta, std::string_view column) {
  std::string names;
  for (size_t i = 0; i < meta.columns.size() && i < 12; ++i) names += (i ? ", " : "") + meta.columns[i].dotted_path;
  if (meta.columns.size() > 12) names += ", ...";
  return Error{ErrorCode::kInvalidArgument, "no column '" + std::string(column) + "' (leaf columns: " + names + ")"};
}

namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a file";
}

}  // namespace

Result<std::unique_ptr<LocalFile>> LocalFile::open(const std::string& path) {
  int fd;
  do {
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    return make_error(ErrorCode::kIoError, path + ": cannot open: " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return make_error(ErrorCode::kIoError, path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(ErrorCode::kIoError, path + ": not a regular file (" + file_kind(st.st_mode) + ")");
  }
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  return std::unique_ptr<LocalFile>(new LocalFile(fd, static_cast<uint64_t>(st.st_size), mtime, path));
}

Result<std::unique_ptr<LocalFile>> LocalFile::open_for_reading(const std::string& path) {
  return open_for_reading_at(AT_FDCWD, path, 0);
}

Result<std::unique_ptr<LocalFile>> LocalFile::open_for_reading_at(int dir_fd, const std::string& path,
                                                                   size_t name_offset) {
  int fd;
  do {
    fd = ::openat(dir_fd, path.c_str() + std::min(name_offset, path.size()), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    return make_error(ErrorCode::kIoError, path + ": cannot open: " + std::strerror(errno));
  }
  // No stat (this path is for lookups that validate no cache): a FIFO, a
  // socket or a character device cannot seek to its end.
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) {
    const int e = errno;
    struct stat st;
    const std::string kind = ::fstat(fd, &st) == 0 ? file_kind(st.st_mode) : std::strerror(e);
    ::close(fd);
    return make_error(ErrorCode::kIoError, path + ": not a regular file (" + kind + ")");
  }
  return std::unique_ptr<LocalFile>(new LocalFile(fd, static_cast<uint64_t>(end), -1, path));
}

LocalFile::~LocalFile() { ::close(fd_); }

Status LocalFile::read_at(uint64_t offset, size_t n, uint8_t* out) {
  if (offset > size_ || n > size_ - offset) {
    return make_error(ErrorCode::kTruncated, path_ + ": read of " + std::to_string(n) +
                                                 " bytes at byte " + std::to_string(offset) +
                                                 " goes past the end of the " +
                                                 std::to_string(size_) + "-byte file");
  }
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return make_error(ErrorCode::kIoError, path_ + ": not a regular file (a directory)");
      return make_error(ErrorCode::kIoError, path_ + ": read at byte " + std::to_string(offset + done) +
                                                 " failed: " + std::strerror(errno));
    }
    if (got == 0) {
      return make_error(ErrorCode::kTruncated, path_ + ": file ended at byte " +
                                                   std::to_string(offset + done) + " while reading");
    }
    done += static_cast<size_t>(got);
  }
  return Status::Ok();
}

Status BufferFile::read_at(uint64_t offset, size_t n, uint8_t* out) {
  if (offset > len_ || n > len_ - offset) {
    return make_error(ErrorCode::kTruncated, name_ + ": read of " + std::to_string(n) +
                                                 " bytes at byte " + std::to_string(offset) +
                                                 " goes past the end of the " +
                                                 std::to_string(len_) + "-byte input");
  }
  if (n) std::memcpy(out, data_ + offset, n);
  return Status::Ok();
}

Result<FooterBytes> read_footer_bytes(RandomAccessFile& file, const ParseLimits& limits,
                                     ReadStats* stats, TailBuffer* tail, size_t tail_bytes) {
  const uint64_t size = file.size();
  if (size < 12) {
    return make_error(ErrorCode::kTruncated, file.name() + ": file of " + std::to_string(size) +
                                                 " bytes is too small for Parquet (at least 12: "
                                                 "magic, footer length, magic)");
  }
  const size_t tail_len = static_cast<size_t>(std::min<uint64_t>(size, std::max<size_t>(tail_bytes, 64)));
  tail->bytes.reset(new uint8_t[tail_len]);  // filled by the read
  tail->offset = size - tail_len;
  tail->size = tail_len;
  PQFAST_RETURN_IF_ERROR(file.read_at(size - tail_len, tail_len, tail->data()));
  if (stats) { stats->reads++; stats->bytes += tail_len; }
  auto footer_len = parse_trailer(tail->data() + tail_len - 8, size);
  if (!footer_len.ok()) return prefix_error(file.name(), footer_len.error());
  if (*footer_len > limits.max_footer_bytes) {
    return make_error(ErrorCode::kLimitExceeded,
                      file.name() + ": footer of " + std::to_string(*footer_len) +
                          " bytes exceeds the limit of " + std::to_string(limits.max_footer_bytes));
  }
  FooterBytes out;
  out.len = *footer_len;
  out.start = size - 8 - *footer_len;
  if (uint64_t{*footer_len} + 8 <= tail_len) {
    out.data = tail->data() + tail_len - 8 - *footer_len;
  } else {
    out.owned.resize(*footer_len);
    PQFAST_RETURN_IF_ERROR(file.read_at(out.start, *footer_len, out.owned.data()));
    if (stats) { stats->reads++; stats->bytes += *footer_len; }
    out.data = out.owned.data();
  }
  return out;
}

Result<FileMetaData> read_file_metadata_tail(RandomAccessFile& file, const ParseLimits& limits,
                                             ReadStats* stats, TailBuffer* tail_out,
                                             size_t tail_bytes) {
  TailBuffer local;
  TailBuffer* tail = tail_out ? tail_out : &local;
  auto footer = read_footer_bytes(file, limits, stats, tail, tail_bytes);
  if (!footer.ok()) return footer.error();
  auto meta = parse_file_metadata(footer->data, footer->len, footer->start, limits);
  if (!meta.ok()) return prefix_error(file.name(), meta.error());
  return meta;
}

Result<LazyLocalFile> LazyLocalFile::make_at(int dir_fd, const std::string& path, size_t name_offset) {
  struct stat st;
  if (::fstatat(dir_fd, path.c_str() + std::min(name_offset, path.size()), &st, 0) != 0) {
    return make_error(ErrorCode::kIoError, path + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kIoError, path + ": not a regular file (" + file_kind(st.st_mode) + ")");
  }
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  return LazyLocalFile(path, static_cast<uint64_t>(st.st_size), mtime);
}

Status LazyLocalFile::read_at(uint64_t offset, size_t n, uint8_t* out) {
  if (!file_) {
    auto f = LocalFile::open(path_);
    if (!f.ok()) return f.error();
    if ((*f)->size() != size_ || (*f)->mtime_ns() != mtime_ns_) {
      return make_error(ErrorCode::kIoError, path_ + ": the file changed between stat and open");
    }
    file_ = std::move(*f);
  }
  return file_->read_at(offset, n, out);
}

std::shared_ptr<const PruneFooter> FooterCache::get(const std::string& key, uint64_t size,
                                                     int64_t mtime_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end() || it->second.size != size || it->second.mtime_ns != mtime_ns) return nullptr;
  return it->second.footer;
}

void FooterCache::put(const std::string& key, uint64_t size, int64_t mtime_ns,
                      std::shared_ptr<const PruneFooter> footer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = map_.insert_or_assign(key, Entry{size, mtime_ns, std::move(footer)});
  if (inserted) order_.push_back(key);
  while (map_.size() > max_entries_ && !order_.empty()) {
    map_.erase(order_.front());
    order_.pop_front();
  }
}

void FooterCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  map_.clear();
  order_.clear();
}

size_t FooterCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}

Result<FileMetaData> read_file_metadata(RandomAccessFile& file, const ParseLimits& limits) {
  return read_file_metadata_tail(file, limits, nullptr, nullptr);
}

}  // namespace pqfast::parquet
