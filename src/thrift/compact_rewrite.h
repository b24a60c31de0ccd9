// Internal: a lossless re-encoder for Thrift compact-protocol structs.
//
// pqfast index appends a new FileMetaData that must say everything the old
// one said, including fields this version does not know (future format
// versions, writer extensions). So the new footer is not serialised from our
// model: it is the old footer's bytes walked once, every field copied
// verbatim except the few a StructPatch sets or descends into.
//
// Only field headers are re-encoded (a field header's id is a delta from the
// previous field's, so inserting a field changes the next header's bytes);
// values are copied byte for byte. The input is hostile: it is read with the
// bounded CompactReader (depth limits, lengths checked against what remains)
// and errors carry the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "pqfast/status.h"
#include "thrift/compact.h"

namespace pqfast::thrift {

// One field value, already encoded (for a bool field: `type` is kBoolTrue or
// kBoolFalse and `bytes` is empty, as the compact protocol puts the value in
// the field header).
struct EncodedField {
  CType type = CType::kStop;
  std::vector<uint8_t> bytes;

  static EncodedField i32(int32_t v);
  static EncodedField i64(int64_t v);
};

// What changes in one struct. Fields not named here are copied as they are.
struct StructPatch {
  // Fields to set: an existing field of the same id is replaced, a missing
  // one inserted before the first field of a larger id (so ids stay in
  // increasing order when they were).
  std::map<int16_t, EncodedField> set;
  // A struct-typed field to rewrite with its own patch.
  std::map<int16_t, std::unique_ptr<StructPatch>> child;
  // A list<struct> field: element index -> that element's patch.
  std::map<int16_t, std::map<uint32_t, std::unique_ptr<StructPatch>>> elements;

  StructPatch& child_at(int16_t id);
  StructPatch& element_at(int16_t id, uint32_t index);
};

// Re-encodes the struct at the start of [data, data + len) with `patch`
// applied, appending to *out. *consumed receives the input struct's size.
// Errors: malformed input (as CompactReader reports it), a patched field of
// another wire type than the patch expects (a child that is not a struct, an
// element list that is not list<struct>), a set field repeated in the input,
// an element index beyond the list.
Status rewrite_struct(const uint8_t* data, size_t len, const StructPatch& patch, std::vector<uint8_t>* out,
                      size_t* consumed, std::string_view what, size_t base_offset = 0);

}  // namespace pqfast::thrift
