// Internal: NumPy ufuncs on scalars (see emitter.hpp), lowered as numba-cuda's CUDA ufunc table lowers
// each loop: the transcendental ones share math.<name>'s lowering (numba-cuda calls the same CUDA math
// implementation), the rest follow numba's npyfuncs (NaN rules of maximum/fmax, int64/uint64 comparisons).
#include <string_view>
#include <utility>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {

// The math function a ufunc computes on floats (one fact: np.arcsin is math.asin's lowering).
constexpr std::pair<std::string_view, std::string_view> kSameAsMath[] = {
    {"sin", "sin"},       {"cos", "cos"},         {"tan", "tan"},         {"arcsin", "asin"},
    {"arccos", "acos"},   {"arctan", "atan"},     {"arctan2", "atan2"},   {"hypot", "hypot"},
    {"sinh", "sinh"},     {"cosh", "cosh"},       {"tanh", "tanh"},       {"arcsinh", "asinh"},
    {"arccosh", "acosh"}, {"arctanh", "atanh"},   {"deg2rad", "radians"}, {"radians", "radians"},
    {"rad2deg", "degrees"}, {"degrees", "degrees"}, {"log", "log"},       {"log2", "log2"},
    {"log10", "log10"}};

constexpr std::pair<std::string_view, CmpOp> kComparisons[] = {
    {"greater", CmpOp::Gt}, {"greater_equal", CmpOp::Ge}, {"less", CmpOp::Lt},
    {"less_equal", CmpOp::Le}, {"equal", CmpOp::Eq},     {"not_equal", CmpOp::Ne}};

const char* icmp_predicate(CmpOp op, bool is_signed) {
  switch (op) {
    case CmpOp::Gt: return is_signed ? "sgt" : "ugt";
    case CmpOp::Ge: return is_signed ? "sge" : "uge";
    case CmpOp::Lt: return is_signed ? "slt" : "ult";
    case CmpOp::Le: return is_signed ? "sle" : "ule";
    case CmpOp::Eq: return "eq";
    default: return "ne";
  }
}

}  // namespace

Value FunctionEmitter::numpy_ufunc(const Expr& e, const std::vector<Value>& raw) {
  if (e.type.is_array()) return numpy_ufunc_on_arrays(e, raw);  // np.sin(x, out) (emit_numpy_arrays.cpp)
  return ufunc_scalar(e.target, e.formals, e.type, raw);
}

