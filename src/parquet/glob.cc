// Pattern expansion of local paths with glob(3): a lake is named by a
// pattern, and expanding it in Python costs about a microsecond per entry.
// The common shape, "dir/prefix*suffix" (stars in the last component only),
// is matched here on bytes over one readdir: glob(3) in a UTF-8 locale runs
// fnmatch(3) through wide characters, 0.8 us per entry.
#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

namespace {

std::vector<std::string_view> split_components(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

bool has_magic(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

// glob(3) lets ".*" match the "." and ".." entries; Python's glob (which
// lists directories with scandir) never does.
bool dot_entry_from_wildcard(const std::vector<std::string_view>& pattern, std::string_view path) {
  const auto parts = split_components(path);
  if (parts.size() != pattern.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (has_magic(pattern[i]) && (parts[i] == "." || parts[i] == "..")) return true;
  }
  return false;
}

// "a*b*c" against a name: a star matches any bytes, the rest literally.
bool star_match(std::string_view pattern, std::string_view name) {
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == name;
  const std::string_view head = pattern.substr(0, star);
  if (name.substr(0, head.size()) != head) return false;
  const size_t last = pattern.rfind('*');
  const std::string_view tail = pattern.substr(last + 1);
  if (name.size() < head.size() + tail.size() || name.substr(name.size() - tail.size()) != tail) return false;
  // The middle pieces, in order, leftmost first, between head and tail.
  size_t at = head.size();
  const size_t end = name.size() - tail.size();
  while (star < last) {
    const size_t next = pattern.find('*', star + 1);
    const std::string_view piece = pattern.substr(star + 1, next - star - 1);
    star = next;
    if (piece.empty()) continue;
    const size_t found = name.substr(0, end).find(piece, at);
    if (found == std::string_view::npos) return false;
    at = found + piece.size();
  }
  return true;
}

// A directory's names, kept while the directory is unchanged: a lake is
// probed key after key with the same pattern, and rereading a directory of
// thousands of entries costs more than the rest of a one-value prune's
// Python side (0.35 ms for 200 entries with cold caches). The directory's
// identity, mtime and ctime are checked (one stat) on every use. A change
// made in the same tick of the kernel's coarse clock as the previous one may
// leave mtime as it was, so a listing is kept only when the directory was
// last changed kSettleSeconds or more before it was read.
struct Listing {
  dev_t dev;
  ino_t ino;
  timespec mtime, ctime;
  std::vector<std::string> names;  // sorted by bytes; no "." or ".."
  // The paths the last pattern over this listing matched: a lake probed key
  // after key asks for them again, and gets them without a copy.
  mutable std::mutex mu;
  mutable std::string last_pattern;
  mutable std::shared_ptr<const std::vector<std::string>> last_paths;
};

constexpr time_t kSettleSeconds = 2;
constexpr size_t kMaxListings = 256;

bool same_time(const timespec& a, const timespec& b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; }

std::mutex g_listings_mu;
std::unordered_map<std::string, std::shared_ptr<const Listing>>& listings() {
  static auto* m = new std::unordered_map<std::string, std::shared_ptr<const Listing>>();
  return *m;
}

// nullptr: not a directory (no match, as glob(3)); io_error: a read failed.
std::shared_ptr<const Listing> list_directory(const std::string& dir, bool& io_error) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return nullptr;
  {
    std::lock_guard<std::mutex> lock(g_listings_mu);
    auto it = listings().find(dir);
    if (it != listings().end()) {
      const Listing& l = *it->second;
      if (l.dev == st.st_dev && l.ino == st.st_ino && same_time(l.mtime, st.st_mtim) && same_time(l.ctime, st.st_ctim)) {
        return it->second;
      }
    }
  }
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return nullptr;
  auto l = std::make_shared<Listing>();
  l->dev = st.st_dev;
  l->ino = st.st_ino;
  l->mtime = st.st_mtim;
  l->ctime = st.st_ctim;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name != "." && name != "..") l->names.emplace_back(name);
  }
  io_error = errno != 0;
  ::closedir(d);
  if (io_error) return nullptr;
  std::sort(l->names.begin(), l->names.end());
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  if (now.tv_sec - std::max(st.st_mtim.tv_sec, st.st_ctim.tv_sec) >= kSettleSeconds) {
    std::lock_guard<std::mutex> lock(g_listings_mu);
    if (listings().size() >= kMaxListings) listings().clear();
    listings()[dir] = l;
  }
  return l;
}

