// The sans-IO pruning core (include/pqfast/prune_sansio.h): tail -> footer
// -> min/max per (row group, value) -> the surviving row groups' Bloom
// filters, asked for in coalesced ranges (none when the tail holds them) ->
// probed together -> verdicts. The drivers (prune.cc for local files, the
// Python remote driver) only move bytes.
#include <algorithm>
#include <cstring>

#include "parquet/internal.h"
#include "parquet/prune_footer.h"
#include "pqfast/hash.h"
#include "pqfast/prune_sansio.h"

namespace pqfast::parquet {

namespace {

template <class T>
T load(std::string_view s) {
  T v;
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

// "INT64", "FIXED_LEN_BYTE_ARRAY(16)": for messages.
[[gnu::cold]] std::string type_label(PhysicalType type, int32_t type_length) {
  std::string s = physical_type_name(type);
  if (type == PhysicalType::kFixedLenByteArray) {
    s += '(';
    s += std::to_string(type_length);
    s += ')';
  }
  return s;
}

// A filter batch closes at this many bytes read (and a coalesced range never
// spans more): the bytes a file's pruning holds at once.
constexpr uint64_t kBatchBytes = uint64_t{64} << 20;

// Block reads ask for this much of a filter first: the headers Arrow C++,
// arrow-rs and parquet-java write take 15-20 bytes; a longer one is read
// whole instead.
constexpr uint64_t kBlockReadHeaderProbe = 64;

uint64_t block_of(uint64_t hash, uint32_t num_blocks) { return ((hash >> 32) * num_blocks) >> 32; }

// PruneOptions::predict_blocks: the bitset a filter of `length` bytes holds
// after a header of 15..46 bytes (the one size in that window leaving whole
// 32-byte blocks; 15 is the smallest header the format allows), and the
// bytes from the filter's start to the end of the last block `hashes` pick;
// 0 when the length leaves no block or the span passes kPredictMaxSpan.
constexpr uint64_t kPredictMinHeader = 15;
constexpr uint64_t kPredictMaxSpan = uint64_t{1} << 20;
uint64_t predicted_span(uint64_t length, const std::vector<uint64_t>& hashes, size_t count) {
  if (length < kPredictMinHeader + kSbbfBytesPerBlock) return 0;
  const uint64_t header = kPredictMinHeader + (length - kPredictMinHeader) % kSbbfBytesPerBlock;
  const uint64_t blocks = (length - header) / kSbbfBytesPerBlock;
  if (blocks == 0 || blocks > UINT32_MAX) return 0;
  uint64_t last = 0;
  for (size_t k = 0; k < count && k < hashes.size(); ++k) {
    last = std::max<uint64_t>(last, block_of(hashes[k], static_cast<uint32_t>(blocks)));
  }
  const uint64_t span = header + (last + 1) * kSbbfBytesPerBlock;
  return span <= kPredictMaxSpan ? span : 0;
}

}  // namespace

// ---- the query -----------------------------------------------------------------------

Result<std::shared_ptr<const PruneQuery>> PruneQuery::make(std::string column, ProbeValues values,
                                                           PruneOptions options) {
  auto q = std::make_shared<PruneQuery>();
  const size_t n = values.size();
  if (values.type == PhysicalType::kBoolean) {
    return make_error(ErrorCode::kInvalidArgument, "BOOLEAN columns have no Bloom filter");
  }
  q->hashes_.resize(n);
  if (values.type == PhysicalType::kByteArray) {
    if (values.offsets.empty()) {
      return make_error(ErrorCode::kInvalidArgument, "BYTE_ARRAY values need n + 1 offsets");
    }
    PQFAST_RETURN_IF_ERROR(hash_byte_arrays(values.data.data(), values.data.size(),
                                            values.offsets.data(), n, q->hashes_.data()));
  } else {
    PQFAST_RETURN_IF_ERROR(hash_fixed_width_values(values.type, values.data.data(), values.data.size(),
                                                   n, values.type_length, q->hashes_.data()));
  }
  q->owner_.resize(n);
  for (size_t i = 0; i < n; ++i) q->owner_[i] = static_cast<uint32_t>(i);
  // A row group holding -0.0 holds a value equal to 0.0, and filters hash bytes.
  if (values.type == PhysicalType::kFloat || values.type == PhysicalType::kDouble) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = values.value(i);
      if (values.type == PhysicalType::kFloat) {
        const float x = load<float>(v);
        if (x == 0.0f) {
          const float y = -x;
          q->hashes_.push_back(xxh64(&y, 4));
          q->owner_.push_back(static_cast<uint32_t>(i));
        }
      } else {
        const double x = load<double>(v);
        if (x == 0.0) {
          const double y = -x;
          q->hashes_.push_back(xxh64(&y, 8));
          q->owner_.push_back(static_cast<uint32_t>(i));
        }
      }
    }
  }
  q->plain_count_ = q->hashes_.size();
  // FLOAT16 is a logical type of FIXED_LEN_BYTE_ARRAY(2): its other zero is
  // probed only on columns that declare FLOAT16.
  if (values.type == PhysicalType::kFixedLenByteArray && values.type_length == 2) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = values.value(i);
      if (v[0] == '\0' && (v[1] == '\0' || v[1] == '\x80')) {
        const uint8_t other[2] = {0, static_cast<uint8_t>(v[1] ^ 0x80)};
        q->hashes_.push_back(xxh64(other, 2));
        q->owner_.push_back(static_cast<uint32_t>(i));
      }
    }
  }
  q->column_ = std::move(column);
  q->values_ = std::move(values);
  q->options_ = std::move(options);
  return std::shared_ptr<const PruneQuery>(std::move(q));
}

