// Internal: expressions, conversions and operators (see emitter.hpp). Operators follow Python's
// semantics the way numba-cuda implements them with its default (NumPy) error model: integer // and %
// by zero give 0, float // and % follow CPython's float_divmod, ** on integers raises by squaring.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "compiler/lowering/emitter.hpp"
#include "compiler/kernel_library/bf16_functions.hpp"

namespace cubridge::compiler {

std::string llvm_value_type(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Bool: return "i1";
    case TypeKind::Int: return "i" + std::to_string(t.bits());
    case TypeKind::Float: return t.bits() == 16 ? "half" : t.bits() == 32 ? "float" : "double";
    case TypeKind::Complex: {
      std::string c = llvm_value_type(t.component());
      return "{" + c + ", " + c + "}";
    }
    case TypeKind::Foreign:
      if (t.is_foreign_opaque()) return "i8*";  // numba's OpaqueModel
      [[fallthrough]];  // numba's StructModel of numbers: the members' types in order
    case TypeKind::Tuple:
    case TypeKind::Vector: {
      std::string s = "{";
      for (std::size_t i = 0; i < t.elements().size(); ++i) s += (i ? ", " : "") + llvm_value_type(t.elements()[i]);
      return s + "}";
    }
    case TypeKind::Optional: return "{" + llvm_value_type(t.optional_value()) + ", i1}";
    case TypeKind::Array: {
      std::string n = std::to_string(t.ndim());
      return "{i8*, i8*, i64, i64, " + llvm_element_type(t.dtype()) + "*, [" + n + " x i64], [" + n + " x i64]}";
    }
    case TypeKind::GridGroup: return "i64";
    case TypeKind::Record: return "i8*";
    case TypeKind::Pointer: return (t.pointee().is_none() ? std::string("i8") : llvm_element_type(t.pointee())) + "*";
    case TypeKind::CharSeq:  // numba's data models: [N x i8] and [N x i32], held in place
      return "[" + std::to_string(t.char_count()) + " x i" + std::to_string(t.bits()) + "]";
    case TypeKind::BFloat16: return "i16";  // the bits: every operation is inline PTX (emit_bf16.cpp)
    case TypeKind::Datetime:
    case TypeKind::Timedelta: return "i64";  // the count of the unit (emit_datetime.cpp)
    case TypeKind::Fp8E4M3:
    case TypeKind::Fp8E5M2:
    case TypeKind::Fp8E8M0: return "i8";  // the byte: every conversion is inline PTX (emit_fp8.cpp)
    case TypeKind::EnumMember:
    case TypeKind::IntEnumMember: return llvm_value_type(t.enum_value());  // numba's EnumModel: as its value
    default: return "void";
  }
}

std::string llvm_data_type(const Type& t) {
  if (t.is_bool()) return "i8";
  if (t.is_enum_member()) return llvm_data_type(t.enum_value());
  if (t.is_tuple()) {
    std::string s = "{";
    for (std::size_t i = 0; i < t.elements().size(); ++i) s += (i ? ", " : "") + llvm_data_type(t.elements()[i]);
    return s + "}";
  }
  return llvm_value_type(t);
}

std::string llvm_element_type(const Type& dtype) {
  if (dtype.is_record()) return "[" + std::to_string(dtype.record_size()) + " x i8]";
  return llvm_data_type(dtype);
}

Value FunctionEmitter::to_data(const Value& v) {
  if (v.t.is_enum_member()) return {to_data(Value{v.v, v.t.enum_value()}).v, v.t};  // stored as its value
  if (v.t.is_bool()) return {ins("zext i1 " + v.v + " to i8"), v.t};
  if (v.t.is_tuple()) {
    std::string ty = llvm_data_type(v.t);
    std::string agg = "undef";
    for (std::size_t i = 0; i < v.t.elements().size(); ++i) {
      Value e = to_data(extract(v, i));
      agg = ins("insertvalue " + ty + " " + agg + ", " + llvm_data_type(e.t) + " " + e.v + ", " + std::to_string(i));
    }
    return {agg, v.t};
  }
  return v;
}

