// The streaming scanner (pqfast/scanner.h): files fed through needs/feed in
// random order and in split pieces give the column reader's rows; batch
// boundaries never split, repeat or drop a row (nested fields too: lists,
// structs, maps, assembled per unit as the column reader does); a filtered
// scan gives scan_file's rows; hostile feeds and files end in clear errors; readahead
// stays bounded; LocalScan equals the pushed scan and cancels mid-scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <unistd.h>
#include <string>
#include <tuple>
#include <vector>

#include "parquet/decode.h"
#include "filter_test_util.h"
#include "parquet_test_util.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_nested.h"
#include "pqfast/parquet_read.h"
#include "pqfast/scan.h"
#include "pqfast/scanner.h"
#include "pqfast/simd.h"

namespace pq = pqfast::parquet;
namespace fs = std::filesystem;
using pqfast::ErrorCode;
using pqfast::testing::read_all;
using pqfast::testing::write_all;

namespace {

const fs::path kDir = fs::path(PQFAST_TEST_DATA_DIR).parent_path().parent_path() / "scanner";
const std::vector<std::string> kColumns = {"id", "name", "v", "flag", "k"};

std::string path_of(const std::string& name) { return (kDir / name).string(); }

// Cell i of an array (offset applied) as text; "null" for a null. Nested
// arrays too: [..] lists and maps (their entries from the offsets), {..}
// structs (children at the parent's offset).
std::string cell(const ArrowArray& a, const ArrowSchema& s, int64_t i) {
  const int64_t j = a.offset + i;
  const auto* validity = static_cast<const uint8_t*>(a.buffers[0]);
  if (validity && !((validity[j >> 3] >> (j & 7)) & 1)) return "null";
  if (s.dictionary) return cell(*a.dictionary, *s.dictionary, static_cast<const int32_t*>(a.buffers[1])[j]);
  const std::string f = s.format;
  if (f == "+l" || f == "+m") {
    const auto* o = static_cast<const int32_t*>(a.buffers[1]);
    std::string out = "[";
    for (int32_t k = o[j]; k < o[j + 1]; ++k) out += (k > o[j] ? "," : "") + cell(*a.children[0], *s.children[0], k);
    return out + "]";
  }
  if (f == "+s") {
    std::string out = "{";
    for (int64_t c = 0; c < a.n_children; ++c) out += (c ? "," : "") + cell(*a.children[c], *s.children[c], j);
    return out + "}";
  }
  if (f == "l") return std::to_string(static_cast<const int64_t*>(a.buffers[1])[j]);
  if (f == "i") return std::to_string(static_cast<const int32_t*>(a.buffers[1])[j]);
  if (f == "g") return std::to_string(static_cast<const double*>(a.buffers[1])[j]);
  if (f == "b") return ((static_cast<const uint8_t*>(a.buffers[1])[j >> 3] >> (j & 7)) & 1) ? "T" : "F";
  if (f == "c") return std::to_string(static_cast<const int8_t*>(a.buffers[1])[j]);
  if (f == "z" || f == "u") {
    const auto* o = static_cast<const int32_t*>(a.buffers[1]);
    return std::string(static_cast<const char*>(a.buffers[2]) + o[j], static_cast<size_t>(o[j + 1] - o[j]));
  }
  ADD_FAILURE() << "format " << f;
  return "?";
}

using Rows = std::vector<std::vector<std::string>>;

void append_rows(const ArrowArray& batch, const ArrowSchema& schema, Rows* out) {
  EXPECT_EQ(std::string(schema.format), "+s");
  EXPECT_EQ(batch.n_children, schema.n_children);
  for (int64_t r = 0; r < batch.length; ++r) {
    std::vector<std::string> row;
    for (int64_t c = 0; c < batch.n_children; ++c) row.push_back(cell(*batch.children[c], *schema.children[c], r));
    out->push_back(std::move(row));
  }
}

// The rows of a scan engine's piece (its columns moved out), appended to *out.
void append_piece_rows(pq::ScanPiece& piece, Rows* out) {
  std::vector<ArrowArray> arrays(piece.columns.size());
  std::vector<ArrowSchema> schemas(piece.columns.size());
  for (size_t c = 0; c < piece.columns.size(); ++c) std::move(piece.columns[c]).export_to(&arrays[c], &schemas[c]);
  for (int64_t row = 0; row < piece.num_rows; ++row) {
    std::vector<std::string> cells;
    for (size_t c = 0; c < arrays.size(); ++c) cells.push_back(cell(arrays[c], schemas[c], row));
    out->push_back(std::move(cells));
  }
  for (size_t c = 0; c < arrays.size(); ++c) {
    arrays[c].release(&arrays[c]);
    schemas[c].release(&schemas[c]);
  }
}

std::vector<pq::ScanColumn> scan_columns(const std::vector<std::string>& names) {
  std::vector<pq::ScanColumn> out;
  for (const auto& n : names) out.push_back({n, {}});
  return out;
}

// The rows of `names` in the files, row group by row group, by the column reader.
// Every batch of `ls` until its end, rows appended to *got; the first
// failed step's error, else kOk.
pqfast::Error drain_rows(pq::LocalScan& ls, Rows* got) {
  for (;;) {
    ArrowArray a;
    ArrowSchema s;
    auto step = ls.next_batch(&a, &s);
    if (!step.ok()) return step.error();
    if (*step == pq::ScanStep::kEnd) return pqfast::Error{ErrorCode::kOk, {}};
    append_rows(a, s, got);
    a.release(&a);
    s.release(&s);
  }
}

// The leaves below top-level field `name` of a file (0: a flat leaf or none).
size_t nested_leaves(const pq::FileMetaData& m, const std::string& name) {
  const auto fields = pq::top_level_fields(m);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name != name) continue;
    if (!fields[i].group && fields[i].leaves.size() == 1 && !pq::is_nested_leaf(m, fields[i].leaves[0])) return 0;
    return fields[i].leaves.size();
  }
  return 0;
}

// The rows by the column reader: flat leaves by read_column_chunk, nested
// fields by read_nested_chunk, row group by row group.
Rows expected_rows(const std::vector<std::string>& files, const std::vector<std::string>& names) {
  Rows out;
  for (const auto& p : files) {
    auto f = pq::LocalFile::open(p);
    EXPECT_TRUE(f.ok());
    auto m = pq::read_file_metadata(**f);
    EXPECT_TRUE(m.ok());
    const auto fields = pq::top_level_fields(*m);
    for (size_t g = 0; g < m->row_groups.size(); ++g) {
      std::vector<ArrowArray> arrays(names.size());
      std::vector<ArrowSchema> schemas(names.size());
      for (size_t c = 0; c < names.size(); ++c) {
        pqfast::Result<pq::ColumnArray> col = pqfast::make_error(ErrorCode::kInvalidArgument, "no field");
        if (nested_leaves(*m, names[c]) == 0) {
          col = pq::read_column_chunk(**f, *m, static_cast<int>(g), m->find_column(names[c]));
        } else {
          for (size_t i = 0; i < fields.size(); ++i) {
            if (fields[i].name != names[c]) continue;
            auto shape = pq::nested_field(*m, static_cast<int>(i));
            EXPECT_TRUE(shape.ok());
            col = pq::read_nested_chunk(**f, *m, static_cast<int>(g), *shape, {});
          }
        }
        EXPECT_TRUE(col.ok()) << col.error().to_string();
        std::move(*col).export_to(&arrays[c], &schemas[c]);
      }
      for (int64_t r = 0; r < m->row_groups[g].num_rows; ++r) {
        std::vector<std::string> row;
        for (size_t c = 0; c < names.size(); ++c) row.push_back(cell(arrays[c], schemas[c], r));
        out.push_back(std::move(row));
      }
      for (size_t c = 0; c < names.size(); ++c) {
        arrays[c].release(&arrays[c]);
        schemas[c].release(&schemas[c]);
      }
    }
  }
  return out;
}

pq::ScanPlan plan_of(const std::vector<std::string>& files, const std::vector<std::string>& names) {
  pq::ScanPlan plan;
  for (const auto& p : files) plan.files.push_back({p, static_cast<uint64_t>(fs::file_size(p)), nullptr, true, {}});
  plan.columns = scan_columns(names);
  return plan;
}

struct Pushed {
  Rows rows;
  std::vector<int64_t> batch_rows;
  pqfast::Error error{ErrorCode::kOk, {}};
  pq::ScannerStats stats;
  int64_t peak_held = 0;
};