// ---- one file ------------------------------------------------------------------------

struct FilePruner::Pending {
  size_t rg_slot;     // index into result.row_groups
  uint64_t offset;    // header start
  uint64_t read_end;  // end of the bytes to read (known or estimated)
  bool length_known;
  bool grown;         // read_end was grown to the header's size
  // Block reads (PruneOptions::block_reads): the header is asked for, then
  // the blocks the hashes pick; kWhole: the filter is read whole.
  enum class Mode : uint8_t { kWhole, kHeader, kBlocks } mode;
  uint32_t header_size;  // kBlocks: the parsed header's size
  uint32_t num_blocks;   // kBlocks: the bitset's blocks
};

FilePruner::FilePruner(const PruneQuery& query, std::string name, uint64_t file_size, size_t tail_bytes)
    : query_(&query), size_(file_size) {
  result_.path = std::move(name);
  if (size_ < 12) {
    fail_now(make_error(ErrorCode::kTruncated, result_.path + ": file of " + std::to_string(size_) +
                                                   " bytes is too small for Parquet (at least 12: "
                                                   "magic, footer length, magic)"));
    return;
  }
  const uint64_t tail = std::min<uint64_t>(size_, std::max<size_t>(tail_bytes, 64));
  chunks_.reserve(4);
  needs_.push_back({size_ - tail, tail});
  covered_.assign(1, 0);
  uncovered_ = 1;
}

FilePruner::FilePruner(const PruneQuery& query, std::string name, uint64_t file_size,
                       std::shared_ptr<const PruneFooter> footer)
    : query_(&query), size_(file_size), kept_(std::move(footer)) {
  result_.path = std::move(name);
  footer_length_ = kept_->footer_length;
  prepare(*kept_);
}

FilePruner::~FilePruner() = default;
FilePruner::FilePruner(FilePruner&&) noexcept = default;
FilePruner& FilePruner::operator=(FilePruner&&) noexcept = default;

void FilePruner::fail_now(Error e) {
  result_.ok = false;
  result_.error = std::move(e);
  result_.row_groups.clear();
  done_and_release();
}

