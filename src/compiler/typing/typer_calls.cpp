// Internal: typing of calls: builtins, math functions, numpy/numba scalar casts, methods and module
// functions (see function_typer.hpp).
#include <cctype>
#include <cstdlib>

#include "compiler/typing/function_typer.hpp"
#include "cubridge/compiler/bf16_names.hpp"

namespace cubridge::compiler::typer_detail {

bool FunctionTyper::spread_arguments(Expr& e) {
  for (std::size_t i = 1; i < e.kids.size(); ++i) {
    Expr& k = *e.kids[i];
    if (k.kind != ExprKind::Unsupported || k.name != kStarredArgument) continue;
    Type t = expr(*k.kids[0]);
    if (t.is_unknown()) return false;
    if (!t.is_tuple())
      error(k.loc, "argument unpacking ('*value') needs a tuple, got a value of type " + t.name());
    if (k.kids[0]->kind != ExprKind::Name)
      error(k.loc, "argument unpacking ('*value') of an expression is not supported: assign the tuple to a name "
                   "first and unpack the name");
    std::vector<ExprPtr> items;
    for (std::size_t j = 0; j < t.elements().size(); ++j) {
      auto item = std::make_unique<Expr>();
      item->kind = ExprKind::Subscript;
      item->loc = k.loc;
      item->kids.push_back(clone_expr(*k.kids[0]));
      auto index = std::make_unique<Expr>();
      index->kind = ExprKind::Int;
      index->loc = k.loc;
      index->ival = j;
      item->kids.push_back(std::move(index));
      items.push_back(std::move(item));
    }
    e.kids.erase(e.kids.begin() + static_cast<std::ptrdiff_t>(i));
    e.kids.insert(e.kids.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(items.begin()),
                  std::make_move_iterator(items.end()));
    i += items.size() - 1;  // wraps to i - 1 for an empty tuple; ++i comes back to i
  }
  return true;
}

Type FunctionTyper::call(Expr& e) {
  if (!spread_arguments(e)) return Type::unknown();
  Expr& callee = *e.kids[0];
  // Method call: z.conjugate()
  if (callee.kind == ExprKind::Attribute && dotted(callee).empty()) {
    if (callee.name == "type")
      if (auto dt = array_dtype_of(*callee.kids[0])) return dtype_type_call(e, *dt);
    const Expr& owner = *callee.kids[0];
    if (owner.kind == ExprKind::Name && slot_of(owner.name) < 0 && !prog_.functions.count(owner.name) &&
        (owner.name == "int" || owner.name == "float" || owner.name == "complex" || owner.name == "bool"))
      error(callee.loc, "Unknown attribute '" + callee.name + "' of type class(" + owner.name + "): compiled code "
                        "calls the type itself (" + owner.name + "(x)), not its methods");
    Type base = expr(*callee.kids[0]);
    if (base.is_grid_group()) return grid_group_method(e, callee);
    if (base.is_array()) return array_method(e, callee, base);
    if (callee.name == "view") return scalar_view(e, base);
    if (callee.name == "bit_count" && e.kids.size() == 1) {  // numba-cuda's overload: cuda.popc(i)
      e.callee = Callee::Builtin;
      e.target = "bit_count";
      if (base.is_unknown() || base.is_int()) return base;
      error(e.loc, "bit_count() is a method of integers (int8..uint64), got a value of type " + base.name());
    }
    if (callee.name == "conjugate" && e.kids.size() == 1) {
      e.callee = Callee::Builtin;
      e.target = "conjugate";
      if (base.is_unknown()) return base;
      if (base.is_scalar() && !base.is_bool()) return base;
    }
    if (base.is_unknown()) return base;
    error(e.loc, "method '" + callee.name + "' of a value of type " + base.name() +
                     " is not supported (numbers offer .conjugate(), integers .bit_count())");
  }
  std::string path = callee.kind == ExprKind::Name ? "" : dotted(callee);
  if (callee.kind == ExprKind::Name) {
    // A parameter bound at compile time to a function or a path (h(cuda.atomic.add) calling op(a, i, v)).
    if (auto f = fn_.static_functions.find(callee.name); f != fn_.static_functions.end())
      return module_function_call(e, *prog_.functions.find(f->second)->second);
    if (auto s = fn_.static_paths.find(callee.name); s != fn_.static_paths.end()) path = s->second;
    else if (slot_of(callee.name) >= 0) error(callee.loc, "'" + callee.name + "' is a local variable, not a function");
    if (auto refused = prog_.options.refused_functions.find(callee.name); refused != prog_.options.refused_functions.end())
      error(callee.loc, refused->second);
    if (auto x = prog_.options.external_functions.find(callee.name); x != prog_.options.external_functions.end())
      return external_call(e, x->first, x->second);
    if (auto o = prog_.options.overloads.find(callee.name); o != prog_.options.overloads.end())
      return overloaded_call(e, o->first, o->second);
    auto imp = prog_.imports.find(callee.name);
    if (path.empty() && imp != prog_.imports.end()) path = imp->second;
  }
  if (path.empty() && callee.kind == ExprKind::Name && callee.name == "isinstance" &&
      !prog_.functions.count("isinstance"))
    return isinstance_call(e);
  if (path.empty() && callee.kind == ExprKind::Name && callee.name == "float" && e.kids.size() == 2 &&
      e.kids[1]->kind == ExprKind::Str && e.kids[1]->ival == 0 && e.keywords.empty() && !prog_.functions.count("float"))
    return float_of_text(e);
  if (auto in = intrinsic_of(path)) return cuda_call(e, *in);
  if (path.empty() && callee.kind == ExprKind::Name && callee.name == "print" && !prog_.functions.count("print"))
    return print_call(e);
  if (const FunctionDef* def = user_function(callee, path)) return module_function_call(e, *def);
  // numba's carray/farray (their dtype argument is a type, typed by pointer_array itself)
  for (std::string_view module : {"numba.", "numba.np.numpy_support.", "numba.cuda.np.numpy_support."})
    if (path == std::string(module) + "carray" || path == std::string(module) + "farray")
      return pointer_array(e, path.substr(path.rfind('.') + 1), path.ends_with("farray"));
  bool unknown = false;
  std::vector<Type> args = args_of(e, unknown);
  e.formals = args;
  std::size_t n = args.size();
  if (!path.empty()) {
    auto dot = path.rfind('.');
    std::string mod = dot == std::string::npos ? "" : path.substr(0, dot);
    std::string fname = dot == std::string::npos ? path : path.substr(dot + 1);
    if (path == "cffi.ffi.from_buffer") return ffi_from_buffer(e, args, unknown);
    if (mod == "math") {
      if (std::any_of(args.begin(), args.end(), [](const Type& t) { return t.is_bfloat16(); }))
        return bf16_math_call(e, fname, args, unknown);
      return math_call(e, fname, args, unknown);
    }
    if (mod == "cmath") return cmath_call(e, fname, args, unknown);
    if (mod == "numba.cuda.libdevice") return libdevice_call(e, fname, args, unknown);
    if (mod == "numba.cuda.fp16") return fp16_call(e, fname, args, unknown);
    if (mod == "numba.cuda._internal.cuda_bf16") return bf16_call(e, fname, args, unknown);
    if (mod == "numba.cuda._internal.cuda_fp8") return fp8_call(e, fname, args, unknown);
    if (mod == "numba.cuda")
      if (auto v = vector_type_named(fname)) return vector_call(e, *v, args, unknown);
    if (mod == "numba.cuda.bf16" || mod == "cubridge.bf16") {  // bf16.hadd(a, b): the module's public names
      if (fname == "bfloat16") return bf16_cast(e, Type::bfloat16(), args, unknown);
      if (auto binding = bf16_binding_of(fname)) return bf16_call(e, *binding, args, unknown);
      error(e.loc, "'" + path + "' is not a function of " + mod + " (it offers numba.cuda.bf16's names: hadd, "
                                "hmul, float32_to_bfloat16_rz, bfloat16_to_int32_rn, hsqrt, ...)");
    }
    if (mod == "operator") return operator_call(e, fname);
    if (fname == "bfloat16" && mod == "cubridge") return bf16_cast(e, Type::bfloat16(), args, unknown);
    // ml_dtypes.bfloat16(x): numba-cuda types the class as NumberClass(bfloat16), whose call casts to bfloat16
    if (path == "ml_dtypes.bfloat16") return bf16_cast(e, Type::bfloat16(), args, unknown);
    if (is_numeric_module(mod) || mod.starts_with("numba") ) {
      if (fname == "bfloat16") return bf16_cast(e, Type::bfloat16(), args, unknown);
      if (auto t = parse_type_name(fname); t && t->is_scalar()) {
        if (n == 1 && args[0].is_fp8()) return fp8_cast(e, *t, args, unknown);
        if (n == 1 && args[0].is_bfloat16()) return bf16_cast(e, *t, args, unknown);
        arity(e, fname, n, 1, 1);
        e.callee = Callee::TypeCast;
        e.target = t->name();
        if (unknown) return Type();
        if (args[0].is_complex() && !t->is_complex())
          error(e.loc, "cannot convert " + args[0].name() + " to " + t->name());
        if (!args[0].is_scalar()) error(e.loc, "cannot convert " + args[0].name() + " to " + t->name());
        return *t;
      }
    }
    if (const FunctionDef* f = random_function(e, path)) return user_call(e, *f, args, unknown);
    if (mod == "numpy") return numpy_call(e, fname, args, unknown);
    error(e.loc, "call of '" + path + "' is not supported; supported calls: builtins (" + kBuiltins +
                     "), math functions, numpy/numba scalar types (np.float32(x)) and functions of this module");
  }
  if (callee.kind != ExprKind::Name)
    error(e.loc, "this call is not supported; call builtins, math functions or module functions (by name, through "
                 "a module, a variable bound to one, or a tuple of them at a constant index)");
  return builtin_call(e, callee.name, args, unknown);
}

Type FunctionTyper::float_of_text(Expr& e) {
  // float("nan"), float("-inf"), float("1.5"): CPython's parse of the literal, folded to a float64 constant
  // (numba folds the constant call the same way). Hexadecimal text is refused, as float() refuses it.
  const std::string text = e.kids[1]->name;
  std::string t;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  char* end = nullptr;
  double v = t.empty() || t.find_first_of("x(") != std::string::npos ? 0.0 : std::strtod(t.c_str(), &end);
  if (t.empty() || t.find_first_of("x(") != std::string::npos || end != t.c_str() + t.size())
    error(e.kids[1]->loc, "could not convert string to float: '" + text + "'");
  e.kind = ExprKind::Float;
  e.fval = v;
  e.kids.clear();
  return f64();
}

const FunctionDef* FunctionTyper::random_function(const Expr& e, const std::string& path) {
  for (std::string_view module : {"numba.cuda.random.", "cubridge.random."}) {
    if (!path.starts_with(module)) continue;
    std::string name = path.substr(module.size());
    if (auto f = prog_.functions.find(name); f != prog_.functions.end()) return f->second;
    error(e.loc, "'" + path + "' cannot be called in compiled code; the device functions of " +
                     std::string(module.substr(0, module.size() - 1)) +
                     " are xoroshiro128p_uniform_float32/_float64, xoroshiro128p_normal_float32/_float64, "
                     "xoroshiro128p_next, xoroshiro128p_jump, init_xoroshiro128p_state, rotl and "
                     "uint64_to_unit_float32/_float64 (the states are made on the host)");
  }
  return nullptr;
}

Type FunctionTyper::builtin_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::size_t n = args.size();
  e.callee = Callee::Builtin;
  e.target = fname;
  auto bad = [&](std::string_view why = "") -> Type {
    std::string s = "no implementation of " + fname + "(";
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + args[i].name();
    error(e.loc, s + ")" + std::string(why));
  };
  if (fname == "abs" || fname == "int" || fname == "float" || fname == "bool") {
    arity(e, fname, n, fname == "abs" ? 1 : 0, 1);
    if (n == 0) return fname == "bool" ? Type::boolean() : fname == "int" ? i64() : f64();
    if (unknown) return Type();
    auto r = resolve_builtin1(fname, args[0]);
    if (!r) bad();
    return *r;
  }
  if (fname == "complex") {
    arity(e, fname, n, 1, 2);
    if (unknown) return Type();
    if (n == 1) {
      auto r = resolve_builtin1("complex", args[0]);
      if (!r) bad(" (complex() takes int, float32 or float64 and complex; not bool or float16)");
      return *r;
    }
    if (!args[0].is_real() || !args[1].is_real() || args[0].is_bool() || args[1].is_bool()) bad();
    bool both32 = args[0].is_float() && args[0].bits() == 32 && args[1].is_float() && args[1].bits() == 32;
    return Type::complex(both32 ? 64 : 128);
  }
  if (fname == "round") {
    arity(e, fname, n, 1, 2);
    if (unknown) return Type();
    if (n == 1) {
      auto r = resolve_builtin1("round", args[0]);
      if (!r) bad();
      return *r;
    }
    if (!(args[1].is_int() || args[1].is_bool())) bad(" (ndigits must be an integer)");
    auto r = resolve_round2(args[0]);
    if (!r) bad();
    return *r;
  }
  if (fname == "min" || fname == "max") {
    if (!e.keywords.empty()) error(e.loc, fname + "() takes no keyword arguments here");
    if (n == 0) error(e.loc, fname + "() expected at least 1 argument, got 0");
    if (unknown) return Type();
    std::vector<Type> items = args;
    if (n == 1) {
      if (!args[0].is_tuple()) bad(" (with one argument it must be a tuple)");
      items = args[0].elements();
    }
    bool any_bool = false, all_bool = true;
    for (const Type& t : items) {
      if (!t.is_real() && !t.is_complex()) bad();
      any_bool = any_bool || t.is_bool();
      all_bool = all_bool && t.is_bool();
    }
    if (any_bool && !all_bool) bad(" (Numba rejects mixing bool with other numbers in min/max)");
    Type r = items[0];
    for (std::size_t i = 1; i < items.size(); ++i) {
      auto u = unify(r, items[i]);
      if (!u) bad();
      r = *u;
    }
    if (r.is_complex()) bad(" (complex numbers are not ordered)");
    return r;
  }
  if (fname == "divmod") {
    arity(e, fname, n, 2, 2);
    if (unknown) return Type();
    auto r = resolve_divmod(args[0], args[1]);
    if (!r) bad();
    e.formals = {r->lhs, r->rhs};
    return Type::tuple({r->result, r->result});
  }
  if (fname == "pow") {
    arity(e, fname, n, 2, 2);
    if (unknown) return Type();
    return binary(BinOp::Pow, args[0], args[1], e.loc, &e);
  }
  if (fname == "len") {
    arity(e, fname, n, 1, 1);
    if (unknown) return Type();
    if (!args[0].is_tuple() && !args[0].is_array()) bad(" (len() takes a tuple or an array)");
    if (args[0].is_array() && args[0].ndim() == 0)
      error(e.loc, "len() of a 0-d array (" + args[0].name() + ") is not supported: it has no length (NumPy raises "
                   "TypeError: len() of unsized object); read its element with a[()] or its size with a.size");
    return i64();
  }
  if (fname == "range" || fname == "enumerate" || fname == "zip")
    error(e.loc, fname + "() is supported only as the iterable of a for loop (for v in " + fname + "(...))");
  if (auto t = parse_type_name(fname); t && t->is_scalar()) {  // float32(x) with float32 imported by name
    error(e.loc, "call of '" + fname + "' is not supported; write np." + fname + "(x) with numpy imported");
  }
  error(e.loc, "NameError: name '" + fname + "' is not defined or not supported as a function; supported calls: builtins (" +
                   kBuiltins + "), math functions (math." + "sqrt, ...) and functions of this module");
}

