// The levels family's tables and the active one.
#include "levels/kernels.h"

namespace pqfast::levels {

const detail::KernelTables<LevelKernels>& level_kernel_tables() {
  static const detail::KernelTables<LevelKernels> tables = [] {
    detail::KernelTables<LevelKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarLevelKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2LevelKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512LevelKernels;
#endif
    return t;
  }();
  return tables;
}

const LevelKernels& active_level_kernels() {
  static const detail::ActiveKernels<LevelKernels> active(&level_kernel_tables);
  return active.get();
}

}  // namespace pqfast::levels