// Done: nothing more to ask for, and the bytes and work lists go.
void FilePruner::done_and_release() {
  state_ = State::kDone;
  needs_.clear();
  covered_.clear();
  uncovered_ = 0;
  chunks_.clear();
  pending_.clear();
  excluded_.clear();
}

void FilePruner::fail(Error error) {
  if (state_ != State::kDone) fail_now(std::move(error));
}

void FilePruner::feed(uint64_t offset, const uint8_t* data, size_t len) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[len ? len : 1]);
  if (len) std::memcpy(copy.get(), data, len);
  feed(offset, std::move(copy), len);
}

void FilePruner::feed(uint64_t offset, std::unique_ptr<uint8_t[]> bytes, size_t len) {
  if (state_ == State::kDone) return;
  accept(offset, std::move(bytes), len);
  if (state_ != State::kDone && uncovered_ == 0) step();
}

void FilePruner::accept(uint64_t offset, std::unique_ptr<uint8_t[]> bytes, size_t len) {
  size_t hits = 0;
  for (size_t i = 0; i < needs_.size(); ++i) {
    const ByteRange& r = needs_[i];
    if (r.offset >= offset && r.offset - offset <= len && r.length <= len - (r.offset - offset)) {
      if (!covered_[i]) {
        covered_[i] = 1;
        --uncovered_;
      }
      ++hits;
    }
  }
  if (hits == 0) {
    std::string want;
    for (const ByteRange& r : needs_) {
      if (!want.empty()) want += ", ";
      want += std::to_string(r.length) + " at byte " + std::to_string(r.offset);
    }
    fail_now(make_error(ErrorCode::kTruncated,
                        result_.path + ": got " + std::to_string(len) + " bytes at byte " +
                            std::to_string(offset) + ", which cover none of the ranges needed (" +
                            want + "); the object is shorter than its listed size of " +
                            std::to_string(size_) + " bytes, or changed"));
    return;
  }
  result_.reads++;
  result_.bytes_read += static_cast<int64_t>(len);
  chunks_.push_back(Chunk{offset, len, std::move(bytes), state_ != State::kFilters});
}

const FilePruner::Chunk* FilePruner::holder(uint64_t offset, uint64_t len) const {
  for (const Chunk& c : chunks_) {
    if (offset >= c.offset && offset - c.offset <= c.len && len <= c.len - (offset - c.offset)) return &c;
  }
  return nullptr;
}

void FilePruner::step() {
  needs_.clear();
  covered_.clear();
  switch (state_) {
    case State::kTail: on_tail(); break;
    case State::kFooter: {
      const Chunk* c = holder(size_ - 8 - footer_length_, footer_length_);
      on_footer_bytes(c->bytes.get() + (size_ - 8 - footer_length_ - c->offset));
      break;
    }
    case State::kFilters: resolve_batch(); break;
    case State::kDone: break;
  }
}

void FilePruner::on_tail() {
  const Chunk* tail = holder(size_ - 8, 8);
  const uint8_t* last8 = tail->bytes.get() + (size_ - 8 - tail->offset);
  auto footer_len = parse_trailer(last8, size_);
  if (!footer_len.ok()) return fail_now(prefix_error(result_.path, footer_len.error()));
  const ParseLimits& limits = query_->options().limits;
  if (*footer_len > limits.max_footer_bytes) {
    return fail_now(make_error(ErrorCode::kLimitExceeded,
                               result_.path + ": footer of " + std::to_string(*footer_len) +
                                   " bytes exceeds the limit of " + std::to_string(limits.max_footer_bytes)));
  }
  footer_length_ = *footer_len;
  const uint64_t start = size_ - 8 - *footer_len;
  if (const Chunk* c = holder(start, *footer_len)) {
    return on_footer_bytes(c->bytes.get() + (start - c->offset));
  }
  state_ = State::kFooter;
  needs_.push_back({start, *footer_len});
  covered_.assign(1, 0);
  uncovered_ = 1;
}