Type FunctionTyper::math_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::size_t n = args.size();
  e.callee = Callee::Math;
  e.target = fname;
  auto bad = [&]() {
    std::string s = "no implementation of math." + fname + "(";
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + args[i].name();
    error(e.loc, s + ")");
  };
  static const char* two[] = {"atan2", "hypot", "copysign", "fmod", "pow", "ldexp", "remainder", "nextafter"};
  bool is_two = std::any_of(std::begin(two), std::end(two), [&](const char* s) { return fname == s; });
  if (is_two) {
    arity(e, "math." + fname, n, 2, 2);
    if (unknown) return Type();
    auto r = resolve_math2(fname, args[0], args[1]);
    if (!r) bad();
    e.formals = {r->lhs, r->rhs};
    return r->result;
  }
  if (fname == "frexp" || fname == "modf") {
    // numba-cuda's cases (cudamath.py): frexp (float32) -> (float32, int32), (float64) -> (float64, int32);
    // modf (float64) -> UniTuple(float64, 2), (float32) -> UniTuple(float32, 2), tried in that order.
    arity(e, "math." + fname, n, 1, 1);
    if (unknown) return Type();
    bool f32_first = fname == "frexp";
    std::vector<Case> cs = {{Type::floating(32), Type::floating(32), Type::floating(32)}, {f64(), f64(), f64()}};
    if (!f32_first) std::swap(cs[0], cs[1]);
    auto r = args[0].is_real() ? resolve_cases(cs, args[0], args[0]) : std::nullopt;
    if (!r) bad();
    e.formals = {r->lhs};
    return Type::tuple({r->lhs, fname == "frexp" ? Type::integer(32, true) : r->lhs});
  }
  if (!resolve_math1(fname, f64()))
    error(e.loc, "math." + fname + " is not supported; the math module offers: " + kMath);
  arity(e, "math." + fname, n, 1, 1);
  if (unknown) return Type();
  auto r = resolve_math1(fname, args[0]);
  if (!r) bad();
  return *r;
}

}  // namespace cubridge::compiler::typer_detail