Value FunctionEmitter::ufunc_scalar(std::string_view f, const std::vector<Type>& formals, const Type& R,
                                    const std::vector<Value>& raw) {
  std::vector<Value> a;
  for (std::size_t i = 0; i < raw.size(); ++i) a.push_back(convert(raw[i], formals[i]));
  const Type& T = formals[0];
  std::string ty = llvm_value_type(T);
  for (const auto& [ufunc, math_name] : kSameAsMath)
    if (f == ufunc) return math(std::string(math_name), a, formals, R);
  for (const auto& [ufunc, op] : kComparisons) {
    if (f != ufunc) continue;
    if (formals.size() == 2 && T.is_int() && formals[1].is_int() && T.is_signed() != formals[1].is_signed()) {
      // NumPy's int64/uint64 loops (qQ->?, Qq->?): a negative signed operand decides against zero, else
      // the two compare as unsigned (numba's int_signed_unsigned_cmp).
      bool left_signed = T.is_signed();
      const Value& s = left_signed ? a[0] : a[1];
      std::string negative = ins("icmp slt i64 " + s.v + ", 0");
      std::string pred = icmp_predicate(op, true);
      std::string vs_zero = left_signed ? ins(std::string("icmp ") + pred + " i64 " + s.v + ", 0")
                                        : ins(std::string("icmp ") + pred + " i64 0, " + s.v);
      std::string unsigned_cmp = ins(std::string("icmp ") + icmp_predicate(op, false) + " i64 " + a[0].v + ", " + a[1].v);
      return {ins("select i1 " + negative + ", i1 " + vs_zero + ", i1 " + unsigned_cmp), R};
    }
    // Complex == and != are NumPy's CEQ/CNE: ordered == on both parts, unordered != on either.
    return {compare(op, a[0], a[1], T), R};
  }
  if (f == "logical_not") return {ins("xor i1 " + truth(a[0]) + ", true"), R};
  if (f == "logical_and" || f == "logical_or" || f == "logical_xor") {
    std::string x = truth(a[0]), y = truth(a[1]);
    const char* o = f == "logical_and" ? "and" : f == "logical_or" ? "or" : "xor";
    return {ins(std::string(o) + " i1 " + x + ", " + y), R};
  }
  if (f == "isnan") {
    if (T.is_float()) return {ins("fcmp uno " + ty + " " + a[0].v + ", " + a[0].v), R};
    if (T.is_complex()) {
      std::string cty = llvm_value_type(T.component());
      Value re = extract(a[0], 0), im = extract(a[0], 1);
      std::string x = ins("fcmp uno " + cty + " " + re.v + ", " + re.v);
      std::string y = ins("fcmp uno " + cty + " " + im.v + ", " + im.v);
      return {ins("or i1 " + x + ", " + y), R};
    }
    return {"false", R};
  }
  if (f == "conjugate") {
    if (!T.is_complex()) return a[0];
    Type c = T.component();
    Value im = extract(a[0], 1);
    Value neg{ins("fsub " + llvm_value_type(c) + " " + float_const(-0.0, c).v + ", " + im.v), c};
    return make_aggregate(T, {extract(a[0], 0), neg});
  }
  if (f == "maximum" || f == "minimum" || f == "fmax" || f == "fmin") {
    bool max = f == "maximum" || f == "fmax";
    if (T.is_bool()) return {ins(std::string(max ? "or" : "and") + " i1 " + a[0].v + ", " + a[1].v), R};
    if (T.is_int()) {
      std::string c = ins(std::string("icmp ") + icmp_predicate(max ? CmpOp::Ge : CmpOp::Le, T.is_signed()) + " " +
                          ty + " " + a[0].v + ", " + a[1].v);
      return {ins("select i1 " + c + ", " + ty + " " + a[0].v + ", " + ty + " " + a[1].v), R};
    }
    // npyfuncs: maximum/minimum return the NaN (the first one when both are), fmax/fmin the other
    // operand; otherwise the first operand wins ties (>= / <=), which keeps the sign of zero it has.
    std::string any_nan = ins("fcmp uno " + ty + " " + a[0].v + ", " + a[1].v);
    std::string nan_result;
    if (f == "fmax") {
      std::string second_nan = ins("fcmp uno " + ty + " " + a[1].v + ", " + a[1].v);
      nan_result = ins("select i1 " + second_nan + ", " + ty + " " + a[0].v + ", " + ty + " " + a[1].v);
    } else {
      std::string first_nan = ins("fcmp uno " + ty + " " + a[0].v + ", " + a[0].v);
      bool keep_nan = f == "maximum" || f == "minimum";
      const Value& pick = keep_nan ? a[0] : a[1];
      const Value& other = keep_nan ? a[1] : a[0];
      nan_result = ins("select i1 " + first_nan + ", " + ty + " " + pick.v + ", " + ty + " " + other.v);
    }
    std::string c = ins(std::string("fcmp ") + (max ? "oge " : "ole ") + ty + " " + a[0].v + ", " + a[1].v);
    std::string ordered = ins("select i1 " + c + ", " + ty + " " + a[0].v + ", " + ty + " " + a[1].v);
    return {ins("select i1 " + any_nan + ", " + ty + " " + nan_result + ", " + ty + " " + ordered), R};
  }
  if (f == "bitwise_and" || f == "bitwise_or" || f == "bitwise_xor") {
    const char* o = f == "bitwise_and" ? "and" : f == "bitwise_or" ? "or" : "xor";
    return {ins(std::string(o) + " " + ty + " " + a[0].v + ", " + a[1].v), R};
  }
  if (f == "invert") return {ins("xor " + ty + " " + a[0].v + ", " + (T.is_bool() ? "true" : "-1")), R};
  if (f == "left_shift") return {ins("shl " + ty + " " + a[0].v + ", " + a[1].v), R};
  if (f == "right_shift")
    return {ins(std::string(T.is_signed() ? "ashr " : "lshr ") + ty + " " + a[0].v + ", " + a[1].v), R};
  if (f == "divide" && T.is_complex()) return complex_divide(a[0], a[1]);
  if (f == "divide") return {ins("fdiv " + ty + " " + a[0].v + ", " + a[1].v), R};
  return {"undef", R};
}

