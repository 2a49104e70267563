// Internal: the typer's per-function state (FunctionTyper) and program-wide tables. typer.cpp holds the
// fixed point, statements and expressions; each typer_<topic>.cpp of this folder types one family of
// constructs (calls, arrays, records, iteration, NumPy, CUDA intrinsics, ...) as members of FunctionTyper.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/kernel_library/numpy_ufuncs.hpp"
#include "compiler/typing/datetime_rules.hpp"
#include "compiler/typing/stack_budget.hpp"
#include "compiler/typing/typer.hpp"
#include "compiler/typing/typing_rules.hpp"

namespace cubridge::compiler::typer_detail {

inline constexpr const char* kBuiltins = "abs, min, max, round, int, float, bool, complex, divmod, pow, len, range, enumerate, zip (in for)";
inline constexpr const char* kMath =
    "sqrt, exp, exp2, log, log2, log10, log1p, expm1, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, "
    "tanh, asinh, acosh, atanh, floor, ceil, trunc, fabs, copysign, fmod, hypot, pow, ldexp, degrees, radians, "
    "isnan, isinf, isfinite, erf, erfc, gamma, lgamma, remainder, nextafter, frexp, modf, pi, e, tau, inf, nan";

inline Type i64() { return Type::integer(64, true); }
inline Type u64() { return Type::integer(64, false); }
inline Type f64() { return Type::floating(64); }

inline bool is_numeric_module(std::string_view m) {
  return m == "numpy" || m == "numba" || m == "cubridge" || m == "numba.cuda" || m == "numba.types" ||
         m == "numba.core.types";
}

/// A parameter bound at compile time (TypedFunction::static_args): to a module path, a module function or
/// a constant. `key` tells specialisations apart.
struct StaticBinding {
  std::string key;
  std::string path;
  std::string function;
  std::optional<Constant> constant;
};

struct Program {
  Program(const SourceSet& s, const CompileOptions& o, TypedModule& m) : sources(s), options(o), out(m) {}
  const SourceSet& sources;
  const CompileOptions& options;
  TypedModule& out;
  std::map<std::string, const FunctionDef*, std::less<>> functions;
  std::map<std::string, std::string, std::less<>> imports;
  std::map<std::string, const Expr*, std::less<>> module_assignments;
  std::map<std::string, const Constant*, std::less<>> evaluated;
  std::set<std::string, std::less<>> evaluating;  // module constants being folded (cycle guard)
  std::vector<const FunctionDef*> stack;  // functions being typed (recursion check)
  std::set<std::string, std::less<>> constant_arrays_used;  // their bytes go to constant memory (64 KiB)
  std::int64_t constant_bytes = 0;
};

/// Rewrites fn.body before typing (literal_unroll.cpp): each `for x in literal_unroll(t)` becomes one copy
/// of its body per item of t, and a captured tuple's `t[k]` and `len(t)` become its item and its length.
void unroll_literal_loops(const Program& prog, TypedFunction& fn);

/// The type of a.T and a.transpose(), as numba's resolve_T gives it (typer_array_methods.cpp).
Type transposed_type(const Type& base);

/// Why `spelled` (a.dot(b), np.dot, np.vdot) is refused: numba-cuda lowers it to a host BLAS call
/// (typer_array_methods.cpp).
std::string dot_refusal(const std::string& spelled);

/// A constant operand of a branch test (typer_branch_prune.cpp).
struct PruneValue;
/// numba-cuda's vector type called `name` in numba.cuda ("float32x4", or a C alias: "float4", "short2",
/// "ulonglong3", ...), or nullopt (typer_vectors.cpp).
std::optional<Type> vector_type_named(std::string_view name);

class FunctionTyper {
 public:
  FunctionTyper(Program& prog, TypedFunction& fn, bool strict) : prog_(prog), fn_(fn), strict_(strict) {}

  bool changed = false;
  std::vector<std::pair<Type, SourceLoc>> returns;

  void run() {
    returns.clear();
    fn_.can_raise = false;
    fn_.falls_through = block(fn_.body);
  }

 private:
  Program& prog_;
  TypedFunction& fn_;
  bool strict_;
  int loop_depth_ = 0;

  const std::string& file() const { return fn_.def->file; }
  [[noreturn]] void error(SourceLoc loc, const std::string& msg) { fail(file(), loc, source_names(msg)); }

  int slot_of(std::string_view name) const {
    for (std::size_t i = 0; i < fn_.local_names.size(); ++i)
      if (fn_.local_names[i] == name) return static_cast<int>(i);
    return -1;
  }

  void assign_type(int slot, const Type& t, SourceLoc loc, std::string_view name) {
    if (t.is_unknown()) return;
    Type& cur = fn_.local_types[static_cast<std::size_t>(slot)];
    if (cur.is_unknown()) {
      if (!(t.is_scalar() || t.is_bfloat16() || t.is_fp8() || t.is_vector() || t.is_tuple() || t.is_array() || t.is_grid_group() ||
            t.is_record() || t.is_optional() || t.is_none() || t.is_pointer() || t.is_enum_member() || t.is_foreign()))
        error(loc, "cannot assign a value of type " + t.name() + " to '" + std::string(name) +
                       "'; variables hold numbers, tuples, arrays, records, C pointers, None, Optional values and "
                       "numba extension types' StructModel values");
      cur = t;
      changed = true;
      return;
    }
    if (cur == t) return;
    auto u = unify(cur, t);
    if (!u)
      error(loc, "cannot unify the types of variable '" + std::string(name) + "': " + cur.name() + " and " + t.name() +
                     " (a variable keeps one type; numbers unify by NumPy's promotion rules)");
    if (*u != cur) {
      cur = *u;
      changed = true;
    }
  }

  // ---- statements; each returns whether control can fall off its end ----
  bool block(std::vector<StmtPtr>& body) {
    bool live = true;
    for (std::size_t i = 0; i < body.size(); ++i) {
      Stmt& s = *body[i];
      if (!live) {
        // Dead code is still typed (Numba types it too), but cannot make the block live again.
        statement(s);
        continue;
      }
      live = statement(s);
      if (!live && s.kind == StmtKind::If && is_none_test(*s.test)) {
        // What follows `if x is None: return ...` with x None is unreachable once numba has pruned the
        // branch; numba drops it before typing, so it is dropped here too.
        body.resize(i + 1);
        break;
      }
    }
    return live;
  }

