// Internal: calls: builtins, math functions (libdevice or LLVM intrinsics), scalar casts and module
// functions (see emitter.hpp).
#include <algorithm>
#include <cmath>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {
std::string suffix(const Type& t) { return t.bits() == 16 ? "f16" : t.bits() == 32 ? "f32" : "f64"; }

bool is_float32(const Type& t) { return t.is_float() && t.bits() == 32; }

// numba-cuda's fastmath replacements (cuda/mathimpl.py, unarys_fastmath and binarys_fastmath): under
// fastmath these float32 functions call libdevice's __nv_fast_<name>f (sin.approx, cos.approx, lg2.approx,
// ex2.approx and their formulas) instead of the accurate __nv_<name>f. Nothing else is replaced.
bool has_fast_variant(const std::string& f, std::size_t nargs) {
  if (nargs == 2) return f == "pow";
  return f == "cos" || f == "sin" || f == "tan" || f == "exp" || f == "log2" || f == "log10" || f == "log";
}
}  // namespace

std::string FunctionEmitter::libdevice(const std::string& base, const Type& t, int nargs) {
  std::string ty = llvm_value_type(t);
  std::string name = "__nv_" + base + (t.bits() == 32 ? "f" : "");
  std::string decl = "declare " + ty + " @" + name + "(";
  for (int i = 0; i < nargs; ++i) decl += (i ? ", " : "") + ty;
  m_.declare(decl + ")");
  m_.uses_libdevice = true;
  return "@" + name;
}

std::string FunctionEmitter::intrinsic(const std::string& base, const Type& t, int nargs) {
  std::string ty = llvm_value_type(t);
  std::string name = "llvm." + base + "." + suffix(t);
  std::string decl = "declare " + ty + " @" + name + "(";
  for (int i = 0; i < nargs; ++i) decl += (i ? ", " : "") + ty;
  m_.declare(decl + ")");
  return "@" + name;
}

Value FunctionEmitter::call(const Expr& e) {
  if (e.callee == Callee::Intrinsic) return intrinsic(e);  // its arguments include types and shapes
  if (e.callee == Callee::Builtin && e.target == "print") return print(e);  // its arguments include strings
  if (e.callee == Callee::Builtin && e.target == "grid_sync") return grid_sync(e);
  if (e.callee == Callee::Builtin && e.target == "view") return scalar_view(e);  // its argument is a type
  if (e.callee == Callee::Builtin && e.target == "isinstance") {  // numba's answer from x's final type
    const Type& t = e.kids[1]->type;
    bool hit = std::find(e.formals.begin(), e.formals.end(), t) != e.formals.end();
    return {hit ? "true" : "false", Type::boolean()};
  }
  if (e.callee == Callee::Builtin && e.target == "array_view") return array_view(e);
  if (e.callee == Callee::Builtin && e.target == "reshape") return array_reshape(e);
  if (e.callee == Callee::Builtin && (e.target == "transpose" || e.target == "np_transpose")) return array_transpose(e);
  if (e.callee == Callee::Builtin && e.target == "ravel") return array_ravel(e);
  if (e.callee == Callee::Builtin && e.target == "constant_copy") return constant_copy(e);
  if (e.callee == Callee::Builtin && (e.target == "carray" || e.target == "farray")) return pointer_array(e);
  std::vector<Value> args;
  const std::vector<std::string>* statics =
      e.callee == Callee::UserFunction ? &m_.module.functions[static_cast<std::size_t>(e.callee_index)]->static_args
                                       : nullptr;
  if (e.callee == Callee::UserFunction && e.target == "array_method")  // a.sum(): the array is the argument
    args.push_back(expr(*e.kids[0]->kids[0]));
  for (std::size_t i = 1; i < e.kids.size(); ++i) {
    if (statics && i - 1 < statics->size() && !(*statics)[i - 1].empty()) {
      args.push_back({"undef", Type::none()});  // bound at compile time (typer_static_arguments.cpp)
      continue;
    }
    args.push_back(expr(*e.kids[i]));
  }
  switch (e.callee) {
    case Callee::Math: return math(e, args);
    case Callee::TypeCast: return convert(args[0], e.type);
    case Callee::NumpyUfunc: return numpy_ufunc(e, args);
    case Callee::Libdevice: return libdevice_call(e, args);
    case Callee::Fp16: return fp16_call(e, args);
    case Callee::External: return external_call(e, args);
    case Callee::Bf16: return bf16_call(e, args);
    case Callee::Fp8: return fp8_call(e, args);
    case Callee::Vector: return vector_call(e, args);
    case Callee::Builtin:
      if (e.target == "conjugate") {
        Value base = expr(*e.kids[0]->kids[0]);
        if (!base.t.is_complex()) return base;
        Type c = base.t.component();
        Value im = extract(base, 1);
        Value neg{ins("fsub " + llvm_value_type(c) + " " + float_const(-0.0, c).v + ", " + im.v), c};
        return make_aggregate(base.t, {extract(base, 0), neg});
      }
      if (e.target == "ffi.from_buffer") return {array_field(args[0], 4).v, e.type};  // the data pointer
      if (e.target == "bit_count") {  // numba-cuda: i.bit_count() is cuda.popc(i), in i's own type
        Value base = expr(*e.kids[0]->kids[0]);
        std::string ty = llvm_value_type(e.type), fn = "@llvm.ctpop." + ty;
        m_.declare("declare " + ty + " " + fn + "(" + ty + ") nounwind readnone");
        return {ins("call " + ty + " " + fn + "(" + ty + " " + base.v + ")"), e.type};
      }
      return builtin(e, args);
    case Callee::UserFunction: return user_function_call(e, args);
    default: return {"undef", e.type};
  }
}