// Drives a Scanner through needs/feed: the ranges asked for are fed in a
// shuffled order, each cut in up to `max_pieces` pieces fed out of order.
// `sidecar`: the bytes of a sidecar index, read where needs() says a range
// lies in it (FileRange::in_sidecar); the other ranges must lie in the
// file's own bytes.
Pushed push_scan(pq::ScanPlan plan, pq::ScannerOptions opts, uint32_t seed, int max_pieces,
                 const std::vector<std::vector<uint8_t>>* contents = nullptr,
                 const std::vector<uint8_t>* sidecar = nullptr) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& f : plan.files) bytes.push_back(read_all(f.name));
  if (contents) bytes = *contents;
  Pushed out;
  auto s = pq::Scanner::make(std::move(plan), opts);
  if (!s.ok()) {
    out.error = s.error();
    return out;
  }
  std::mt19937 rng(seed);
  int idle = 0;
  for (int guard = 0; guard < 1000000; ++guard) {
    ArrowArray a;
    ArrowSchema sc;
    auto step = (*s)->next_batch(&a, &sc);
    out.peak_held = std::max(out.peak_held, (*s)->held_bytes());
    if (!step.ok()) {
      out.error = step.error();
      break;
    }
    if (*step == pq::ScanStep::kEnd) break;
    if (*step == pq::ScanStep::kBatch) {
      append_rows(a, sc, &out.rows);
      out.batch_rows.push_back(a.length);
      a.release(&a);
      sc.release(&sc);
      continue;
    }
    auto needs = (*s)->needs();
    if (needs.empty()) {
      // (needs() may have failed the scan: next_batch says so)
      if (++idle > 1) {
        out.error = pqfast::make_error(ErrorCode::kInvalidArgument, "test: scanner needs data but asks for none");
        break;
      }
      continue;
    }
    idle = 0;
    std::shuffle(needs.begin(), needs.end(), rng);
    for (const auto& r : needs) {
      std::vector<std::pair<uint64_t, uint64_t>> pieces;
      const int k = 1 + static_cast<int>(rng() % static_cast<uint32_t>(max_pieces));
      uint64_t at = r.offset;
      for (int i = 0; i < k && at < r.offset + r.length; ++i) {
        const uint64_t left = r.offset + r.length - at;
        const uint64_t n = i + 1 == k ? left : 1 + rng() % left;
        pieces.emplace_back(at, n);
        at += n;
      }
      if (at < r.offset + r.length) pieces.emplace_back(at, r.offset + r.length - at);
      std::shuffle(pieces.begin(), pieces.end(), rng);
      const auto& b = r.in_sidecar && sidecar ? *sidecar : bytes[static_cast<size_t>(r.file)];
      const uint64_t from = r.in_sidecar ? r.source_offset : r.offset;  // where r's bytes are read
      if ((r.in_sidecar && !sidecar) || from > b.size() || r.length > b.size() - from) {
        out.error = pqfast::make_error(ErrorCode::kInvalidArgument, "test: a range outside the bytes it is read from");
        return out;
      }
      for (const auto& [off, n] : pieces) {
        const uint64_t at = from + (off - r.offset);
        std::vector<uint8_t> piece(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + n));
        auto st = (*s)->feed(r.file, off, std::move(piece));
        if (!st.ok()) {
          // A hostile file fails the scan at the feed that completes a footer.
          out.error = st.error();
          out.stats = (*s)->stats();
          return out;
        }
      }
    }
  }
  out.stats = (*s)->stats();
  return out;
}

const std::vector<std::string> kFiles = {path_of("multi_rg_a.parquet"), path_of("multi_rg_b.parquet")};

// The test files are compressed (multi_rg_a SNAPPY, in every build;
// multi_rg_b ZSTD): a build without a codec they use (the AArch64 cross
// build has no codec libraries) skips the tests that decode them.
bool files_codec_missing() {
  static const bool missing = [] {
    for (const auto& path : kFiles) {
      auto f = pq::LocalFile::open(path);
      if (!f.ok()) return false;  // (the test itself then fails, naming the file)
      auto m = pq::read_file_metadata(**f);
      if (!m.ok()) return false;
      for (const auto& rg : m->row_groups) {
        for (const auto& c : rg.columns) {
          if (!pq::codec_supported(c.codec)) return true;
        }
      }
    }
    return false;
  }();
  return missing;
}

}  // namespace

#define SKIP_WITHOUT_THE_FILES_CODEC() \
  if (files_codec_missing()) GTEST_SKIP() << "a build without a codec of the test files (zstd)"

TEST(Scanner, FedInRandomOrderAndPiecesEqualsColumnReader) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  const Rows want = expected_rows(kFiles, kColumns);
  ASSERT_EQ(want.size(), 4000u);
  for (uint32_t seed = 0; seed < 6; ++seed) {
    pq::ScannerOptions o;
    o.batch_size = 1000;
    o.coalesce_gap = seed % 2 ? 0 : 1 << 20;
    o.footer_tail = seed % 3 == 0 ? 64 : 1 << 16;  // a short tail asks for the rest of the footer
    Pushed got = push_scan(plan_of(kFiles, kColumns), o, seed, 1 + static_cast<int>(seed), nullptr);
    ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
    EXPECT_EQ(got.rows, want) << "seed " << seed;
    EXPECT_EQ(got.stats.units, 5 + 3);
  }
}

TEST(Scanner, BatchBoundariesNeverSplitRepeatOrDropRows) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  const Rows want = expected_rows(kFiles, {"id", "v"});
  for (int64_t bs : {int64_t{1}, int64_t{7}, int64_t{700}, int64_t{1} << 20}) {
    pq::ScannerOptions o;
    o.batch_size = bs;
    Pushed got = push_scan(plan_of(kFiles, {"id", "v"}), o, 7, 2);
    ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
    EXPECT_EQ(got.rows, want) << "batch_size " << bs;
    for (int64_t n : got.batch_rows) {
      EXPECT_GT(n, 0);
      EXPECT_LE(n, bs);
    }
  }
}

TEST(Scanner, RowGroupSubsetsAndNoColumns) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  pq::ScanPlan plan = plan_of(kFiles, {"id"});
  plan.files[0].all_row_groups = false;
  plan.files[0].row_groups = {3, 1};
  plan.files[1].all_row_groups = false;  // none of file b
  Pushed got = push_scan(plan, {}, 3, 1);
  ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
  ASSERT_EQ(got.rows.size(), 1400u);
  EXPECT_EQ(got.rows[0][0], std::to_string(100000 + 3 * 700));
  EXPECT_EQ(got.rows[700][0], std::to_string(100000 + 700));
  // No column: batches carry row counts only.
  Pushed counted = push_scan(plan_of(kFiles, {}), {}, 3, 1);
  ASSERT_EQ(counted.error.code, ErrorCode::kOk) << counted.error.to_string();
  EXPECT_EQ(counted.rows.size(), 4000u);
}

TEST(Scanner, FilteredEqualsScanFile) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  std::vector<std::vector<pq::FilterAtom>> dnfs[3];
  auto atom = [](const std::string& col, pq::FilterOp op, int64_t v, bool is64) {
    pq::FilterAtom a;
    a.column = col;
    a.op = op;
    a.values.type = is64 ? pqfast::PhysicalType::kInt64 : pqfast::PhysicalType::kInt32;
    a.values.data.resize(is64 ? 8 : 4);
    if (is64) {
      std::memcpy(a.values.data.data(), &v, 8);
    } else {
      const int32_t w = static_cast<int32_t>(v);
      std::memcpy(a.values.data.data(), &w, 4);
    }
    return a;
  };
  dnfs[0] = {{atom("k", pq::FilterOp::kEq, 3, false)}};
  dnfs[1] = {{atom("id", pq::FilterOp::kGe, 101500, true), atom("id", pq::FilterOp::kLt, 101520, true)}};
  dnfs[2] = {{atom("id", pq::FilterOp::kEq, 5, true)}};  // no row: statistics rule every row group out
  for (auto& dnf : dnfs) {
    pq::ScanFilter filter;
    filter.active = true;
    filter.any_of = dnf;
    Rows want;
    for (size_t i = 0; i < kFiles.size(); ++i) {
      auto f = pq::LocalFile::open(kFiles[i]);
      ASSERT_TRUE(f.ok());
      auto r = pq::scan_file(**f, static_cast<int32_t>(i), scan_columns(kColumns), filter, {});
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      for (auto& piece : r->pieces) append_piece_rows(piece, &want);
    }
    pq::ScanPlan plan = plan_of(kFiles, kColumns);
    plan.filter = filter;
    pq::ScannerOptions o;
    o.batch_size = 13;
    Pushed got = push_scan(plan, o, 11, 3);
    ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
    EXPECT_EQ(got.rows, want);
    if (&dnf == &dnfs[2]) {
      EXPECT_TRUE(want.empty());
      // Footers only: the statistics decide, no page is asked for.
      EXPECT_LE(got.stats.bytes_asked, static_cast<int64_t>(fs::file_size(kFiles[0]) + fs::file_size(kFiles[1])));
    }
  }
}

// Files read as object + tail (ScanPlanFile::sidecar_tail): each file cut
// at a point, the object its bytes before it, the rest kept in a sidecar
// after other bytes; the scan reads the ranges past the cut from the
// sidecar (a range across it split in two) and gives the whole files' rows,
// plain and filtered, wherever the cut lies (in the pages, in the footer,
// in the trailer).
TEST(Scanner, FedFilesReadWithASidecarTailEqualTheWholeFiles) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  pq::ScanFilter filter;
  filter.active = true;
  pq::FilterAtom a;
  a.column = "id";
  a.op = pq::FilterOp::kGe;
  a.values.type = pqfast::PhysicalType::kInt64;
  const int64_t from = 101500;
  a.values.data.resize(8);
  std::memcpy(a.values.data.data(), &from, 8);
  filter.any_of = {{a}};
  std::vector<std::vector<uint8_t>> whole;
  for (const auto& f : kFiles) whole.push_back(read_all(f));
  for (bool filtered : {false, true}) {
    pq::ScanPlan ref = plan_of(kFiles, kColumns);
    if (filtered) ref.filter = filter;
    const Pushed want = push_scan(ref, {}, 1, 1);
    ASSERT_EQ(want.error.code, ErrorCode::kOk) << want.error.to_string();
    ASSERT_FALSE(want.rows.empty());
    for (uint64_t cut_back : {uint64_t{8}, uint64_t{300}, uint64_t{5000}, uint64_t{20000}}) {
      pq::ScanPlan plan = ref;
      std::vector<std::vector<uint8_t>> objects;
      std::vector<uint8_t> sidecar(37, 0xAB);  // (a header's place: tails start past it)
      for (size_t i = 0; i < whole.size(); ++i) {
        const uint64_t base = whole[i].size() - std::min<uint64_t>(cut_back, whole[i].size() - 1);
        objects.emplace_back(whole[i].begin(), whole[i].begin() + static_cast<ptrdiff_t>(base));
        plan.files[i].size = base;
        plan.files[i].sidecar_tail = {static_cast<int64_t>(base), sidecar.size(), whole[i].size() - base};
        sidecar.insert(sidecar.end(), whole[i].begin() + static_cast<ptrdiff_t>(base), whole[i].end());
      }
      plan.sidecar_size = sidecar.size();
      pq::ScannerOptions o;
      o.batch_size = 333;
      const Pushed got = push_scan(plan, o, static_cast<uint32_t>(cut_back), 3, &objects, &sidecar);
      ASSERT_EQ(got.error.code, ErrorCode::kOk) << cut_back << ": " << got.error.to_string();
      EXPECT_EQ(got.rows, want.rows) << "filtered " << filtered << ", cut " << cut_back << " bytes from the end";
    }
  }
}

