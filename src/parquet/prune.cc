// Pruning: values x row groups -> verdicts. Per file: one tail read for the
// footer, min/max statistics per value, then the Bloom filters of the row
// groups that survive, read in coalesced ranges (served from the tail buffer
// when it already holds them) and probed with the batched kernels.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

#include "parquet/helper_threads.h"
#include "parquet/internal.h"
#include "parquet/value_order.h"
#include "parquet/prune_footer.h"
#include "parquet/stats_trust.h"
#include "pqfast/hash.h"
#include "pqfast/parquet.h"
#include "pqfast/prune_sansio.h"

namespace pqfast::parquet {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kAbsentByStats:
    case Verdict::kAbsentByBloom: return "absent";
    case Verdict::kMaybe: return "maybe";
    case Verdict::kNoFilter: return "no_filter";
  }
  return "maybe";
}

size_t ProbeValues::size() const {
  if (type == PhysicalType::kByteArray) return offsets.empty() ? 0 : offsets.size() - 1;
  auto w = plain_value_width(type, type_length);
  return w.ok() && *w ? data.size() / *w : 0;
}

std::string_view ProbeValues::value(size_t i) const {
  const char* d = reinterpret_cast<const char*>(data.data());
  if (type == PhysicalType::kByteArray) {
    return std::string_view(d + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  const size_t w = *plain_value_width(type, type_length);
  return std::string_view(d + i * w, w);
}

// ---- min/max ---------------------------------------------------------------------------

namespace {

// Compares only the bounds `statistics_trust` lets a pruner believe (the
// legacy pair only in a signed order, nothing a known-broken writer wrote,
// nothing for INT96): a bound it drops can only keep a row group, never lose one.
bool min_max_exclude(const ColumnDescriptor& d, const WriterVersion& writer, bool has_column_orders,
                     bool type_defined_order, const RawMinMax& s, std::string_view value) {
  const Order order = sort_order(d);
  if (order == Order::kNone) return false;
  const StatsTrust t = statistics_trust(writer, d, has_column_orders, type_defined_order, s, /*for_pruning=*/true);
  if (!t.statistics) return false;
  if (s.has_min && t.min) {
    auto c = compare(order, d.physical_type, value, s.min);
    if (c && *c < 0) return true;
  }
  if (s.has_max && t.max) {
    auto c = compare(order, d.physical_type, value, s.max);
    if (c && *c > 0) return true;
  }
  return false;
}

}  // namespace

bool stats_exclude(const FileMetaData& meta, int leaf, const ColumnChunk& chunk,
                   std::string_view value) {
  if (!chunk.has_statistics || leaf < 0 || static_cast<size_t>(leaf) >= meta.columns.size()) {
    return false;
  }
  const Statistics& s = chunk.statistics;
  const bool type_defined = meta.has_column_orders && meta.column_type_defined_order[leaf];
  return min_max_exclude(meta.columns[leaf], parse_created_by(meta.created_by), meta.has_column_orders, type_defined,
                         RawMinMax{s.has_min, s.has_max, s.min_is_legacy, s.max_is_legacy, s.min, s.max},
                         value);
}

bool prune_stats_exclude(const PruneFooter& footer, const PruneChunk& c, std::string_view value) {
  if (!c.has_statistics) return false;
  return min_max_exclude(footer.column, footer.writer, footer.column_orders,
                         footer.column_orders && footer.type_defined_order,
                         RawMinMax{c.has_min, c.has_max, c.min_is_legacy, c.max_is_legacy, c.min, c.max},
                         value);
}

// ---- pruning one file ------------------------------------------------------------------

namespace {

FilePruneResult fail(FilePruneResult r, Error e) {
  r.ok = false;
  r.error = std::move(e);
  r.row_groups.clear();
  return r;
}

// The tail read's size for the files of one call. The footers of a lake
// come from one writer and are about the same size: each file reads what the
// previous one's footer took with an eighth and 512 bytes to spare, rounded
// up to 512 bytes (at least 4 KiB), starting from kSpeculativeTailBytes.
// Reading less than a fixed 16 KiB saves page-cache lookups and copying (4%
// of a file's cost on the bench lake; rounding to 512 bytes rather than to
// pages, 5.1 KiB instead of 8 for its 4 KiB footers, another 3% with cold
// caches); a file whose footer outgrows the hint costs one more read, and
// the hint grows.
class TailSizeHint {
 public:
  size_t get() const { return bytes_.load(std::memory_order_relaxed); }
  void learn(uint32_t footer_length) {
    const uint64_t want = uint64_t{footer_length} + 8 + footer_length / 8 + 512;
    const uint64_t rounded = (want + 511) & ~uint64_t{511};
    bytes_.store(static_cast<size_t>(std::clamp<uint64_t>(rounded, 4096, uint64_t{1} << 20)),
                 std::memory_order_relaxed);
  }

 private:
  std::atomic<size_t> bytes_{kSpeculativeTailBytes};
};

// The directory of the files a worker opens, kept open: the files of a lake
// share one, and openat(2) under it walks only the file's name (the path's
// other components cost a dentry lookup each, per file). A directory that
// cannot be opened leaves the whole path to open(2), which words the error.
class DirectoryHandle {
 public:
  DirectoryHandle() = default;
  DirectoryHandle(const DirectoryHandle&) = delete;
  DirectoryHandle& operator=(const DirectoryHandle&) = delete;
  ~DirectoryHandle() { close_fd(); }

  // The fd to openat() `path` under, and where its name starts.
  int fd_for(const std::string& path, size_t* name_offset) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash + 1 == path.size()) {
      *name_offset = 0;
      return AT_FDCWD;
    }
    const std::string_view dir(path.data(), slash == 0 ? 1 : slash);
    if (fd_ < 0 || dir != dir_) {
      close_fd();
      dir_.assign(dir);
      do {
        fd_ = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      } while (fd_ < 0 && errno == EINTR);
    }
    if (fd_ < 0) {
      *name_offset = 0;
      return AT_FDCWD;
    }
    *name_offset = slash + 1;
    return fd_;
  }

 private:
  void close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  std::string dir_;
  int fd_ = -1;
};

// The local driver: reads what the file's pruner asks for, range by range.
void drive(FilePruner& p, RandomAccessFile& file) {
  // Feeding the last range asked for moves the pruner on: the ranges are
  // copied first (on the stack: a file asks for one or two at a time).
  ByteRange small[4];
  std::vector<ByteRange> many;
  while (!p.done()) {
    const std::vector<ByteRange>& needs = p.needs();
    const ByteRange* want = small;
    const size_t n = needs.size();
    if (n <= 4) {
      std::copy(needs.begin(), needs.end(), small);
    } else {
      many = needs;
      want = many.data();
    }
    // A staged reader's bytes not fetched yet (ErrorCode::kNotFetched: the
    // streaming scanner's fed file): every other range of the batch is
    // still read, so that the reader records all it lacks and one round of
    // requests fetches them, then the pruner fails (its caller runs it again).
    Status missing = Status::Ok();
    for (size_t i = 0; i < n; ++i) {
      const ByteRange& r = want[i];
      std::unique_ptr<uint8_t[]> buf(new uint8_t[r.length ? r.length : 1]);  // filled by the read
      if (auto st = file.read_at(r.offset, static_cast<size_t>(r.length), buf.get()); !st.ok()) {
        if (st.error().code != ErrorCode::kNotFetched) return p.fail(st.error());
        if (missing.ok()) missing = st;
        continue;
      }
      if (!missing.ok()) continue;
      p.feed(r.offset, std::move(buf), static_cast<size_t>(r.length));
      if (p.done()) return;
    }
    if (!missing.ok()) return p.fail(missing.error());
  }
}

FilePruneResult prune_one(RandomAccessFile& file, const PruneQuery& query, const FileIdentity* local = nullptr,
                          TailSizeHint* tail_hint = nullptr) {
  const PruneOptions& opt = query.options();
  std::string cache_key;
  if (opt.footer_cache != nullptr && local != nullptr) {
    cache_key = local->key_or(file.name());
    cache_key += '\0';
    cache_key += query.column();
    if (auto cached = opt.footer_cache->get(cache_key, local->size, local->mtime_ns)) {
      FilePruner p(query, file.name(), file.size(), std::move(cached));
      drive(p, file);
      return p.take_result();
    }
  }
  FilePruner p(query, file.name(), file.size(), tail_hint ? tail_hint->get() : kSpeculativeTailBytes);
  if (!cache_key.empty()) p.keep_footer();
  drive(p, file);
  if (tail_hint && p.footer_length()) tail_hint->learn(p.footer_length());
  if (!cache_key.empty() && p.footer()) opt.footer_cache->put(cache_key, local->size, local->mtime_ns, p.footer());
  return p.take_result();
}

}  // namespace