Value FunctionEmitter::from_data(const std::string& v, const Type& t) {
  if (t.is_enum_member()) return {from_data(v, t.enum_value()).v, t};
  if (t.is_bool()) return {ins("icmp ne i8 " + v + ", 0"), t};
  if (t.is_tuple()) {
    std::vector<Value> parts;
    std::string dty = llvm_data_type(t);
    for (std::size_t i = 0; i < t.elements().size(); ++i)
      parts.push_back(from_data(ins("extractvalue " + dty + " " + v + ", " + std::to_string(i)), t.elements()[i]));
    return make_aggregate(t, parts);
  }
  return {v, t};
}

Value FunctionEmitter::make_aggregate(const Type& t, const std::vector<Value>& parts) {
  std::string ty = llvm_value_type(t);
  std::string agg = "undef";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Type& et = t.is_complex() ? t.component() : t.elements()[i];
    Value p = convert(parts[i], et);
    agg = ins("insertvalue " + ty + " " + agg + ", " + llvm_value_type(et) + " " + p.v + ", " + std::to_string(i));
  }
  return {agg, t};
}

Value FunctionEmitter::extract(const Value& agg, std::size_t i) {
  const Type& et = agg.t.is_complex() ? agg.t.component() : agg.t.elements()[i];
  return {ins("extractvalue " + llvm_value_type(agg.t) + " " + agg.v + ", " + std::to_string(i)), et};
}

namespace {
// IEEE binary16 bits of v, rounded to nearest even (portable: not every compiler has _Float16).
std::uint16_t half_bits(double v) {
  std::uint64_t d;
  std::memcpy(&d, &v, 8);
  std::uint16_t sign = static_cast<std::uint16_t>((d >> 48) & 0x8000);
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7E00);
  double a = std::fabs(v);
  if (a >= 65520.0) return static_cast<std::uint16_t>(sign | 0x7C00);  // rounds to infinity
  if (a < 0x1p-14) {  // subnormal (or zero): units of 2**-24
    double q = std::nearbyint(a * 0x1p24);
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
  }
  int e;
  double m = std::frexp(a, &e);  // a = m * 2**e, m in [0.5, 1)
  double q = std::nearbyint(m * 2048.0);  // 11 significant bits
  if (q >= 2048.0) {
    q /= 2;
    ++e;
  }
  int biased = e - 1 + 15;
  return static_cast<std::uint16_t>(sign | (biased << 10) | (static_cast<int>(q) - 1024));
}
}  // namespace

Value FunctionEmitter::float_const(double v, const Type& t) {
  char buf[40];
  if (t.bits() == 16) {
    // Half constants are written with the 0xH prefix and the IEEE half bits.
    std::uint16_t bits = half_bits(v);
    std::snprintf(buf, sizeof buf, "0xH%04X", bits);
    return {buf, t};
  }
  if (t.bits() == 32) v = static_cast<double>(static_cast<float>(v));
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(bits));
  return {buf, t};
}

Value FunctionEmitter::int_const(std::int64_t v, const Type& t) { return {std::to_string(v), t}; }

Value FunctionEmitter::constant(const Constant& c) {
  const Type& t = c.type;
  switch (t.kind()) {
    case TypeKind::Bool: return {c.i ? "true" : "false", t};
    case TypeKind::Int: return {t.is_signed() ? std::to_string(c.i) : std::to_string(c.u), t};
    case TypeKind::Datetime:
    case TypeKind::Timedelta: return {std::to_string(c.i), t};  // the count of the unit (NaT: INT64_MIN)
    case TypeKind::Float: return float_const(c.re, t);
    case TypeKind::Complex:
      return make_aggregate(t, {float_const(c.re, t.component()), float_const(c.im, t.component())});
    case TypeKind::Tuple: {
      std::vector<Value> parts;
      for (const Constant& e : c.elements) parts.push_back(constant(e));
      return make_aggregate(t, parts);
    }
    case TypeKind::EnumMember:
    case TypeKind::IntEnumMember: {  // numba's enum_constant: the member's value
      Constant value = c;
      value.type = t.enum_value();
      return {constant(value).v, t};
    }
    default: return {"undef", t};
  }
}