TEST(Scanner, ASidecarTailForAnotherObjectOrPastTheSidecarIsRefused) {
  pq::ScanPlan plan = plan_of(kFiles, kColumns);
  const uint64_t size = plan.files[0].size;
  plan.sidecar_size = 1000;
  plan.files[0].sidecar_tail = {static_cast<int64_t>(size) - 1, 0, 100};  // the object changed since
  auto s = pq::Scanner::make(plan, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(s.error().message.find("changed since"), std::string::npos) << s.error().message;
  plan.files[0].sidecar_tail = {static_cast<int64_t>(size), 950, 100};  // past the sidecar's end
  s = pq::Scanner::make(plan, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  plan.files[0].sidecar_tail = {static_cast<int64_t>(size), 1, UINT64_MAX};  // (offset + length wraps)
  s = pq::Scanner::make(plan, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
  plan.files[0].sidecar_tail = {static_cast<int64_t>(size), 0, 1000};
  ASSERT_TRUE(pq::Scanner::make(plan, {}).ok());
}

TEST(Scanner, HostileFeedsAreRefused) {
  auto s = pq::Scanner::make(plan_of(kFiles, kColumns), {});
  ASSERT_TRUE(s.ok());
  const uint64_t size = fs::file_size(kFiles[0]);
  // Past the end, a file not in the plan, bytes never asked for.
  auto e1 = (*s)->feed(0, size - 4, std::vector<uint8_t>(8, 0));
  EXPECT_EQ(e1.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e1.error().message.find("multi_rg_a.parquet"), std::string::npos);
  EXPECT_EQ((*s)->feed(5, 0, std::vector<uint8_t>(8, 0)).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ((*s)->feed(0, 0, std::vector<uint8_t>(8, 0)).error().code, ErrorCode::kInvalidArgument);
  auto needs = (*s)->needs();
  ASSERT_FALSE(needs.empty());
  // The same bytes twice.
  const auto bytes = read_all(kFiles[0]);
  const auto& r = needs[0];
  std::vector<uint8_t> piece(bytes.begin() + static_cast<ptrdiff_t>(r.offset), bytes.begin() + static_cast<ptrdiff_t>(r.offset + 4));
  ASSERT_TRUE((*s)->feed(r.file, r.offset, std::vector<uint8_t>(piece)).ok());
  EXPECT_EQ((*s)->feed(r.file, r.offset, std::move(piece)).error().code, ErrorCode::kInvalidArgument);
}

TEST(Scanner, GarbageAndShortFilesErrorNamingTheFile) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  std::mt19937 rng(5);
  const auto a = read_all(kFiles[0]);
  const auto b = read_all(kFiles[1]);
  int errors = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<uint8_t>> contents = {a, b};
    auto& victim = contents[static_cast<size_t>(trial % 2)];
    // Garbage over a random span (footer, page headers or page bodies).
    const size_t at = rng() % victim.size();
    const size_t n = std::min<size_t>(victim.size() - at, 1 + rng() % 64);
    for (size_t i = 0; i < n; ++i) victim[at + i] = static_cast<uint8_t>(rng());
    Pushed got = push_scan(plan_of(kFiles, kColumns), {}, static_cast<uint32_t>(trial), 2, &contents);
    if (got.error.code != ErrorCode::kOk) {
      ++errors;
      const std::string name = trial % 2 ? "multi_rg_b.parquet" : "multi_rg_a.parquet";
      EXPECT_NE(got.error.message.find(name), std::string::npos) << got.error.to_string();
    }
  }
  EXPECT_GT(errors, 20);
  // A plan whose size is smaller than the file: the trailer is not where it says.
  pq::ScanPlan plan = plan_of({kFiles[0]}, kColumns);
  plan.files[0].size = 100;
  std::vector<std::vector<uint8_t>> cut = {std::vector<uint8_t>(a.begin(), a.begin() + 100)};
  Pushed got = push_scan(plan, {}, 1, 1, &cut);
  EXPECT_NE(got.error.code, ErrorCode::kOk);
  plan.files[0].size = 5;
  cut = {std::vector<uint8_t>(a.begin(), a.begin() + 5)};
  got = push_scan(plan, {}, 1, 1, &cut);
  EXPECT_EQ(got.error.code, ErrorCode::kTruncated);
}

TEST(Scanner, MissingColumnIsAnError) {
  Pushed got = push_scan(plan_of(kFiles, {"id", "nope"}), {}, 1, 1);
  EXPECT_EQ(got.error.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(got.error.message.find("nope"), std::string::npos);
}

TEST(Scanner, ReadaheadIsBoundedAndARowGroupTooLargeIsRefused) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // Readahead of 1 byte: one row group asked for at a time.
  pq::ScannerOptions o;
  o.readahead_bytes = 1;
  Pushed got = push_scan(plan_of(kFiles, kColumns), o, 2, 1);
  ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
  int64_t largest = 0;
  for (const auto& p : kFiles) {
    auto f = pq::LocalFile::open(p);
    auto m = pq::read_file_metadata(**f);
    for (const auto& rg : m->row_groups) {
      int64_t n = 0;
      for (const auto& c : rg.columns) n += c.total_compressed_size;
      largest = std::max(largest, n);
    }
  }
  EXPECT_LE(got.stats.peak_held, largest + (1 << 16));
  EXPECT_EQ(got.rows.size(), 4000u);
  // A budget smaller than one row group's chunks.
  pq::ScannerOptions tiny;
  tiny.memory_limit = 2000;
  Pushed refused = push_scan(plan_of(kFiles, kColumns), tiny, 2, 1);
  EXPECT_EQ(refused.error.code, ErrorCode::kMemoryLimit) << refused.error.to_string();
}

TEST(Scanner, UnitsAheadAreCapped) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // max_units_ahead 1: each row group asked for only once the one before is consumed.
  auto s = pq::Scanner::make(plan_of(kFiles, {"id"}), [] {
    pq::ScannerOptions o;
    o.max_units_ahead = 1;
    o.batch_size = 100;
    return o;
  }());
  ASSERT_TRUE(s.ok());
  const auto a = read_all(kFiles[0]);
  const auto b = read_all(kFiles[1]);
  int64_t rows = 0;
  for (;;) {
    ArrowArray arr;
    ArrowSchema sc;
    auto step = (*s)->next_batch(&arr, &sc);
    ASSERT_TRUE(step.ok()) << step.error().to_string();
    if (*step == pq::ScanStep::kEnd) break;
    if (*step == pq::ScanStep::kBatch) {
      rows += arr.length;
      const auto st = (*s)->stats();
      // The unit this batch came from, and at most one more once it is consumed.
      EXPECT_LE(st.units_started, st.units_decoded + 1);
      arr.release(&arr);
      sc.release(&sc);
      continue;
    }
    for (const auto& r : (*s)->needs()) {
      const auto& src = r.file == 0 ? a : b;
      ASSERT_TRUE((*s)->feed(r.file, r.offset, std::vector<uint8_t>(src.begin() + static_cast<ptrdiff_t>(r.offset),
                                                                      src.begin() + static_cast<ptrdiff_t>(r.offset + r.length)))
                      .ok());
    }
  }
  EXPECT_EQ(rows, 4000);
  EXPECT_EQ((*s)->stats().units_started, 8);
}

TEST(LocalScan, ReadaheadNeverFailsAScanThatFitsAlone) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // The smallest budgets a scan with no readahead fits in: the same scan with
  // threads decoding ahead fits too (units refused ahead wait their turn).
  int fits = 0;
  for (int64_t limit = 4 << 10; limit <= 512 << 10; limit += 12 << 10) {
    auto run = [&](int threads, int ahead) {
      pq::ScannerOptions o;
      o.memory_limit = limit;
      o.max_units_ahead = ahead;
      o.batch_size = 256;
      auto ls = pq::LocalScan::make(plan_of(kFiles, kColumns), o, threads);
      if (!ls.ok()) return ls.error().code;
      for (;;) {
        ArrowArray a;
        ArrowSchema s;
        auto step = (*ls)->next_batch(&a, &s);
        if (!step.ok()) return step.error().code;
        if (*step == pq::ScanStep::kEnd) return ErrorCode::kOk;
        a.release(&a);
        s.release(&s);
      }
    };
    const ErrorCode alone = run(-1, 1);
    if (alone != ErrorCode::kOk) {
      EXPECT_EQ(alone, ErrorCode::kMemoryLimit);
      continue;
    }
    ++fits;
    EXPECT_EQ(run(4, 8), ErrorCode::kOk) << "limit " << limit;
  }
  EXPECT_GT(fits, 10);
}

TEST(Scanner, BudgetIsReturnedAfterTheScan) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  auto budget = pqfast::MemoryBudget::make(64 << 20);
  pq::ScannerOptions o;
  o.budget = budget;
  Pushed got = push_scan(plan_of(kFiles, kColumns), o, 4, 2);
  ASSERT_EQ(got.error.code, ErrorCode::kOk);
  EXPECT_EQ(budget->used(), 0);
  EXPECT_GT(budget->peak(), 0);
}

