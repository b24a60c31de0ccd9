// Pruning: values x row groups -> verdicts. Per file: one tail read for the
// footer, min/max statistics per value, then the Bloom filters of the row
// groups that survive, read in coalesced ranges (served from the tail buffer
// when it already holds them) and probed with the batched kernels.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <system_error>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "parquet/internal.h"
#include "parquet/prune_footer.h"
#include "pqfast/hash.h"
#include "pqfast/parquet.h"

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

enum class Order { kSigned, kUnsigned, kFloat, kFloat16, kBytes, kDecimalBytes, kNone };

Order sort_order(const ColumnDescriptor& d) {
  const auto& lt = d.logical;
  switch (d.physical_type) {
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      const bool is_unsigned = (lt.kind == LogicalType::kInteger && !lt.is_signed) ||
                               (d.converted_type >= 11 && d.converted_type <= 14);
      return is_unsigned ? Order::kUnsigned : Order::kSigned;
    }
    case PhysicalType::kFloat:
    case PhysicalType::kDouble: return Order::kFloat;
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      if (lt.kind == LogicalType::kDecimal || d.converted_type == 5) return Order::kDecimalBytes;
      if (lt.kind == LogicalType::kFloat16) {
        return d.physical_type == PhysicalType::kFixedLenByteArray && d.type_length == 2 ? Order::kFloat16
                                                                                         : Order::kNone;
      }
      if (lt.kind == LogicalType::kOther ||
          lt.kind == LogicalType::kVariant || lt.kind == LogicalType::kGeometry ||
          lt.kind == LogicalType::kGeography || d.converted_type == 21) {
        return Order::kNone;
      }
      return Order::kBytes;
    default: return Order::kNone;  // BOOLEAN (no filters), INT96 (undefined order)
  }
}

