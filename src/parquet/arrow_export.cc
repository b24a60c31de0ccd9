// ColumnArray and its export through the Arrow C Data Interface: the
// buffers move into a private holder that the release callbacks free.
#include <cstring>
#include <string>
#include <vector>

#include "parquet/decode.h"

namespace pqfast::parquet {

namespace {

constexpr const char* kLayoutNames[] = {
    "default", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "binary", "large_binary", "binary_view", "fixed_size_binary",
    "decimal128", "decimal256", "timestamp_ns", "null",
};

struct ArrayHolder {
  std::unique_ptr<ColumnArray::Impl> impl;
  std::vector<const void*> buffers;
  std::vector<int64_t> variadic_sizes;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_ptrs;
  ArrowArray dictionary{};  // set (release non-null) for a dictionary array
};

struct SchemaHolder {
  std::string format, name;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;
  ArrowSchema dictionary{};
};

void release_array(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  auto* h = static_cast<ArrayHolder*>(a->private_data);
  for (auto& c : h->children) {
    if (c.release) c.release(&c);
  }
  if (h->dictionary.release) h->dictionary.release(&h->dictionary);
  delete h;
  a->release = nullptr;
}

void release_schema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  auto* h = static_cast<SchemaHolder*>(s->private_data);
  for (auto& c : h->children) {
    if (c.release) c.release(&c);
  }
  if (h->dictionary.release) h->dictionary.release(&h->dictionary);
  delete h;
  s->release = nullptr;
}

const char* nest_format(ColumnArray::Impl::Nest n) {
  switch (n) {
    case ColumnArray::Impl::Nest::kList: return "+l";
    case ColumnArray::Impl::Nest::kStruct: return "+s";
    case ColumnArray::Impl::Nest::kMap: return "+m";
    case ColumnArray::Impl::Nest::kNone: break;
  }
  return "";
}

void export_schema(const ColumnArray::Impl& c, ArrowSchema* schema, const std::string& name) {
  const bool nested = c.nest != ColumnArray::Impl::Nest::kNone;
  auto* sh = new SchemaHolder{nested ? nest_format(c.nest) : c.format, name, {}, {}};
  std::memset(schema, 0, sizeof *schema);
  sh->children.resize(c.children.size());
  for (size_t i = 0; i < c.children.size(); ++i) {
    export_schema(*c.children[i], &sh->children[i], c.children[i]->name);
    sh->child_ptrs.push_back(&sh->children[i]);
  }
  schema->format = sh->format.c_str();
  schema->name = sh->name.c_str();
  schema->flags = c.nullable ? ARROW_FLAG_NULLABLE : 0;
  schema->n_children = static_cast<int64_t>(sh->children.size());
  schema->children = sh->child_ptrs.empty() ? nullptr : sh->child_ptrs.data();
  if (c.dictionary) {
    export_schema(*c.dictionary, &sh->dictionary, "");
    schema->dictionary = &sh->dictionary;
  }
  schema->release = release_schema;
  schema->private_data = sh;
}

using Impl = ColumnArray::Impl;

void export_array(std::unique_ptr<Impl> impl, ArrowArray* array) {
  auto* h = new ArrayHolder;
  h->impl = std::move(impl);
  Impl& c = *h->impl;
  const bool any_null = c.null_count > 0;
  if (c.nest == Impl::Nest::kStruct) {
    h->buffers.push_back(any_null && c.validity.size() ? c.validity.data() : nullptr);
  } else if (c.nest != Impl::Nest::kNone) {
    h->buffers.push_back(any_null && c.validity.size() ? c.validity.data() : nullptr);
    h->buffers.push_back(c.values.data());
  } else if (c.layout == ArrowLayout::kNull) {
    // The null layout has no buffers.
  } else {
    h->buffers.push_back(any_null && c.validity.size() ? c.validity.data() : nullptr);
    switch (c.layout) {
      case ArrowLayout::kBinary:
      case ArrowLayout::kLargeBinary:
        h->buffers.push_back(c.values.data());
        h->buffers.push_back(c.data.data() ? c.data.data() : c.values.data());  // never null for consumers
        break;
      case ArrowLayout::kBinaryView: {
        h->buffers.push_back(c.values.data() ? c.values.data() : c.validity.data());
        for (auto& b : c.view_buffers) {
          h->buffers.push_back(b.data());
          h->variadic_sizes.push_back(static_cast<int64_t>(b.size()));
        }
        h->buffers.push_back(h->variadic_sizes.data());
        break;
      }
      default:
        h->buffers.push_back(c.values.data());
    }
  }
  // Empty arrays: some consumers dislike null data pointers; give them a
  // valid (unused) address.
  static const int64_t kEmpty[2] = {0, 0};
  for (size_t i = 1; i < h->buffers.size(); ++i) {
    if (h->buffers[i] == nullptr) h->buffers[i] = kEmpty;
  }
  h->children.resize(c.children.size());
  for (size_t i = 0; i < c.children.size(); ++i) {
    export_array(std::move(c.children[i]), &h->children[i]);
    h->child_ptrs.push_back(&h->children[i]);
  }
  std::memset(array, 0, sizeof *array);
  if (c.dictionary) {
    export_array(std::move(c.dictionary), &h->dictionary);
    array->dictionary = &h->dictionary;
  }
  array->length = c.length;
  array->null_count = c.null_count;
  array->offset = 0;
  array->n_buffers = static_cast<int64_t>(h->buffers.size());
  array->buffers = h->buffers.empty() ? nullptr : h->buffers.data();
  array->n_children = static_cast<int64_t>(h->children.size());
  array->children = h->child_ptrs.empty() ? nullptr : h->child_ptrs.data();
  array->release = release_array;
  array->private_data = h;
}

}  // namespace

const char* arrow_layout_name(ArrowLayout layout) {
  const auto i = static_cast<size_t>(layout);
  return i < std::size(kLayoutNames) ? kLayoutNames[i] : nullptr;
}

bool parse_arrow_layout(const std::string& name, ArrowLayout* out) {
  for (size_t i = 0; i < std::size(kLayoutNames); ++i) {
    if (name == kLayoutNames[i]) {
      *out = static_cast<ArrowLayout>(i);
      return true;
    }
  }
  return false;
}

ColumnArray::ColumnArray() : impl_(std::make_unique<Impl>()) {}
ColumnArray::ColumnArray(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ColumnArray::~ColumnArray() = default;
ColumnArray::ColumnArray(ColumnArray&&) noexcept = default;
ColumnArray& ColumnArray::operator=(ColumnArray&&) noexcept = default;
int64_t ColumnArray::length() const { return impl_->length; }
int64_t ColumnArray::null_count() const { return impl_->null_count; }
const std::string& ColumnArray::format() const { return impl_->format; }

void ColumnArray::export_to(ArrowArray* array, ArrowSchema* schema, const std::string& name) && {
  export_schema(*impl_, schema, name);
  export_array(std::move(impl_), array);
  impl_ = std::make_unique<Impl>();
}

}  // namespace pqfast::parquet
