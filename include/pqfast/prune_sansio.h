// Pruning without I/O: a file's verdicts from the bytes a caller hands over.
//
// A FilePruner knows a file's name and size and asks for byte ranges: first
// the tail (footer, and the Bloom filters of writers that put them just
// before it), then the footer if the tail was short, then the Bloom filters
// outside what it already holds, coalesced. Fed those, it answers. Whoever
// drives it does the reads: pqfast's local driver with pread on a thread
// pool (prune_files), its remote driver with an async object-store client
// (python/pqfast/remote.py), or any engine's own I/O.
//
//   auto q = pqfast::parquet::PruneQuery::make("user_id", values, opts);
//   pqfast::parquet::FilePruner p(*q, "s3://b/x.parquet", size, /*tail_bytes=*/16384);
//   while (!p.done()) {
//     std::vector<pqfast::parquet::ByteRange> want = p.needs();   // a copy: feeding changes it
//     for (auto r : want) p.feed(r.offset, read(r.offset, r.length));   // or p.fail(error)
//   }
//   const pqfast::parquet::FilePruneResult& verdicts = p.result();
//
// Every byte fed is treated as hostile, as in the rest of the Parquet layer;
// a feed that covers none of the ranges asked for fails the file (a short
// read cannot make a driver loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  bool operator==(const ByteRange&) const = default;
};

// A column and values to prune by, hashed once, with the options; shared
// (read only) by the FilePruners of one call, on any threads.
class PruneQuery {
 public:
  static Result<std::shared_ptr<const PruneQuery>> make(std::string column, ProbeValues values,
                                                        PruneOptions options = {});
  const std::string& column() const { return column_; }
  const ProbeValues& values() const { return values_; }
  const PruneOptions& options() const { return options_; }

  // Hashes of the values: one per value, and the other zero of a
  // floating-point zero (-0.0 for 0.0); FLOAT16 zeros past plain_count().
  const std::vector<uint64_t>& hashes() const { return hashes_; }
  const std::vector<uint32_t>& hash_owner() const { return owner_; }  // value index of each hash
  size_t plain_count() const { return plain_count_; }

 private:
  std::string column_;
  ProbeValues values_;
  PruneOptions options_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> owner_;
  size_t plain_count_ = 0;
};

// The tail a FilePruner asks for first unless told otherwise.
inline constexpr size_t kDefaultTailBytes = 16 * 1024;

class FilePruner {
 public:
  // `tail_bytes`: the first request, [size - tail_bytes, size) (the whole
  // file when smaller; at least 64 bytes). A lake's footers come from one
  // writer: drivers size it from earlier footers (footer_length()).
  FilePruner(const PruneQuery& query, std::string name, uint64_t file_size,
             size_t tail_bytes = kDefaultTailBytes);
  // Starts from a footer decoded before (a footer cache): asks only for filters.
  FilePruner(const PruneQuery& query, std::string name, uint64_t file_size,
             std::shared_ptr<const PruneFooter> footer);
  ~FilePruner();
  FilePruner(FilePruner&&) noexcept;
  FilePruner& operator=(FilePruner&&) noexcept;

  // The ranges to feed next (all of them before the pruner moves on); empty
  // once done().
  const std::vector<ByteRange>& needs() const { return needs_; }
  bool done() const { return state_ == State::kDone; }

  // Hands over the bytes [offset, offset + len). They satisfy every needed
  // range they cover; bytes that cover none fail the file. Once every range
  // asked for is covered, the pruner moves on.
  void feed(uint64_t offset, std::unique_ptr<uint8_t[]> bytes, size_t len);
  void feed(uint64_t offset, const uint8_t* data, size_t len);  // copies
  // A read failed: the file's result is this error.
  void fail(Error error);

  // The verdicts or the error; complete once done().
  const FilePruneResult& result() const { return result_; }
  FilePruneResult take_result() { return std::move(result_); }
  // Bytes of the serialized footer, once the trailer was read (0 before).
  uint32_t footer_length() const { return footer_length_; }
  // Once the footer is decoded: bytes from the probed column's first Bloom
  // filter to the end of the file (0 without filters). Where writers put
  // the filters just before the footer, a tail this long holds them all:
  // remote drivers size the next file's single request by it.
  uint64_t filter_span() const { return filter_span_; }
  // With keep_footer(), the decoded footer owns a copy of its bytes and
  // footer() returns it once decoded (for a footer cache).
  void keep_footer() { keep_footer_ = true; }
  std::shared_ptr<const PruneFooter> footer() const { return kept_; }

 private:
  enum class State : uint8_t { kTail, kFooter, kFilters, kDone };
  struct Chunk {
    uint64_t offset;
    size_t len;
    std::unique_ptr<uint8_t[]> bytes;
    bool keep;  // tail and footer: held to the end
  };
  struct Pending;

  void accept(uint64_t offset, std::unique_ptr<uint8_t[]> bytes, size_t len);
  void step();
  void on_tail();
  void on_footer_bytes(const uint8_t* data);
  void prepare(const PruneFooter& footer);
  void next_batch();
  void resolve_batch();
  void ask_blocks(Pending& p);
  uint64_t ask_probed_blocks(const Pending& p);
  uint64_t learned_layout(size_t g) const;
  size_t probe_hash_count() const;
  void finish();
  void fail_now(Error e);
  void done_and_release();
  const Chunk* holder(uint64_t offset, uint64_t len) const;

  const PruneQuery* query_;
  State state_ = State::kTail;
  uint64_t size_;
  std::vector<ByteRange> needs_;
  std::vector<uint8_t> covered_;  // per need
  size_t uncovered_ = 0;
  std::vector<Chunk> chunks_;
  FilePruneResult result_;
  uint32_t footer_length_ = 0;
  uint64_t filter_span_ = 0;
  bool keep_footer_ = false;
  std::shared_ptr<const PruneFooter> kept_;
  std::unique_ptr<PruneFooter> decoded_;
  // Filters to read and probe, sorted by offset; [cursor_, batch_end_) is
  // the batch being read.
  std::vector<Pending> pending_;
  size_t cursor_ = 0, batch_end_ = 0;
  std::vector<uint8_t> excluded_;  // per (row group, value): min/max rule it out
};

}  // namespace pqfast::parquet
