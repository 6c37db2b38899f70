// canopy/litmus/ast.hpp — a litmus test in herd's OpenCL dialect (the subset canopy runs).
//
// The dialect as used in herd's OpenCL and RSP corpora: an initial-state block, threads P0..Pn over
// pointer parameters (which name locations), atomic_*_explicit calls and their _remote forms, plain
// *x reads and writes, fences, barriers, if, local int registers, scopeTree, and a final condition.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace canopy::litmus {

enum class order { relaxed, acquire, release, acq_rel, seq_cst };
enum class scope { work_item, sub_group, work_group, device, all_svm_devices };

/// file:line:column of a construct, for messages.
struct position {
    unsigned line = 0, column = 0;
};

enum class atomic_op { load, store, fetch_add, fetch_sub, exchange, compare_exchange };

struct expr;
using expr_ptr = std::unique_ptr<expr>;

/// atomic_<op>[_explicit][_remote](location, [operand | expected, desired], [orders...], [scope])
struct atomic_call {
    atomic_op op = atomic_op::load;
    bool remote = false;
    std::string location;           // the pointer parameter named as first argument
    expr_ptr operand;               // store / fetch_* / exchange value; CAS desired value
    std::string expected;           // CAS only: the location named as `expected` (written on failure)
    order success = order::seq_cst; // the order (for CAS: on success); seq_cst when omitted
    order failure = order::seq_cst; // CAS only: on failure
    scope scope_ = scope::device;   // memory_scope_device when omitted (OpenCL's default)
    position pos;
};

struct expr {
    enum class kind { constant, reg, deref, unary_not, binary, call } k = kind::constant;
    std::int64_t value = 0;            // constant
    std::string name;                  // reg: register name; deref: location (pointer parameter) name
    std::string op;                    // binary: one of == != < <= > >= + - * && || ; unary_not: "!"
    expr_ptr lhs, rhs;                 // binary (lhs, rhs); unary_not (lhs)
    std::unique_ptr<atomic_call> call; // call
    position pos;
};

struct stmt;
using stmt_ptr = std::unique_ptr<stmt>;

struct stmt {
    enum class kind {
        declare,     // int r;  (no initializer: the register starts at 0)
        assign,      // [int] r = expr;
        store_plain, // *x = expr;
        eval,        // expr;  (an atomic call whose result is dropped)
        if_,         // if (cond) then [else otherwise]
        block,       // { ... }
        fence,       // atomic_work_item_fence / fence (flags, order, scope)
        barrier,     // [label:] barrier(flags)  — work-group barrier
    } k = kind::block;
    std::string name;           // declare / assign: register; store_plain: location
    expr_ptr value;             // assign / store_plain / eval: the expression; if_: the condition
    std::vector<stmt_ptr> body; // block; if_: body[0] = then, body[1] = else (optional)
    bool global_fence = true;   // fence / barrier: CLK_GLOBAL_MEM_FENCE among the flags
    bool local_fence = false;   // fence / barrier: CLK_LOCAL_MEM_FENCE among the flags
    order fence_order = order::seq_cst;
    scope fence_scope = scope::device;
    position pos;
};

struct parameter {
    std::string name;
    bool global = true; // false: a __local / local pointer (work-group local memory)
    bool atomic = false;
};

struct thread {
    unsigned id = 0; // the N of PN
    std::vector<parameter> params;
    std::vector<stmt_ptr> body;
    std::vector<std::string> registers; // every register the thread declares or assigns, first use order
    position pos;
};

/// scopeTree: devices → work-groups → threads (sub-groups, if named, are flattened into their
/// work-group and recorded in subgroup_of).
struct scope_tree {
    std::vector<std::vector<std::vector<unsigned>>> devices; // devices[d][w] = thread ids
};

/// The final condition: an atom is `T:reg=value` or `loc=value`.
struct cond {
    enum class kind { atom, not_, and_, or_, true_ } k = kind::true_;
    std::optional<unsigned> thread; // atom on a register: its thread; nullopt: a location
    std::string name;               // register or location
    std::int64_t value = 0;
    std::unique_ptr<cond> lhs, rhs; // not_ (lhs); and_/or_ (lhs, rhs)
};

enum class quantifier { exists, not_exists, forall };

struct test {
    std::string name; // from the header line "OpenCL NAME"
    std::string file;
    std::vector<std::pair<std::string, std::int64_t>> init; // locations in the order of the init block
    std::vector<thread> threads;                            // sorted by id, ids 0..n-1
    scope_tree tree; // empty devices: no scopeTree (every thread its own work-group)
    quantifier q = quantifier::exists;
    std::unique_ptr<cond> condition;
    std::string condition_text; // as written, for reports
};

} // namespace canopy::litmus
