// Fuzz target: the bounded Thrift compact reader skipping an arbitrary struct
// (the path every footer and page header parse takes for unknown fields).
#include <cstdint>
#include <cstdlib>

#include "thrift/compact.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pqfast::thrift::CompactReader r(data, size, "fuzz input");
  auto st = r.skip(pqfast::thrift::CType::kStruct);
  if (!st.ok() && st.error().message.empty()) std::abort();
  if (r.position() > size) std::abort();
  return 0;
}