void FilePruner::on_footer_bytes(const uint8_t* data) {
  const uint64_t start = size_ - 8 - footer_length_;
  auto footer = decode_prune_footer(data, footer_length_, start, query_->column(),
                                    query_->options().limits, /*copy=*/keep_footer_);
  if (!footer.ok()) return fail_now(prefix_error(result_.path, footer.error()));
  if (keep_footer_) {
    footer->bloom_layouts.reset(new std::atomic<uint64_t>[footer->row_groups.size()]());
    kept_ = std::make_shared<const PruneFooter>(std::move(*footer));
    prepare(*kept_);
  } else {
    decoded_ = std::make_unique<PruneFooter>(std::move(*footer));
    prepare(*decoded_);
  }
}

void FilePruner::prepare(const PruneFooter& meta) {
  const PruneOptions& opt = query_->options();
  const ProbeValues& values = query_->values();
  result_.num_rows = meta.num_rows;
  const ColumnDescriptor& desc = meta.column;
  if (desc.physical_type != values.type ||
      (values.type == PhysicalType::kFixedLenByteArray && desc.type_length != values.type_length)) {
    return fail_now(make_error(ErrorCode::kInvalidArgument,
                               result_.path + ": column '" + desc.dotted_path + "' is " +
                                   type_label(desc.physical_type, desc.type_length) +
                                   " but the values are " + type_label(values.type, values.type_length)));
  }
  const size_t nv = values.size();
  const size_t ng = meta.row_groups.size();
  result_.row_groups.resize(ng);
  excluded_.assign(nv * ng, 0);
  uint64_t first_filter = size_;
  for (const PruneRowGroup& rg : meta.row_groups) {
    const int64_t o = rg.chunk.bloom_filter_offset;
    if (o >= 0 && static_cast<uint64_t>(o) < first_filter) first_filter = static_cast<uint64_t>(o);
  }
  filter_span_ = size_ - first_filter;
  for (size_t g = 0; g < ng; ++g) {
    const PruneRowGroup& rg = meta.row_groups[g];
    const PruneChunk& chunk = rg.chunk;
    RowGroupVerdict& out = result_.row_groups[g];
    out.row_group = static_cast<int32_t>(g);
    if (!chunk.has_meta_data) {
      return fail_now(make_error(ErrorCode::kUnsupported,
                                 result_.path + ": row group " + std::to_string(g) + " column '" +
                                     desc.dotted_path + "': " +
                                     (chunk.encrypted ? "encrypted column metadata, not supported"
                                                      : "column chunk without metadata")));
    }
    uint8_t* ex = excluded_.data() + g * nv;
    uint32_t n_ex = 0;
    if (opt.use_statistics) {
      const bool all_null = rg.num_rows == 0 || chunk.num_values == 0 ||
                            (chunk.has_statistics && chunk.has_null_count &&
                             chunk.null_count >= chunk.num_values);
      for (size_t i = 0; i < nv; ++i) {
        ex[i] = all_null || prune_stats_exclude(meta, chunk, values.value(i));
        n_ex += ex[i];
      }
    }
    out.excluded_by_stats = n_ex;
    if (nv > 0 && n_ex == nv) {
      out.verdict = Verdict::kAbsentByStats;
      continue;
    }
    // A chunk stored in another file (ColumnChunk.file_path) has its filter
    // there too: not followed, so not probed.
    if (!opt.use_bloom || chunk.bloom_filter_offset < 0 || chunk.in_other_file) {
      out.verdict = Verdict::kNoFilter;
      out.maybe = static_cast<uint32_t>(nv - n_ex);
      continue;
    }
    const int64_t off = chunk.bloom_filter_offset;
    const int32_t len = chunk.bloom_filter_length;
    if (auto st = check_bloom_location(result_.path, size_, off, len); !st.ok()) {
      return fail_now(st.error());
    }
    Pending p;
    p.rg_slot = g;
    p.offset = static_cast<uint64_t>(off);
    p.length_known = len >= 0;
    p.read_end = p.length_known ? p.offset + static_cast<uint64_t>(len) : 0;
    p.grown = false;
    p.mode = Pending::Mode::kWhole;
    p.header_size = p.num_blocks = 0;
    pending_.push_back(p);
  }
  if (!pending_.empty()) {
    const uint64_t footer_start = size_ - 8 - meta.footer_length;
    // Without a length, the filter ends at the latest where the next known
    // structure starts (another filter, a page index, a column chunk, the
    // footer): read up to there, and once more only if the header says more.
    if (std::any_of(pending_.begin(), pending_.end(), [](const Pending& p) { return !p.length_known; })) {
      std::vector<uint64_t> starts;
      for (const PruneRowGroup& rg : meta.row_groups) {
        const PruneChunk& c = rg.chunk;
        for (int64_t o : {c.bloom_filter_offset, c.column_index_offset, c.offset_index_offset,
                          c.data_page_offset, c.dictionary_page_offset}) {
          if (o > 0) starts.push_back(static_cast<uint64_t>(o));
        }
      }
      std::sort(starts.begin(), starts.end());
      for (Pending& p : pending_) {
        if (p.length_known) continue;
        auto it = std::upper_bound(starts.begin(), starts.end(), p.offset);
        uint64_t end = it != starts.end() ? std::min(*it, footer_start) : footer_start;
        if (end <= p.offset) end = std::min<uint64_t>(size_, p.offset + kMaxBloomHeaderBytes);
        // An estimate only: past it, the header tells and one more read follows.
        p.read_end = std::min<uint64_t>(end, p.offset + kMaxBloomEstimateBytes);
      }
    }
    std::sort(pending_.begin(), pending_.end(),
              [](const Pending& a, const Pending& b) { return a.offset < b.offset; });
  }
  state_ = State::kFilters;
  cursor_ = batch_end_ = 0;
  next_batch();
}