  void bind_target(Expr& target, const Type& t, SourceLoc loc) {
    if (target.kind == ExprKind::Name) {
      int slot = slot_of(target.name);
      target.slot = slot;
      target.type = t;
      assign_type(slot, t, loc, target.name);
      if (!t.is_unknown()) target.type = fn_.local_types[static_cast<std::size_t>(slot)];
      return;
    }
    if (target.kind == ExprKind::Tuple) {
      if (t.is_unknown()) {
        for (auto& k : target.kids) bind_target(*k, Type(), loc);
        return;
      }
      if (!t.is_tuple()) error(target.loc, "cannot unpack a value of type " + t.name() + " (only tuples unpack)");
      if (t.elements().size() != target.kids.size())
        error(target.loc, "cannot unpack a tuple of " + std::to_string(t.elements().size()) + " values into " +
                              std::to_string(target.kids.size()) + " targets");
      for (std::size_t i = 0; i < target.kids.size(); ++i) bind_target(*target.kids[i], t.elements()[i], loc);
      target.type = t;
      return;
    }
    if (target.kind == ExprKind::Subscript) {
      array_store(target, t);
      return;
    }
    if (target.kind == ExprKind::Attribute) {
      record_store(target, t);
      return;
    }
    error(target.loc, "cannot assign to this expression; assign to a name or a tuple of names");
  }

  // A test folded from `x is None` (is_none marks it with the name "is None"); literal True/False tests
  // are kept whole (their dead branch is still typed, as numba types it).
  static bool is_none_test(const Expr& e) { return e.kind == ExprKind::Bool && e.name == "is None"; }

  static bool is_const_true(const Expr& e) {
    return (e.kind == ExprKind::Bool && e.ival) || (e.kind == ExprKind::Int && e.ival != 0);
  }

  static bool contains_break(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      if (s->kind == StmtKind::Break) return true;
      if (s->kind == StmtKind::If && (contains_break(s->body) || contains_break(s->orelse))) return true;
    }
    return false;
  }

  bool statement(Stmt& s) {
    switch (s.kind) {
      case StmtKind::Pass: return true;
      case StmtKind::Expr: {
        if (s.value->kind == ExprKind::Str) return true;  // docstring
        expr(*s.value);
        return true;
      }
      case StmtKind::Assign: {
        if (s.value->kind == ExprKind::Str) {  // b'abc' / 'abc' into a fixed-width string element
          char_seq_store(s);
          return true;
        }
        const bool to_name = s.targets.size() == 1 && s.targets[0]->kind == ExprKind::Name;
        assigned_name_ = to_name ? s.targets[0]->name : std::string();  // named in errors numba words by it
        Type t = to_name ? expr_optional(*s.value) : expr(*s.value);
        assigned_name_.clear();
        for (auto& target : s.targets) bind_target(*target, t, s.loc);
        return true;
      }
      case StmtKind::AugAssign: {
        Expr& target = *s.targets[0];
        if (target.kind != ExprKind::Name && target.kind != ExprKind::Subscript && target.kind != ExprKind::Attribute)
          error(target.loc, "augmented assignment is supported to a name, an array element or a record field only");
        Type lhs = expr(target);
        Type rhs = expr(*s.value);
        std::vector<Type> index_formals = target.formals;  // a subscript keeps its index types there
        Type r = binary(s.aug_op, lhs, rhs, s.loc, &target);
        s.value->formals = target.formals;  // keep the resolved formals on the statement's value
        target.formals = index_formals;
        if (target.kind == ExprKind::Subscript) {
          array_store(target, r);
          return true;
        }
        if (target.kind == ExprKind::Attribute) {
          record_store(target, r);
          return true;
        }
        int slot = slot_of(target.name);
        assign_type(slot, r, s.loc, target.name);
        return true;
      }
      case StmtKind::If: {
        truth(*s.test);
        if (s.test->kind == ExprKind::Bool && is_none_test(*s.test)) {  // `if x is None:` with x's type known
          std::vector<StmtPtr>& dead = s.test->ival ? s.orelse : s.body;
          dead.clear();  // never typed nor emitted, as numba prunes it
          return block(s.test->ival ? s.body : s.orelse);
        }
        if (std::optional<bool> taken = pruned_test(*s.test)) {  // numba's dead_branch_prune on constants
          (*taken ? s.orelse : s.body).clear();
          return block(*taken ? s.body : s.orelse);
        }
        bool a = block(s.body);
        bool b = block(s.orelse);
        return a || b;
      }
      case StmtKind::While: {
        truth(*s.test);
        ++loop_depth_;
        block(s.body);
        --loop_depth_;
        bool else_live = block(s.orelse);
        bool infinite = is_const_true(*s.test) && !contains_break(s.body);
        return !infinite && (else_live || contains_break(s.body) || true);
      }
      case StmtKind::For: {
        for_loop(s);
        ++loop_depth_;
        block(s.body);
        --loop_depth_;
        block(s.orelse);
        return true;
      }
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loop_depth_ == 0) error(s.loc, std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") + "' outside a loop");
        return false;
      case StmtKind::Return: {
        // An Optional returned where the signature declares a plain type is unwrapped (numba casts Optional(T) to
        // the declared type, raising if it is None).
        const bool unwrap = fn_.declared_return && !fn_.return_type.is_optional() && !fn_.return_type.is_none();
        Type t = !s.value ? Type::none() : unwrap ? expr(*s.value) : expr_optional(*s.value);
        if (!t.is_unknown() &&
            !(t.is_scalar() || t.is_bfloat16() || t.is_fp8() || t.is_vector() || t.is_tuple() || t.is_none() || t.is_record() ||
              t.is_optional() || is_datetime_like(t) || t.is_enum_member() || t.is_foreign()))
          error(s.loc, "cannot return a value of type " + t.name());
        returns.emplace_back(t, s.loc);
        return false;
      }
      case StmtKind::Assert: {
        truth(*s.test);
        fn_.can_raise = true;
        return true;
      }
      case StmtKind::Raise: {
        raise_statement(s);
        fn_.can_raise = true;
        return false;
      }
      case StmtKind::Def:
      case StmtKind::Nonlocal:  // lifted away by the parser (nested_functions.cpp)
      case StmtKind::Unsupported: error(s.loc, s.what + " is not supported");
    }
    return true;
  }

