// Fuzz helper: runs a decode on every SIMD implementation the CPU has and
// aborts unless all give the same values or fail with the same error code
// (and every error says something).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "pqfast/simd.h"
#include "pqfast/status.h"

namespace pqfast::fuzz {

using Values = std::vector<std::optional<std::string>>;

// run() -> Result<Values> on each level in turn; the level is restored after.
template <class Run>
void same_on_every_level(Run&& run) {
  bool have_ref = false, ref_ok = false;
  ErrorCode ref_code{};
  Values ref;
  const auto saved = simd_level();
  for (auto level : available_simd_levels()) {
    (void)set_simd_level(level);
    Result<Values> r = run();
    if (!r.ok() && r.error().message.empty()) std::abort();
    if (!have_ref) {
      have_ref = true;
      ref_ok = r.ok();
      if (!r.ok()) ref_code = r.error().code;
      if (r.ok()) ref = std::move(r).value();
    } else {
      if (r.ok() != ref_ok) std::abort();
      if (!r.ok() && r.error().code != ref_code) std::abort();
      if (r.ok() && *r != ref) std::abort();
    }
  }
  (void)set_simd_level(saved);
}

}  // namespace pqfast::fuzz
