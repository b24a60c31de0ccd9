// Internal: the AVX compare predicate for each CmpOp on floats, shared by
// the AVX2 and AVX-512 tables (static: each ISA unit compiles its own copy).
// Ordered and quiet, as C++'s operators; != is unordered (a NaN differs).
#pragma once

#include <immintrin.h>

#include "compare/kernels.h"

namespace pqfast::compare {
namespace {

constexpr int float_predicate(CmpOp op) {
  switch (op) {
    case CmpOp::kEq: return _CMP_EQ_OQ;
    case CmpOp::kNe: return _CMP_NEQ_UQ;
    case CmpOp::kLt: return _CMP_LT_OQ;
    case CmpOp::kLe: return _CMP_LE_OQ;
    case CmpOp::kGt: return _CMP_GT_OQ;
    case CmpOp::kGe: return _CMP_GE_OQ;
  }
  return _CMP_EQ_OQ;
}

}  // namespace
}  // namespace pqfast::compare