TEST(LocalScan, EqualsColumnReaderOnEveryThreadCount) {
  // By row group units and by file tasks (each file read whole with its
  // footer, decoded by one thread; kAuto takes them for these small files).
  SKIP_WITHOUT_THE_FILES_CODEC();
  const Rows want = expected_rows(kFiles, kColumns);
  using FT = pq::ScannerOptions::FileTasks;
  for (FT mode : {FT::kUnits, FT::kFiles, FT::kAuto}) {
    for (int threads : {-1, 1, 2, 4}) {  // (-1: no thread, the consumer reads)
      for (uint64_t whole : {uint64_t{0}, uint64_t{1} << 20}) {  // (0: file tasks read footer, then chunks)
        pq::ScanPlan plan = plan_of(kFiles, kColumns);
        for (auto& f : plan.files) f.size = 0;  // stat them
        pq::ScannerOptions o;
        o.batch_size = 333;
        o.readahead_bytes = 20000;
        o.file_tasks = mode;
        o.whole_file_bytes = whole;
        auto ls = pq::LocalScan::make(plan, o, threads);
        ASSERT_TRUE(ls.ok()) << ls.error().to_string();
        EXPECT_EQ((*ls)->file_tasks(), mode == FT::kFiles || (mode == FT::kAuto && whole > 0));
        Rows got;
        const pqfast::Error drained = drain_rows(**ls, &got);
        ASSERT_EQ(drained.code, ErrorCode::kOk) << drained.to_string();
        EXPECT_EQ(got, want) << threads << " threads";
        EXPECT_EQ((*ls)->stats().rows, static_cast<int64_t>(want.size()));
        EXPECT_EQ((*ls)->stopped_at(), -1);
      }
    }
  }
}

TEST(LocalScan, FileTasksStopBeforeAFileUnlikeTheFirst) {
  // stop_at_unlike: the batches of the files before the first file whose
  // leaves differ from the first file's, then the end, stopped_at naming
  // it; without it such a file is read by name like any other (or fails,
  // naming it, when it lacks a column). Units refuse stop_at_unlike.
  SKIP_WITHOUT_THE_FILES_CODEC();
  const std::string other = std::string(PQFAST_TEST_DATA_DIR) + "/alltypes_tiny_pages_plain.parquet";
  const std::vector<std::string> files = {kFiles[0], kFiles[1], other, kFiles[0]};
  const Rows want = expected_rows(kFiles, {"id"});
  for (int threads : {-1, 2}) {
    pq::ScannerOptions o;
    o.file_tasks = pq::ScannerOptions::FileTasks::kFiles;
    o.stop_at_unlike = true;
    auto ls = pq::LocalScan::make(plan_of(files, {"id"}), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    Rows got;
    ASSERT_EQ(drain_rows(**ls, &got).code, ErrorCode::kOk);
    EXPECT_EQ(got, want);
    EXPECT_EQ((*ls)->stopped_at(), 2);
    o.stop_at_unlike = false;
    auto all = pq::LocalScan::make(plan_of(files, {"id", "name"}), o, threads);
    ASSERT_TRUE(all.ok());
    const pqfast::Error e = drain_rows(**all, &got);
    EXPECT_NE(e.code, ErrorCode::kOk);
    EXPECT_NE(e.message.find("alltypes_tiny_pages_plain.parquet"), std::string::npos) << e.message;
  }
  pq::ScannerOptions o;
  o.file_tasks = pq::ScannerOptions::FileTasks::kUnits;
  o.stop_at_unlike = true;
  EXPECT_EQ(pq::LocalScan::make(plan_of(files, {"id"}), o, 1).error().code, ErrorCode::kInvalidArgument);
}

// A filtered LocalScan prunes its files first and reads each row group left
// straight from its file: the rows, and what the engine read (row groups
// pruned, pages and bytes), equal one scan_files call's, on every thread
// count; a missing filter column fails the scan before any batch.
namespace {

// A filter atom over an INT64 column with values `vs`.
pq::FilterAtom int64_atom(const std::string& col, pq::FilterOp op, std::vector<int64_t> vs, bool negate = false) {
  return pqfast::testing::fixed_atom<int64_t>(col, op, vs, negate);
}

}  // namespace

TEST(LocalScan, FilteredEqualsScanFilesRowsAndReads) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  auto atom = [](const std::string& col, pq::FilterOp op, std::vector<int64_t> vs) {
    return int64_atom(col, op, std::move(vs));
  };
  std::vector<std::vector<std::vector<pq::FilterAtom>>> dnfs = {
      {{atom("id", pq::FilterOp::kIn, {100007, 101503, 100999})}},
      {{atom("id", pq::FilterOp::kGe, {101500}), atom("id", pq::FilterOp::kLt, {101520})}},
      {{atom("id", pq::FilterOp::kEq, {5})}},  // no row
      {{atom("id", pq::FilterOp::kEq, {100010})}, {atom("id", pq::FilterOp::kGt, {101990})}},
  };
  for (const auto& dnf : dnfs) {
    pq::ScanFilter filter;
    filter.active = true;
    filter.any_of = dnf;
    const size_t want_count[] = {3, 20, 0, 1 + 1009 + 1000};
    auto want = pq::scan_files(kFiles, scan_columns(kColumns), filter, {});  // (also warms the footer cache)
    ASSERT_TRUE(want.ok()) << want.error().to_string();
    want = pq::scan_files(kFiles, scan_columns(kColumns), filter, {});
    ASSERT_TRUE(want.ok()) << want.error().to_string();
    Rows want_rows;
    for (auto& piece : want->pieces) append_piece_rows(piece, &want_rows);
    EXPECT_EQ(want_rows.size(), want_count[&dnf - dnfs.data()]);
    for (int threads : {-1, 1, 2, 4}) {
      pq::ScanPlan plan = plan_of(kFiles, kColumns);
      for (auto& f : plan.files) f.size = 0;
      plan.filter = filter;
      pq::ScannerOptions o;
      o.batch_size = 7;
      auto ls = pq::LocalScan::make(plan, o, threads);
      ASSERT_TRUE(ls.ok()) << ls.error().to_string();
      Rows got;
      const pqfast::Error drained = drain_rows(**ls, &got);
      ASSERT_EQ(drained.code, ErrorCode::kOk) << drained.to_string();
      EXPECT_EQ(got, want_rows) << threads << " threads";
      const pq::ScanStats& e = (*ls)->scanner().stats().engine;
      const pq::ScanStats& w = want->stats;
      EXPECT_EQ(e.files, w.files);
      EXPECT_EQ(e.row_groups, w.row_groups);
      EXPECT_EQ(e.row_groups_pruned_by_statistics, w.row_groups_pruned_by_statistics);
      EXPECT_EQ(e.row_groups_pruned_by_bloom, w.row_groups_pruned_by_bloom);
      EXPECT_EQ(e.row_groups_read, w.row_groups_read);
      EXPECT_EQ(e.row_groups_matched, w.row_groups_matched);
      EXPECT_EQ(e.pages_read, w.pages_read);
      EXPECT_EQ(e.bytes_read, w.bytes_read);
      EXPECT_EQ(e.rows, w.rows);
      // Nothing was asked or fed: the engine read the files itself.
      EXPECT_EQ((*ls)->scanner().stats().bytes_asked, 0);
    }
    // Each batch says the plan file and row group it comes from, as the
    // engine's pieces do (files pruned to no row group leave the scanner's
    // own plan; the origins still name the plan given).
    std::vector<std::tuple<int32_t, int32_t, int64_t>> want_origins, got_origins;
    for (const auto& piece : want->pieces) want_origins.emplace_back(piece.file, piece.row_group, piece.num_rows);
    pq::ScanPlan plan = plan_of(kFiles, kColumns);
    plan.filter = filter;
    auto ls = pq::LocalScan::make(plan, {}, 2);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    for (;;) {
      ArrowArray a;
      ArrowSchema sc;
      pq::BatchOrigin origin;
      auto step = (*ls)->next_batch(&a, &sc, &origin);
      ASSERT_TRUE(step.ok()) << step.error().to_string();
      if (*step == pq::ScanStep::kEnd) break;
      got_origins.emplace_back(origin.file, origin.row_group, origin.rows);
      a.release(&a);
      sc.release(&sc);
    }
    EXPECT_EQ(got_origins, want_origins);
  }
  pq::ScanPlan plan = plan_of(kFiles, kColumns);
  plan.filter.active = true;
  plan.filter.any_of = {{atom("nope", pq::FilterOp::kEq, {1})}};
  auto ls = pq::LocalScan::make(plan, {}, 2);
  ASSERT_FALSE(ls.ok());
  EXPECT_NE(ls.error().message.find("nope"), std::string::npos) << ls.error().to_string();
}

TEST(LocalScan, CancelMidScanAndDestroy) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  for (int round = 0; round < 20; ++round) {
    pq::ScannerOptions o;
    o.batch_size = 10;
    auto ls = pq::LocalScan::make(plan_of(kFiles, kColumns), o, 3);
    ASSERT_TRUE(ls.ok());
    ArrowArray a;
    ArrowSchema s;
    for (int i = 0; i < round % 4; ++i) {
      auto step = (*ls)->next_batch(&a, &s);
      ASSERT_TRUE(step.ok());
      ASSERT_EQ(*step, pq::ScanStep::kBatch);
      a.release(&a);
      s.release(&s);
    }
    (*ls)->cancel();
    auto step = (*ls)->next_batch(&a, &s);
    EXPECT_FALSE(step.ok());
    // Destroyed (threads joined) at the end of the scope, cancelled or not.
  }
  auto ls = pq::LocalScan::make(plan_of(kFiles, kColumns), {}, 4);
  ASSERT_TRUE(ls.ok());
  ls->reset();  // destroyed while its threads read ahead
}

