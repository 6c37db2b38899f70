// canopy/litmus/parser.hpp — herd's OpenCL litmus dialect (and its RSP _remote extension) into the AST.
//
// A hand-written lexer and recursive-descent parser. Every malformed input raises parse_error; a construct
// that is recognised but outside the subset canopy runs (loops, pointer arithmetic, other atomics, calls
// to other functions, other architectures...) raises unsupported_error. Both carry file:line:column
// (1-based; the column counts bytes, a tab is one column).
//
// What the parser accepts beyond the letter of ast.hpp, and the conventions it fixes:
//   * Header "OpenCL NAME" (NAME: the first word after OpenCL); any free lines after it (a quoted doc
//     string, Prefetch=, Com=, Orig=, comments) up to the initial-state block.
//   * Initial state: "[x]=0;", "x=0;", "int x=0;", "x;" (value 0). test.init lists them in order, then
//     every pointer parameter of any thread that is not listed (value 0), in order of first appearance.
//   * A location named in a thread (first argument of an atomic, CAS `expected`, *x) must be a pointer
//     parameter of that thread or a location of the initial state. A name that matches exactly one of
//     those only up to letter case (CT_wsq2 writes oldHead_p for the parameter oldhead_p) resolves to it,
//     with a warning.
//   * A location declared __local by one thread and global by another is an error.
//   * Registers: `int r;`, `int r = e;`, and, as herd allows, `r = e;` without a declaration (the register
//     is then thread-wide). A read of a register that is not in scope is an error. thread::registers
//     also gets, after them, the registers that only the condition names.
//   * Orders: memory_order_{relaxed,acquire,release,acq_rel,seq_cst} and herd's mo_{rlx,acq,rel,ar,sc};
//     memory_order_consume reads as acquire. Scopes: memory_scope_{work_item,sub_group,work_group,device,
//     all_svm_devices} and herd's s_{wi,sg,wg,dev,all}; memory_scope_all_devices reads as all_svm_devices.
//     Omitted orders are seq_cst, an omitted scope is memory_scope_device (OpenCL C's default; herd's
//     own OpenCL front end defaults to all_svm_devices).
//   * barrier / work_group_barrier (flags[, scope]): fence_scope is the given scope, else work_group;
//     fence_order stays seq_cst.
//   * scopeTree: devices contain work_groups (aliases cta, block); a sub_group (warp) inside a work-group
//     is flattened into it; as in herd, a thread or a sub_group directly inside a device is a work-group
//     of its own, and a kernel level is flattened into its device. Extra parentheses around the whole
//     forest are allowed. When present, every thread must appear exactly once.
//   * Condition: exists / ~exists (also "not exists") / forall (final = exists); atoms T:reg=v, PT:reg=v,
//     loc=v, [loc]=v, with = or ==, and != (the negated atom); true, false (stored as ~true), ~, /\, \/,
//     => (stored as ~a \/ b; binds tighter than /\ as in herd), parentheses, () for true.
//     condition_text is the condition from the quantifier on, comments dropped, whitespace collapsed.
//   * Limits (beyond them, parse_error): nesting depth 64 (parentheses, blocks, if, unary operators),
//     1024 nodes per expression and in the condition, thread numbers below 4096.
#pragma once

#include "canopy/litmus/ast.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::litmus {

/// A malformed input. what(): "FILE:LINE:COL: error: MESSAGE".
struct parse_error : std::runtime_error {
    parse_error(std::string file_, unsigned line_, unsigned column_, std::string message_);
    std::string file;
    unsigned line = 0, column = 0;
    std::string message; // MESSAGE alone
};

/// A construct recognised but outside the supported subset. what(): "FILE:LINE:COL: unsupported: WHAT".
struct unsupported_error : std::runtime_error {
    unsupported_error(std::string file_, unsigned line_, unsigned column_, std::string construct_);
    std::string file;
    unsigned line = 0, column = 0;
    std::string construct; // WHAT alone
};

/// Parses one litmus test. file_name is used in messages and stored in test::file. When warnings is not
/// null, non-fatal diagnostics ("FILE:LINE:COL: warning: ...") are appended to it.
test parse(std::string_view text, std::string file_name, std::vector<std::string>* warnings = nullptr);

/// Reads and parses a file; std::runtime_error("cannot read FILE: reason") when it cannot be read.
test parse_file(const std::string& path, std::vector<std::string>* warnings = nullptr);

} // namespace canopy::litmus