std::string FunctionEmitter::truth(const Value& v) {
  const Type& t = v.t;
  if (t.is_bool()) return v.v;
  if (t.is_none()) return "false";
  if (t.is_bfloat16()) return bf16_truth(v);
  if (t.is_fp8()) return fp8_truth(v);
  if (t.is_int()) return ins("icmp ne " + llvm_value_type(t) + " " + v.v + ", 0");
  if (t.is_float()) return ins("fcmp une " + llvm_value_type(t) + " " + v.v + ", " + float_const(0, t).v);
  if (t.is_complex()) {
    std::string a = truth(extract(v, 0)), b = truth(extract(v, 1));
    return ins("or i1 " + a + ", " + b);
  }
  return "true";  // a non-empty tuple
}

Value FunctionEmitter::convert(const Value& v, const Type& to) {
  const Type& from = v.t;
  if (from == to || to.is_unknown()) return v;
  if (to.is_optional()) return to_optional(v, to);
  // An enum member is held as its value: read as a number (an IntEnum's, numba's int_enum_to_int) or as
  // its value (.value, a comparison of two members of one class), the value converts.
  if (from.is_enum_member()) return convert(Value{v.v, from.enum_value()}, to);
  if (from.is_tuple() && to.is_tuple()) {
    std::vector<Value> parts;
    for (std::size_t i = 0; i < to.elements().size(); ++i) parts.push_back(extract(v, i));
    return make_aggregate(to, parts);
  }
  // Arrays of one dtype and rank share one LLVM struct, strides included, whatever their layout or
  // read-only flag: unifying a C array into an 'A' one (or a read-only one) only changes its type.
  if (from.is_array() && to.is_array()) return {v.v, to};
  if (from.is_fp8() || to.is_fp8()) return fp8_convert(v, to);
  if (from.is_bfloat16() || to.is_bfloat16()) return bf16_convert(v, to);
  if (to.is_bool()) return {truth(v), to};
  std::string fty = llvm_value_type(from), tty = llvm_value_type(to);
  if (to.is_complex()) {
    if (from.is_complex()) return make_aggregate(to, {extract(v, 0), extract(v, 1)});
    return make_aggregate(to, {convert(v, to.component()), float_const(0, to.component())});
  }
  if (from.is_bool()) {
    if (to.is_int()) return {ins("zext i1 " + v.v + " to " + tty), to};
    return {ins("uitofp i1 " + v.v + " to " + tty), to};
  }
  if (from.is_int() && to.is_int()) {
    if (from.bits() == to.bits()) return {v.v, to};
    if (from.bits() > to.bits()) return {ins("trunc " + fty + " " + v.v + " to " + tty), to};
    return {ins(std::string(from.is_signed() ? "sext " : "zext ") + fty + " " + v.v + " to " + tty), to};
  }
  if ((from.is_int() && to.is_float() && to.bits() == 16) || (from.is_float() && from.bits() == 16 && to.is_int()))
    return fp16_int_convert(v, to);
  if (from.is_int() && to.is_float())
    return {ins(std::string(from.is_signed() ? "sitofp " : "uitofp ") + fty + " " + v.v + " to " + tty), to};
  if (from.is_float() && to.is_int())
    return {ins(std::string(to.is_signed() ? "fptosi " : "fptoui ") + fty + " " + v.v + " to " + tty), to};
  if (from.is_float() && to.is_float()) {
    if (from.bits() < to.bits()) return {ins("fpext " + fty + " " + v.v + " to " + tty), to};
    return {ins("fptrunc " + fty + " " + v.v + " to " + tty), to};
  }
  if (from.is_complex() && to.is_float()) return convert(extract(v, 0), to);  // not reached: the typer rejects it
  return v;
}