// The next batch of filters: coalesced ranges not already held are asked
// for, until the batch holds kBatchBytes; with block reads, a filter not
// held is asked for by its header alone (see resolve_batch).
void FilePruner::next_batch() {
  if (cursor_ >= pending_.size()) return finish();
  const PruneOptions& opt = query_->options();
  const uint32_t gap = opt.coalesce_gap;
  const bool blocks = opt.block_reads && probe_hash_count() <= kBlockReadMaxHashes;
  // By blocks: a filter not held (the tail may hold it) and not small.
  auto by_blocks = [&](const Pending& p) {
    return blocks && (!p.length_known || p.read_end - p.offset >= kBlockReadMinBytes) &&
           !holder(p.offset, p.read_end - p.offset);
  };
  uint64_t batch_bytes = 0;
  size_t i = cursor_;
  while (i < pending_.size() && batch_bytes < kBatchBytes) {
    Pending& first = pending_[i];
    const uint64_t lo = first.offset;
    if (by_blocks(first)) {
      if (const uint64_t layout = learned_layout(first.rg_slot)) {
        // The header was read by an earlier probe of the unchanged file.
        first.mode = Pending::Mode::kBlocks;
        first.header_size = static_cast<uint32_t>(layout >> 32);
        first.num_blocks = static_cast<uint32_t>(layout);
        batch_bytes += ask_probed_blocks(first);
        ++i;
        continue;
      }
      first.mode = Pending::Mode::kHeader;
      uint64_t n = std::min(kBlockReadHeaderProbe, (first.length_known ? first.read_end : size_) - lo);
      if (opt.predict_blocks && first.length_known) {
        // The header and the blocks its length implies, in one read.
        n = std::max(n, std::min(first.read_end - lo, predicted_span(first.read_end - lo, query_->hashes(),
                                                                      probe_hash_count())));
      }
      if (!holder(lo, n)) needs_.push_back({lo, n});
      batch_bytes += n;
      ++i;
      continue;
    }
    uint64_t hi = first.read_end;
    size_t j = i + 1;
    // Whole filters nearby join the range; a filter read by blocks ends it.
    while (j < pending_.size() && pending_[j].offset <= hi + gap &&
           std::max(hi, pending_[j].read_end) - lo <= kBatchBytes && !by_blocks(pending_[j])) {
      hi = std::max(hi, pending_[j].read_end);
      ++j;
    }
    if (!holder(lo, hi - lo)) {
      needs_.push_back({lo, hi - lo});
      batch_bytes += hi - lo;
    }
    i = j;
  }
  batch_end_ = i;
  covered_.assign(needs_.size(), 0);
  uncovered_ = needs_.size();
  if (uncovered_ == 0) {
    // Everything is in the tail: probe now.
    needs_.clear();
    resolve_batch();
  }
}

