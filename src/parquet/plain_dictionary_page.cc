// A PLAIN dictionary page's header checked against its bytes (see
// plain_dictionary_page.h).
#include "parquet/plain_dictionary_page.h"

#include "parquet/encodings.h"
#include "parquet/internal.h"
#include "pqfast/parquet.h"

namespace pqfast::parquet::detail {

Result<PlainDictionaryPage> plain_dictionary_page(const uint8_t* page, size_t len, uint64_t offset,
                                                  const std::string& at) {
  auto h = parse_page_header(page, len, offset);
  if (!h.ok()) return prefix_error(at, h.error());
  if (h->type != PageType::kDictionaryPage) {
    return make_error(ErrorCode::kCorrupt, at + ": the chunk's first page is not a dictionary page");
  }
  const int32_t enc = h->dictionary_page.encoding;
  if (enc != kPlain && enc != kPlainDictionary) {
    const char* name = encoding_name(enc);
    return make_error(ErrorCode::kUnsupported, at + ": encoded as " + (name ? name : "encoding " + std::to_string(enc)) +
                                                   ", not PLAIN");
  }
  // parse_page_header refuses negative sizes and counts.
  PlainDictionaryPage out;
  out.csize = static_cast<size_t>(h->compressed_page_size);
  out.usize = static_cast<size_t>(h->uncompressed_page_size);
  out.count = static_cast<size_t>(h->dictionary_page.num_values);
  if (h->header_size > len || out.csize > len - h->header_size) {
    return make_error(ErrorCode::kTruncated, at + ": " + std::to_string(out.csize) + " bytes after a " +
                                                 std::to_string(h->header_size) + "-byte header run past the " +
                                                 std::to_string(len) + " bytes of the page");
  }
  out.body = page + h->header_size;
  return out;
}

}  // namespace pqfast::parquet::detail