  // ---- expressions ----
  Type truth(Expr& e) {
    Type t = expr(e);
    if (!t.is_unknown() && !t.is_scalar() && !t.is_bfloat16() && !t.is_fp8() && !t.is_tuple() && !t.is_none())  // None: false
      error(e.loc, "cannot test the truth of a value of type " + t.name());
    return t;
  }

  Type unknown_or_error(const Expr& e, const std::string& msg) {
    if (strict_) error(e.loc, msg);
    return Type();
  }

  /// The value's type; an Optional value is unwrapped (numba converts Optional(T) to T where a T is
  /// needed, raising if it is None): the node becomes an Unwrap of itself.
  Type expr(Expr& e) {
    Type t = expr_optional(e);
    // numba's IntEnumMember converts to its integer wherever a number is needed (typer_enums.cpp)
    if (t.is_int_enum_member()) return unwrapped(e, t.enum_value());
    if (!t.is_optional()) return t;
    fn_.can_raise = true;
    return unwrapped(e, t.optional_value());
  }

  /// `e` replaced by an Unwrap of itself, whose value has type `value` (the emitter converts to it).
  Type unwrapped(Expr& e, const Type& value) {
    auto inner = std::make_unique<Expr>(std::move(e));
    e = Expr();
    e.kind = ExprKind::Unwrap;
    e.loc = inner->loc;
    e.kids.push_back(std::move(inner));
    e.type = value;
    return e.type;
  }

  /// The value's type, Optional kept (assignments to a name, returns, `is None` operands, branches of a
  /// conditional expression).
  Type expr_optional(Expr& e) {
    if (stack_left() < stack_reserve()) too_deep(e.loc);
    Type t = expr_inner(e);
    if (t.is_char_seq()) refuse_char_seq_value(e, t);
    e.type = t;
    return t;
  }

  const Constant* constant_of(std::string_view name, SourceLoc loc);
  /// Cls.member or Cls["member"] of a class bound outside the source whose members the Python layer passed
  /// as constants "Cls.member" (an IntEnum's): the member's constant, else null (typer_class_members.cpp).
  const Constant* class_member(const Expr& cls, const Expr& member);
  Type folded_member(Expr& e, const Constant* c) {
    // The node becomes the Name "Cls.member", which later passes of the fixed point find as that constant.
    e.name = e.kids[0]->name + "." + (e.kind == ExprKind::Attribute ? e.name : e.kids[1]->name);
    e.kids.clear();
    e.kind = ExprKind::Name;
    e.constant = c;
    return c->type;
  }
  [[noreturn]] void too_deep(SourceLoc loc);

