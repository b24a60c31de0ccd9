// The compare family's tables and the active one.
#include "compare/kernels.h"

namespace pqfast::compare {

const detail::KernelTables<CompareKernels>& compare_kernel_tables() {
  static const detail::KernelTables<CompareKernels> tables = [] {
    detail::KernelTables<CompareKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarCompareKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2CompareKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512CompareKernels;
#endif
    return t;
  }();
  return tables;
}

const CompareKernels& active_compare_kernels() {
  static const detail::ActiveKernels<CompareKernels> active(&compare_kernel_tables);
  return active.get();
}

}  // namespace pqfast::compare
