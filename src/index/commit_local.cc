// index_local_file: plan, then commit by copy and rename.
//
// Why not append in place: the file's last 8 bytes say where the footer is,
// and while bytes are appended (or after a crash mid-append) the file ends in
// a partial tail whose last 8 bytes are not a trailer. A reader that stats the
// file then, or anyone after such a crash, finds neither the old file nor the
// new one. Ordering writes (body, fsync, trailer) does not help: every
// intermediate size exposes garbage as the trailer.
//
// So the new file is made beside the old one and swapped in atomically:
//   1. the file is opened once; its identity (device, inode, size, mtime) is
//      recorded from that descriptor, and everything is read through it;
//   2. a temporary ".<name>.pqfast-index-<pid>-<n>" in the same directory
//      (same filesystem, so rename is atomic) receives the old bytes:
//      ioctl(FICLONE) shares them without copying on btrfs/XFS; otherwise
//      copy_file_range copies in the kernel; otherwise read/write;
//   3. the new tail is written after them with pwrite at the old size, the
//      temporary file is fsync'ed and given the original's permissions;
//   4. the original path is stat'ed again: a different inode, size or mtime
//      means another process changed or replaced it since step 1 (its bytes
//      would be lost); so do different last 64 KiB (a same-size rewrite
//      within one coarse mtime tick); the temporary file is removed and the
//      outcome is kConflict;
//   5. rename(2) over the original, then fsync of the directory.
// At every instant the path names the whole old file or the whole new file;
// readers holding the old file open keep reading it. A crash before step 5
// leaves the original untouched (and a stray temporary file); after it the
// new file is complete on disk. The only window left is between step 4 and
// step 5 (microseconds): a writer that modifies the file in place in that
// window loses its change, as with any rename-based writer (editors, rsync).
// Two pqfast indexers of one file are serialised by flock(2) on it; the
// second then sees the file replaced and leaves it (kConflict).
// Ownership, ACLs and xattrs of the original are not carried over, and other
// hard links to it keep the old file. A symbolic link is followed.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>

#include "parquet/thrift_util.h"
#include "pqfast/index.h"

namespace pqfast::parquet {
namespace {

struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  mode_t mode = 0;
  bool operator==(const Identity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns;
  }
};

Identity identity_of(const struct stat& st) {
  return Identity{st.st_dev, st.st_ino, st.st_size,
                  int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec, st.st_mode};
}

Error os_error(const std::string& what, const std::string& path) {
  return make_error(ErrorCode::kIoError, path + ": " + what + ": " + std::strerror(errno));
}

// A descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The file read through the descriptor whose identity was recorded.
class FdFile final : public RandomAccessFile {
 public:
  FdFile(int fd, uint64_t size, std::string name) : fd_(fd), size_(size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
    if (offset > size_ || n > size_ - offset) {
      return make_error(ErrorCode::kTruncated, name_ + ": read of " + std::to_string(n) + " bytes at " +
                                                   std::to_string(offset) + " past the end");
    }
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return os_error("read", name_);
      if (r == 0) return make_error(ErrorCode::kTruncated, name_ + ": the file shrank while it was read");
      done += static_cast<size_t>(r);
    }
    return Status::Ok();
  }

 private:
  int fd_;
  uint64_t size_;
  std::string name_;
};

Status write_all(int fd, const uint8_t* p, size_t n, off_t at, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, at);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return os_error("write", path);
    p += w;
    n -= static_cast<size_t>(w);
    at += w;
  }
  return Status::Ok();
}

// Copies the first `size` bytes of src into dst: a clone when the filesystem
// shares extents, else an in-kernel copy, else read/write.
Status copy_prefix(int src, int dst, uint64_t size, const std::string& path, IndexFileResult* r) {
  if (::ioctl(dst, FICLONE, src) == 0) {
    r->cloned = true;
    // The clone took the whole source: cut what another process may have
    // appended since it was opened (the re-check then reports the conflict).
    if (::ftruncate(dst, static_cast<off_t>(size)) != 0) return os_error("truncate", path);
    return Status::Ok();
  }
  uint64_t done = 0;
  bool kernel = true;
  while (done < size && kernel) {
    loff_t in = static_cast<loff_t>(done), o = static_cast<loff_t>(done);
    const ssize_t c = ::copy_file_range(src, &in, dst, &o, static_cast<size_t>(size - done), 0);
    if (c < 0 && errno == EINTR) continue;
    if (c <= 0) {
      if (c == 0 || errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) {
        kernel = false;  // fall back from where it stopped
        break;
      }
      return os_error("copy_file_range", path);
    }
    done += static_cast<uint64_t>(c);
  }
  std::vector<uint8_t> buf(std::min<uint64_t>(size - done, uint64_t{4} << 20));
  while (done < size) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - done));
    const ssize_t rd = ::pread(src, buf.data(), n, static_cast<off_t>(done));
    if (rd < 0 && errno == EINTR) continue;
    if (rd < 0) return os_error("read", path);
    if (rd == 0) return make_error(ErrorCode::kTruncated, path + ": the file shrank while it was copied");
    PQFAST_RETURN_IF_ERROR(write_all(dst, buf.data(), static_cast<size_t>(rd), static_cast<off_t>(done), path));
    done += static_cast<uint64_t>(rd);
    r->bytes_copied += static_cast<uint64_t>(rd);
  }
  return Status::Ok();
}