  Type expr_inner(Expr& e) {
    switch (e.kind) {
      case ExprKind::Int: return e.int_unsigned ? u64() : i64();
      case ExprKind::Float: return f64();
      case ExprKind::Complex: return Type::complex(128);
      case ExprKind::Bool: return Type::boolean();
      case ExprKind::NoneLit: return Type::none();
      case ExprKind::Str:
        error(e.loc, "strings are not supported as values (only in docstrings, assert messages, print() arguments "
                     "and exception arguments)");
      case ExprKind::Unsupported:
        error(e.loc, e.name + " is not supported; supported expressions: numbers, names, tuples, arithmetic, "
                              "bitwise and comparison operators, and/or/not, conditional expressions, calls of "
                              "builtins, math functions and module functions");
      case ExprKind::Name: return name(e);
      case ExprKind::Tuple: {
        std::vector<Type> elems;
        bool unknown = false;
        for (auto& k : e.kids) {
          Type t = expr(*k);
          if (t.is_unknown()) unknown = true;
          else if (!t.is_scalar() && !t.is_bfloat16() && !t.is_vector() && !t.is_tuple() && !t.is_array() && !t.is_record() &&
                   !t.is_enum_member())
            error(k->loc, "tuples hold numbers, arrays and tuples; got a value of type " + t.name());
          elems.push_back(t);
        }
        if (e.kids.empty()) error(e.loc, "the empty tuple is not supported");
        if (unknown) return Type();
        Type t = Type::tuple(std::move(elems));
        if (t.leaf_count() > kMaxTupleLeaves)
          error(e.loc, "a tuple of " + std::to_string(t.leaf_count()) + " values; tuples hold at most " +
                           std::to_string(kMaxTupleLeaves) + " (use an array)");
        return t;
      }
      case ExprKind::Binary: {
        Type a = expr(*e.kids[0]);
        Type b = expr(*e.kids[1]);
        return binary(e.binop, a, b, e.loc, &e);
      }
      case ExprKind::Unary: {
        Type a = expr(*e.kids[0]);
        if (a.is_unknown()) return a;
        if (e.unop == UnaryOp::Not && a.is_tuple()) return Type::boolean();
        auto r = resolve_unary(e.unop, a);
        if (!r) {
          const char* sym = e.unop == UnaryOp::Neg ? "-" : e.unop == UnaryOp::Pos ? "+" : e.unop == UnaryOp::Invert ? "~" : "not ";
          error(e.loc, std::string("unsupported operand type for unary ") + sym + ": " + a.name() +
                           (e.unop == UnaryOp::Invert ? " ('~' takes bool and integers)" : ""));
        }
        return *r;
      }
      case ExprKind::BoolOp: {
        Type a = truth(*e.kids[0]);
        Type b = truth(*e.kids[1]);
        if (a.is_unknown() || b.is_unknown()) return Type();
        auto u = unify(a, b);
        if (!u) error(e.loc, std::string("the operands of '") + (e.is_and ? "and" : "or") + "' have types " + a.name() +
                                 " and " + b.name() + ", which do not unify");
        return *u;
      }
      case ExprKind::Compare: {
        if (e.cmp_ops.size() == 1 && (e.cmp_ops[0] == CmpOp::Is || e.cmp_ops[0] == CmpOp::IsNot))
          return is_none(e);
        std::vector<Type> ts;
        for (auto& k : e.kids) ts.push_back(expr(*k));
        if (e.cmp_ops.size() == 1 && (ts[0].is_none() || ts[1].is_none()) &&
            (e.cmp_ops[0] == CmpOp::Eq || e.cmp_ops[0] == CmpOp::Ne))
          return equals_none(e, ts[0], ts[1]);
        e.formals.clear();
        if (e.cmp_ops.size() == 1 && (e.cmp_ops[0] == CmpOp::In || e.cmp_ops[0] == CmpOp::NotIn))
          return contains(e, ts[0], ts[1]);
        if (std::optional<Type> members = enum_compare(e)) return *members;
        for (std::size_t i = 0; i < e.cmp_ops.size(); ++i) {
          CmpOp op = e.cmp_ops[i];
          if (op == CmpOp::In || op == CmpOp::NotIn)
            error(e.loc, "the 'in' operator is supported alone (x in t), not in a chain of comparisons; split the chain "
                         "with 'and'");
          if (op == CmpOp::Is || op == CmpOp::IsNot)
            error(e.loc, "the 'is' operator is supported alone with None only (x is None, x is not None); "
                         "compare numbers with == and !=");
          if (ts[i].is_unknown() || ts[i + 1].is_unknown()) {
            e.formals.push_back(Type());
            continue;
          }
          bool eq = op == CmpOp::Eq || op == CmpOp::Ne;
          auto f = resolve_compare(eq, ts[i], ts[i + 1]);
          if (!f && (is_datetime_like(ts[i]) || is_datetime_like(ts[i + 1])))
            error(e.loc, datetime_compare_refusal(eq, ts[i], ts[i + 1]));
          if (!f && eq && ts[i].is_tuple() && ts[i] == ts[i + 1]) f = ts[i];
          if (!f)
            error(e.loc, "cannot compare " + ts[i].name() + " with " + ts[i + 1].name() +
                             (eq ? "" : " using an ordering operator (complex numbers and tuples support == and != only)"));
          e.formals.push_back(*f);
        }
        return Type::boolean();
      }
      case ExprKind::IfExp: {
        truth(*e.kids[0]);
        if (e.kids[0]->kind == ExprKind::Bool && is_none_test(*e.kids[0])) {  // a if x is None else b
          Expr live = std::move(*e.kids[e.kids[0]->ival ? 1 : 2]);
          e = std::move(live);
          return expr_inner(e);
        }
        Type a = expr_optional(*e.kids[1]);
        Type b = expr_optional(*e.kids[2]);
        if (a.is_unknown() || b.is_unknown()) return Type();
        auto u = unify(a, b);
        if (!u) error(e.loc, "the branches of the conditional expression have types " + a.name() + " and " + b.name() +
                                 ", which do not unify");
        return *u;
      }
      case ExprKind::Attribute: return attribute(e);
      case ExprKind::Subscript: {
        if (const Constant* c = class_member(*e.kids[0], *e.kids[1])) return folded_member(e, c);
        Type base = expr(*e.kids[0]);
        Expr& idx = *e.kids[1];
        if (base.is_array()) return array_subscript(e, base);
        if (base.is_record()) return record_subscript(e, base);
        if (base.is_pointer()) return pointer_subscript(e, base);
        if (base.is_unknown()) return base;
        if (!base.is_tuple()) error(e.loc, "cannot index a value of type " + base.name() + " (tuples and arrays support [i])");
        if (idx.kind == ExprKind::Unsupported || idx.kind == ExprKind::Slice)
          error(idx.loc, "slicing tuples is not supported; index them with a constant");
        if (idx.kind != ExprKind::Int && !fold_tuple_index(idx)) return tuple_subscript(e, base);
        idx.type = i64();
        auto n = static_cast<std::int64_t>(base.elements().size());
        auto i = static_cast<std::int64_t>(idx.ival);
        if (idx.int_unsigned || i >= n || i < -n)
          error(idx.loc, "tuple index " + std::to_string(i) + " out of range for " + base.name());
        if (i < 0) idx.ival = static_cast<std::uint64_t>(i + n);
        return base.elements()[static_cast<std::size_t>(idx.ival)];
      }
      case ExprKind::Call: return call(e);
      case ExprKind::Unwrap: {  // an Optional's value, or an enum member's (typer_enums.cpp)
        Type t = expr_optional(*e.kids[0]);
        if (t.is_enum_member()) return t.enum_value();
        fn_.can_raise = true;
        return t.is_optional() ? t.optional_value() : t;
      }
      case ExprKind::Slice: error(e.loc, "a slice is only valid as an array index (a[1:], a[:, j])");
    }
    return Type();
  }

  Type name(Expr& e) {
    int slot = slot_of(e.name);
    if (slot >= 0) {
      e.slot = slot;
      const Type& t = fn_.local_types[static_cast<std::size_t>(slot)];
      if (t.is_unknown())
        return unknown_or_error(e, "local variable '" + e.name + "' is used before it is assigned (or its type cannot be inferred)");
      return t;
    }
    if (const Constant* c = constant_of(e.name, e.loc)) {
      e.constant = c;
      return c->type;
    }
    if (auto a = prog_.options.constant_arrays.find(e.name); a != prog_.options.constant_arrays.end())
      return constant_array_name(e, a->second);
    if (auto a = prog_.options.device_arrays.find(e.name); a != prog_.options.device_arrays.end()) {
      e.device_array = &a->second;
      return a->second.type;
    }
    if (prog_.functions.count(e.name) || prog_.imports.count(e.name))
      error(e.loc, "'" + e.name + "' is a function or module; it can only be called (or its attribute read)");
    if (auto refused = prog_.options.refused_functions.find(e.name); refused != prog_.options.refused_functions.end())
      error(e.loc, refused->second);
    if (auto t = prog_.options.constant_tuples.find(e.name); t != prog_.options.constant_tuples.end())
      error(e.loc, "'" + e.name + "' is a tuple of " + std::to_string(t->second.size()) + " NumPy arrays (and numbers) "
                   "captured from the globals or closure; compiled code indexes it with a constant (" + e.name +
                   "[0]), takes len(" + e.name + ") and iterates it with literal_unroll(" + e.name + "), but does not "
                   "use it as a value");
    error(e.loc, "name '" + e.name + "' is not defined (compiled functions see their parameters, local variables, "
                                     "module-level constants, closure variables, imported modules and module functions)");
  }