Value FunctionEmitter::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int:
      return {e.int_unsigned ? std::to_string(e.ival) : std::to_string(static_cast<std::int64_t>(e.ival)), e.type};
    case ExprKind::Float: return float_const(e.fval, e.type);
    case ExprKind::Complex:
      return make_aggregate(e.type, {float_const(0, e.type.component()), float_const(e.imag, e.type.component())});
    case ExprKind::Bool: return {e.ival ? "true" : "false", e.type};
    case ExprKind::NoneLit: return {"undef", e.type};  // None carries no value (it is only passed or tested)
    case ExprKind::Name:
      if (e.type.is_none()) return {"undef", e.type};
      if (e.constant) return constant(*e.constant);
      if (e.constant_array) return constant_array(e);
      if (e.device_array) return device_array(*e.device_array);
      return load(slot_ptr_[static_cast<std::size_t>(e.slot)], fn_.local_types[static_cast<std::size_t>(e.slot)]);
    case ExprKind::Tuple: {
      std::vector<Value> parts;
      for (const auto& k : e.kids) parts.push_back(expr(*k));
      return make_aggregate(e.type, parts);
    }
    case ExprKind::Binary:
      if (e.callee == Callee::UserFunction)  // a complex power (typer: complex_power)
        return user_function_call(e, {expr(*e.kids[0]), expr(*e.kids[1])});
      return binary(e.binop, expr(*e.kids[0]), expr(*e.kids[1]), e.formals, e.type, true);
    case ExprKind::Unary: {
      Value a = expr(*e.kids[0]);
      if (e.unop == UnaryOp::Not) return {ins("xor i1 " + truth(a) + ", true"), e.type};
      if (e.unop == UnaryOp::Pos) return convert(a, e.type);
      if (a.t.is_bfloat16()) return bf16_apply(bf16_operator_function("neg"), {a});
      if (a.t.is_timedelta()) return {ins("sub i64 0, " + a.v), e.type};  // numba's neg: NaT stays NaT
      if (e.unop == UnaryOp::Invert && a.t.is_bool()) return {ins("xor i1 " + a.v + ", true"), e.type};
      if (a.t.is_int() && !a.t.is_signed()) {
        // Unsigned negation and inversion happen at the operand's own width (-uint8(200) == 56).
        std::string ty = llvm_value_type(a.t);
        std::string r = e.unop == UnaryOp::Neg ? ins("sub " + ty + " 0, " + a.v) : ins("xor " + ty + " " + a.v + ", -1");
        return convert(Value{r, a.t}, e.type);
      }
      Value c = convert(a, e.type);
      std::string ty = llvm_value_type(e.type);
      if (e.unop == UnaryOp::Invert) return {ins("xor " + ty + " " + c.v + ", -1"), e.type};
      if (e.type.is_int()) return {ins("sub " + ty + " 0, " + c.v), e.type};
      if (e.type.is_float() && e.type.bits() == 16) return fp16_instruction("hneg", {c});  // numba-cuda's __hneg
      if (e.type.is_float()) return {ins("fsub " + ty + " " + float_const(-0.0, e.type).v + ", " + c.v), e.type};
      // complex
      const Type ct = e.type.component();
      std::string cty = llvm_value_type(ct);
      Value re = extract(c, 0), im = extract(c, 1);
      Value nre{ins("fsub " + cty + " " + float_const(-0.0, ct).v + ", " + re.v), ct};
      Value nim{ins("fsub " + cty + " " + float_const(-0.0, ct).v + ", " + im.v), ct};
      return make_aggregate(e.type, {nre, nim});
    }
    case ExprKind::BoolOp: {
      std::string ty = llvm_value_type(e.type);
      std::string slot = alloca(ty);
      Value a = expr(*e.kids[0]);
      Value ac = convert(a, e.type);
      line("store " + ty + " " + ac.v + ", " + ty + "* " + slot);
      std::string c = truth(a);
      std::string rhs = label("boolrhs"), end = label("boolend");
      if (e.is_and) cond_br(c, rhs, end);
      else cond_br(c, end, rhs);
      start_block(rhs);
      Value b = convert(expr(*e.kids[1]), e.type);
      line("store " + ty + " " + b.v + ", " + ty + "* " + slot);
      br(end);
      start_block(end);
      return load(slot, e.type);
    }
    case ExprKind::Unwrap: return unwrap(e);
    case ExprKind::Compare: {
      if (e.cmp_ops.size() == 1 && (e.cmp_ops[0] == CmpOp::In || e.cmp_ops[0] == CmpOp::NotIn)) {
        // x in t: == with each element of the tuple (the typer's e.formals, one per element), or'ed
        Value x = expr(*e.kids[0]), t = expr(*e.kids[1]);
        std::string found = "false";
        for (std::size_t i = 0; i < e.formals.size(); ++i)
          found = ins("or i1 " + found + ", " + compare(CmpOp::Eq, x, extract(t, i), e.formals[i]));
        return {e.cmp_ops[0] == CmpOp::NotIn ? ins("xor i1 " + found + ", true") : found, e.type};
      }
      if (e.formals.size() == 1 && e.formals[0].is_optional()) {  // x is None / x is not None, x Optional
        Value a = expr(*e.kids[0]), b = expr(*e.kids[1]);
        std::string valid = optional_valid(a.t.is_optional() ? a : b);
        return {e.cmp_ops[0] == CmpOp::IsNot ? valid : ins("xor i1 " + valid + ", true"), e.type};
      }
      if (e.cmp_ops.size() == 1) return {compare(e.cmp_ops[0], expr(*e.kids[0]), expr(*e.kids[1]), e.formals[0]), e.type};
      // a < b < c: each operand is evaluated at most once, and the chain stops at the first False.
      std::string slot = alloca("i1");
      std::string end = label("cmpend");
      Value left = expr(*e.kids[0]);
      for (std::size_t i = 0; i < e.cmp_ops.size(); ++i) {
        Value right = expr(*e.kids[i + 1]);
        std::string c = compare(e.cmp_ops[i], left, right, e.formals[i]);
        line("store i1 " + c + ", i1* " + slot);
        if (i + 1 < e.cmp_ops.size()) {
          std::string next = label("cmpnext");
          cond_br(c, next, end);
          start_block(next);
        }
        left = right;
      }
      br(end);
      start_block(end);
      return load(slot, e.type);
    }
    case ExprKind::IfExp: {
      std::string ty = llvm_value_type(e.type);
      std::string slot = alloca(ty);
      std::string c = truth(expr(*e.kids[0]));
      std::string a = label("ifexp_then"), b = label("ifexp_else"), end = label("ifexp_end");
      cond_br(c, a, b);
      start_block(a);
      Value va = convert(expr(*e.kids[1]), e.type);
      line("store " + ty + " " + va.v + ", " + ty + "* " + slot);
      br(end);
      start_block(b);
      Value vb = convert(expr(*e.kids[2]), e.type);
      line("store " + ty + " " + vb.v + ", " + ty + "* " + slot);
      br(end);
      start_block(end);
      return load(slot, e.type);
    }
    case ExprKind::Attribute: {
      if (e.constant) return constant(*e.constant);
      if (!e.target.empty()) return cuda_attribute(e);
      if (e.kids[0]->type.is_array()) return array_attribute(e);
      if (e.kids[0]->type.is_named_tuple() || e.kids[0]->type.is_foreign())
        return extract(expr(*e.kids[0]), static_cast<std::size_t>(e.field));
      if (e.field >= 0) return record_field(e);
      Value base = expr(*e.kids[0]);
      if (base.t.is_vector()) return extract(base, std::string_view("xyzw").find(e.name));  // v.x .. v.w
      if (base.t.is_complex()) return extract(base, e.name == "real" ? 0 : 1);
      if (e.name == "real") return base;
      if (base.t.is_float()) return float_const(0, base.t);
      if (base.t.is_bool()) return {"false", base.t};
      return {"0", base.t};
    }
    case ExprKind::Subscript:
      if (e.kids[0]->type.is_array()) return array_subscript(e);
      if (e.kids[0]->type.is_pointer()) return pointer_load(e);
      if (e.field >= 0) return record_field(e);
      if (e.kids[1]->kind != ExprKind::Int) return tuple_subscript(e);
      return extract(expr(*e.kids[0]), static_cast<std::size_t>(e.kids[1]->ival));
    case ExprKind::Call: return call(e);
    case ExprKind::Str: return char_seq_constant(e);  // typed only as the fixed-width string it is stored into
    default: return {"undef", e.type};
  }
}