TEST(LocalScan, CStreamHandsOutEveryRowThenEnds) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  auto ls = pq::LocalScan::make(plan_of(kFiles, {"id", "name"}), {}, 2);
  ASSERT_TRUE(ls.ok());
  ArrowArrayStream stream;
  ASSERT_TRUE(pq::LocalScan::export_stream(std::move(ls).value(), &stream).ok());
  ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  ASSERT_EQ(schema.n_children, 2);
  EXPECT_EQ(std::string(schema.children[0]->name), "id");
  int64_t rows = 0;
  for (;;) {
    ArrowArray a;
    ASSERT_EQ(stream.get_next(&stream, &a), 0);
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  EXPECT_EQ(rows, 4000);
  schema.release(&schema);
  stream.release(&stream);
}

namespace {

// Scans `plan` on a LocalScan of `threads` threads, one unit at a time (the
// other threads can only help decode that unit's columns).
pqfast::Error local_scan_one_unit_ahead(const pq::ScanPlan& plan, int threads, Rows* got) {
  pq::ScannerOptions o;
  o.batch_size = 500;
  o.max_units_ahead = 1;
  auto ls = pq::LocalScan::make(plan, o, threads);
  if (!ls.ok()) return ls.error();
  return drain_rows(**ls, got);
}

}  // namespace

TEST(LocalScan, ThreadsShareTheColumnsOfOneUnit) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // One unit in flight: threads without a unit decode its columns. Rows as
  // the column reader's on every thread count.
  const Rows want = expected_rows(kFiles, kColumns);
  for (int threads : {1, 2, 4, 8}) {
    Rows got;
    auto err = local_scan_one_unit_ahead(plan_of(kFiles, kColumns), threads, &got);
    ASSERT_EQ(err.code, ErrorCode::kOk) << err.to_string();
    EXPECT_EQ(got, want) << threads << " threads";
  }
}

TEST(LocalScan, HelpersEndingAUnitTouchNothingOfItAfterItsOutcome) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // A helper that decoded a unit's last column takes once more (past the
  // end) while the unit's owner moves the decoded columns out. That check
  // once read the vector being moved: a torn size let the helper decode a
  // column past the end (the GPF of the 2-thread read bench). Many small
  // units, one at a time, so that helpers often end units: built with
  // PQFAST_SANITIZE=thread, ThreadSanitizer reported that race on each run
  // before the fix. Rows as the column reader's.
  const Rows want = expected_rows(kFiles, kColumns);
  for (int round = 0; round < 40; ++round) {
    for (int threads : {2, 3}) {
      Rows got;
      auto err = local_scan_one_unit_ahead(plan_of(kFiles, kColumns), threads, &got);
      ASSERT_EQ(err.code, ErrorCode::kOk) << err.to_string();
      ASSERT_EQ(got, want) << threads << " threads, round " << round;
    }
  }
}