  // "math", "np.float32", "sqrt" -> the dotted module path it stands for, or "" if not a module path.
  std::string dotted(const Expr& e) {
    if (e.kind == ExprKind::Name) {
      if (auto s = fn_.static_paths.find(e.name); s != fn_.static_paths.end()) return s->second;
      if (slot_of(e.name) >= 0) return "";
      auto it = prog_.imports.find(e.name);
      if (it != prog_.imports.end()) return it->second;
      // The Python API passes modules and module functions it finds in globals as "module:" constants
      // in imports; a bare "math" without an import statement is accepted too.
      if (e.name == "math" && !prog_.functions.count(e.name)) return "math";
      return "";
    }
    if (e.kind == ExprKind::Attribute) {
      std::string base = dotted(*e.kids[0]);
      if (base.empty()) return "";
      return base + "." + e.name;
    }
    return "";
  }

  Type math_constant(Expr& e, std::string_view attr) {
    double v;
    if (attr == "pi") v = M_PI;
    else if (attr == "e") v = M_E;
    else if (attr == "tau") v = 2 * M_PI;
    else if (attr == "inf") v = INFINITY;
    else if (attr == "nan") v = NAN;
    else error(e.loc, "math." + std::string(attr) + " is not supported; the math module offers: " + kMath);
    Constant c;
    c.type = f64();
    c.re = v;
    return folded(e, c);
  }

  /// e becomes the constant c (math.pi, np.inf, cmath.infj, ...): kept in the module's constants (a deque,
  /// so the pointer stays valid).
  Type folded(Expr& e, const Constant& c) {
    prog_.out.constants.push_back(c);
    e.constant = &prog_.out.constants.back();
    return c.type;
  }

  Type attribute(Expr& e) {
    std::string path = dotted(e);
    if (!path.empty()) {
      if (path.starts_with("math.")) return math_constant(e, std::string_view(path).substr(5));
      if (path.starts_with("numpy.")) return numpy_constant(e, std::string_view(path).substr(6));
      if (path.starts_with("cmath.")) return cmath_constant(e, std::string_view(path).substr(6));
      if (auto in = intrinsic_of(path)) return cuda_attribute(e, *in);
      if (const Constant* c = constant_of(path, e.loc)) {  // mod.CONST (the Python API passes it by path)
        e.constant = c;
        return c->type;
      }
      error(e.loc, "'" + path + "' is not supported as a value");
    }
    if (const Constant* c = class_member(*e.kids[0], e)) return folded_member(e, c);
    if (e.name == "data" && e.kids[0]->kind == ExprKind::Attribute && e.kids[0]->name == "ctypes" &&
        dotted(*e.kids[0]).empty()) {  // a.ctypes.data: the array's data address (numba's ArrayCTypes.data)
      Type array = expr(*e.kids[0]->kids[0]);
      if (!array.is_array())
        error(e.loc, "'.ctypes.data' is an array's data address; a value of type " + array.name() + " has none");
      e.kids[0] = std::move(e.kids[0]->kids[0]);
      e.name = "ctypes.data";
      return Type::integer(64, false);
    }
    Type base = expr_optional(*e.kids[0]);
    if (base.is_enum_member()) return enum_attribute(e, base);
    if (base.is_optional()) base = expr(*e.kids[0]);
    if (base.is_array()) return array_attribute(e, base);
    if (base.is_record()) return record_attribute(e, base);
    if (base.is_named_tuple()) return named_tuple_attribute(e, base);
    if (base.is_foreign()) return foreign_attribute(e, base);
    if (base.is_unknown()) return base;
    if (base.is_vector()) return vector_attribute(e, base);
    if (e.name == "real" || e.name == "imag") {
      if (base.is_complex()) return base.component();
      if (base.is_scalar()) return base;
    }
    error(e.loc, "attribute '" + e.name + "' of a value of type " + base.name() +
                     " is not supported (numbers offer .real, .imag and .conjugate())");
  }

  // p.x of a namedtuple: its element at the field's position (numba's NamedTuple getattr).
  Type named_tuple_attribute(Expr& e, const Type& base) {
    const int k = base.field_index(e.name);
    if (k < 0) {
      std::string fields;
      for (const std::string& f : base.field_names()) fields += (fields.empty() ? "" : ", ") + f;
      error(e.loc, "namedtuple " + base.tuple_class() + " has no field '" + e.name + "'; its fields: " +
                       (fields.empty() ? "none" : fields));
    }
    e.field = k;
    return base.elements()[static_cast<std::size_t>(k)];
  }

  // s.lo of a numba extension type: the StructModel member make_attribute_wrapper reads through it. Any other
  // attribute is numba's code (AttributeTemplate with lower_attr, overload_attribute): the expression becomes
  // a call of "getattr.<attribute>" with the value (no Python name has a dot), which the Python layer resolves
  // through numba's typing and lowering (_numba_lowering.py) as it resolves an @overload'ed call.
  Type foreign_attribute(Expr& e, const Type& base) {
    const int k = base.field_index(e.name);
    if (k >= 0) {
      e.field = k;
      return base.elements()[static_cast<std::size_t>(k)];
    }
    const std::string name = "getattr." + e.name;
    ExprPtr self = std::move(e.kids[0]);
    e.kind = ExprKind::Call;
    e.name = name;
    e.kids.clear();
    e.kids.push_back(name_expr(name, e.loc));
    e.kids.push_back(std::move(self));
    e.keywords.clear();
    static const std::vector<OverloadResolution> unresolved;
    auto o = prog_.options.overloads.find(name);
    return overloaded_call(e, name, o != prog_.options.overloads.end() ? o->second : unresolved);
  }