// The fast shape: no ? or [ anywhere, stars only after the last slash, no
// doubled slash. Returns false (and leaves `out` alone) for other patterns.
// The names come sorted, so the paths do.
bool glob_last_component(const std::string& pattern, std::shared_ptr<const std::vector<std::string>>& result,
                         bool& io_error) {
  if (pattern.find_first_of("?[") != std::string::npos) return false;
  const size_t slash = pattern.rfind('/');
  if (slash != std::string::npos && (pattern.find('*') < slash || pattern.find("//") != std::string::npos)) {
    return false;
  }
  const std::string prefix = slash == std::string::npos ? std::string() : pattern.substr(0, slash + 1);
  const std::string_view component = std::string_view(pattern).substr(prefix.size());
  if (component.find('*') == std::string_view::npos) return false;  // a plain path: glob(3) checks it
  const auto listing = list_directory(prefix.empty() ? std::string(".") : prefix, io_error);
  if (listing == nullptr) {  // as glob(3): no directory, no match
    result = std::make_shared<const std::vector<std::string>>();
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(listing->mu);
    if (listing->last_paths != nullptr && listing->last_pattern == pattern) {
      result = listing->last_paths;
      return true;
    }
  }
  // Names starting with a dot match only a component that starts with one
  // (as glob(3) and Python's glob).
  auto out = std::make_shared<std::vector<std::string>>();
  const bool dot_ok = component[0] == '.';
  for (const std::string& name : listing->names) {
    if (name[0] == '.' && !dot_ok) continue;
    if (star_match(component, name)) {
      out->emplace_back(prefix);
      out->back().append(name);
    }
  }
  result = out;
  std::lock_guard<std::mutex> lock(listing->mu);
  listing->last_pattern = pattern;
  listing->last_paths = result;
  return true;
}

}  // namespace

Result<std::vector<std::string>> glob_local(const std::string& pattern) {
  auto r = glob_local_shared(pattern);
  if (!r.ok()) return r.error();
  return std::vector<std::string>(**r);
}

Result<std::shared_ptr<const std::vector<std::string>>> glob_local_shared(const std::string& pattern) {
  if (pattern.find("**") != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument,
                      "glob_local: '**' (recursive) patterns are not supported: " + pattern);
  }
  if (pattern.empty()) return std::make_shared<const std::vector<std::string>>();
  if (pattern.find('\0') != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument, "glob_local: pattern holds a NUL byte");
  }
  {
    std::shared_ptr<const std::vector<std::string>> out;
    bool io_error = false;
    if (glob_last_component(pattern, out, io_error)) {
      if (io_error) return make_error(ErrorCode::kIoError, "glob_local: cannot read the directory of " + pattern);
      return out;
    }
  }
  glob_t g{};
  // GLOB_NOESCAPE: a backslash is a plain character, as in Python's glob.
  // GLOB_NOSORT: sorted below by bytes (glob(3) would use the locale).
  const int rc = ::glob(pattern.c_str(), GLOB_NOESCAPE | GLOB_NOSORT, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0) {
    // Only a component that starts with a dot can match "." or "..".
    const bool dotted = pattern[0] == '.' || pattern.find("/.") != std::string::npos;
    const auto pattern_parts = dotted ? split_components(pattern) : std::vector<std::string_view>{};
    out.reserve(g.gl_pathc);
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      if (!dotted || !dot_entry_from_wildcard(pattern_parts, g.gl_pathv[i])) out.emplace_back(g.gl_pathv[i]);
    }
  }
  globfree(&g);
  if (rc == GLOB_NOSPACE) return make_error(ErrorCode::kIoError, "glob_local: out of memory expanding " + pattern);
  if (rc != 0 && rc != GLOB_NOMATCH) {
    return make_error(ErrorCode::kIoError, "glob_local: cannot expand " + pattern);
  }
  std::sort(out.begin(), out.end());
  return std::make_shared<const std::vector<std::string>>(std::move(out));
}

}  // namespace pqfast::parquet