TEST(LocalScan, ChunksCutIntoPageRangesEqualTheColumnReader) {
  // PQFAST_SPLIT_BYTES=1 cuts every chunk of several data pages (split_parts):
  // the scan's threads (and the consumer) decode its page ranges apart;
  // rows as the column reader's whole chunks, on every thread count.
  const std::string dir = PQFAST_TEST_DATA_DIR;
  const std::vector<std::string> files = {dir + "/alltypes_tiny_pages_plain.parquet", dir + "/alltypes_tiny_pages.parquet"};
  const std::vector<std::string> names = {"id", "bool_col", "int_col", "bigint_col", "double_col", "string_col"};
  const Rows want = expected_rows(files, names);
  ASSERT_GT(want.size(), 1000u);
  ::setenv("PQFAST_SPLIT_BYTES", "1", 1);
  for (int threads : {-1, 1, 2, 4}) {
    pq::ScannerOptions o;
    o.batch_size = 777;
    o.file_tasks = pq::ScannerOptions::FileTasks::kUnits;  // (file tasks decode a file on one thread: nothing cut)
    auto ls = pq::LocalScan::make(plan_of(files, names), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    Rows got;
    auto err = drain_rows(**ls, &got);
    ASSERT_EQ(err.code, ErrorCode::kOk) << err.to_string();
    EXPECT_EQ(got, want) << threads << " threads";
    const auto st = (*ls)->scanner().stats();
    if (threads < 0) {
      EXPECT_EQ(st.chunks_cut, 0);  // (one thread: nothing to share)
    } else {
      EXPECT_GT(st.chunks_cut, 0) << threads << " threads";
    }
  }
  ::unsetenv("PQFAST_SPLIT_BYTES");
}

TEST(LocalScan, DictionaryColumnsComeOutAsDictionaryArraysSharedByTheirBatches) {
  // A column read with dictionary_indices: batches of dictionary arrays
  // (int32 indices) whose values are the column reader's; the batches of
  // one row group share its one dictionary (the same buffers, not copies);
  // its chunks are never cut into page ranges (one job each), the plain
  // column beside it still is; a requested schema must name the same
  // dictionary format.
  const std::string dir = PQFAST_TEST_DATA_DIR;
  const std::vector<std::string> files = {dir + "/alltypes_tiny_pages_plain.parquet", dir + "/alltypes_tiny_pages.parquet"};
  const std::vector<std::string> names = {"id", "string_col"};
  const Rows want = expected_rows(files, names);
  ::setenv("PQFAST_SPLIT_BYTES", "1", 1);
  for (int threads : {-1, 2}) {
    pq::ScanPlan plan = plan_of(files, names);
    plan.columns[1].options.dictionary_indices = true;
    pq::ScannerOptions o;
    o.batch_size = 333;
    o.file_tasks = pq::ScannerOptions::FileTasks::kUnits;  // (chunks cut: units only; file tasks below)
    auto ls = pq::LocalScan::make(std::move(plan), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    Rows got;
    const void* dict_values = nullptr;
    int32_t last_rg = -1, last_file = -1;
    int shared = 0;
    for (;;) {
      ArrowArray a;
      ArrowSchema s;
      pq::BatchOrigin origin;
      auto step = (*ls)->next_batch(&a, &s, &origin);
      ASSERT_TRUE(step.ok()) << step.error().to_string();
      if (*step == pq::ScanStep::kEnd) break;
      ASSERT_EQ(std::string(s.children[1]->format), "i");
      ASSERT_NE(s.children[1]->dictionary, nullptr);
      ASSERT_NE(a.children[1]->dictionary, nullptr);
      const void* values = a.children[1]->dictionary->buffers[2];
      if (origin.file == last_file && origin.row_group == last_rg) {
        EXPECT_EQ(values, dict_values);
        ++shared;
      }
      dict_values = values;
      last_file = origin.file;
      last_rg = origin.row_group;
      append_rows(a, s, &got);
      a.release(&a);
      s.release(&s);
    }
    EXPECT_EQ(got, want) << threads << " threads";
    EXPECT_GT(shared, 0);
    if (threads > 0) {
      // Chunks cut: the id column's, as many as when it is read alone;
      // never the dictionary column's.
      auto alone = pq::LocalScan::make(plan_of(files, {"id"}), o, threads);
      ASSERT_TRUE(alone.ok());
      Rows ids;
      ASSERT_EQ(drain_rows(**alone, &ids).code, ErrorCode::kOk);
      const int64_t cut = (*ls)->scanner().stats().chunks_cut;
      EXPECT_GT(cut, 0);
      EXPECT_EQ(cut, (*alone)->scanner().stats().chunks_cut);
    }
  }
  ::unsetenv("PQFAST_SPLIT_BYTES");
  // The C stream: a requested schema of the same dictionary format is
  // taken, one whose dictionary is of another format refused.
  for (const char* values : {"z", "u"}) {
    pq::ScanPlan plan = plan_of(files, {"string_col"});
    plan.columns[0].options.dictionary_indices = true;
    auto ls = pq::LocalScan::make(std::move(plan), {}, 1);
    ASSERT_TRUE(ls.ok());
    ArrowSchema own;
    ASSERT_TRUE((*ls)->schema(&own).ok());
    ArrowSchema dict{}, child{}, top{};
    dict.format = values;
    dict.name = "";
    child.format = "i";
    child.name = "string_col";
    child.dictionary = &dict;
    ArrowSchema* children[] = {&child};
    top.format = "+s";
    top.name = "";
    top.n_children = 1;
    top.children = children;
    const bool same = std::string(own.children[0]->dictionary->format) == values;
    own.release(&own);
    ArrowArrayStream stream;
    auto st = pq::LocalScan::export_stream(std::move(ls).value(), &stream, &top);
    EXPECT_EQ(st.ok(), same) << values;
    if (st.ok()) stream.release(&stream);
  }
}

TEST(LocalScan, CorruptPagesInCutChunksFailWithoutHanging) {
  // Garbage over the pages of chunks cut into ranges: each read ends, with
  // rows or an error naming the file, whichever thread decoded what.
  const std::string src = std::string(PQFAST_TEST_DATA_DIR) + "/alltypes_tiny_pages_plain.parquet";
  const auto a = read_all(src);
  const fs::path dir = fs::temp_directory_path() / ("pqfast_scanner_cut_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<std::string> names = {"id", "int_col", "bigint_col", "double_col", "string_col"};
  std::mt19937 rng(17);
  ::setenv("PQFAST_SPLIT_BYTES", "1", 1);
  int errors = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto victim = a;
    const size_t at = 4 + rng() % (victim.size() * 3 / 4);
    const size_t n = std::min<size_t>(victim.size() - at, 1 + rng() % 512);
    for (size_t i = 0; i < n; ++i) victim[at + i] = static_cast<uint8_t>(rng());
    const std::string p = (dir / "victim.parquet").string();
    ASSERT_TRUE(write_all(p, victim));
    auto ls = pq::LocalScan::make(plan_of({p}, names), pq::ScannerOptions{}, 3);
    if (!ls.ok()) {
      ++errors;
      continue;
    }
    Rows got;
    auto err = drain_rows(**ls, &got);
    if (err.code != ErrorCode::kOk) {
      ++errors;
      EXPECT_NE(err.message.find("victim.parquet"), std::string::npos) << err.to_string();
    }
  }
  ::unsetenv("PQFAST_SPLIT_BYTES");
  fs::remove_all(dir);
  EXPECT_GT(errors, 5);
}

TEST(LocalScan, ACorruptColumnFailsTheUnitWithoutHangingItsHelpers) {
  // Garbage over page bytes: the unit fails (or decodes) and the scan ends,
  // whichever thread decoded the bad column.
  std::mt19937 rng(11);
  const auto a = read_all(kFiles[0]);
  const fs::path dir = fs::temp_directory_path() / ("pqfast_scanner_share_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  int errors = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto victim = a;
    const size_t at = 4 + rng() % (victim.size() / 2);
    const size_t n = std::min<size_t>(victim.size() - at, 1 + rng() % 256);
    for (size_t i = 0; i < n; ++i) victim[at + i] = static_cast<uint8_t>(rng());
    const std::string p = (dir / "victim.parquet").string();
    ASSERT_TRUE(write_all(p, victim));
    Rows got;
    auto err = local_scan_one_unit_ahead(plan_of({p}, kColumns), 4, &got);
    if (err.code != ErrorCode::kOk) {
      ++errors;
      EXPECT_NE(err.message.find("victim.parquet"), std::string::npos) << err.to_string();
    }
  }
  fs::remove_all(dir);
  EXPECT_GT(errors, 5);
}

TEST(LocalScan, DrainHandsEveryBatchOutAsOneStreamInOrder) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // The whole scan taken in one call (read_table's route), on the consumer
  // alone and beside the scan's threads: the column reader's rows, each
  // batch's plan file, the stream's schema the requested one.
  const Rows want = expected_rows(kFiles, kColumns);
  for (int threads : {-1, 1, 3}) {
    pq::ScannerOptions o;
    o.batch_size = 700;
    o.max_units_ahead = 16;
    auto ls = pq::LocalScan::make(plan_of(kFiles, kColumns), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    ArrowSchema own;
    ASSERT_TRUE((*ls)->schema(&own).ok());
    ArrowArrayStream stream;
    std::vector<int32_t> files;
    auto st = (*ls)->drain(&stream, &own, &files);
    own.release(&own);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    ArrowSchema schema;
    ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
    Rows got;
    std::vector<int32_t> seen;
    size_t k = 0;
    for (;; ++k) {
      ArrowArray a;
      ASSERT_EQ(stream.get_next(&stream, &a), 0);
      if (!a.release) break;
      append_rows(a, schema, &got);
      a.release(&a);
    }
    EXPECT_EQ(got, want) << threads << " threads";
    ASSERT_EQ(files.size(), k);
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
    EXPECT_EQ(files.front(), 0);
    EXPECT_EQ(files.back(), 1);
    schema.release(&schema);
    stream.release(&stream);
  }
}

TEST(LocalScan, DrainReturnsTheScanErrorTyped) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // A limit no row group fits: the error comes back from drain (typed, no
  // stream made), whichever thread met it.
  for (int threads : {-1, 2}) {
    pq::ScannerOptions o;
    o.memory_limit = 1024;
    auto ls = pq::LocalScan::make(plan_of(kFiles, kColumns), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    ArrowArrayStream stream{};
    auto st = (*ls)->drain(&stream);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, ErrorCode::kMemoryLimit) << st.error().to_string();
    EXPECT_EQ(stream.release, nullptr);
  }
}

namespace {

// Drives a Scanner feeding footers with bytes and every deferrable range
// deferred to `source(file)`, asking `units_per_needs` units at a time.
Pushed push_deferred(pq::ScanPlan plan, pq::ScannerOptions opts, int units_per_needs,
                     const std::vector<std::shared_ptr<pq::RandomAccessFile>>& sources) {
  Pushed out;
  auto s = pq::Scanner::make(std::move(plan), opts);
  if (!s.ok()) {
    out.error = s.error();
    return out;
  }
  for (int guard = 0; guard < 100000; ++guard) {
    ArrowArray a;
    ArrowSchema sc;
    auto step = (*s)->next_batch(&a, &sc);
    if (!step.ok()) {
      out.error = step.error();
      break;
    }
    if (*step == pq::ScanStep::kEnd) break;
    if (*step == pq::ScanStep::kBatch) {
      append_rows(a, sc, &out.rows);
      a.release(&a);
      sc.release(&sc);
      continue;
    }
    auto needs = (*s)->needs(units_per_needs);
    for (const auto& r : needs) {
      auto& src = sources[static_cast<size_t>(r.file)];
      pqfast::Status st = pqfast::Status::Ok();
      if (r.deferrable) {
        st = (*s)->feed_deferred(r.file, r.offset, src, static_cast<size_t>(r.length));
      } else {
        std::vector<uint8_t> b(static_cast<size_t>(r.length));
        st = src->read_at(r.offset, b.size(), b.data());
        if (st.ok()) st = (*s)->feed(r.file, r.offset, std::move(b));
      }
      if (!st.ok()) {
        out.error = st.error();
        return out;
      }
    }
  }
  out.stats = (*s)->stats();
  return out;
}

std::vector<std::shared_ptr<pq::RandomAccessFile>> open_all(const std::vector<std::string>& paths) {
  std::vector<std::shared_ptr<pq::RandomAccessFile>> out;
  for (const auto& p : paths) {
    auto f = pq::LocalFile::open(p);
    if (!f.ok()) return {};
    out.push_back(std::move(f).value());
  }
  return out;
}

}  // namespace

TEST(Scanner, DeferredRangesEqualTheColumnReader) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  const Rows want = expected_rows(kFiles, kColumns);
  auto sources = open_all(kFiles);
  ASSERT_EQ(sources.size(), kFiles.size());
  for (int per : {0, 1, 2}) {
    for (uint64_t gap : {uint64_t{0}, uint64_t{1} << 20}) {
      pq::ScannerOptions o;
      o.batch_size = 333;
      o.coalesce_gap = gap;
      Pushed got = push_deferred(plan_of(kFiles, kColumns), o, per, sources);
      ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
      EXPECT_EQ(got.rows, want) << "units per needs " << per << ", gap " << gap;
    }
  }
}

TEST(Scanner, NeedsAsksAtMostTheUnitsItIsAllowed) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  auto s = pq::Scanner::make(plan_of({kFiles[0]}, kColumns), {});
  ASSERT_TRUE(s.ok());
  auto footer = (*s)->needs(1);
  ASSERT_EQ(footer.size(), 1u);
  EXPECT_FALSE(footer[0].deferrable);  // a footer is read, never deferred
  const auto bytes = read_all(kFiles[0]);
  {
    const auto& r = footer[0];
    std::vector<uint8_t> b(bytes.begin() + static_cast<ptrdiff_t>(r.offset),
                           bytes.begin() + static_cast<ptrdiff_t>(r.offset + r.length));
    ASSERT_TRUE((*s)->feed(r.file, r.offset, std::move(b)).ok());
  }
  // Units are row groups: one unit's ranges per call (coalesced: one range here).
  auto first = (*s)->needs(1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].deferrable);
  auto second = (*s)->needs(1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_GT(second[0].offset, first[0].offset);
  auto rest = (*s)->needs();
  EXPECT_EQ(static_cast<int64_t>(rest.size()) + 2, (*s)->stats().units_started);
}

TEST(Scanner, DeferredFeedsAreRefusedWhereBytesAreRead) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  auto sources = open_all({kFiles[0]});
  ASSERT_EQ(sources.size(), 1u);
  auto s = pq::Scanner::make(plan_of({kFiles[0]}, kColumns), {});
  ASSERT_TRUE(s.ok());
  auto footer = (*s)->needs();
  ASSERT_EQ(footer.size(), 1u);
  // The footer is parsed from the bytes fed: it cannot be deferred.
  EXPECT_EQ((*s)->feed_deferred(0, footer[0].offset, sources[0], footer[0].length).error().code,
            ErrorCode::kInvalidArgument);
  EXPECT_EQ((*s)->feed_deferred(0, footer[0].offset, nullptr, footer[0].length).error().code,
            ErrorCode::kInvalidArgument);
  const auto bytes = read_all(kFiles[0]);
  std::vector<uint8_t> b(bytes.begin() + static_cast<ptrdiff_t>(footer[0].offset), bytes.end());
  ASSERT_TRUE((*s)->feed(0, footer[0].offset, std::move(b)).ok());
  auto units = (*s)->needs(1);
  ASSERT_FALSE(units.empty());
  // Part of a range: refused (a deferred piece is a whole range).
  EXPECT_EQ((*s)->feed_deferred(0, units[0].offset, sources[0], units[0].length - 1).error().code,
            ErrorCode::kInvalidArgument);
  ASSERT_TRUE((*s)->feed_deferred(0, units[0].offset, sources[0], units[0].length).ok());
  // Twice: refused.
  EXPECT_EQ((*s)->feed_deferred(0, units[0].offset, sources[0], units[0].length).error().code,
            ErrorCode::kInvalidArgument);
}