// Hashes a probe of one filter tests: the plain values' (and FLOAT16's
// other zero: see resolve_batch).
size_t FilePruner::probe_hash_count() const {
  const ColumnDescriptor& desc = (kept_ ? *kept_ : *decoded_).column;
  return desc.logical.kind == LogicalType::kFloat16 ? query_->hashes().size() : query_->plain_count();
}

// Block reads, once a filter's header bytes are in: the header is checked as
// a whole filter's would be, and the blocks the hashes pick are asked for.
// A header longer than the probe sends the filter back to a whole read.
void FilePruner::ask_blocks(Pending& p) {
  const uint64_t avail_end = p.length_known ? p.read_end : size_;
  const uint64_t probe = std::min(kBlockReadHeaderProbe, avail_end - p.offset);
  const Chunk* c = holder(p.offset, probe);
  if (c == nullptr) {  // asked for by next_batch with the same bounds: cannot happen
    return fail_now(make_error(ErrorCode::kCorrupt, result_.path + ": Bloom filter header at byte " +
                                                        std::to_string(p.offset) + " was not read"));
  }
  const uint8_t* at = c->bytes.get() + (p.offset - c->offset);
  auto h = parse_sbbf_header(at, static_cast<size_t>(probe));
  if (!h.ok()) {
    if (probe < std::min<uint64_t>(kMaxBloomHeaderBytes, avail_end - p.offset)) {
      p.mode = Pending::Mode::kWhole;  // a long header: read the filter whole
      if (!p.length_known) p.read_end = std::min<uint64_t>(size_, p.offset + kMaxBloomHeaderBytes);
      if (!holder(p.offset, p.read_end - p.offset)) needs_.push_back({p.offset, p.read_end - p.offset});
      return;
    }
    return fail_now(make_error(h.error().code, result_.path + ": Bloom filter at byte " +
                                                   std::to_string(p.offset) + ": " + h.error().message));
  }
  const uint64_t total = uint64_t{h->header_size} + h->num_bytes;
  if (total > avail_end - p.offset) {
    return fail_now(make_error(
        ErrorCode::kTruncated,
        result_.path + ": Bloom filter at byte " + std::to_string(p.offset) + " announces a " +
            std::to_string(h->num_bytes) + "-byte bitset but only " +
            std::to_string(avail_end - p.offset - h->header_size) + " bytes follow its " +
            std::to_string(h->header_size) + "-byte header"));
  }
  // The size rules of a bitset (the pointer is not read).
  auto v = SbbfView::make(at, h->num_bytes);
  if (!v.ok()) {
    return fail_now(make_error(ErrorCode::kCorrupt, result_.path + ": Bloom filter at byte " +
                                                        std::to_string(p.offset) + ": " + v.error().message));
  }
  p.mode = Pending::Mode::kBlocks;
  p.header_size = h->header_size;
  p.num_blocks = v->num_blocks();
  if (kept_ && kept_->bloom_layouts && p.num_blocks > 0) {
    kept_->bloom_layouts[p.rg_slot].store(uint64_t{p.header_size} << 32 | p.num_blocks,
                                          std::memory_order_relaxed);
  }
  ask_probed_blocks(p);
}

