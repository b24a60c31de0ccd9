// The nulls family's tables and the active one.
#include "nulls/kernels.h"

namespace pqfast::nulls {

const detail::KernelTables<NullKernels>& null_kernel_tables() {
  static const detail::KernelTables<NullKernels> tables = [] {
    detail::KernelTables<NullKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarNullKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2NullKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512NullKernels;
#endif
    return t;
  }();
  return tables;
}

const NullKernels& active_null_kernels() {
  static const detail::ActiveKernels<NullKernels> active(&null_kernel_tables);
  return active.get();
}

}  // namespace pqfast::nulls