TEST(Scanner, ADeferredReadThatFailsNamesTheChunk) {
  SKIP_WITHOUT_THE_FILES_CODEC();
  // The footer reads, the chunks do not (a file cut short after its footer
  // was read): the unit fails naming its file, row group and column.
  auto bytes = read_all(kFiles[0]);
  auto m = pq::read_file_metadata(*std::make_unique<pq::BufferFile>(bytes.data(), bytes.size()));
  ASSERT_TRUE(m.ok());
  const uint64_t footer_start = bytes.size() - 8 - m->footer_length;
  class TailOnly final : public pq::RandomAccessFile {
   public:
    TailOnly(std::vector<uint8_t> b, uint64_t tail_from) : b_(std::move(b)), from_(tail_from) {}
    uint64_t size() const override { return b_.size(); }
    const std::string& name() const override { return name_; }
    pqfast::Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
      if (offset < from_) return pqfast::make_error(ErrorCode::kTruncated, "cut.parquet: short read");
      std::memcpy(out, b_.data() + offset, n);
      return pqfast::Status::Ok();
    }

   private:
    std::vector<uint8_t> b_;
    uint64_t from_;
    std::string name_ = "cut.parquet";
  };
  pq::ScannerOptions o;
  o.footer_tail = bytes.size() - footer_start;  // exactly the footer and its trailer
  Pushed got = push_deferred(plan_of({kFiles[0]}, kColumns), o, 1,
                             {std::make_shared<TailOnly>(bytes, footer_start)});
  ASSERT_EQ(got.error.code, ErrorCode::kTruncated) << got.error.to_string();
  EXPECT_NE(got.error.message.find("row group 0"), std::string::npos) << got.error.message;
  EXPECT_NE(got.error.message.find("column '"), std::string::npos) << got.error.message;
}

// ---- nested fields (lists, structs, maps) ------------------------------------

namespace {

const std::string kNested = path_of("nested_rg.parquet");
const std::vector<std::string> kNestedColumns = {"id", "ls", "st", "m", "deep"};

pq::FileMetaData meta_of(const std::string& path) {
  auto f = pq::LocalFile::open(path);
  EXPECT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  EXPECT_TRUE(m.ok());
  return *m;
}

// A plan of `names` over `files`, each nested field with default leaf options.
pq::ScanPlan nested_plan(const std::vector<std::string>& files, const std::vector<std::string>& names) {
  pq::ScanPlan plan = plan_of(files, names);
  const pq::FileMetaData m = meta_of(files.at(0));
  for (const auto& n : names) plan.nested.emplace_back(nested_leaves(m, n));
  return plan;
}

}  // namespace

// Fed in random order and pieces, nested fields (assembled per unit, sliced
// by top-level rows) give the column reader's rows at every batch size: no
// list split, repeated or dropped at a batch boundary.
TEST(Scanner, NestedFieldsEqualTheColumnReaderAtEveryBatchSize) {
  const Rows want = expected_rows({kNested, kNested}, kNestedColumns);
  ASSERT_EQ(want.size(), 1000u);
  EXPECT_EQ(want[5][1], "[]");                        // (row 5: an empty list)
  EXPECT_EQ(want[0][1], "null");                      // (row 0: a null list)
  EXPECT_NE(want[4][3].find("k0"), std::string::npos);  // (a map's entries)
  const auto saved = pqfast::simd_level();
  for (auto level : pqfast::available_simd_levels()) {
    ASSERT_TRUE(pqfast::set_simd_level(level).ok());
    for (int64_t bs : {int64_t{1}, int64_t{7}, int64_t{150}, int64_t{1} << 20}) {
      pq::ScannerOptions o;
      o.batch_size = bs;
      Pushed got = push_scan(nested_plan({kNested, kNested}, kNestedColumns), o, 11, 3);
      ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
      EXPECT_EQ(got.rows, want) << "batch_size " << bs;
      for (int64_t n : got.batch_rows) {
        EXPECT_GT(n, 0);
        EXPECT_LE(n, bs);
      }
      // Every leaf of every nested field asked for: the units' estimates count them.
      EXPECT_EQ(got.stats.units_decoded, 8);
    }
  }
  (void)pqfast::set_simd_level(saved);
}

TEST(LocalScan, NestedFieldsEqualTheColumnReaderOnEveryThreadCount) {
  const Rows want = expected_rows({kNested, kNested}, {"ls", "id", "deep", "m", "st"});
  for (int threads : {-1, 1, 2, 4}) {
    pq::ScannerOptions o;
    o.batch_size = 7;
    o.readahead_bytes = 4000;  // (a unit or two ahead)
    o.decode_threads = 2;
    auto ls = pq::LocalScan::make(nested_plan({kNested, kNested}, {"ls", "id", "deep", "m", "st"}), o, threads);
    ASSERT_TRUE(ls.ok()) << ls.error().to_string();
    ArrowSchema schema;
    ASSERT_TRUE((*ls)->schema(&schema).ok());
    ASSERT_EQ(schema.n_children, 5);
    EXPECT_EQ(std::string(schema.children[0]->format), "+l");
    EXPECT_EQ(std::string(schema.children[3]->format), "+m");
    EXPECT_EQ(std::string(schema.children[4]->format), "+s");
    schema.release(&schema);
    Rows got;
    const pqfast::Error drained = drain_rows(**ls, &got);
    ASSERT_EQ(drained.code, ErrorCode::kOk) << drained.to_string();
    EXPECT_EQ(got, want) << threads << " threads";
  }
}

// ---- filtered nested fields: the engine's selection taken of each field ----

namespace {

// The reference of a filter on int64 `id`: the atom evaluated on a row's
// id here, row by row (ids are never null in the file).
bool keeps(const std::vector<std::vector<pq::FilterAtom>>& dnf, int64_t id) {
  for (const auto& conj : dnf) {
    bool all = true;
    for (const auto& a : conj) {
      std::vector<int64_t> vs(a.values.data.size() / 8);
      if (!vs.empty()) std::memcpy(vs.data(), a.values.data.data(), a.values.data.size());
      bool t = false;
      switch (a.op) {
        case pq::FilterOp::kEq: t = id == vs[0]; break;
        case pq::FilterOp::kNe: t = id != vs[0]; break;
        case pq::FilterOp::kLt: t = id < vs[0]; break;
        case pq::FilterOp::kLe: t = id <= vs[0]; break;
        case pq::FilterOp::kGt: t = id > vs[0]; break;
        case pq::FilterOp::kGe: t = id >= vs[0]; break;
        case pq::FilterOp::kIn: t = std::find(vs.begin(), vs.end(), id) != vs.end(); break;
        case pq::FilterOp::kIsNull: t = false; break;
      }
      if (a.negate) t = !t;
      all = all && t;
    }
    if (all) return true;
  }
  return false;
}

// Filters on `id` of the nested file's rows `ids`: a few rows (IN), ranges
// across row groups, an OR, none, every row (IS NOT NULL), every row but one.
std::vector<std::vector<std::vector<pq::FilterAtom>>> nested_filters(const std::vector<int64_t>& ids) {
  using pq::FilterOp;
  return {
      {{int64_atom("id", FilterOp::kIn, {ids[3], ids[250], ids[499], ids[251]})}},
      {{int64_atom("id", FilterOp::kGe, {ids[100]}), int64_atom("id", FilterOp::kLt, {ids[380]})}},
      {{int64_atom("id", FilterOp::kLt, {ids[7]})}, {int64_atom("id", FilterOp::kGt, {ids[444]})}},
      {{int64_atom("id", FilterOp::kEq, {-5})}},
      {{int64_atom("id", FilterOp::kIsNull, {}, /*negate=*/true)}},
      {{int64_atom("id", FilterOp::kNe, {ids[0]})}},
  };
}

}  // namespace

// A filter on the flat `id` with nested fields projected: the rows the
// engine selects, each nested field assembled per matching row group and
// reduced to them, equal the column reader's rows the filter keeps
// (evaluated here, row by row), on every SIMD level, fed in random order
// and pieces, at batch sizes 1, 7 and whole; the unit asks for its nested
// chunks after the engine's run, which is not run again.
TEST(Scanner, FilteredNestedFieldsEqualTheColumnReadersKeptRows) {
  const std::vector<std::string> names = {"ls", "id", "deep", "m", "st"};
  const Rows all = expected_rows({kNested}, names);
  ASSERT_EQ(all.size(), 500u);
  std::vector<int64_t> ids;
  for (const auto& r : all) ids.push_back(std::stoll(r[1]));
  const auto saved = pqfast::simd_level();
  for (auto level : pqfast::available_simd_levels()) {
    ASSERT_TRUE(pqfast::set_simd_level(level).ok());
    const auto filters = nested_filters(ids);
    for (size_t fi = 0; fi < filters.size(); ++fi) {
      const auto& dnf = filters[fi];
      Rows want;
      for (size_t r = 0; r < all.size(); ++r) {
        if (keeps(dnf, ids[r])) want.push_back(all[r]);
      }
      const size_t want_count[] = {4, 280, 7 + 55, 0, 500, 499};
      EXPECT_EQ(want.size(), want_count[fi]);
      for (int64_t bs : {int64_t{1}, int64_t{7}, int64_t{1} << 20}) {
        pq::ScanPlan plan = nested_plan({kNested}, names);
        plan.filter.active = true;
        plan.filter.any_of = dnf;
        pq::ScannerOptions o;
        o.batch_size = bs;
        // (at batch size 7 no coalescing and the least tail: the engine's
        // ranges alone, so a matching unit of the file's first half asks
        // for its nested chunks after its run, which it keeps)
        if (bs == 7) {
          o.coalesce_gap = 0;
          o.footer_tail = 8;
        }
        Pushed got = push_scan(plan, o, 5 + static_cast<uint32_t>(bs), 3);
        ASSERT_EQ(got.error.code, ErrorCode::kOk) << got.error.to_string();
        EXPECT_EQ(got.rows, want) << "filter " << fi << " batch_size " << bs;
        // The engine's counts added once per unit (a run kept while the
        // nested chunks were fed is not run, nor counted, again).
        EXPECT_EQ(got.stats.engine.rows, static_cast<int64_t>(want.size()));
        if (bs == 7) {
          // (every filter but "none" keeps rows of row group 0)
          if (want.empty()) {
            EXPECT_EQ(got.stats.nested_rounds, 0);
          } else {
            EXPECT_GT(got.stats.nested_rounds, 0) << "filter " << fi;
          }
        }
      }
    }
  }
  (void)pqfast::set_simd_level(saved);
}