Value FunctionEmitter::user_function_call(const Expr& e, const std::vector<Value>& args) {
  // e.type differs from the callee's only for cmath's fixed signatures (typer_cmath.cpp) and ufunc loops.
  return function_call(e.callee_index, args, e.type);
}

Value FunctionEmitter::function_call(int index, const std::vector<Value>& args, const Type& result) {
  TypedFunction& callee = *m_.module.functions[static_cast<std::size_t>(index)];
  if (m_.options.inline_ir.count(callee.def->name) && !callee.recursive && subprogram_ < 0)
    return inline_call(index, args, result);
  const std::string& sym = m_.function_symbol(index);
  std::string rty = callee.return_type.is_none() ? "i8" : llvm_data_type(callee.return_type);
  std::string slot = alloca(rty);
  std::string text = "call i32 @" + sym + "(" + rty + "* " + slot;
  auto flatten = [&](auto&& self, const Value& v) -> void {
    if (v.t.is_enum_member()) return self(self, Value{v.v, v.t.enum_value()});  // passed as its value
    if (v.t.is_complex() || v.t.is_tuple()) {
      std::size_t n = v.t.is_complex() ? 2 : v.t.elements().size();
      for (std::size_t i = 0; i < n; ++i) self(self, extract(v, i));
      return;
    }
    if (v.t.is_none()) return;  // None (an omitted default) passes nothing
    Value d = to_data(v);
    text += ", " + llvm_data_type(v.t) + " " + d.v;
  };
  for (std::size_t i = 0; i < args.size(); ++i) flatten(flatten, convert(args[i], callee.arg_types[i]));
  std::string status = ins(text + ")");
  return finish_call(callee, [&] { return status; }, slot, result);
}

Value FunctionEmitter::finish_call(const TypedFunction& callee, const std::function<std::string()>& status,
                                   const std::string& slot, const Type& result) {
  if (callee.can_raise || (m_.options.debug && m_.options.abi == Abi::numba)) {
    std::string s = status();
    std::string ok = label("call_ok"), fail = label("call_raised");
    std::string c = ins("icmp eq i32 " + s + ", 0");
    cond_br(c, ok, fail);
    start_block(fail);
    return_status(s);
    start_block(ok);
  }
  if (callee.return_type.is_none()) return {"undef", callee.return_type};
  std::string rty = llvm_data_type(callee.return_type);
  std::string raw = ins("load " + rty + ", " + rty + "* " + slot);
  return convert(from_data(raw, callee.return_type), result);
}

Value FunctionEmitter::aug_operation(const Stmt& s, const Expr& target, const Value& cur, const Value& rhs) {
  if (target.callee == Callee::UserFunction) return user_function_call(target, {cur, rhs});
  auto r = resolve_binop(s.aug_op, cur.t, rhs.t);
  return binary(s.aug_op, cur, rhs, {r->lhs, r->rhs}, r->result);
}

