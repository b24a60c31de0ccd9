// The lossless re-encoder (compact_rewrite.h): walk the input struct with the
// bounded reader, re-emit field headers with the writer (ids are deltas, so an
// inserted field shifts the next header), copy every value's bytes verbatim
// unless the patch sets the field or descends into it. Recursion follows the
// patch, which is ours and shallow; hostile nesting inside copied values is
// handled by CompactReader::skip, which is iterative and depth-limited.
#include "thrift/compact_rewrite.h"

#include <string>

namespace pqfast::thrift {
namespace {

void append_zigzag(std::vector<uint8_t>* out, int64_t v) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (u >= 0x80) {
    out->push_back(static_cast<uint8_t>(u | 0x80));
    u >>= 7;
  }
  out->push_back(static_cast<uint8_t>(u));
}

void append_list_header(std::vector<uint8_t>* out, CType elem, uint32_t size) {
  if (size < 15) {
    out->push_back(static_cast<uint8_t>((size << 4) | static_cast<uint8_t>(elem)));
    return;
  }
  out->push_back(static_cast<uint8_t>(0xf0 | static_cast<uint8_t>(elem)));
  uint64_t u = size;
  while (u >= 0x80) {
    out->push_back(static_cast<uint8_t>(u | 0x80));
    u >>= 7;
  }
  out->push_back(static_cast<uint8_t>(u));
}

class Rewriter {
 public:
  Rewriter(const uint8_t* data, size_t len, std::string_view what, size_t base_offset, std::vector<uint8_t>* out)
      : data_(data), r_(data, len, what, base_offset), w_(out), out_(out) {}

  Status rewrite(const StructPatch& patch) {
    PQFAST_RETURN_IF_ERROR(r_.begin_struct());
    w_.begin_struct();
    auto next_set = patch.set.begin();
    std::map<int16_t, bool> seen;  // set fields met in the input (to refuse repeats)
    while (true) {
      auto h = r_.read_field_header();
      if (!h.ok()) return h.error();
      if (h->is_stop()) break;
      // Insert the fields to set whose ids come before this one.
      while (next_set != patch.set.end() && next_set->first < h->id) {
        emit_set(next_set->first, next_set->second);
        ++next_set;
      }
      if (auto s = patch.set.find(h->id); s != patch.set.end()) {
        if (seen[h->id]) {
          return r_.error(ErrorCode::kCorrupt, "field " + std::to_string(h->id) + " appears twice");
        }
        seen[h->id] = true;
        PQFAST_RETURN_IF_ERROR(r_.skip(h->type));  // the old value is dropped
        if (next_set != patch.set.end() && next_set->first == h->id) {
          emit_set(h->id, s->second);
          ++next_set;
        }
        // else: already inserted before a smaller id that came out of order;
        // the repeat is dropped (ids out of order are legal, repeats are not).
        continue;
      }
      if (auto c = patch.child.find(h->id); c != patch.child.end()) {
        if (h->type != CType::kStruct) return wrong_type(h->id, "a struct");
        w_.field_header(CType::kStruct, h->id);
        PQFAST_RETURN_IF_ERROR(rewrite(*c->second));
        continue;
      }
      if (auto e = patch.elements.find(h->id); e != patch.elements.end()) {
        if (h->type != CType::kList) return wrong_type(h->id, "a list");
        w_.field_header(CType::kList, h->id);
        PQFAST_RETURN_IF_ERROR(rewrite_list(h->id, e->second));
        continue;
      }
      copy_field(*h);
      PQFAST_RETURN_IF_ERROR(copy_value(h->type));
    }
    while (next_set != patch.set.end()) {
      emit_set(next_set->first, next_set->second);
      ++next_set;
    }
    w_.end_struct();
    return r_.end_struct();
  }

  size_t consumed() const { return r_.position(); }

 private:
  void emit_set(int16_t id, const EncodedField& f) {
    w_.field_header(f.type, id);
    out_->insert(out_->end(), f.bytes.begin(), f.bytes.end());
  }

  void copy_field(const FieldHeader& h) { w_.field_header(h.type, h.id); }

  // Copies one value's bytes as they are (a bool field's value is in its header).
  Status copy_value(CType type) {
    const size_t start = r_.position();
    PQFAST_RETURN_IF_ERROR(r_.skip(type));
    out_->insert(out_->end(), data_ + start, data_ + r_.position());
    return Status::Ok();
  }

  Status rewrite_list(int16_t id, const std::map<uint32_t, std::unique_ptr<StructPatch>>& elements) {
    auto lh = r_.read_list_header();
    if (!lh.ok()) return lh.error();
    if (lh->elem_type != CType::kStruct) return wrong_type(id, "a list of structs");
    if (!elements.empty() && elements.rbegin()->first >= lh->size) {
      return r_.error(ErrorCode::kInvalidArgument, "field " + std::to_string(id) + " has " +
                                                       std::to_string(lh->size) + " elements, element " +
                                                       std::to_string(elements.rbegin()->first) + " is patched");
    }
    append_list_header(out_, CType::kStruct, lh->size);
    for (uint32_t i = 0; i < lh->size; ++i) {
      if (auto e = elements.find(i); e != elements.end()) {
        PQFAST_RETURN_IF_ERROR(rewrite(*e->second));
      } else {
        PQFAST_RETURN_IF_ERROR(copy_value(CType::kStruct));
      }
    }
    return Status::Ok();
  }

  Error wrong_type(int16_t id, const char* expected) const {
    return r_.error(ErrorCode::kCorrupt, "field " + std::to_string(id) + " is not " + expected);
  }

  const uint8_t* data_;
  CompactReader r_;
  CompactWriter w_;
  std::vector<uint8_t>* out_;
};

}  // namespace

EncodedField EncodedField::i32(int32_t v) {
  EncodedField f;
  f.type = CType::kI32;
  append_zigzag(&f.bytes, v);
  return f;
}

EncodedField EncodedField::i64(int64_t v) {
  EncodedField f;
  f.type = CType::kI64;
  append_zigzag(&f.bytes, v);
  return f;
}

StructPatch& StructPatch::child_at(int16_t id) {
  auto& p = child[id];
  if (!p) p = std::make_unique<StructPatch>();
  return *p;
}

StructPatch& StructPatch::element_at(int16_t id, uint32_t index) {
  auto& p = elements[id][index];
  if (!p) p = std::make_unique<StructPatch>();
  return *p;
}

Status rewrite_struct(const uint8_t* data, size_t len, const StructPatch& patch, std::vector<uint8_t>* out,
                      size_t* consumed, std::string_view what, size_t base_offset) {
  const size_t before = out->size();
  Rewriter rw(data, len, what, base_offset, out);
  Status st = rw.rewrite(patch);
  if (!st.ok()) {
    out->resize(before);
    return st;
  }
  if (consumed != nullptr) *consumed = rw.consumed();
  return Status::Ok();
}

}  // namespace pqfast::thrift