std::string FunctionEmitter::compare(CmpOp op, const Value& a0, const Value& b0, const Type& f) {
  if (a0.t.is_datetime() || a0.t.is_timedelta()) return datetime_compare(op, a0, b0);  // each by its own unit
  Value a = convert(a0, f), b = convert(b0, f);
  std::string ty = llvm_value_type(f);
  if (f.is_bfloat16()) {
    const char* sym = op == CmpOp::Eq ? "==" : op == CmpOp::Ne ? "!=" : op == CmpOp::Lt ? "<" : op == CmpOp::Le ? "<="
                      : op == CmpOp::Gt ? ">" : ">=";
    return bf16_apply(bf16_operator_function(sym), {a, b}).v;
  }
  if (f.is_tuple()) {
    std::string acc = "true";
    for (std::size_t i = 0; i < f.elements().size(); ++i) {
      std::string c = compare(CmpOp::Eq, extract(a, i), extract(b, i), f.elements()[i]);
      acc = ins("and i1 " + acc + ", " + c);
    }
    return op == CmpOp::Ne ? ins("xor i1 " + acc + ", true") : acc;
  }
  if (f.is_complex()) {
    std::string re = compare(CmpOp::Eq, extract(a, 0), extract(b, 0), f.component());
    std::string im = compare(CmpOp::Eq, extract(a, 1), extract(b, 1), f.component());
    std::string both = ins("and i1 " + re + ", " + im);
    return op == CmpOp::Ne ? ins("xor i1 " + both + ", true") : both;
  }
  const char* pred = "eq";
  if (f.is_float() && f.bits() == 16) {
    // numba-cuda compares float16 values with cuda_fp16.hpp's operators (__heq, __hneu, __hgt, ...).
    const char* fn = op == CmpOp::Lt ? "hlt" : op == CmpOp::Le ? "hle" : op == CmpOp::Gt ? "hgt"
                   : op == CmpOp::Ge ? "hge" : op == CmpOp::Eq ? "heq" : "__hneu";
    return fp16_instruction(fn, {a, b}).v;
  }
  if (f.is_float()) {
    switch (op) {
      case CmpOp::Lt: pred = "olt"; break;
      case CmpOp::Le: pred = "ole"; break;
      case CmpOp::Gt: pred = "ogt"; break;
      case CmpOp::Ge: pred = "oge"; break;
      case CmpOp::Eq: pred = "oeq"; break;
      default: pred = "une"; break;
    }
    return ins(std::string("fcmp ") + pred + " " + ty + " " + a.v + ", " + b.v);
  }
  bool s = f.is_int() && f.is_signed();
  switch (op) {
    case CmpOp::Lt: pred = s ? "slt" : "ult"; break;
    case CmpOp::Le: pred = s ? "sle" : "ule"; break;
    case CmpOp::Gt: pred = s ? "sgt" : "ugt"; break;
    case CmpOp::Ge: pred = s ? "sge" : "uge"; break;
    case CmpOp::Eq: pred = "eq"; break;
    default: pred = "ne"; break;
  }
  return ins(std::string("icmp ") + pred + " " + ty + " " + a.v + ", " + b.v);
}

