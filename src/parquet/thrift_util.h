// Internal: helpers for reading Parquet's Thrift structures with
// thrift::CompactReader: typed field reads that name the field on error.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "thrift/compact.h"

// Evaluates a Result expression; returns its error or assigns its value.
#define PQFAST_CONCAT_INNER(a, b) a##b
#define PQFAST_CONCAT(a, b) PQFAST_CONCAT_INNER(a, b)
#define PQFAST_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.error();                 \
  lhs = std::move(tmp).value()
#define PQFAST_ASSIGN_OR_RETURN(lhs, expr) \
  PQFAST_ASSIGN_OR_RETURN_IMPL(PQFAST_CONCAT(pqfast_r_, __LINE__), lhs, expr)

namespace pqfast::parquet::detail {

using thrift::CompactReader;
using thrift::CType;
using thrift::FieldHeader;

[[gnu::cold, gnu::noinline]] inline Error wire_type_error(CompactReader& r, const FieldHeader& f,
                                                         CType want, const char* field) {
  return r.error(ErrorCode::kCorrupt, std::string("field ") + field + " (id " +
                                          std::to_string(f.id) + ") has wire type " +
                                          std::to_string(static_cast<int>(f.type)) +
                                          ", expected " + std::to_string(static_cast<int>(want)));
}

// Checks a field's wire type; the error names struct.field.
inline Status expect_type(CompactReader& r, const FieldHeader& f, CType want, const char* field) {
  const bool ok = f.type == want || (want == CType::kBoolTrue && f.type == CType::kBoolFalse);
  if (!ok) [[unlikely]] return wire_type_error(r, f, want, field);
  return Status::Ok();
}

inline Result<int32_t> read_i32_field(CompactReader& r, const FieldHeader& f, const char* field) {
  PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kI32, field));
  return r.read_i32();
}

inline Result<int64_t> read_i64_field(CompactReader& r, const FieldHeader& f, const char* field) {
  // Some writers use i32 where the spec says i64; both are zigzag varints.
  if (f.type != CType::kI32) PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kI64, field));
  return r.read_i64();
}

inline Result<int16_t> read_i16_field(CompactReader& r, const FieldHeader& f, const char* field) {
  PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kI16, field));
  return r.read_i16();
}

inline Result<bool> read_bool_field(CompactReader& r, const FieldHeader& f, const char* field) {
  PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kBoolTrue, field));
  return f.bool_value();
}

inline Result<std::string_view> read_binary_field(CompactReader& r, const FieldHeader& f,
                                                  const char* field) {
  PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kBinary, field));
  return r.read_binary();
}

// The wire type a struct expects for each field id it knows (ids 1..31).
// Like Thrift-generated readers, a known field that arrives with another
// wire type is skipped, not decoded (old writers reused some ids).
struct FieldTypes {
  CType t[32] = {};
  constexpr FieldTypes(std::initializer_list<std::pair<int, CType>> list) {
    for (auto [id, type] : list) t[id] = type;
  }
  bool mismatch(const FieldHeader& f) const {
    if (f.id <= 0 || f.id >= 32 || t[f.id] == CType::kStop) return false;
    const CType want = t[f.id];
    if (want == CType::kBoolTrue) return f.type != CType::kBoolTrue && f.type != CType::kBoolFalse;
    if (want == CType::kI64) return f.type != CType::kI64 && f.type != CType::kI32;
    return f.type != want;
  }
};

// Iterates the fields of a struct: body(FieldHeader) -> Status for each field.
template <class Body>
Status read_struct(CompactReader& r, Body&& body) {
  PQFAST_RETURN_IF_ERROR(r.begin_struct());
  while (true) {
    auto f = r.read_field_header();
    if (!f.ok()) return f.error();
    if (f->is_stop()) break;
    PQFAST_RETURN_IF_ERROR(body(*f));
  }
  return r.end_struct();
}

// read_struct that skips known fields of an unexpected wire type.
template <class Body>
Status read_struct(CompactReader& r, const FieldTypes& types, Body&& body) {
  PQFAST_RETURN_IF_ERROR(r.begin_struct());
  while (true) {
    auto f = r.read_field_header();
    if (!f.ok()) return f.error();
    if (f->is_stop()) break;
    if (types.mismatch(*f)) {
      PQFAST_RETURN_IF_ERROR(r.skip(f->type));
    } else {
      PQFAST_RETURN_IF_ERROR(body(*f));
    }
  }
  return r.end_struct();
}

// Reads a list of elements of wire type `elem`: each(index) -> Status.
// `count` receives the announced size before any element is read (bounded
// by the bytes that remain).
template <class Each>
Status read_list(CompactReader& r, const FieldHeader& f, CType elem, const char* field,
                 uint32_t* count, Each&& each) {
  PQFAST_RETURN_IF_ERROR(expect_type(r, f, CType::kList, field));
  auto h = r.read_list_header();
  if (!h.ok()) return h.error();
  // Integer lists: i16/i32/i64 share the zigzag varint encoding, and some
  // writers declare the wrong one (Thrift-generated readers ignore it).
  auto is_int = [](CType t) { return t == CType::kI16 || t == CType::kI32 || t == CType::kI64; };
  if (h->size > 0 && h->elem_type != elem && !(is_int(elem) && is_int(h->elem_type))) {
    return r.error(ErrorCode::kCorrupt, std::string("list ") + field + " has element type " +
                                            std::to_string(static_cast<int>(h->elem_type)) +
                                            ", expected " + std::to_string(static_cast<int>(elem)));
  }
  if (count) *count = h->size;
  for (uint32_t i = 0; i < h->size; ++i) PQFAST_RETURN_IF_ERROR(each(i));
  return Status::Ok();
}

}  // namespace pqfast::parquet::detail

namespace pqfast::parquet {
struct LogicalType;
struct SchemaElement;
struct ColumnDescriptor;
namespace detail {
// The descriptor of a leaf at `path` (its own name last), as build_leaves makes it.
ColumnDescriptor leaf_descriptor(std::vector<std::string> path, const SchemaElement& e,
                                 int16_t max_def, int16_t max_rep, int32_t schema_index);
// Reads a LogicalType union (SchemaElement field 10) positioned at its struct.
Status read_logical_type(thrift::CompactReader& r, LogicalType* t);
}  // namespace detail
}  // namespace pqfast::parquet
