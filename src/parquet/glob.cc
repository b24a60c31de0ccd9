// Pattern expansion of local paths with glob(3): a lake is named by a
// pattern, and expanding it in Python costs about a microsecond per entry.
#include <glob.h>

#include <algorithm>
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

}  // namespace

Result<std::vector<std::string>> glob_local(const std::string& pattern) {
  if (pattern.find("**") != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument,
                      "glob_local: '**' (recursive) patterns are not supported: " + pattern);
  }
  if (pattern.empty()) return std::vector<std::string>{};
  if (pattern.find('\0') != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument, "glob_local: pattern holds a NUL byte");
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
  return out;
}

}  // namespace pqfast::parquet
