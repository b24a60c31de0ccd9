// Internal: a run-time CmpOp to a compile-time one, once per call: each
// table's loops are instantiated per operator (static: each ISA unit
// compiles its own copy).
#pragma once

#include "compare/kernels.h"

namespace pqfast::compare {
namespace {

template <CmpOp O>
struct OpTag {
  static constexpr CmpOp value = O;
};

// f(OpTag<op>{}) for the operator op names.
template <class F>
inline void with_op(CmpOp op, F&& f) {
  switch (op) {
    case CmpOp::kEq: f(OpTag<CmpOp::kEq>{}); break;
    case CmpOp::kNe: f(OpTag<CmpOp::kNe>{}); break;
    case CmpOp::kLt: f(OpTag<CmpOp::kLt>{}); break;
    case CmpOp::kLe: f(OpTag<CmpOp::kLe>{}); break;
    case CmpOp::kGt: f(OpTag<CmpOp::kGt>{}); break;
    case CmpOp::kGe: f(OpTag<CmpOp::kGe>{}); break;
  }
}

}  // namespace
}  // namespace pqfast::compare