  Type binary(BinOp op, const Type& a, const Type& b, SourceLoc loc, Expr* node) {
    if (a.is_unknown() || b.is_unknown()) return Type();
    auto r = resolve_binop(op, a, b);
    if (!r && (is_datetime_like(a) || is_datetime_like(b))) error(loc, datetime_operator_refusal(op, a, b));
    if (!r || (op == BinOp::Pow && r->lhs.is_complex() && !node))
      error(loc, "unsupported operand types for " + std::string(binop_symbol(op)) + ": " + a.name() + " and " + b.name() +
                     (a.is_bfloat16() && b.is_bfloat16()
                          ? " (numba-cuda's bfloat16 operators are +, -, *, /, and //, %, ** through float32)"
                      : a.is_bfloat16() || b.is_bfloat16()
                          ? " (numba-cuda's bfloat16 operators are +, -, *, / with numbers, and //, %, ** through "
                            "float32/float64: convert the bfloat16 with float(x) or np.float32(x))"
                          : ""));
    // a ** b, pow(a, b) and a **= b (node: the target) on complex numbers call numba-cuda's cpow.
    if (a.is_bfloat16() || b.is_bfloat16())  // cuda_bf16's operators and conversions need sm_80
      bf16_target_at(loc, "the operator " + std::string(binop_symbol(op)) + " on a bfloat16");
    if (op == BinOp::Pow && r->lhs.is_complex()) return complex_power(*node, r->lhs);
    if (node) node->formals = {r->lhs, r->rhs};
    // numba's complex division (CPython's algorithm) raises ZeroDivisionError for a zero divisor in every
    // error model; the raising thread stops there, as numba-cuda's does.
    if (op == BinOp::TrueDiv && r->lhs.is_complex()) fn_.can_raise = true;
    return r->result;
  }

  std::vector<Type> args_of(Expr& e, bool& unknown) {
    std::vector<Type> ts;
    unknown = false;
    for (std::size_t i = 1; i < e.kids.size(); ++i) {
      Type t = expr(*e.kids[i]);
      if (t.is_unknown()) unknown = true;
      ts.push_back(t);
    }
    return ts;
  }

