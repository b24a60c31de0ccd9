// The unpack family's tables and the active one.
#include "unpack/kernels.h"

namespace pqfast::unpack {

const detail::KernelTables<UnpackKernels>& unpack_kernel_tables() {
  static const detail::KernelTables<UnpackKernels> tables = [] {
    detail::KernelTables<UnpackKernels> t;
    t.by_level[static_cast<int>(SimdLevel::kScalar)] = &kScalarUnpackKernels;
#if defined(PQFAST_ARCH_X86)
    t.by_level[static_cast<int>(SimdLevel::kAvx2)] = &kAvx2UnpackKernels;
    t.by_level[static_cast<int>(SimdLevel::kAvx512)] = &kAvx512UnpackKernels;
#endif
    return t;
  }();
  return tables;
}

const UnpackKernels& active_unpack_kernels() {
  static const detail::ActiveKernels<UnpackKernels> active(&unpack_kernel_tables);
  return active.get();
}

}  // namespace pqfast::unpack
