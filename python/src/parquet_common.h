// Shared by the Parquet bindings (bind_parquet.cc, bind_read.cc): the
// footer handle given to Python and a RandomAccessFile over a Python read_at.
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "common.h"
#include "pqfast/parquet.h"
#include "pqfast/parquet_read.h"

namespace pqfast::py {

namespace pq = pqfast::parquet;

// A parsed footer as Python holds it (_FileMetaData).
// A column or field name of the file as str: UTF-8 by the format's
// definition, refused (FormatError) when it is not.
nb::object name_str(const std::string& s);

// A column's read layout as Python names it into `o`: an ArrowLayout name
// ("binary", "int32", ...), or "dictionary:<layout>" for int32 indices over
// a dictionary of that layout (ColumnReadOptions::dictionary_indices).
inline void parse_read_layout(const std::string& layout, const std::string& format, pq::ColumnReadOptions* o) {
  static const std::string kDictionary = "dictionary:";
  const bool indices = layout.compare(0, kDictionary.size(), kDictionary) == 0;
  if (!pq::parse_arrow_layout(indices ? layout.substr(kDictionary.size()) : layout, &o->layout)) {
    throw FormatError("invalid argument: unknown Arrow layout '" + layout + "'");
  }
  o->dictionary_indices = indices;
  o->format = format;
}

struct PyMeta {
  std::shared_ptr<pq::FileMetaData> m;
  // The whole file it was parsed from, when a lake's footers were read with
  // their small files whole (_read_footers_local's whole_max): handed to the
  // scan that reads the file (make_plan moves it there), then null.
  std::shared_ptr<const uint8_t> whole;
  uint64_t whole_size = 0;
};

// A RandomAccessFile over a Python callable read_at(offset, n) -> bytes.
// Called with the GIL held (or acquires it).
class PyFile final : public pq::RandomAccessFile {
 public:
  PyFile(nb::object read_at, uint64_t size, std::string name)
      : read_at_(std::move(read_at)), size_(size), name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  const std::string& name() const override { return name_; }
  Status read_at(uint64_t offset, size_t n, uint8_t* out) override {
    if (offset > size_ || n > size_ - offset) {
      return make_error(ErrorCode::kTruncated, name_ + ": read of " + std::to_string(n) +
                                                   " bytes at byte " + std::to_string(offset) +
                                                   " goes past the end of the " +
                                                   std::to_string(size_) + "-byte file");
    }
    nb::gil_scoped_acquire gil;
    try {
      nb::object got = read_at_(offset, n);
      ByteView v = byte_view(got);
      if (v.size != n) {
        return make_error(ErrorCode::kIoError, name_ + ": read of " + std::to_string(n) +
                                                   " bytes at byte " + std::to_string(offset) +
                                                   " returned " + std::to_string(v.size));
      }
      if (n) std::memcpy(out, v.data, n);
      return Status::Ok();
    } catch (nb::python_error& e) {
      return make_error(ErrorCode::kIoError, name_ + ": read at byte " + std::to_string(offset) +
                                                 " failed: " + e.what());
    }
  }

 private:
  nb::object read_at_;
  uint64_t size_;
  std::string name_;
};


}  // namespace pqfast::py