template <class T>
T load(std::string_view s) {
  T v;
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

// Signed big-endian two's complement, any lengths (sign-extended).
int compare_decimal(std::string_view a, std::string_view b) {
  const bool na = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  const bool nb = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (na != nb) return na ? -1 : 1;
  const size_t n = std::max(a.size(), b.size());
  const uint8_t fill = na ? 0xff : 0x00;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = i < n - a.size() ? fill : static_cast<uint8_t>(a[i - (n - a.size())]);
    const uint8_t y = i < n - b.size() ? fill : static_cast<uint8_t>(b[i - (n - b.size())]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int compare_bytes(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// IEEE 754 binary16 (little-endian, as FLOAT16 is stored) widened to float:
// exact for every half value, NaN stays NaN.
float half_to_float(std::string_view s) {
  const uint16_t h = static_cast<uint16_t>(static_cast<uint8_t>(s[0]) | (static_cast<uint8_t>(s[1]) << 8));
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float magnitude;
  if (exp == 0) {
    magnitude = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    magnitude = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -magnitude : magnitude;
}

// Compares value v with bound b in `order`; returns nullopt when the
// comparison means nothing (wrong width, NaN).
std::optional<int> compare(Order order, PhysicalType type, std::string_view v, std::string_view b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (order) {
    case Order::kSigned:
    case Order::kUnsigned: {
      const size_t w = type == PhysicalType::kInt32 ? 4 : 8;
      if (v.size() != w || b.size() != w) return std::nullopt;
      if (w == 4) {
        return order == Order::kSigned ? cmp(load<int32_t>(v), load<int32_t>(b))
                                       : cmp(load<uint32_t>(v), load<uint32_t>(b));
      }
      return order == Order::kSigned ? cmp(load<int64_t>(v), load<int64_t>(b))
                                     : cmp(load<uint64_t>(v), load<uint64_t>(b));
    }
    case Order::kFloat: {
      if (type == PhysicalType::kFloat) {
        if (v.size() != 4 || b.size() != 4) return std::nullopt;
        const float x = load<float>(v), y = load<float>(b);
        if (std::isnan(x) || std::isnan(y)) return std::nullopt;
        return cmp(x, y);  // -0.0 == +0.0
      }
      if (v.size() != 8 || b.size() != 8) return std::nullopt;
      const double x = load<double>(v), y = load<double>(b);
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return cmp(x, y);
    }
    case Order::kFloat16: {
      if (v.size() != 2 || b.size() != 2) return std::nullopt;
      const float x = half_to_float(v), y = half_to_float(b);
      if (std::isnan(x) || std::isnan(y)) return std::nullopt;
      return cmp(x, y);  // -0.0 == +0.0
    }
    case Order::kBytes: return compare_bytes(v, b);
    case Order::kDecimalBytes: return compare_decimal(v, b);
    case Order::kNone: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

namespace {

// min/max of one chunk, wherever they were decoded.
struct MinMax {
  bool has_min, has_max, min_is_legacy, max_is_legacy;
  std::string_view min, max;
};

bool min_max_exclude(const ColumnDescriptor& d, bool type_order_ok, const MinMax& s,
                     std::string_view value) {
  const Order order = sort_order(d);
  if (order == Order::kNone) return false;
  // Legacy min/max were written in signed order of the physical type: only
  // trustworthy where that is the type's order.
  auto usable = [&](bool legacy) {
    if (legacy) return order == Order::kSigned || order == Order::kFloat;
    return type_order_ok;
  };
  if (s.has_min && usable(s.min_is_legacy)) {
    auto c = compare(order, d.physical_type, value, s.min);
    if (c && *c < 0) return true;
  }
  if (s.has_max && usable(s.max_is_legacy)) {
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
  const bool type_order_ok = !meta.has_column_orders || meta.column_type_defined_order[leaf];
  return min_max_exclude(meta.columns[leaf], type_order_ok,
                         MinMax{s.has_min, s.has_max, s.min_is_legacy, s.max_is_legacy, s.min, s.max},
                         value);
}

bool prune_stats_exclude(const PruneFooter& footer, const PruneChunk& c, std::string_view value) {
  if (!c.has_statistics) return false;
  return min_max_exclude(footer.column, footer.type_defined_order,
                         MinMax{c.has_min, c.has_max, c.min_is_legacy, c.max_is_legacy, c.min, c.max},
                         value);
}

// ---- pruning one file ------------------------------------------------------------------

namespace {

// Keeps a helper thread off the caller's core. Kernels that pack runnable
// threads onto few CPUs (virtual machines whose idle vCPUs are halted) start
// a new thread on the core that created it, where it waits for the caller's
// time slice (~1 ms, the whole job) instead of working beside it. The helper
// may run on any other CPU the process is allowed; nothing changes on a
// single-CPU set. Linux only; elsewhere the scheduler decides.
void move_off_callers_cpu([[maybe_unused]] std::thread& t) {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  const int here = sched_getcpu();
  if (here < 0 || here >= CPU_SETSIZE || !CPU_ISSET(here, &allowed)) return;
  CPU_CLR(here, &allowed);
  if (CPU_COUNT(&allowed) == 0) return;
  pthread_setaffinity_np(t.native_handle(), sizeof allowed, &allowed);  // a hint: failure is harmless
#endif
}

}  // namespace

namespace {

// The one place that probes loaded filters: every hash against every filter
// of a batch (one column's row groups) through the multi-filter kernel,
// out[h * num_filters + f].
inline void probe_filters(const SbbfRef* filters, size_t num_filters, const uint64_t* hashes,
                          size_t num_hashes, uint8_t* out) {
  sbbf_check_product(filters, num_filters, hashes, num_hashes, out);
}

// Hashes of the values: one per value, two for a floating-point zero (a row
// group holding -0.0 holds a value equal to 0.0, and the filter hashes
// bytes). FLOAT16 is a logical type of FIXED_LEN_BYTE_ARRAY(2): its second
// zero is appended past `plain_count` and probed only on columns that
// declare FLOAT16.
struct HashedValues {
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> owner;  // value index of each hash
  size_t plain_count = 0;       // hashes[0, plain_count): all but the FLOAT16 zeros
};

Result<HashedValues> hash_probe_values(const ProbeValues& values) {
  HashedValues hv;
  const size_t n = values.size();
  hv.hashes.resize(n);
  if (values.type == PhysicalType::kBoolean) {
    return make_error(ErrorCode::kInvalidArgument, "BOOLEAN columns have no Bloom filter");
  }
  if (values.type == PhysicalType::kByteArray) {
    if (values.offsets.empty()) {
      return make_error(ErrorCode::kInvalidArgument, "BYTE_ARRAY values need n + 1 offsets");
    }
    PQFAST_RETURN_IF_ERROR(hash_byte_arrays(values.data.data(), values.data.size(),
                                            values.offsets.data(), n, hv.hashes.data()));
  } else {
    PQFAST_RETURN_IF_ERROR(hash_fixed_width_values(values.type, values.data.data(),
                                                   values.data.size(), n, values.type_length,
                                                   hv.hashes.data()));
  }
  hv.owner.resize(n);
  for (size_t i = 0; i < n; ++i) hv.owner[i] = static_cast<uint32_t>(i);
  if (values.type == PhysicalType::kFloat || values.type == PhysicalType::kDouble) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = values.value(i);
      if (values.type == PhysicalType::kFloat) {
        const float x = load<float>(v);
        if (x == 0.0f) {
          const float y = -x;
          hv.hashes.push_back(xxh64(&y, 4));
          hv.owner.push_back(static_cast<uint32_t>(i));
        }
      } else {
        const double x = load<double>(v);
        if (x == 0.0) {
          const double y = -x;
          hv.hashes.push_back(xxh64(&y, 8));
          hv.owner.push_back(static_cast<uint32_t>(i));
        }
      }
    }
  }
  hv.plain_count = hv.hashes.size();
  if (values.type == PhysicalType::kFixedLenByteArray && values.type_length == 2) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view v = values.value(i);
      if (v[0] == '\0' && (v[1] == '\0' || v[1] == '\x80')) {  // +0.0 or -0.0, little-endian
        const uint8_t other[2] = {0, static_cast<uint8_t>(v[1] ^ 0x80)};
        hv.hashes.push_back(xxh64(other, 2));  // past plain_count: FLOAT16 columns only
        hv.owner.push_back(static_cast<uint32_t>(i));
      }
    }
  }
  return hv;
}

struct PendingFilter {
  size_t rg_slot;       // index into result.row_groups
  uint64_t offset;      // header start
  uint64_t read_end;    // end of the bytes to read (known or estimated)
  bool length_known;
};

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

FilePruneResult fail(FilePruneResult r, Error e) {
  r.ok = false;
  r.error = std::move(e);
  r.row_groups.clear();
  return r;
}

// The tail read's size for the files of one call. The footers of a lake
// come from one writer and are about the same size: each file reads what the
// previous one's footer took, rounded up to pages with an eighth to spare,
// starting from kSpeculativeTailBytes. Reading less than a fixed 16 KiB saves
// page-cache lookups and copying (4% of a file's cost on the bench lake); a
// file whose footer outgrows the hint costs one more read, and the hint grows.
class TailSizeHint {
 public:
  size_t get() const { return bytes_.load(std::memory_order_relaxed); }
  void learn(uint32_t footer_length) {
    const uint64_t want = uint64_t{footer_length} + 8 + footer_length / 8 + 512;
    const uint64_t pages = (want + 4095) & ~uint64_t{4095};
    bytes_.store(static_cast<size_t>(std::clamp<uint64_t>(pages, 4096, uint64_t{1} << 20)),
                 std::memory_order_relaxed);
  }

 private:
  std::atomic<size_t> bytes_{kSpeculativeTailBytes};
};

FilePruneResult prune_one(RandomAccessFile& file, std::string_view column, const ProbeValues& values,
                          const HashedValues& hv, const PruneOptions& opt,
                          const FileIdentity* local = nullptr, TailSizeHint* tail_hint = nullptr) {
  FilePruneResult res;
  res.path = file.name();
  ReadStats rs;
  TailBuffer tail;
  std::shared_ptr<const PruneFooter> cached;
  std::optional<PruneFooter> decoded;
  std::string cache_key;
  if (opt.footer_cache != nullptr && local != nullptr) {
    cache_key = file.name();
    cache_key += '\0';
    cache_key += column;
    cached = opt.footer_cache->get(cache_key, local->size, local->mtime_ns);
  }
  if (!cached) {
    auto bytes = read_footer_bytes(file, opt.limits, &rs, &tail,
                                   tail_hint ? tail_hint->get() : kSpeculativeTailBytes);
    res.reads = rs.reads;
    res.bytes_read = rs.bytes;
    if (!bytes.ok()) return fail(std::move(res), bytes.error());
    if (tail_hint) tail_hint->learn(bytes->len);
    // Cached footers own a copy of their bytes; others point into the tail.
    auto footer = decode_prune_footer(bytes->data, bytes->len, bytes->start, column, opt.limits,
                                      /*copy=*/!cache_key.empty() || !bytes->owned.empty());
    if (!footer.ok()) return fail(std::move(res), prefix_error(file.name(), footer.error()));
    if (!cache_key.empty()) {
      cached = std::make_shared<const PruneFooter>(std::move(*footer));
      opt.footer_cache->put(cache_key, local->size, local->mtime_ns, cached);
    } else {
      decoded.emplace(std::move(*footer));
    }
  }
  const PruneFooter& meta = cached ? *cached : *decoded;
  res.num_rows = meta.num_rows;
  const ColumnDescriptor& desc = meta.column;
  if (desc.physical_type != values.type ||
      (values.type == PhysicalType::kFixedLenByteArray && desc.type_length != values.type_length)) {
    return fail(std::move(res),
                make_error(ErrorCode::kInvalidArgument,
                           file.name() + ": column '" + desc.dotted_path + "' is " +
                               type_label(desc.physical_type, desc.type_length) +
                               " but the values are " + type_label(values.type, values.type_length)));
  }
  const size_t nv = values.size();
  const size_t ng = meta.row_groups.size();
  res.row_groups.resize(ng);
  // Per row group, which values min/max exclude (1 byte per value x group).
  std::vector<uint8_t> excluded(nv * ng, 0);
  std::vector<PendingFilter> pending;
  for (size_t g = 0; g < ng; ++g) {
    const PruneRowGroup& rg = meta.row_groups[g];
    const PruneChunk& chunk = rg.chunk;
    RowGroupVerdict& out = res.row_groups[g];
    out.row_group = static_cast<int32_t>(g);
    if (!chunk.has_meta_data) {
      return fail(std::move(res),
                  make_error(ErrorCode::kUnsupported,
                             file.name() + ": row group " + std::to_string(g) + " column '" +
                                 desc.dotted_path + "': " +
                                 (chunk.encrypted ? "encrypted column metadata, not supported"
                                                  : "column chunk without metadata")));
    }
    uint8_t* ex = excluded.data() + g * nv;
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
    if (auto st = check_bloom_location(file, chunk.bloom_filter_offset, chunk.bloom_filter_length); !st.ok()) {
      return fail(std::move(res), st.error());
    }
    PendingFilter p;
    p.rg_slot = g;
    p.offset = static_cast<uint64_t>(chunk.bloom_filter_offset);
    p.length_known = chunk.bloom_filter_length >= 0;
    p.read_end = p.length_known ? p.offset + static_cast<uint64_t>(chunk.bloom_filter_length) : 0;
    pending.push_back(p);
  }
  if (!pending.empty()) {
    const uint64_t footer_start = file.size() - 8 - meta.footer_length;
    // Without a length, the filter ends at the latest where the next known
    // structure starts (another filter, a page index, a column chunk, the
    // footer): read up to there, and once more only if the header says more.
    std::vector<uint64_t> starts;
    if (std::any_of(pending.begin(), pending.end(), [](const PendingFilter& p) { return !p.length_known; })) {
      // Only the probed column is decoded; its row groups' chunks and page
      // indexes bound each filter (other columns' structures were skipped).
      for (const PruneRowGroup& rg : meta.row_groups) {
        {
          const PruneChunk& c = rg.chunk;
          for (int64_t o : {c.bloom_filter_offset, c.column_index_offset, c.offset_index_offset,
                            c.data_page_offset, c.dictionary_page_offset}) {
            if (o > 0) starts.push_back(static_cast<uint64_t>(o));
          }
        }
      }
      std::sort(starts.begin(), starts.end());
    }
    for (PendingFilter& p : pending) {
      if (p.length_known) continue;
      auto it = std::upper_bound(starts.begin(), starts.end(), p.offset);
      uint64_t end = it != starts.end() ? std::min(*it, footer_start) : footer_start;
      if (end <= p.offset) end = std::min<uint64_t>(file.size(), p.offset + kMaxBloomHeaderBytes);
      // An estimate only: past it, the header tells and one more read follows.
      p.read_end = std::min<uint64_t>(end, p.offset + kMaxBloomEstimateBytes);
    }
    std::sort(pending.begin(), pending.end(),
              [](const PendingFilter& a, const PendingFilter& b) { return a.offset < b.offset; });
    // Filters are loaded range by range and probed together: every hash
    // against every loaded filter of this column in one multi-filter call
    // (pairs min/max already excluded are ignored afterwards). Buffers stay
    // alive until their batch is probed; a batch closes at 64 MiB.
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<SbbfRef> refs;
    std::vector<size_t> ref_slot;  // row group of each filter
    size_t batch_bytes = 0;
    std::vector<uint8_t> product, maybe_flags;
    auto flush = [&]() {
      if (refs.empty()) return;
      // FLOAT16 columns probe the other zero too; other FLBA(2) columns do not.
      const size_t nf = refs.size();
      const size_t nh = desc.logical.kind == LogicalType::kFloat16 ? hv.hashes.size() : hv.plain_count;
      product.resize(nh * nf);
      probe_filters(refs.data(), nf, hv.hashes.data(), nh, product.data());
      for (size_t f = 0; f < nf; ++f) {
        RowGroupVerdict& out = res.row_groups[ref_slot[f]];
        const uint8_t* ex = excluded.data() + ref_slot[f] * nv;
        // A value is a "maybe" when min/max keep it and any of its hashes is.
        maybe_flags.assign(nv, 0);
        for (size_t h = 0; h < nh; ++h) {
          const uint32_t v = hv.owner[h];
          if (!ex[v]) maybe_flags[v] |= product[h * nf + f];
        }
        uint32_t n_maybe = 0;
        for (size_t v = 0; v < nv; ++v) n_maybe += maybe_flags[v];
        out.maybe = n_maybe;
        out.excluded_by_bloom = static_cast<uint32_t>(nv - out.excluded_by_stats - n_maybe);
        out.verdict = n_maybe ? Verdict::kMaybe : Verdict::kAbsentByBloom;
        if (opt.per_value) {
          out.per_value.resize(nv);
          for (size_t v = 0; v < nv; ++v) {
            out.per_value[v] = ex[v] ? Verdict::kAbsentByStats
                               : maybe_flags[v] ? Verdict::kMaybe : Verdict::kAbsentByBloom;
          }
        }
      }
      refs.clear();
      ref_slot.clear();
      buffers.clear();
      batch_bytes = 0;
    };
    size_t i = 0;
    while (i < pending.size()) {
      // A coalesced range [lo, hi) of filters i..j-1.
      const uint64_t lo = pending[i].offset;
      uint64_t hi = pending[i].read_end;
      size_t j = i + 1;
      while (j < pending.size() && pending[j].offset <= hi + opt.coalesce_gap &&
             std::max(hi, pending[j].read_end) - lo <= (uint64_t{64} << 20)) {
        hi = std::max(hi, pending[j].read_end);
        ++j;
      }
      uint8_t* base;
      if (tail.covers(lo, hi - lo)) {
        base = tail.data() + (lo - tail.offset);
      } else {
        std::vector<uint8_t> buf(static_cast<size_t>(hi - lo));
        if (auto st = file.read_at(lo, buf.size(), buf.data()); !st.ok()) return fail(std::move(res), st.error());
        res.reads++;
        res.bytes_read += static_cast<int64_t>(buf.size());
        batch_bytes += buf.size();
        buffers.push_back(std::move(buf));  // the heap block (and `base`) stays put
        base = buffers.back().data();
      }
      for (size_t k = i; k < j; ++k) {
        const PendingFilter& p = pending[k];
        uint8_t* at = base + (p.offset - lo);
        size_t avail = static_cast<size_t>(p.read_end - p.offset);
        if (!p.length_known) {
          // Make sure the whole bitset is there; read it if the estimate fell short.
          auto h = parse_sbbf_header(at, avail);
          if (h.ok() && uint64_t{h->header_size} + h->num_bytes > avail) {
            const uint64_t total = uint64_t{h->header_size} + h->num_bytes;
            if (total > file.size() - p.offset) {
              return fail(std::move(res), make_error(ErrorCode::kTruncated,
                  file.name() + ": Bloom filter at byte " + std::to_string(p.offset) + " announces " +
                      std::to_string(h->num_bytes) + " bytes of bitset, past the end of the file"));
            }
            std::vector<uint8_t> extra(static_cast<size_t>(total));
            if (auto st = file.read_at(p.offset, extra.size(), extra.data()); !st.ok()) {
              return fail(std::move(res), st.error());
            }
            res.reads++;
            res.bytes_read += static_cast<int64_t>(extra.size());
            batch_bytes += extra.size();
            buffers.push_back(std::move(extra));
            at = buffers.back().data();
            avail = buffers.back().size();
          }
        }
        auto view = bloom_view_in_place(at, avail, p.offset, file.name(), nullptr);
        if (!view.ok()) return fail(std::move(res), view.error());
        refs.push_back(view->ref());
        ref_slot.push_back(p.rg_slot);
      }
      if (batch_bytes >= (size_t{64} << 20)) flush();
      i = j;
    }
    flush();
  }
  if (opt.per_value) {
    for (size_t g = 0; g < ng; ++g) {
      RowGroupVerdict& out = res.row_groups[g];
      if (!out.per_value.empty() || nv == 0) continue;
      out.per_value.resize(nv);
      const uint8_t* ex = excluded.data() + g * nv;
      for (size_t v = 0; v < nv; ++v) {
        out.per_value[v] = ex[v] ? Verdict::kAbsentByStats : out.verdict;
      }
    }
  }
  return res;
}

}  // namespace

FilePruneResult prune_file(RandomAccessFile& file, std::string_view column, const ProbeValues& values,
                           const PruneOptions& options) {
  auto hv = hash_probe_values(values);
  if (!hv.ok()) {
    FilePruneResult r;
    r.path = file.name();
    return fail(std::move(r), hv.error());
  }
  return prune_one(file, column, values, *hv, options);
}

std::vector<FilePruneResult> prune_files(const std::vector<std::string>& paths, std::string_view column,
                                         const ProbeValues& values, const PruneOptions& options,
                                         const std::function<void(size_t)>& on_file_done) {
  auto hv = hash_probe_values(values);
  if (!hv.ok()) {
    std::vector<FilePruneResult> results(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
      results[i].path = paths[i];
      results[i] = fail(std::move(results[i]), hv.error());
    }
    return results;
  }
  // The calling thread works too; helpers claim files from a shared counter.
  // The caller waits for the files claimed, not for the helpers: on shared,
  // oversubscribed cores a helper that is scheduled late finds no work and
  // leaves on its own (it holds the job alive through its shared_ptr).
  struct Job {
    // The caller's vector: read only for files claimed below `total`, all of
    // which finish before the caller returns (late helpers claim nothing).
    const std::vector<std::string>* paths;
    size_t total;
    std::string column;
    ProbeValues values;
    HashedValues hv;
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
  job->column = std::string(column);
  job->values = values;
  job->hv = std::move(*hv);
  job->options = options;
  job->on_file_done = on_file_done;
  job->results.resize(paths.size());
  const size_t n = paths.size();
  auto work = [](const std::shared_ptr<Job>& jb) {
    const size_t total = jb->total;
    while (true) {
      const size_t i = jb->next.fetch_add(1, std::memory_order_relaxed);
      if (i >= total) break;
      FilePruneResult r;
      if (jb->options.footer_cache != nullptr) {
        // With a footer cache, a stat() decides; the file is opened only if
        // Bloom filters must be read.
        auto f = LazyLocalFile::make((*jb->paths)[i]);
        if (!f.ok()) {
          r.path = (*jb->paths)[i];
          r = fail(std::move(r), f.error());
        } else {
          const FileIdentity id{f->size(), f->mtime_ns()};
          r = prune_one(*f, jb->column, jb->values, jb->hv, jb->options, &id, &jb->tail_hint);
        }
      } else {
        auto f = LocalFile::open_for_reading((*jb->paths)[i]);  // no stat: no cache to validate
        if (!f.ok()) {
          r.path = (*jb->paths)[i];
          r = fail(std::move(r), f.error());
        } else {
          const FileIdentity id{(*f)->size(), (*f)->mtime_ns()};
          r = prune_one(**f, jb->column, jb->values, jb->hv, jb->options, &id, &jb->tail_hint);
        }
      }
      std::lock_guard<std::mutex> lock(jb->mu);
      jb->results[i] = std::move(r);
      if (jb->on_file_done) jb->on_file_done(i);
      if (++jb->done == total) jb->cv.notify_all();
    }
  };
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, n);
  for (size_t t = 1; t < threads; ++t) {
    try {
      std::thread helper(work, job);
      move_off_callers_cpu(helper);
      helper.detach();
    } catch (const std::system_error&) {
      break;  // no more threads: the caller does the rest
    }
  }
  work(job);
  {
    std::unique_lock<std::mutex> lock(job->mu);
    job->cv.wait(lock, [&] { return job->done == n; });
  }
  return std::move(job->results);
}

}  // namespace pqfast::parquet