// A kept footer's learned layout of row group `g`'s filter (0: not learned).
uint64_t FilePruner::learned_layout(size_t g) const {
  if (!kept_ || !kept_->bloom_layouts) return 0;
  return kept_->bloom_layouts[g].load(std::memory_order_relaxed);
}

// Asks for the blocks of a kBlocks filter that the hashes pick and that are
// not held yet (once each); returns the bytes asked for.
uint64_t FilePruner::ask_probed_blocks(const Pending& p) {
  const uint64_t bitset = p.offset + p.header_size;
  const auto& hashes = query_->hashes();
  const size_t nh = probe_hash_count();
  const size_t first_need = needs_.size();
  uint64_t asked_bytes = 0;
  for (size_t k = 0; k < nh; ++k) {
    const uint64_t at_block = bitset + block_of(hashes[k], p.num_blocks) * kSbbfBytesPerBlock;
    if (holder(at_block, kSbbfBytesPerBlock)) continue;
    bool asked = false;
    for (size_t n = first_need; n < needs_.size() && !asked; ++n) asked = needs_[n].offset == at_block;
    if (!asked) {
      needs_.push_back({at_block, kSbbfBytesPerBlock});
      asked_bytes += kSbbfBytesPerBlock;
    }
  }
  return asked_bytes;
}