  void arity(const Expr& e, std::string_view fname, std::size_t n, std::size_t lo, std::size_t hi) {
    if (!e.keywords.empty()) error(e.loc, std::string(fname) + "() takes no keyword arguments here");
    if (n < lo || n > hi)
      error(e.loc, std::string(fname) + "() takes " +
                       (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                       " argument(s), got " + std::to_string(n));
  }

  // Array methods (typer_array_methods.cpp): a.reshape(shape) and a.view(dtype), views of the same data as
  // numba-cuda makes them; a.copy() and the other allocating methods are refused by name.
  Type array_method(Expr& e, const Expr& callee, const Type& base);
  /// a.transpose(), a.transpose(axes), a.transpose(i, j, ...) and, with `function`, np.transpose(a[, axes]):
  /// views with permuted axes; `args` are the axes' types (typer_array_methods.cpp).
  Type array_transpose(Expr& e, const Type& base, const std::vector<Type>& args, bool function);
  /// The dtype an argument names: np.int32, numba.float32, a.dtype; nullopt when it names none.
  std::optional<Type> dtype_argument(Expr& dtype);

  // Arrays (typer_arrays.cpp): a[i, j] loads and views, a[...] = v stores, .shape and friends.
  Type array_subscript(Expr& e, const Type& base);
  Type array_attribute(Expr& e, const Type& base);
  void array_store(Expr& target, const Type& value);
  /// A store to a view (target.type): checks the value against numba's setitem rule (typer_slice_store.cpp).
  void slice_store(Expr& target, const Type& value, const std::string& what);
  /// The index types of `index` (an expression or a tuple of them) into `base`, checked.
  std::optional<std::vector<Type>> array_indices(Expr& index, const Type& base, SourceLoc loc);
  /// Types a slice's start, stop and step (integers or None) into its formals; false if one is unknown.
  bool slice_bounds(Expr& slice);
  /// The layout of the view that indexing `base` with `parts` (integers and slices) makes.
  static char view_layout(const Type& base, const std::vector<const Expr*>& parts);
  /// The integer value of a compile-time constant expression (literal, -literal, module constant).
  std::optional<std::int64_t> const_int(const Expr& e);
  /// numba's spelling of a call argument's type in its "No implementation of function" message
  /// (Literal[int](1), float32, Tuple(Literal[int](1), int32), array(float32, 1d, A)).
  std::string numba_argument_spelling(Expr& e);
  /// The values of a list display of integer constants ([N, M]: refused as a value, its items kept), else nullopt.
  std::optional<std::vector<std::int64_t>> constant_int_list(const Expr& e);
  /// numba's opening words for a cuda.shared/local.array call whose shape it has no implementation for.
  std::string no_implementation_words(const std::string& name, Expr& shape, Expr& dtype);
  /// A local variable defined once, by `name = <integer constant expression>`: its value, as numba's
  /// find_const reads a variable of one definition (N = 100; cuda.shared.array(N, int32)); else nullopt
  /// (typer_single_definition.cpp).
  std::optional<std::int64_t> single_definition_int(const std::string& name);
  /// The one definition of local `name` when it is `name = value` and it has no other, else null.
  const Stmt* single_assignment(const std::string& name) const;
  int single_definition_depth_ = 0;
  /// The variable the statement being typed assigns (`x = value`), "" for other statements: numba's
  /// "Cannot infer the type of variable 'x'" names it where the value's type cannot be found.
  std::string assigned_name_;

  // Fixed-width strings (typer_char_seq.cpp): a bytes/str constant stored into a CharSeq element or field
  // (the statement `target = 'abc'`); any other use of such a value is refused.
  // Enum members (typer_enums.cpp): == and != of a plain Enum's members; a member's .value.
  std::optional<Type> enum_compare(Expr& e);
  Type enum_attribute(Expr& e, const Type& member);
  void char_seq_store(Stmt& s);
  [[noreturn]] void refuse_char_seq_value(const Expr& e, const Type& t);

  // Records (typer_records.cpp): fields read as r.x / r['x'] and stored, r a record element.
  Type record_attribute(Expr& e, const Type& record);
  Type record_subscript(Expr& e, const Type& record);
  /// target = value where target is r.x or r['x'] (r['x'] comes through array_store's subscript path).
  void record_store(Expr& target, const Type& value);
  /// The type a read of field `index` gives: the field's type; an array field is an array view.
  static Type field_value_type(const Type& record, int index);
  /// Refuses a field at an offset its type's alignment does not divide (numba-cuda's strict alignment).
  void check_field_alignment(const Expr& e, const Type& record, int index);

  // CUDA intrinsics (typer_cuda.cpp), spelt cuda.X (from numba import cuda) or cubridge.X.
  /// One intrinsic: its name ("grid", "threadIdx.x", "atomic.add") and how errors show it, with the
  /// module the user reached it through ("cuda.grid" for numba.cuda, "cubridge.grid" for cubridge).
  struct Intrinsic {
    std::string name;
    std::string shown;
  };
  /// The intrinsic a dotted path names, or nullopt.
  static std::optional<Intrinsic> intrinsic_of(const std::string& path);
  Type cuda_attribute(Expr& e, const Intrinsic& in);
  Type cuda_call(Expr& e, const Intrinsic& in);
  Type cuda_array_alloc(Expr& e, const Intrinsic& in, std::vector<Expr*> args);
  /// numba-cuda's alignment= of cuda.local/shared.array: a constant integer that is positive, a power of 2
  /// and a multiple of the pointer size (8), or None (0: the default alignment); refused by numba's words.
  std::int64_t array_alignment(Expr& a, const std::string& shown);
  Type cuda_atomic(Expr& e, const Intrinsic& in);
  /// An atomic's index (typer_atomic_index.cpp): each item is cast to intp, as numba-cuda does.
  std::vector<Type> atomic_indices(Expr& index, const std::string& shown);
  // Cache-hinted loads and stores (typer_cache_hints.cpp): cuda.ldca/ldcg/ldcs/ldlu/ldcv, stcg/stcs/stwb/stwt.
  static bool is_cache_hint(std::string_view name);
  Type cache_hint(Expr& e, const Intrinsic& in);
  /// A name bound to a NumPy array outside the source: a read-only C-ordered array in constant memory.
  Type constant_array_name(Expr& e, const ConstantArray& a);

  // for loops (typer_iteration.cpp): each iterable gets an iterator kind (Expr::iter) and an item type.
  void for_loop(Stmt& s);
  /// Types `it` as an iterable; its item type, or unknown while an operand's type is not yet known.
  Type iterable(Expr& it);
  Type range_iterable(Expr& it);
  // Tuple indices other than literals (typer_tuple_index.cpp).
  /// Turns a constant index expression (-1, N) into an integer literal; false when it is not constant.
  bool fold_tuple_index(Expr& idx);
  /// t[i] with a run-time integer i: homogeneous tuples only (numba's UniTuple getitem).
  Type tuple_subscript(Expr& e, const Type& base);

  Type call(Expr& e);
  /// f(*t): t's items as arguments of their own (t[0], t[1], ...) once t is typed a tuple; false while unknown.
  bool spread_arguments(Expr& e);
  /// operator.add(a, b) and the other operator functions: the call becomes the operator expression
  /// (typer_operator_module.cpp).
  Type operator_call(Expr& e, const std::string& fname);
  /// A function of a kernel-library prelude (cmath_prelude.cpp, numpy_complex_loops.cpp): the prelude's
  /// functions and imports join the program on first use.
  const FunctionDef& prelude_function(const ModuleAst& prelude, const std::string& impl);
  const FunctionDef& cmath_function(const std::string& impl);
  /// a ** b / pow(a, b) on complex numbers of type t: a call of the prelude's __cpow_c64/_c128.
  Type complex_power(Expr& e, const Type& t);
  /// The declared signature a call of `def` takes (typer_declared_signatures.cpp); refuses when none fits.
  const Signature& declared_signature(Expr& e, const FunctionDef& def, const std::vector<Signature>& sigs,
                                      const std::vector<Type>& args);
  // print() and raise (typer_print_raise.cpp), as numba-cuda types them.
  Type print_call(Expr& e);
  void print_item(Expr& a);
  void raise_statement(Stmt& s);
  std::string exception_class(const Expr& c);
  std::string exception_arg(Expr& a);
  // Cooperative groups (typer_cooperative.cpp): cuda.cg.this_grid() and GridGroup.sync().
  Type this_grid(Expr& e, const Intrinsic& in);
  Type grid_group_method(Expr& e, const Expr& callee);
  Type builtin_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  Type math_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  // NumPy (typer_numpy.cpp): np.pi and friends, and the ufuncs numba-cuda lowers, on scalars.
  Type numpy_constant(Expr& e, std::string_view attr);
  Type numpy_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  /// np.sum(a), np.all(a), np.nanmax(a), ...: NumPy's whole-array reductions (typer_numpy_reductions.cpp);
  /// with `method`, a.sum(), a.argmax(), ...: `args` is the array, e.kids[0] the attribute a.sum.
  Type numpy_reduction(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown,
                       bool method = false);
  /// The loop numba-cuda lowers for ufunc on these scalar types; refuses what it cannot compile.
  UfuncLoop ufunc_loop(Expr& e, std::string_view ufunc, const std::string& shown, const std::vector<Type>& args);
  /// A complex loop computed by the numpy complex prelude: e becomes a typed call of its function
  /// (e.callee_index); false when the loop is lowered inline (conjugate, isnan, equal, ...).
  bool complex_ufunc_call(Expr& e, std::string_view ufunc, const UfuncLoop& loop);
  /// np.<ufunc>(inputs..., out) on arrays (typer_numpy.cpp): returns out's type; e.formals: loop inputs, output.
  Type numpy_ufunc_on_arrays(Expr& e, std::string_view ufunc, const std::string& shown, const std::vector<Type>& args);
  /// `x.dtype` of an array x, where a type is expected; nullopt when `e` is not one.
  std::optional<Type> array_dtype_of(Expr& e);
  /// `x.dtype.type(v)`: v converted to the array's element type.
  Type dtype_type_call(Expr& e, const Type& dtype);
  /// `v.view(np.int64)`: the bits of a scalar read as another number type of the same width.
  Type scalar_view(Expr& e, const Type& value);
  // cmath (typer_cmath.cpp): its constants, and its functions compiled from the prelude.
  Type cmath_constant(Expr& e, std::string_view attr);
  Type cmath_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  // numba.cuda.libdevice (typer_libdevice.cpp).
  Type libdevice_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  // numba.cuda.fp16 (typer_fp16.cpp).
  Type fp16_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  // numba-cuda's bfloat16 (typer_bf16.cpp): cuda_bf16's bindings by name, math.<f> on a bfloat16, the
  // bfloat16(x) constructor and casts of a bfloat16 to a number type.
  /// float("<text>") with a string literal: the float64 constant CPython parses it to (typer_calls.cpp).
  Type float_of_text(Expr& e);
  // numba-cuda's vector types (typer_vectors.cpp): float32x4(...) and friends, v.x .. v.w.
  Type vector_call(Expr& e, const Type& vector, const std::vector<Type>& args, bool unknown);
  Type vector_attribute(Expr& e, const Type& vector);
  Type bf16_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  Type bf16_math_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  Type bf16_cast(Expr& e, const Type& to, const std::vector<Type>& args, bool unknown);
  /// The target's compute capability (major * 10 + minor); an error naming `what` below 8.0.
  int bf16_target(const Expr& e, const std::string& what);
  int bf16_target_at(SourceLoc loc, const std::string& what);
  /// isinstance(x, T) on a number variable (typer_isinstance.cpp): bool, answered when emitted.
  Type isinstance_call(Expr& e);
  // numba-cuda's fp8 (typer_fp8.cpp): cuda_fp8's types as constructors, their casts, the cvt_* intrinsics.
  Type fp8_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown);
  Type fp8_cast(Expr& e, const Type& to, const std::vector<Type>& args, bool unknown);
  int fp8_target(const Expr& e, const std::string& what);
  Type user_call(Expr& e, const FunctionDef& def, const std::vector<Type>& args, bool unknown,
                 const std::vector<StaticBinding>* statics = nullptr);
  /// A call of an external device function (cuda.declare_device) the code calls `name`
  /// (typer_external_calls.cpp).
  Type external_call(Expr& e, const std::string& name, const ExternalFunction& f);
  // C pointers (typer_pointers.cpp): p[i] loads and p[i] = v stores.
  Type pointer_subscript(Expr& e, const Type& base);
  void pointer_store(Expr& target, const Type& base, const Type& value);
  /// numba's carray(ptr, shape, dtype=None) / farray: an array over the memory a pointer points to.
  Type pointer_array(Expr& e, const std::string& shown, bool fortran);
  /// cffi's ffi.from_buffer(array) (an FFI object bound outside the code): the array's data pointer.
  Type ffi_from_buffer(Expr& e, const std::vector<Type>& args, bool unknown);
  /// A call of a function numba implements through an @overload (typer_overload_calls.cpp): the resolved
  /// implementation's call, or OverloadNeeded for argument types not resolved yet.
  Type overloaded_call(Expr& e, const std::string& name, const std::vector<OverloadResolution>& resolutions);
  // Compile-time arguments (typer_static_arguments.cpp): numba types a function, a type, an intrinsic or a
  // literal passed to a device function as part of the callee's type, so the callee is compiled for it.
  /// What argument `a` binds parameter `param` of `def` to at compile time, or nullopt for a run-time value.
  std::optional<StaticBinding> static_binding(Expr& a, const FunctionDef& def, std::size_t param);
  /// A call of module function `def`: compile-time arguments bound, the others typed; the callee's type.
  Type module_function_call(Expr& e, const FunctionDef& def);