Value FunctionEmitter::builtin(const Expr& e, const std::vector<Value>& args) {
  const std::string& f = e.target;
  const Type& R = e.type;
  std::string rty = llvm_value_type(R);
  if (args.empty()) {
    if (R.is_bool()) return {"false", R};
    if (R.is_int()) return {"0", R};
    return float_const(0, R);
  }
  if (f == "abs") {
    Value a = args[0];
    if (a.t.is_complex()) {
      Type c = a.t.component();
      std::string h = libdevice("hypot", c, 2);
      std::string cty = llvm_value_type(c);
      return {ins("call " + cty + " " + h + "(" + cty + " " + extract(a, 0).v + ", " + cty + " " + extract(a, 1).v + ")"), c};
    }
    a = convert(a, R);
    if (R.is_float()) {
      if (R.bits() == 16) return fp16_instruction("habs", {a});  // numba-cuda's __habs
      return {ins("call " + rty + " " + intrinsic("fabs", R, 1) + "(" + rty + " " + a.v + ")"), R};
    }
    if (!R.is_signed()) return a;
    std::string neg = ins("icmp slt " + rty + " " + a.v + ", 0");
    std::string m = ins("sub " + rty + " 0, " + a.v);
    return {ins("select i1 " + neg + ", " + rty + " " + m + ", " + rty + " " + a.v), R};
  }
  if (f == "int" || f == "float" || (f == "complex" && args.size() == 1)) return convert(args[0], R);
  if (f == "bool") return {truth(args[0]), R};
  if (f == "complex") return make_aggregate(R, {args[0], args[1]});
  if (f == "pow") return binary(BinOp::Pow, args[0], args[1], e.formals, R);
  if (f == "len") return args[0].t.is_array() ? array_field(args[0], 5, 0) : Value{std::to_string(args[0].t.elements().size()), R};
  if (f == "divmod") {
    Value q = binary(BinOp::FloorDiv, args[0], args[1], e.formals, R.elements()[0]);
    Value r = binary(BinOp::Mod, args[0], args[1], e.formals, R.elements()[0]);
    return make_aggregate(R, {q, r});
  }
  if (f == "round") {
    if (args.size() == 2) return round_ndigits(args[0], args[1], R);
    Value a = args[0];
    if (a.t.is_int() || a.t.is_bool()) return convert(a, R);
    Type w = a.t.bits() == 16 ? Type::floating(32) : a.t;
    Value x = convert(a, w);
    std::string wty = llvm_value_type(w);
    Value r{ins("call " + wty + " " + intrinsic("rint", w, 1) + "(" + wty + " " + x.v + ")"), w};
    return convert(r, R);
  }
  if (f == "min" || f == "max") {
    std::vector<Value> items = args;
    if (args.size() == 1) {
      items.clear();
      for (std::size_t i = 0; i < args[0].t.elements().size(); ++i) items.push_back(extract(args[0], i));
    }
    auto exact_float = [](const Type& t) { return t.is_float() && t.bits() >= 32; };
    if (items.size() == 2 && exact_float(items[0].t) && exact_float(items[1].t)) {
      // numba-cuda lowers min/max of two float32/float64 to fmin/fmax (libdevice): NaN gives way to the
      // other operand and -0.0 < 0.0, unlike CPython (see tests/python/corpus/DIFFERENCES.md).
      Value p = convert(items[0], R), q = convert(items[1], R);
      std::string fn = intrinsic(f == "min" ? "minnum" : "maxnum", R, 2);
      return {ins("call " + rty + " " + fn + "(" + rty + " " + p.v + ", " + rty + " " + q.v + ")"), R};
    }
    // Everything else follows CPython (and numba-cuda's do_minmax): the first item wins unless a later
    // one compares strictly less (min) or greater (max), so NaNs and signed zeros keep their place.
    // float16 compares in float32, which is exact.
    Type w = R.is_float() && R.bits() == 16 ? Type::floating(32) : R;
    std::string wty = llvm_value_type(w);
    bool s = w.is_int() && w.is_signed();
    std::string pred = w.is_float() ? (f == "min" ? "fcmp olt " : "fcmp ogt ")
                                    : (f == "min" ? (s ? "icmp slt " : "icmp ult ") : (s ? "icmp sgt " : "icmp ugt "));
    Value acc = convert(convert(items[0], R), w);
    for (std::size_t i = 1; i < items.size(); ++i) {
      Value x = convert(convert(items[i], R), w);
      std::string c = ins(pred + wty + " " + x.v + ", " + acc.v);
      acc = {ins("select i1 " + c + ", " + wty + " " + x.v + ", " + wty + " " + acc.v), w};
    }
    return convert(acc, R);
  }
  return {"undef", R};
}