std::atomic<uint64_t> g_temp_counter{0};

// Bytes at the end of the file compared at the re-check (the footer, most often whole).
constexpr uint64_t kRecheckBytes = 64 * 1024;

}  // namespace

Result<IndexFileResult> index_local_file(const std::string& given_path, const IndexOptions& options) {
  // A symbolic link is followed: the file it names is replaced in its own
  // directory (renaming over the link would replace the link instead). A
  // dry run replaces nothing: it plans from the path as given.
  std::string path = given_path;
  if (!options.dry_run) {
    if (char* real = ::realpath(given_path.c_str(), nullptr)) {
      path = real;
      ::free(real);
    }
  }
  Fd src;
  src.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (src.fd < 0) return os_error("open", path);
  // Indexers of the same file take turns (an advisory lock, which only
  // pqfast takes): the second finds the file replaced at its re-check and
  // leaves it (kConflict) instead of racing the first to the rename. A dry
  // run reads one inode through its descriptor, whatever renames happen.
  while (!options.dry_run && ::flock(src.fd, LOCK_EX) != 0) {
    if (errno != EINTR) return os_error("lock", path);
  }
  struct stat st;
  if (::fstat(src.fd, &st) != 0) return os_error("stat", path);
  if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kInvalidArgument, path + ": not a regular file");
  const Identity before = identity_of(st);

  IndexFileResult result;
  FdFile file(src.fd, static_cast<uint64_t>(st.st_size), given_path);
  // The last bytes as they were, compared again at the re-check: a rewrite
  // of the same size inside one mtime tick (ext4 stamps times from a coarse
  // clock) still changes the footer.
  std::vector<uint8_t> tail_before;
  if (!options.dry_run) {
    tail_before.resize(static_cast<size_t>(std::min<uint64_t>(file.size(), kRecheckBytes)));
    PQFAST_RETURN_IF_ERROR(file.read_at(file.size() - tail_before.size(), tail_before.size(), tail_before.data()));
  }
  PQFAST_ASSIGN_OR_RETURN(result.plan, plan_index(file, options));
  if (result.plan.tail_size == 0) {
    result.outcome = IndexOutcome::kUnchanged;
    return result;
  }
  result.outcome = IndexOutcome::kIndexed;
  result.bytes_appended = result.plan.tail_size;
  if (options.dry_run) return result;

  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string temp = dir + "/." + base + ".pqfast-index-" + std::to_string(::getpid()) + "-" +
                           std::to_string(g_temp_counter.fetch_add(1));
  Fd dst;
  dst.fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (dst.fd < 0) return os_error("create temporary file", temp);
  auto fail = [&](Error e) -> Result<IndexFileResult> {
    ::unlink(temp.c_str());
    return e;
  };
  Status st2 = copy_prefix(src.fd, dst.fd, result.plan.old_size, path, &result);
  if (st2.ok()) {
    st2 = write_all(dst.fd, result.plan.tail.data(), result.plan.tail.size(),
                    static_cast<off_t>(result.plan.old_size), temp);
  }
  if (st2.ok() && ::fchmod(dst.fd, before.mode & 07777) != 0) st2 = os_error("chmod", temp);
  if (st2.ok() && ::fsync(dst.fd) != 0) st2 = os_error("fsync", temp);
  if (!st2.ok()) return fail(st2.error());

  if (options.before_commit) options.before_commit();
  // The re-check: the path must still name the file we read, unchanged.
  struct stat now;
  bool same = ::stat(path.c_str(), &now) == 0 && identity_of(now) == before;
  if (same) {
    Fd again;
    again.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::vector<uint8_t> tail_now(tail_before.size());
    FdFile f(again.fd, static_cast<uint64_t>(now.st_size), given_path);
    same = again.fd >= 0 && f.read_at(f.size() - tail_now.size(), tail_now.size(), tail_now.data()).ok() &&
           tail_now == tail_before;
  }
  if (!same) {
    ::unlink(temp.c_str());
    result.outcome = IndexOutcome::kConflict;
    result.message = given_path + ": changed by another process while it was indexed; left as it is";
    result.bytes_appended = 0;
    result.plan.tail = {};
    return result;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return fail(os_error("rename", temp));
  Fd d;
  d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd >= 0) ::fsync(d.fd);  // makes the rename durable; best effort
  result.plan.tail = {};
  return result;
}

}  // namespace pqfast::parquet