  // Calls of module functions (typer_arguments.cpp).
  /// The module function `callee` names (by name, alias, module path or tuple item), or null.
  const FunctionDef* user_function(const Expr& callee, const std::string& path);
  /// Reorders e's arguments into def's parameter order (keywords, defaults), with Python's errors.
  void bind_arguments(Expr& e, const FunctionDef& def);

  // None and Optional (typer_none.cpp).
  /// `x is None` / `x is not None`: a constant when x's type says (the node becomes a Bool marked by
  /// is_none_test, and the If it guards is pruned), a run-time test when x is Optional.
  Type is_none(Expr& e);
  /// `x is y` / `x is not y` of two values that are not None (typer_none.cpp).
  // `x in t` / `x not in t` on a tuple of numbers (numba's seq_contains: == with each element, left to right);
  // e.formals holds the comparison type of each element. Other containers are refused by name.
  Type contains(Expr& e, const Type& x, const Type& t) {
    const char* op = e.cmp_ops[0] == CmpOp::In ? "in" : "not in";
    if (x.is_unknown() || t.is_unknown()) {
      e.formals = {Type()};
      return Type::boolean();
    }
    if (!t.is_tuple())
      error(e.loc, std::string("the '") + op + "' operator is supported on tuples (x in (1, 2)); the right operand has "
                   "type " + t.name() + " (arrays and other containers are not searched in compiled functions)");
    for (const Type& item : t.elements()) {
      auto f = resolve_compare(true, x, item);
      if (!f || f->is_tuple())
        error(e.loc, std::string("the '") + op + "' operator compares " + x.name() + " with each element of " + t.name() +
                     "; " + x.name() + " cannot be compared with " + item.name() + " (numbers compare with numbers)");
      e.formals.push_back(*f);
    }
    return Type::boolean();
  }
  Type is_value(Expr& e, const Type& a, const Type& b, bool negate);
  /// Whether an if's (typed) test is decided when the function is compiled, by numba's dead_branch_prune
  /// rules (typer_branch_prune.cpp); nullopt: tested at run time.
  std::optional<bool> pruned_test(const Expr& test);
  std::optional<PruneValue> prune_operand(const Expr& e, int depth);

 public:
  /// Before variables are versioned (numba prunes before its SSA): each `if` whose test compares literals and
  /// global or closure constants (names the function never binds) is decided, its test made that literal and
  /// the branch it rules out emptied, so no definition there reaches a read (typer_branch_prune.cpp).
  void prune_constant_branches(std::vector<StmtPtr>& body);

 private:
  std::optional<PruneValue> unbound_constant(const Expr& e, const std::set<std::string>& bound);
  /// `x == None` / `x != None` where one side's type is none (typer_none.cpp).
  Type equals_none(Expr& e, const Type& a, const Type& b);
  /// numba.cuda.random.X / cubridge.random.X (module spellings and aliases of the random device functions,
  /// which the Python API adds as units): X's definition, nullptr for other paths (typer_calls.cpp).
  const FunctionDef* random_function(const Expr& e, const std::string& path);
};

void type_function(Program& prog, TypedFunction& fn);

}  // namespace cubridge::compiler::typer_detail