Value FunctionEmitter::round_ndigits(const Value& x0, const Value& nd0, const Type& R) {
  // Numba's round(x, ndigits) (CPython's old fallback): scale by 10**ndigits, round half to even, and
  // re-round exact halves on y/2; computed in float64.
  Type d = Type::floating(64);
  Value x = convert(x0, d);
  Value nd = convert(nd0, Type::integer(64, true));
  std::string pw = m_.helper("fpowi", d);
  std::string rint = intrinsic("rint", d, 1);
  std::string fabs = intrinsic("fabs", d, 1);
  std::string nonneg = ins("icmp sge i64 " + nd.v + ", 0");
  std::string negnd = ins("sub i64 0, " + nd.v);
  std::string absn = ins("select i1 " + nonneg + ", i64 " + nd.v + ", i64 " + negnd);
  std::string big = ins("icmp sgt i64 " + absn + ", 22");
  std::string e1 = ins("sub i64 " + absn + ", 22");
  std::string e = ins("select i1 " + big + ", i64 " + e1 + ", i64 " + absn);
  std::string pow1 = ins("call double " + pw + "(double 0x4024000000000000, i64 " + e + ")");
  std::string big_pos = ins("and i1 " + big + ", " + nonneg);
  std::string pow2 = ins("select i1 " + big_pos + ", double 1.0e22, double 1.0");
  std::string m1 = ins("fmul double " + x.v + ", " + pow1);
  std::string m2 = ins("fmul double " + m1 + ", " + pow2);
  std::string dv = ins("fdiv double " + x.v + ", " + pow1);
  std::string y = ins("select i1 " + nonneg + ", double " + m2 + ", double " + dv);
  std::string z0 = ins("call double " + rint + "(double " + y + ")");
  std::string diff = ins("fsub double " + y + ", " + z0);
  std::string ad = ins("call double " + fabs + "(double " + diff + ")");
  std::string half = ins("fcmp oeq double " + ad + ", 0x3FE0000000000000");
  std::string y2 = ins("fmul double " + y + ", 0x3FE0000000000000");
  std::string r2 = ins("call double " + rint + "(double " + y2 + ")");
  std::string z2 = ins("fmul double " + r2 + ", 0x4000000000000000");
  std::string z = ins("select i1 " + half + ", double " + z2 + ", double " + z0);
  std::string q1 = ins("fdiv double " + z + ", " + pow2);
  std::string q2 = ins("fdiv double " + q1 + ", " + pow1);
  std::string q3 = ins("fmul double " + z + ", " + pow1);
  std::string r = ins("select i1 " + nonneg + ", double " + q2 + ", double " + q3);
  // inf/nan inputs and overflowing scalings return x unchanged.
  std::string yinf = ins("fcmp oeq double " + ins("call double " + fabs + "(double " + y + ")") + ", 0x7FF0000000000000");
  std::string xbad = ins("fcmp uno double " + x.v + ", " + x.v);
  std::string xinf = ins("fcmp oeq double " + ins("call double " + fabs + "(double " + x.v + ")") + ", 0x7FF0000000000000");
  std::string keep = ins("or i1 " + ins("or i1 " + yinf + ", " + xbad) + ", " + xinf);
  std::string out = ins("select i1 " + keep + ", double " + x.v + ", double " + r);
  return convert({out, d}, R);
}

Value FunctionEmitter::math(const Expr& e, const std::vector<Value>& args) {
  if (e.target == "tanh" && m_.options.fastmath && is_float32(e.formals[0]) && m_.options.cc &&
      *m_.options.cc >= ComputeCapability{7, 5}) {
    // numba-cuda's math.tanh on float32 under fastmath (mathimpl.impl_tanh): the tanh.approx.f32
    // instruction from compute capability 7.5 on. np.tanh keeps libdevice's tanhf, as in numba-cuda, so this
    // is the math module's lowering only. An unknown target (IR without a cc) keeps the accurate call.
    Value x = convert(args[0], e.formals[0]);
    return convert({ins("call float asm \"tanh.approx.f32 $0, $1;\", \"=f,f\"(float " + x.v + ")"), e.formals[0]},
                   e.type);
  }
  return math(e.target, args, e.formals, e.type);
}

