#include "simple_values.h"

#include <sys/stat.h>

#include <climits>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "parquet/internal.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

ValueTyping value_typing(const pq::ColumnDescriptor& column) {
  return ValueTyping{column.physical_type,
                     column.logical.kind != pq::LogicalType::kNone ||
                         pq::converted_type_name(column.converted_type) != nullptr,
                     column.logical.kind == pq::LogicalType::kDecimal || column.converted_type == 5 /* DECIMAL */};
}

std::optional<pq::ProbeValues> encode_small_list(const ValueTyping& column, nb::handle values) {
  PyObject* list = values.ptr();
  if (!PyList_CheckExact(list)) return std::nullopt;
  const Py_ssize_t n = PyList_GET_SIZE(list);
  if (n < 1 || static_cast<size_t>(n) > kSmallListMax) return std::nullopt;
  const bool annotated = column.annotated;
  pq::ProbeValues out;
  out.type = column.physical_type;
  switch (column.physical_type) {
    case PhysicalType::kInt32:
    case PhysicalType::kInt64: {
      if (annotated) return std::nullopt;  // dates, times, unsigned, decimals: the general path
      const bool wide = column.physical_type == PhysicalType::kInt64;
      out.data.resize(static_cast<size_t>(n) * (wide ? 8 : 4));
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* v = PyList_GET_ITEM(list, i);
        if (!PyLong_CheckExact(v)) return std::nullopt;  // bool, numpy ints, floats, ...
        int overflow = 0;
        const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow != 0 || (x == -1 && PyErr_Occurred())) {
          PyErr_Clear();
          return std::nullopt;
        }
        if (wide) {
          const int64_t w = x;
          std::memcpy(out.data.data() + i * 8, &w, 8);
        } else {
          if (x < INT32_MIN || x > INT32_MAX) return std::nullopt;
          const int32_t w = static_cast<int32_t>(x);
          std::memcpy(out.data.data() + i * 4, &w, 4);
        }
      }
      return out;
    }
    case PhysicalType::kByteArray: {
      if (column.decimal) return std::nullopt;  // its byte width depends on the writer
      out.offsets.reserve(static_cast<size_t>(n) + 1);
      out.offsets.push_back(0);
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* v = PyList_GET_ITEM(list, i);
        if (!PyUnicode_CheckExact(v)) return std::nullopt;  // bytes and the rest: the general path
        Py_ssize_t len = 0;
        const char* s = PyUnicode_AsUTF8AndSize(v, &len);
        if (s == nullptr) {  // lone surrogates: the general path raises str.encode's error
          PyErr_Clear();
          return std::nullopt;
        }
        out.data.insert(out.data.end(), s, s + len);
        out.offsets.push_back(static_cast<int64_t>(out.data.size()));
      }
      return out;
    }
    default: return std::nullopt;
  }
}

namespace {

struct MemoEntry {
  uint64_t size;
  int64_t mtime_ns;
  pq::ColumnDescriptor column;
};

struct DescriptorMemo {
  std::mutex mu;
  std::unordered_map<std::string, MemoEntry> map;
};

DescriptorMemo& memo() {
  static DescriptorMemo m;
  return m;
}

constexpr size_t kMemoMaxEntries = 4096;

}  // namespace

Result<pq::ColumnDescriptor> local_column_descriptor(const std::string& path, const std::string& column) {
  struct stat st;
  const bool stat_ok = ::stat(path.c_str(), &st) == 0;  // when it fails, the open below words the error
  std::string key;
  uint64_t size = 0;
  int64_t mtime = 0;
  if (stat_ok) {
    key.reserve(path.size() + column.size() + 1);
    key.append(path).push_back('\0');
    key.append(column);
    size = static_cast<uint64_t>(st.st_size);
    mtime = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
    std::lock_guard<std::mutex> lock(memo().mu);
    auto it = memo().map.find(key);
    if (it != memo().map.end() && it->second.size == size && it->second.mtime_ns == mtime) return it->second.column;
  }
  auto f = pq::LocalFile::open(path);
  if (!f.ok()) return f.error();
  pq::ParseLimits limits;
  limits.only_column = column;
  auto meta = pq::read_file_metadata(**f, limits);
  if (!meta.ok()) return meta.error();
  const int leaf = meta->find_column(column);
  if (leaf < 0) return pq::prefix_error(path, pq::missing_column_error(*meta, column));
  pq::ColumnDescriptor out = meta->columns[static_cast<size_t>(leaf)];
  if (stat_ok) {
    std::lock_guard<std::mutex> lock(memo().mu);
    if (memo().map.size() >= kMemoMaxEntries) memo().map.clear();
    memo().map.insert_or_assign(std::move(key), MemoEntry{size, mtime, out});
  }
  return out;
}

void clear_column_descriptors() {
  std::lock_guard<std::mutex> lock(memo().mu);
  memo().map.clear();
}

}  // namespace pqfast::py