Value FunctionEmitter::binary(BinOp op, const Value& a0, const Value& b0, const std::vector<Type>& formals,
                              const Type& result, bool operator_form) {
  Value a = convert(a0, formals[0]), b = convert(b0, formals[1]);
  const Type& T = formals[0];
  std::string ty = llvm_value_type(T);
  if (T.is_datetime() || T.is_timedelta() || formals[1].is_timedelta()) return datetime_binary(op, a, b, result);
  if (T.is_bfloat16()) return bf16_apply(bf16_operator_function(binop_symbol(op)), {a, b});
  if (T.is_complex()) return convert(complex_op(op, a, b), result);
  if (op == BinOp::TrueDiv && operator_form && m_.options.fastmath && T.is_float() && T.bits() == 32 &&
      formals[1] == T) {
    // numba-cuda (mathimpl.maybe_fast_truediv): float32 / float32 under fastmath is libdevice's
    // __nv_fast_fdividef, with no zero check, so it never raises ZeroDivisionError, even with debug=True.
    std::string fn = libdevice("fast_fdivide", T, 2);
    return convert({ins("call float " + fn + "(float " + a.v + ", float " + b.v + ")"), T}, result);
  }
  if (m_.options.debug && m_.options.abi == Abi::numba &&
      (op == BinOp::FloorDiv || op == BinOp::Mod || op == BinOp::TrueDiv)) {
    // debug=True selects Numba's "python" error model: division by zero raises ZeroDivisionError,
    // which the Numba ABI reports as a non-zero status.
    std::string zero = T.is_int() ? ins("icmp eq " + ty + " " + b.v + ", 0")
                                  : ins("fcmp oeq " + ty + " " + b.v + ", " + float_const(0, T).v);
    std::string ok = label("div_ok"), raise = label("div_by_zero");
    cond_br(zero, raise, ok);
    start_block(raise);
    // numba's messages (numba/cpython/numbers.py): integers name themselves, true division does not;
    // numba raises these without a source location (line 0: the report has no "In function" part).
    bool int_op = T.is_int() && op != BinOp::TrueDiv;
    const char* what = op == BinOp::Mod ? (int_op ? "integer modulo by zero" : "modulo by zero")
                                        : (int_op ? "integer division by zero" : "division by zero");
    raise_exception("builtins.ZeroDivisionError", {std::string("s:") + what}, SourceLoc{});
    start_block(ok);
  }
  if (T.is_bool()) {
    const char* o = op == BinOp::BitAnd ? "and" : op == BinOp::BitOr ? "or" : "xor";
    return {ins(std::string(o) + " i1 " + a.v + ", " + b.v), result};
  }
  if (T.is_int()) {
    bool s = result.is_int() ? result.is_signed() : T.is_signed();
    switch (op) {
      case BinOp::Add: return convert({ins("add " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::Sub: return convert({ins("sub " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::Mul: return convert({ins("mul " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::BitAnd: return convert({ins("and " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::BitOr: return convert({ins("or " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::BitXor: return convert({ins("xor " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::LShift: return convert({ins("shl " + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::RShift:
        return convert({ins(std::string(T.is_signed() ? "ashr " : "lshr ") + ty + " " + a.v + ", " + b.v), T}, result);
      case BinOp::TrueDiv: {
        Type f = Type::floating(64);
        Value x = convert(a, f), y = convert(b, f);
        return convert({ins("fdiv double " + x.v + ", " + y.v), f}, result);
      }
      case BinOp::Pow: {
        std::string h = m_.helper(formals[1].is_signed() ? "ipow_s" : "ipow_u", T);
        return convert({ins("call i64 " + h + "(i64 " + a.v + ", i64 " + b.v + ")"), T}, result);
      }
      case BinOp::FloorDiv:
      case BinOp::Mod: {
        // Division by zero gives 0 (NumPy error model); INT_MIN // -1 gives 0 too, never a trap.
        std::string zero = ins("icmp eq " + ty + " " + b.v + ", 0");
        std::string bad = zero;
        if (s) {
          std::string m1 = ins("icmp eq " + ty + " " + b.v + ", -1");
          std::string mn = ins("icmp eq " + ty + " " + a.v + ", " + std::to_string(INT64_MIN));
          std::string ov = ins("and i1 " + m1 + ", " + mn);
          bad = ins("or i1 " + zero + ", " + ov);
        }
        std::string d = ins("select i1 " + bad + ", " + ty + " 1, " + ty + " " + b.v);
        std::string r;
        if (!s) {
          r = ins(std::string(op == BinOp::FloorDiv ? "udiv " : "urem ") + ty + " " + a.v + ", " + d);
        } else {
          std::string q = ins("sdiv " + ty + " " + a.v + ", " + d);
          std::string rem = ins("srem " + ty + " " + a.v + ", " + d);
          std::string nz = ins("icmp ne " + ty + " " + rem + ", 0");
          std::string x = ins("xor " + ty + " " + rem + ", " + d);
          std::string neg = ins("icmp slt " + ty + " " + x + ", 0");
          std::string adj = ins("and i1 " + nz + ", " + neg);
          if (op == BinOp::FloorDiv) {
            std::string one = ins("zext i1 " + adj + " to " + ty);
            r = ins("sub " + ty + " " + q + ", " + one);
          } else {
            std::string plus = ins("add " + ty + " " + rem + ", " + d);
            r = ins("select i1 " + adj + ", " + ty + " " + plus + ", " + ty + " " + rem);
          }
        }
        std::string out = ins("select i1 " + bad + ", " + ty + " 0, " + ty + " " + r);
        return convert({out, T}, result);
      }
    }
  }
  // Floats (float16 included).
  switch (op) {
    case BinOp::Add: return convert({ins("fadd " + ty + " " + a.v + ", " + b.v), T}, result);
    case BinOp::Sub: return convert({ins("fsub " + ty + " " + a.v + ", " + b.v), T}, result);
    case BinOp::Mul: return convert({ins("fmul " + ty + " " + a.v + ", " + b.v), T}, result);
    case BinOp::TrueDiv: return convert({ins("fdiv " + ty + " " + a.v + ", " + b.v), T}, result);
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      std::string h = m_.helper(op == BinOp::FloorDiv ? "floordiv" : "pymod", T);
      return convert({ins("call " + ty + " " + h + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ")"), T}, result);
    }
    case BinOp::Pow: {
      if (formals[1].is_int()) {
        Value e = convert(b, Type::integer(64, true));
        std::string h = m_.helper("fpowi", T);
        return convert({ins("call " + ty + " " + h + "(" + ty + " " + a.v + ", i64 " + e.v + ")"), T}, result);
      }
      std::string f = libdevice("pow", T, 2);
      return convert({ins("call " + ty + " " + f + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ")"), T}, result);
    }
    default: return {"undef", result};
  }
}

Value FunctionEmitter::complex_op(BinOp op, const Value& a, const Value& b) {
  const Type& T = a.t;
  Type c = T.component();
  std::string cty = llvm_value_type(c);
  Value ar = extract(a, 0), ai = extract(a, 1), br_ = extract(b, 0), bi = extract(b, 1);
  auto f = [&](const char* o, const Value& x, const Value& y) {
    return Value{ins(std::string(o) + " " + cty + " " + x.v + ", " + y.v), c};
  };
  switch (op) {
    case BinOp::Add: return make_aggregate(T, {f("fadd", ar, br_), f("fadd", ai, bi)});
    case BinOp::Sub: return make_aggregate(T, {f("fsub", ar, br_), f("fsub", ai, bi)});
    case BinOp::Mul:
      return make_aggregate(T, {f("fsub", f("fmul", ar, br_), f("fmul", ai, bi)), f("fadd", f("fmul", ar, bi), f("fmul", ai, br_))});
    case BinOp::TrueDiv: {
      // numba's complex_div: a divisor of 0 (either zero's sign) raises ZeroDivisionError, without a source
      // location, as numba raises it; the rest is Smith's algorithm in the cdiv helper.
      std::string zero = float_const(0, c).v;
      std::string rz = ins("fcmp oeq " + cty + " " + br_.v + ", " + zero);
      std::string iz = ins("fcmp oeq " + cty + " " + bi.v + ", " + zero);
      std::string both = ins("and i1 " + rz + ", " + iz);
      std::string raise = label("cdiv_by_zero"), ok = label("cdiv_ok");
      cond_br(both, raise, ok);
      start_block(raise);
      raise_exception("builtins.ZeroDivisionError", {"s:complex division by zero"}, SourceLoc{});
      start_block(ok);
      std::string h = m_.helper("cdiv", T);
      std::string ty = llvm_value_type(T);
      return {ins("call " + ty + " " + h + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ")"), T};
    }
    default: return {"undef", T};
  }
}

}  // namespace cubridge::compiler