// The same through LocalScan: units read from their files by the engine
// (the nested chunks from the file), one by one or run together.
TEST(LocalScan, FilteredNestedFieldsEqualTheColumnReadersKeptRows) {
  const std::vector<std::string> names = {"id", "m", "ls", "deep", "st"};
  const Rows all = expected_rows({kNested, kNested}, names);
  std::vector<int64_t> ids;
  for (const auto& r : all) ids.push_back(std::stoll(r[0]));
  const auto saved = pqfast::simd_level();
  for (auto level : pqfast::available_simd_levels()) {
    ASSERT_TRUE(pqfast::set_simd_level(level).ok());
    for (const auto& dnf : nested_filters(ids)) {
      Rows want;
      for (size_t r = 0; r < all.size(); ++r) {
        if (keeps(dnf, ids[r])) want.push_back(all[r]);
      }
      for (int threads : {-1, 1, 2}) {
        pq::ScanPlan plan = nested_plan({kNested, kNested}, names);
        plan.filter.active = true;
        plan.filter.any_of = dnf;
        pq::ScannerOptions o;
        o.batch_size = 7;
        auto ls = pq::LocalScan::make(plan, o, threads);
        ASSERT_TRUE(ls.ok()) << ls.error().to_string();
        Rows got;
        const pqfast::Error drained = drain_rows(**ls, &got);
        ASSERT_EQ(drained.code, ErrorCode::kOk) << drained.to_string();
        EXPECT_EQ(got, want) << threads << " threads";
        EXPECT_EQ(got.size(), 2 * std::count_if(all.begin(), all.begin() + all.size() / 2, [&](const auto& r) {
                                return keeps(dnf, std::stoll(r[0]));
                              }));
      }
    }
  }
  (void)pqfast::set_simd_level(saved);
  // Only nested fields projected (the engine reads the filter column alone).
  pq::ScanPlan plan = nested_plan({kNested}, {"ls"});
  plan.filter.active = true;
  plan.filter.any_of = {{int64_atom("id", pq::FilterOp::kIn, {ids[3], ids[499]})}};
  auto ls = pq::LocalScan::make(plan, {}, 1);
  ASSERT_TRUE(ls.ok()) << ls.error().to_string();
  Rows got;
  ASSERT_EQ(drain_rows(**ls, &got).code, ErrorCode::kOk);
  const Rows ls_rows = expected_rows({kNested}, {"ls"});
  EXPECT_EQ(got, (Rows{ls_rows[3], ls_rows[499]}));
}

// take_nested_rows against a reference that keeps the rows' cells one by
// one, for random selections; offsets that leave the child are kCorrupt.
TEST(NestedTake, SelectedRowsEqualTheReferenceAndHostileOffsetsFail) {
  auto f = pq::LocalFile::open(kNested);
  ASSERT_TRUE(f.ok());
  auto m = pq::read_file_metadata(**f);
  ASSERT_TRUE(m.ok());
  const auto fields = pq::top_level_fields(*m);
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i].group) continue;
    auto shape = pq::nested_field(*m, static_cast<int>(i));
    ASSERT_TRUE(shape.ok());
    for (int density : {0, 1, 3, 8, 64}) {
      auto whole = pq::read_nested_chunk(**f, *m, 1, *shape, {});
      ASSERT_TRUE(whole.ok()) << whole.error().to_string();
      const int64_t n = whole->length();
      std::vector<uint64_t> sel(static_cast<size_t>((n + 63) / 64), 0);
      int64_t selected = 0;
      for (int64_t r = 0; r < n; ++r) {
        if (density == 64 || (density && static_cast<int>(rng() % 64) < density)) {
          sel[static_cast<size_t>(r >> 6)] |= uint64_t{1} << (r & 63);
          ++selected;
        }
      }
      ArrowArray wa;
      ArrowSchema ws;
      auto copy = pq::read_nested_chunk(**f, *m, 1, *shape, {});
      ASSERT_TRUE(copy.ok());
      std::move(*copy).export_to(&wa, &ws);
      std::vector<std::string> want;
      for (int64_t r = 0; r < n; ++r) {
        if ((sel[static_cast<size_t>(r >> 6)] >> (r & 63)) & 1) want.push_back(cell(wa, ws, r));
      }
      wa.release(&wa);
      ws.release(&ws);
      auto taken = pq::take_nested_rows(std::move(*whole), sel.data(), selected, "t");
      ASSERT_TRUE(taken.ok()) << taken.error().to_string();
      ASSERT_EQ(taken->length(), selected);
      ArrowArray ta;
      ArrowSchema ts;
      std::move(*taken).export_to(&ta, &ts);
      std::vector<std::string> got;
      for (int64_t r = 0; r < selected; ++r) got.push_back(cell(ta, ts, r));
      ta.release(&ta);
      ts.release(&ts);
      EXPECT_EQ(got, want) << fields[i].name << " density " << density;
    }
  }
  // Hostile offsets (a list's last offset past its child): kCorrupt, no read past the child.
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name != "ls") continue;
    auto shape = pq::nested_field(*m, static_cast<int>(i));
    auto whole = pq::read_nested_chunk(**f, *m, 1, *shape, {});
    ASSERT_TRUE(whole.ok());
    auto* impl = whole->impl();
    ASSERT_EQ(impl->nest, pq::ColumnArray::Impl::Nest::kList);
    const int64_t n = impl->length;
    impl->values.as<int32_t>()[n] = static_cast<int32_t>(impl->children[0]->length + 1000);
    std::vector<uint64_t> sel(static_cast<size_t>((n + 63) / 64), ~uint64_t{0});
    if (n % 64) sel.back() = (uint64_t{1} << (n % 64)) - 1;
    sel[0] &= ~uint64_t{1};  // (not every row: the take runs)
    auto taken = pq::take_nested_rows(std::move(*whole), sel.data(), n - 1, "hostile");
    ASSERT_FALSE(taken.ok());
    EXPECT_EQ(taken.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(taken.error().message.find("hostile"), std::string::npos) << taken.error().message;
  }
}

TEST(Scanner, NestedPlansTheScannerCannotTakeAreRefused) {
  // A leaf count unlike the file's, a flat leaf named as nested, a field the file lacks.
  for (const auto& [name, leaves] : std::vector<std::pair<std::string, size_t>>{{"st", 1}, {"id", 1}, {"nope", 2}}) {
    pq::ScanPlan p = plan_of({kNested}, {name});
    p.nested = {std::vector<pq::ColumnReadOptions>(leaves)};
    Pushed got = push_scan(p, {}, 1, 1);
    EXPECT_EQ(got.error.code, ErrorCode::kInvalidArgument) << name;
    EXPECT_NE(got.error.message.find("nested_rg.parquet"), std::string::npos) << got.error.message;
  }
}

// Hostile bytes in a nested leaf's chunk (its page header, its levels) fail
// the unit with an error naming the file, row group and field; no crash.
TEST(LocalScan, CorruptNestedChunksFailNamingTheColumn) {
  const pq::FileMetaData m = meta_of(kNested);
  const std::vector<uint8_t> bytes = read_all(kNested);
  const int leaf = m.find_column("ls.list.element");
  ASSERT_GE(leaf, 0);
  const pq::ColumnChunk& c = m.row_groups.at(1).columns.at(static_cast<size_t>(leaf));
  const uint64_t at = static_cast<uint64_t>(c.data_page_offset);
  const std::string victim = (fs::temp_directory_path() / ("pqfast_nested_" + std::to_string(getpid()) + ".parquet")).string();
  for (uint64_t skip : {uint64_t{0}, uint64_t{24}}) {  // the page header; bytes past it (levels)
    std::vector<uint8_t> bad = bytes;
    for (uint64_t k = at + skip; k < at + skip + 40 && k < bad.size(); ++k) bad[k] = static_cast<uint8_t>(0xA5 ^ k);
    ASSERT_TRUE(write_all(victim, bad));
    for (int threads : {-1, 2, 100}) {
      // (100: under a filter every row passes, 2 threads: the engine's
      // selection taken of the corrupt field)
      pq::ScanPlan plan = nested_plan({victim}, {"id", "ls"});
      if (threads == 100) {
        plan.filter.active = true;
        plan.filter.any_of = {{int64_atom("id", pq::FilterOp::kIsNull, {}, /*negate=*/true)}};
      }
      auto ls = pq::LocalScan::make(plan, {}, threads == 100 ? 2 : threads);
      ASSERT_TRUE(ls.ok()) << ls.error().to_string();
      Rows got;
      const pqfast::Error e = drain_rows(**ls, &got);
      if (e.code == ErrorCode::kOk) {
        // Garbage that still decodes must still hold the row group's records.
        EXPECT_EQ(got.size(), 500u);
        continue;
      }
      EXPECT_NE(e.message.find("row group 1"), std::string::npos) << e.message;
      EXPECT_NE(e.message.find("pqfast_nested_"), std::string::npos) << e.message;
    }
  }
  fs::remove(victim);
}