Value FunctionEmitter::complex_divide(const Value& x, const Value& y) {
  // numba's np_complex_div_impl (NumPy's loops.c.src, Smith's algorithm): no ZeroDivisionError; a zero
  // divisor divides each part by its own |part| (numba's fabs keeps -0.0: a select on an ordered x < 0).
  // The three cases are computed and selected: the same values as numba's branches (no operation traps).
  const Type c = x.t.component();
  const std::string cty = llvm_value_type(c);
  auto op = [&](const char* o, const std::string& a, const std::string& b) {
    return ins(std::string(o) + " " + cty + " " + a + ", " + b);
  };
  auto select = [&](const std::string& p, const std::string& a, const std::string& b) {
    return ins("select i1 " + p + ", " + cty + " " + a + ", " + cty + " " + b);
  };
  const std::string zero = float_const(0, c).v, one = float_const(1, c).v;
  const std::string xr = extract(x, 0).v, xi = extract(x, 1).v, yr = extract(y, 0).v, yi = extract(y, 1).v;
  auto fabs = [&](const std::string& v) { return select(op("fcmp olt", v, zero), op("fsub", zero, v), v); };
  const std::string yr_abs = fabs(yr), yi_abs = fabs(yi);
  const std::string real_larger = op("fcmp oge", yr_abs, yi_abs);
  const std::string divisor_zero = ins("and i1 " + op("fcmp oeq", yr_abs, zero) + ", " + op("fcmp oeq", yi_abs, zero));
  // |yr| >= |yi|, y != 0
  std::string rat = op("fdiv", yi, yr);
  std::string scl = op("fdiv", one, op("fadd", yr, op("fmul", yi, rat)));
  std::string re_r = op("fmul", op("fadd", xr, op("fmul", xi, rat)), scl);
  std::string im_r = op("fmul", op("fsub", xi, op("fmul", xr, rat)), scl);
  // |yi| > |yr|
  std::string rat_i = op("fdiv", yr, yi);
  std::string scl_i = op("fdiv", one, op("fadd", yi, op("fmul", yr, rat_i)));
  std::string re_i = op("fmul", op("fadd", op("fmul", xr, rat_i), xi), scl_i);
  std::string im_i = op("fmul", op("fsub", op("fmul", xi, rat_i), xr), scl_i);
  // y == 0
  std::string re_z = op("fdiv", xr, yr_abs), im_z = op("fdiv", xi, yi_abs);
  std::string re = select(real_larger, select(divisor_zero, re_z, re_r), re_i);
  std::string im = select(real_larger, select(divisor_zero, im_z, im_r), im_i);
  return make_aggregate(x.t, {{re, c}, {im, c}});
}

Value FunctionEmitter::scalar_view(const Expr& e) {
  Value v = expr(*e.kids[0]->kids[0]);
  if (v.t == e.type) return v;
  return {ins("bitcast " + llvm_value_type(v.t) + " " + v.v + " to " + llvm_value_type(e.type)), e.type};
}

}  // namespace cubridge::compiler