FilePruneResult prune_file_identified(RandomAccessFile& file, const FileIdentity& identity, std::string_view column,
                                      const ProbeValues& values, const PruneOptions& options) {
  auto q = PruneQuery::make(std::string(column), values, options);
  if (!q.ok()) {
    FilePruneResult r;
    r.path = file.name();
    return fail(std::move(r), q.error());
  }
  return prune_one(file, **q, &identity);
}

FilePruneResult prune_file(RandomAccessFile& file, std::string_view column, const ProbeValues& values,
                           const PruneOptions& options) {
  auto q = PruneQuery::make(std::string(column), values, options);
  if (!q.ok()) {
    FilePruneResult r;
    r.path = file.name();
    return fail(std::move(r), q.error());
  }
  return prune_one(file, **q);
}

std::vector<FilePruneResult> prune_files(const std::vector<std::string>& paths, std::string_view column,
                                         const ProbeValues& values, const PruneOptions& options,
                                         const std::function<void(size_t)>& on_file_done) {
  // Local files: a read is a system call, so probes read the blocks they test.
  PruneOptions local_options = options;
  local_options.block_reads = true;
  auto q = PruneQuery::make(std::string(column), values, local_options);
  if (!q.ok()) {
    std::vector<FilePruneResult> results(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      results[i].path = paths[i];
      results[i] = fail(std::move(results[i]), q.error());
    }
    return results;
  }
  // The calling thread works too; helpers (parked threads, see
  // helper_threads.h) claim files from a shared counter. The caller waits
  // for the files claimed, not for the helpers: on shared, oversubscribed
  // cores a helper that is scheduled late finds no work and parks again (its
  // task holds the job alive through its shared_ptr).
  struct Job {
    // The caller's vector: read only for files claimed below `total`, all of
    // which finish before the caller returns (late helpers claim nothing).
    const std::vector<std::string>* paths;
    size_t total;
    std::shared_ptr<const PruneQuery> query;
    PruneOptions options;
    std::function<void(size_t)> on_file_done;
    std::vector<FilePruneResult> results;
    std::atomic<size_t> next{0};
    TailSizeHint tail_hint;
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;
  };
  auto job = std::make_shared<Job>();
  job->paths = &paths;
  job->total = paths.size();
  job->query = std::move(*q);
  job->options = options;
  job->on_file_done = on_file_done;
  job->results.resize(paths.size());
  const size_t n = paths.size();
  auto work = [](const std::shared_ptr<Job>& jb, const std::function<void()>& after_file) {
    const size_t total = jb->total;
    DirectoryHandle dir;
    while (true) {
      const size_t i = jb->next.fetch_add(1, std::memory_order_relaxed);
      if (i >= total) break;
      FilePruneResult r;
      try {
        if (jb->options.footer_cache != nullptr) {
          // With a footer cache, a stat() decides; the file is opened only if
          // Bloom filters must be read.
          const std::string& path = (*jb->paths)[i];
          size_t name_offset = 0;
          const int dir_fd = dir.fd_for(path, &name_offset);
          auto f = LazyLocalFile::make_at(dir_fd, path, name_offset);
          if (!f.ok()) {
            r.path = (*jb->paths)[i];
            r = fail(std::move(r), f.error());
          } else {
            const FileIdentity id{f->size(), f->mtime_ns()};
            r = prune_one(*f, *jb->query, &id, &jb->tail_hint);
          }
        } else {
          const std::string& path = (*jb->paths)[i];
          size_t name_offset = 0;
          const int dir_fd = dir.fd_for(path, &name_offset);
          auto f = LocalFile::open_for_reading_at(dir_fd, path, name_offset);  // no stat: no cache to validate
          if (!f.ok()) {
            r.path = (*jb->paths)[i];
            r = fail(std::move(r), f.error());
          } else {
            const FileIdentity id{(*f)->size(), (*f)->mtime_ns()};
            r = prune_one(**f, *jb->query, &id, &jb->tail_hint);
          }
        }
      } catch (const std::bad_alloc&) {
        // Nothing may escape a helper: the file fails, the job goes on.
        r = FilePruneResult{};
        r.path = (*jb->paths)[i];
        r = fail(std::move(r), Error{ErrorCode::kMemoryLimit, "out of memory while pruning"});
      } catch (const std::exception& e) {
        r = FilePruneResult{};
        r.path = (*jb->paths)[i];
        r = fail(std::move(r), Error{ErrorCode::kInvalidArgument, std::string("internal error: ") + e.what()});
      }
      {
        std::lock_guard<std::mutex> lock(jb->mu);
        jb->results[i] = std::move(r);
        if (jb->on_file_done) jb->on_file_done(i);
        if (++jb->done == total) jb->cv.notify_all();
      }
      if (after_file) after_file();
    }
  };
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  auto call_helpers = [&] { run_on_helpers(threads - 1, [job, work] { work(job, std::function<void()>()); }); };
  // Helpers when the job is long enough to pay for them (see
  // PruneOptions::helpers_min_work_us): the caller's time per file so far
  // times the files not yet claimed, estimated as soon as a few files are
  // done (every microsecond the caller waits is one a helper cannot share).
  std::function<void()> after_file;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  size_t mine = 0;
  bool called = threads <= 1;
  if (!called && options.helpers_min_work_us == 0) {
    call_helpers();
    called = true;
  }
  if (!called) {
    after_file = [&] {
      ++mine;
      if (called) return;
      const auto spent = Clock::now() - start;
      // The first estimate waits for a few files: the first one alone, the
      // coldest, would overstate the rest.
      if (mine < 4 || spent < std::chrono::microseconds(10)) return;
      const size_t claimed = job->next.load(std::memory_order_relaxed);
      const size_t left = claimed >= n ? 0 : n - claimed;
      if (left == 0) {
        called = true;
        return;
      }
      if ((spent / mine) * left >= std::chrono::microseconds(options.helpers_min_work_us)) {
        called = true;
        call_helpers();
      }
    };
  }
  work(job, after_file);
  {
    std::unique_lock<std::mutex> lock(job->mu);
    job->cv.wait(lock, [&] { return job->done == n; });
  }
  return std::move(job->results);
}

}  // namespace pqfast::parquet
