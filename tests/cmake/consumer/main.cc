// An engine consuming the installed package: build, probe, print.
#include <pqfast/sbbf.h>
#include <pqfast/simd.h>

#include <cstdio>

int main() {
  auto f = pqfast::Sbbf::for_ndv(1000, 0.01);
  if (!f.ok()) return 1;
  f->insert_hash(42);
  const bool ok = f->check_hash(42);
  std::printf("%s %d\n", pqfast::simd_level_name(pqfast::simd_level()), ok ? 1 : 0);
  return ok ? 0 : 1;
}