// Once the batch's ranges are in: filters without a length whose header
// announces more than was read ask for the rest; then every filter of the
// batch is probed against every hash in one multi-filter call.
void FilePruner::resolve_batch() {
  for (size_t k = cursor_; k < batch_end_; ++k) {
    Pending& p = pending_[k];
    if (p.mode == Pending::Mode::kHeader) {
      ask_blocks(p);
      if (state_ == State::kDone) return;
      continue;
    }
    if (p.mode == Pending::Mode::kBlocks || p.length_known || p.grown) continue;
    const Chunk* c = holder(p.offset, p.read_end - p.offset);
    if (c == nullptr) continue;  // asked for below
    const uint8_t* at = c->bytes.get() + (p.offset - c->offset);
    auto h = parse_sbbf_header(at, static_cast<size_t>(p.read_end - p.offset));
    if (h.ok() && uint64_t{h->header_size} + h->num_bytes > p.read_end - p.offset) {
      const uint64_t total = uint64_t{h->header_size} + h->num_bytes;
      if (total > size_ - p.offset) {
        return fail_now(make_error(ErrorCode::kTruncated,
            result_.path + ": Bloom filter at byte " + std::to_string(p.offset) + " announces " +
                std::to_string(h->num_bytes) + " bytes of bitset, past the end of the file"));
      }
      p.read_end = p.offset + total;
      p.grown = true;
      if (!holder(p.offset, total)) needs_.push_back({p.offset, total});
    }
  }
  if (!needs_.empty()) {
    covered_.assign(needs_.size(), 0);
    uncovered_ = needs_.size();
    return;
  }
  const ColumnDescriptor& desc = (kept_ ? *kept_ : *decoded_).column;
  const size_t nv = query_->values().size();
  const bool per_value = query_->options().per_value;
  std::vector<SbbfRef> refs;
  std::vector<size_t> slots;
  refs.reserve(batch_end_ - cursor_);
  slots.reserve(batch_end_ - cursor_);
  size_t block_filters = 0;
  for (size_t k = cursor_; k < batch_end_; ++k) {
    const Pending& p = pending_[k];
    if (p.mode == Pending::Mode::kBlocks) {
      ++block_filters;
      continue;
    }
    const Chunk* c = holder(p.offset, p.read_end - p.offset);
    uint8_t* at = c->bytes.get() + (p.offset - c->offset);
    auto view = bloom_view_in_place(at, static_cast<size_t>(p.read_end - p.offset), p.offset, result_.path,
                                    nullptr);
    if (!view.ok()) return fail_now(view.error());
    refs.push_back(view->ref());
    slots.push_back(p.rg_slot);
  }
  // FLOAT16 columns probe the other zero too; other FLBA(2) columns do not.
  const auto& hashes = query_->hashes();
  const auto& owner = query_->hash_owner();
  const size_t whole = refs.size();
  const size_t nf = whole + block_filters;
  const size_t nh = desc.logical.kind == LogicalType::kFloat16 ? hashes.size() : query_->plain_count();
  std::vector<uint8_t> product(nh * nf), maybe_flags;
  if (whole) {
    std::vector<uint8_t> whole_product(nh * whole);
    sbbf_check_product(refs.data(), whole, hashes.data(), nh, whole_product.data());
    for (size_t h = 0; h < nh; ++h) {
      std::copy_n(whole_product.data() + h * whole, whole, product.data() + h * nf);
    }
  }
  // Filters read by blocks: each hash against its block alone, a one-block
  // filter (block index 0): the same bits a probe of the whole filter tests.
  for (size_t k = cursor_, f = whole; k < batch_end_; ++k) {
    const Pending& p = pending_[k];
    if (p.mode != Pending::Mode::kBlocks) continue;
    const uint64_t bitset = p.offset + p.header_size;
    for (size_t h = 0; h < nh; ++h) {
      const uint64_t at_block = bitset + block_of(hashes[h], p.num_blocks) * kSbbfBytesPerBlock;
      const Chunk* c = holder(at_block, kSbbfBytesPerBlock);
      const SbbfRef one{reinterpret_cast<const uint32_t*>(c->bytes.get() + (at_block - c->offset)), 1};
      sbbf_check_product(&one, 1, &hashes[h], 1, &product[h * nf + f]);
    }
    slots.push_back(p.rg_slot);
    ++f;
  }
  for (size_t f = 0; f < nf; ++f) {
    RowGroupVerdict& out = result_.row_groups[slots[f]];
    const uint8_t* ex = excluded_.data() + slots[f] * nv;
    // A value is a "maybe" when min/max keep it and any of its hashes is.
    maybe_flags.assign(nv, 0);
    for (size_t h = 0; h < nh; ++h) {
      const uint32_t v = owner[h];
      if (!ex[v]) maybe_flags[v] |= product[h * nf + f];
    }
    uint32_t n_maybe = 0;
    for (size_t v = 0; v < nv; ++v) n_maybe += maybe_flags[v];
    out.maybe = n_maybe;
    out.excluded_by_bloom = static_cast<uint32_t>(nv - out.excluded_by_stats - n_maybe);
    out.verdict = n_maybe ? Verdict::kMaybe : Verdict::kAbsentByBloom;
    if (per_value) {
      out.per_value.resize(nv);
      for (size_t v = 0; v < nv; ++v) {
        out.per_value[v] = ex[v] ? Verdict::kAbsentByStats
                           : maybe_flags[v] ? Verdict::kMaybe : Verdict::kAbsentByBloom;
      }
    }
  }
  // The batch's bytes go; the tail and footer stay.
  chunks_.erase(std::remove_if(chunks_.begin(), chunks_.end(), [](const Chunk& c) { return !c.keep; }),
                chunks_.end());
  cursor_ = batch_end_;
  next_batch();
}

void FilePruner::finish() {
  const size_t nv = query_->values().size();
  if (query_->options().per_value) {
    for (size_t g = 0; g < result_.row_groups.size(); ++g) {
      RowGroupVerdict& out = result_.row_groups[g];
      if (!out.per_value.empty() || nv == 0) continue;
      out.per_value.resize(nv);
      const uint8_t* ex = excluded_.data() + g * nv;
      for (size_t v = 0; v < nv; ++v) out.per_value[v] = ex[v] ? Verdict::kAbsentByStats : out.verdict;
    }
  }
  done_and_release();
}

}  // namespace pqfast::parquet