Value FunctionEmitter::math(const std::string& f, const std::vector<Value>& args, const std::vector<Type>& formals,
                            const Type& R) {
  if (f == "isnan" || f == "isinf" || f == "isfinite") {
    const Value& a = args[0];
    if (!a.t.is_float()) return {f == "isfinite" ? "true" : "false", R};
    std::string ty = llvm_value_type(a.t);
    if (f == "isnan") return {ins("fcmp uno " + ty + " " + a.v + ", " + a.v), R};
    std::string abs = ins("call " + ty + " " + intrinsic("fabs", a.t, 1) + "(" + ty + " " + a.v + ")");
    std::string inf = float_const(INFINITY, a.t).v;
    if (f == "isinf") return {ins("fcmp oeq " + ty + " " + abs + ", " + inf), R};
    return {ins("fcmp olt " + ty + " " + abs + ", " + inf), R};
  }
  if (f == "frexp" || f == "modf") {
    // libdevice's __nv_frexp(x, int* exponent) -> mantissa and __nv_modf(x, double* integral) -> fraction,
    // as numba-cuda lowers them: the tuple is (result, what the pointer received).
    const Type& T = formals[0];
    std::string ty = llvm_value_type(T), out_ty = f == "frexp" ? "i32" : ty;
    std::string name = "__nv_" + f + (T.bits() == 32 ? "f" : "");
    m_.declare("declare " + ty + " @" + name + "(" + ty + ", " + out_ty + "*)");
    m_.uses_libdevice = true;
    std::string slot = alloca(out_ty);
    Value x = convert(args[0], T);
    std::string r = ins("call " + ty + " @" + name + "(" + ty + " " + x.v + ", " + out_ty + "* " + slot + ")");
    std::string second = ins("load " + out_ty + ", " + out_ty + "* " + slot);
    return make_aggregate(R, {{r, T}, {second, R.elements()[1]}});
  }
  if (args.size() == 2) {
    Value a = convert(args[0], formals[0]);
    Value b = convert(args[1], formals[1]);
    Type T = formals[0];
    std::string ty = llvm_value_type(T);
    if (f == "ldexp") {
      std::string name = T.bits() == 32 ? "__nv_ldexpf" : "__nv_ldexp";
      m_.declare("declare " + ty + " @" + name + "(" + ty + ", i32)");
      m_.uses_libdevice = true;
      return convert({ins("call " + ty + " @" + name + "(" + ty + " " + a.v + ", i32 " + b.v + ")"), T}, R);
    }
    if (f == "pow" && formals[1].is_int()) {
      std::string name = T.bits() == 32 ? "__nv_powif" : "__nv_powi";
      m_.declare("declare " + ty + " @" + name + "(" + ty + ", i32)");
      m_.uses_libdevice = true;
      return convert({ins("call " + ty + " @" + name + "(" + ty + " " + a.v + ", i32 " + b.v + ")"), T}, R);
    }
    if (f == "atan2" || f == "hypot") {
      // Integer arguments (Numba's (int64, int64) and (uint64, uint64) signatures) are converted to the
      // float result type; libdevice takes floats only.
      T = R;
      ty = llvm_value_type(T);
      a = convert(a, T);
      b = convert(b, T);
    }
    if (f == "copysign") {
      std::string fn = intrinsic("copysign", T, 2);
      return convert({ins("call " + ty + " " + fn + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ")"), T}, R);
    }
    // atan2, hypot, pow and fmod. fmod is libdevice's (C's fmod, as numba-cuda) rather than LLVM's frem,
    // which NVPTX lowers to x - trunc(x / y) * y: nan for fmod(x, inf) where C gives x.
    bool fast = m_.options.fastmath && is_float32(T) && is_float32(formals[1]) && has_fast_variant(f, 2);
    std::string fn = libdevice(fast ? "fast_" + f : f, T, 2);
    return convert({ins("call " + ty + " " + fn + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ")"), T}, R);
  }
  // One argument: computed in the result's float type (float16 through float32).
  Type T = R.bits() == 16 ? Type::floating(32) : R;
  Value a = convert(args[0], T);
  std::string ty = llvm_value_type(T);
  auto call1 = [&](const std::string& fn) { return Value{ins("call " + ty + " " + fn + "(" + ty + " " + a.v + ")"), T}; };
  Value r;
  if (f == "sqrt" && m_.options.fastmath) {
    // libdevice's sqrt honours prec-sqrt=0 (an approximate square root); the intrinsic stays IEEE.
    r = call1(libdevice("sqrt", T, 1));
  } else if (f == "sqrt" || f == "floor" || f == "ceil" || f == "trunc" || f == "fabs") {
    r = call1(intrinsic(f, T, 1));
  } else if (f == "degrees" || f == "radians") {
    double k = f == "degrees" ? 180.0 / M_PI : M_PI / 180.0;
    r = {ins("fmul " + ty + " " + a.v + ", " + float_const(k, T).v), T};
  } else {
    std::string base = f == "gamma" ? "tgamma" : f;
    if (m_.options.fastmath && is_float32(formals[0]) && has_fast_variant(f, 1)) base = "fast_" + f;
    r = call1(libdevice(base, T, 1));
  }
  return convert(r, R);
}

}  // namespace cubridge::compiler
