// A directory source: every file *.parquet under it, sorted, with one readdir per
// directory (a lookup lists its lake on every call; glob's pattern matching
// and path joins cost ten times the system calls). Names starting with "."
// or "_" below `dir` are skipped, files and directories alike, as
// pyarrow.dataset skips them: _SUCCESS, .crc files, _delta_log/ (whose
// checkpoints are *.parquet files of another schema), _temporary/.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pqfast/parquet.h"

namespace pqfast::parquet {

namespace {

// Symbolic links to directories are followed (as glob's "**" follows them):
// a loop of them ends here instead of at the path length limit.
constexpr int kMaxDepth = 64;

bool ends_with_parquet(std::string_view name) {
  constexpr std::string_view kSuffix = ".parquet";
  return name.size() >= kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix;
}

}  // namespace

Result<std::vector<std::string>> parquet_files_under(const std::string& dir) {
  std::vector<std::string> out;
  std::vector<std::pair<std::string, int>> stack{{dir, 0}};
  while (!stack.empty()) {
    auto [cur, depth] = std::move(stack.back());
    stack.pop_back();
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(cur.c_str()), ::closedir);
    if (!d) continue;  // unreadable: nothing, as glob gives
    const std::string prefix = cur.empty() || cur.back() == '/' ? cur : cur + "/";
    while (const dirent* e = ::readdir(d.get())) {
      const std::string_view name(e->d_name);
      if (name.empty() || name[0] == '.' || name[0] == '_') continue;  // hidden, ".", "..", _delta_log...
      std::string path = prefix;
      path.append(name);
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
        struct stat st;
        is_dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      }
      if (is_dir) {
        // Spark's output "x.parquet/" is a directory of part files, not a file.
        if (depth < kMaxDepth) stack.emplace_back(std::move(path), depth + 1);
      } else if (ends_with_parquet(name)) {
        out.push_back(std::move(path));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pqfast::parquet
