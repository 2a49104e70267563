// Internal: Numba's scalar typing rules (see typing_rules.hpp). The conversion table and the candidate
// lists are facts about numba-cuda 0.30 (numba-scalar-typing.md §0-§5), checked against the measured
// matrices by tests/cpp/compiler/test_typing_rules.cpp.
#include "compiler/typing/typing_rules.hpp"

#include "compiler/typing/datetime_rules.hpp"

#include <algorithm>
#include <array>

namespace cubridge::compiler {
namespace {

// Scalar index: b i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128.
constexpr int kScalars = 14;
int scalar_index(const Type& t) {
  switch (t.kind()) {
    case TypeKind::Bool: return 0;
    case TypeKind::Int: {
      int w = t.bits() == 8 ? 0 : t.bits() == 16 ? 1 : t.bits() == 32 ? 2 : 3;
      return (t.is_signed() ? 1 : 5) + w;
    }
    case TypeKind::Float: return t.bits() == 16 ? 9 : t.bits() == 32 ? 10 : 11;
    case TypeKind::Complex: return t.bits() == 64 ? 12 : 13;
    default: return -1;
  }
}

// Numba's conversion graph after propagation (row -> column), as measured: e p s u, '-' none.
struct ConvTable {
  Conversion c[kScalars][kScalars];
  ConvTable() {
    static const char* fixed[kScalars] = {
        // b   i8  i16 i32 i64 u8  u16 u32 u64 f16 f32 f64 c64 c128
        "esssssssssssss",
        "ueppp" "uuuu" "sss" "ss",
        "uuepp" "uuuu" "uss" "ss",
        "uuuep" "uuuu" "uus" "us",
        "uuuue" "uuuu" "uus" "us",
        "uusss" "eppp" "uss" "ss",
        "uuuss" "uepp" "uus" "us",
        "uuuus" "uuep" "uus" "us",
        "uuuuu" "uuue" "uus" "us",
        "uuuuu" "uuuu" "epp" "ss",
        "uuuuu" "uuuu" "uep" "ss",
        "uuuuu" "uuuu" "uue" "us",
        "-----" "----" "---" "ep",
        "-----" "----" "---" "ue"};
    for (int i = 0; i < kScalars; ++i)
      for (int j = 0; j < kScalars; ++j) {
        char ch = fixed[i][j];
        c[i][j] = ch == 'e'   ? Conversion::Exact
                  : ch == 'p' ? Conversion::Promote
                  : ch == 's' ? Conversion::Safe
                  : ch == 'u' ? Conversion::Unsafe
                              : Conversion::None;
      }
  }
};

const ConvTable& conv_table() {
  static const ConvTable t;
  return t;
}

Type b() { return Type::boolean(); }
Type i64() { return Type::integer(64, true); }
Type u64() { return Type::integer(64, false); }
Type i32() { return Type::integer(32, true); }
Type f16() { return Type::floating(16); }
Type f32() { return Type::floating(32); }
Type f64() { return Type::floating(64); }
Type c64() { return Type::complex(64); }
Type c128() { return Type::complex(128); }

bool is_small_f16_partner(const Type& t) {
  return t.is_bool() || (t.is_int() && t.bits() == 8 && t.is_signed()) || (t.is_float() && t.bits() == 16);
}

// NumPy promote_types for the float needed to hold an integer exactly enough (numpy's rule).
int float_bits_for_int(const Type& t) {
  if (t.is_bool()) return 16;
  return t.bits() == 8 ? 16 : t.bits() == 16 ? 32 : 64;
}

}  // namespace

Conversion can_convert(const Type& from, const Type& to) {
  if (from == to) return Conversion::Exact;
  // Numba's Optional: none and T convert into Optional(T); Optional(T) converts out unsafely (None raises).
  if (to.is_optional()) return from.is_none() ? Conversion::Safe : can_convert(from.is_optional() ? from.optional_value() : from, to.optional_value());
  if (from.is_optional()) return std::max(Conversion::Unsafe, can_convert(from.optional_value(), to));
  // numba's IntEnumMember.can_convert_to: an IntEnum's member converts to what its integer converts to, at
  // best safely; a plain Enum's member converts to nothing but its own type.
  if (from.is_int_enum_member() && !to.is_enum_member()) {
    const Conversion c = can_convert(from.enum_value(), to);
    return c == Conversion::None ? c : std::max(c, Conversion::Safe);
  }
  if (from.is_tuple() && to.is_tuple()) {
    if (from.elements().size() != to.elements().size()) return Conversion::None;
    Conversion worst = Conversion::Exact;
    for (std::size_t i = 0; i < from.elements().size(); ++i)
      worst = std::max(worst, can_convert(from.elements()[i], to.elements()[i]));
    return worst;
  }
  int i = scalar_index(from), j = scalar_index(to);
  if (i < 0 || j < 0) return Conversion::None;
  return conv_table().c[i][j];
}

std::optional<Type> unify(const Type& a, const Type& c) {
  if (a == c) return a;
  // none with T (or Optional(T)) is Optional(T), as numba unifies them.
  if (a.is_none() || c.is_none()) {
    const Type& t = a.is_none() ? c : a;
    if (t.is_optional()) return t;
    if (t.is_scalar() || t.is_tuple() || t.is_array()) return Type::optional(t);
    return std::nullopt;
  }
  if (a.is_optional() || c.is_optional()) {
    auto u = unify(a.is_optional() ? a.optional_value() : a, c.is_optional() ? c.optional_value() : c);
    if (!u) return std::nullopt;
    return Type::optional(*u);
  }
  if (a.is_tuple() && c.is_tuple()) {
    if (a.elements().size() != c.elements().size()) return std::nullopt;
    std::vector<Type> e;
    for (std::size_t k = 0; k < a.elements().size(); ++k) {
      auto u = unify(a.elements()[k], c.elements()[k]);
      if (!u) return std::nullopt;
      e.push_back(*u);
    }
    return Type::tuple(std::move(e));
  }
  // numba's unify_pairs for an IntEnum's member and a number: the number's type, where the member converts
  // to it at best safely (members of two classes, or a plain Enum's, do not unify).
  if (a.is_int_enum_member() != c.is_int_enum_member() && !a.is_enum_member() != !c.is_enum_member()) {
    const Type& number = a.is_int_enum_member() ? c : a;
    const Conversion conv = can_convert(a.is_int_enum_member() ? a : c, number);
    if (conv != Conversion::None && conv <= Conversion::Safe) return number;
    return std::nullopt;
  }
  if (a.is_array() && c.is_array()) {
    // Numba's Array.unify: one dtype and rank; differing layouts give 'A'; read-only if either is.
    if (!(a.dtype() == c.dtype()) || a.ndim() != c.ndim()) return std::nullopt;
    return Type::array(a.dtype(), a.ndim(), a.layout() == c.layout() ? a.layout() : 'A', a.readonly() || c.readonly());
  }
  if (!a.is_scalar() || !c.is_scalar()) return std::nullopt;
  if (a.is_bool()) return c;
  if (c.is_bool()) return a;
  if (a.is_int() && c.is_int()) {
    if (a.is_signed() == c.is_signed()) return Type::integer(std::max(a.bits(), c.bits()), a.is_signed());
    const Type& s = a.is_signed() ? a : c;
    const Type& u = a.is_signed() ? c : a;
    if (u.bits() < s.bits()) return s;
    if (u.bits() < 64) return Type::integer(u.bits() * 2, true);
    return f64();
  }
  // At least one of them is float or complex.
  auto need = [](const Type& t) {  // float bits needed to represent t
    if (t.is_int() || t.is_bool()) return float_bits_for_int(t);
    if (t.is_complex()) return t.bits() / 2;
    return t.bits();
  };
  int bits = std::max(need(a), need(c));
  if (a.is_complex() || c.is_complex()) return Type::complex(std::max(bits, 32) * 2);
  return Type::floating(bits);
}


namespace {

// numba's overload choice among `cases`: the fewest unsafe, then safe, then promoting conversions; the first
// of equal ones. `convert` rates one argument's conversion.
template <class Convert>
std::optional<Resolved> best_case(std::span<const Case> cases, const Type& a, const Type& bb, Convert convert) {
  std::optional<Resolved> best;
  std::array<int, 3> best_score{};
  for (const Case& k : cases) {
    Conversion ca = convert(a, k.lhs), cb = convert(bb, k.rhs);
    if (ca == Conversion::None || cb == Conversion::None) continue;
    std::array<int, 3> score{};
    for (Conversion c : {ca, cb}) {
      if (c == Conversion::Unsafe) ++score[0];
      if (c == Conversion::Safe) ++score[1];
      if (c == Conversion::Promote) ++score[2];
    }
    if (!best || score < best_score) {
      best = Resolved{k.lhs, k.rhs, k.result};
      best_score = score;
    }
  }
  return best;
}

// numba-cuda's Bfloat16.can_convert_from/can_convert_to (its type manager has no bfloat16 rule): from a
// float unsafe, from an 8-bit integer safe, from other integers unsafe; to float32/float64 safe, to float16
// and integers unsafe; nothing to or from bool or complex.
Conversion bf16_conversion(const Type& from, const Type& to) {
  if (from == to) return Conversion::Exact;
  if (to.is_bfloat16()) {
    if (from.is_float()) return Conversion::Unsafe;
    if (from.is_int()) return from.bits() == 8 ? Conversion::Safe : Conversion::Unsafe;
    return Conversion::None;
  }
  if (from.is_bfloat16()) {
    if (to.is_float()) return to.bits() >= 32 ? Conversion::Safe : Conversion::Unsafe;
    if (to.is_int()) return Conversion::Unsafe;
    return Conversion::None;
  }
  return can_convert(from, to);
}

}  // namespace

std::optional<Resolved> resolve_cases(std::span<const Case> cases, const Type& a, const Type& bb) {
  return best_case(cases, a, bb, [](const Type& from, const Type& to) { return can_convert(from, to); });
}

namespace {

const std::vector<Case>& int_cases(bool truediv) {
  static const std::vector<Case> normal = {
      {i64(), i64(), i64()}, {i64(), u64(), i64()}, {u64(), i64(), i64()}, {u64(), u64(), u64()}};
  static const std::vector<Case> div = {
      {i64(), i64(), f64()}, {i64(), u64(), f64()}, {u64(), i64(), f64()}, {u64(), u64(), f64()}};
  return truediv ? div : normal;
}

std::vector<Case> arith_cases(BinOp op) {
  std::vector<Case> cs = int_cases(op == BinOp::TrueDiv);
  if (op == BinOp::Pow) {
    for (Type f : {f32(), f64()})
      for (Type e : {i32(), i64(), u64()}) cs.push_back({f, e, f});
  }
  cs.push_back({f32(), f32(), f32()});
  cs.push_back({f64(), f64(), f64()});
  if (op != BinOp::FloorDiv && op != BinOp::Mod) {
    cs.push_back({c64(), c64(), c64()});
    cs.push_back({c128(), c128(), c128()});
  }
  return cs;
}

const std::vector<Case>& cached_arith_cases(BinOp op) {
  static const std::vector<Case> tables[] = {
      arith_cases(BinOp::Add), arith_cases(BinOp::TrueDiv), arith_cases(BinOp::FloorDiv),
      arith_cases(BinOp::Pow)};
  switch (op) {
    case BinOp::TrueDiv: return tables[1];
    case BinOp::FloorDiv:
    case BinOp::Mod: return tables[2];
    case BinOp::Pow: return tables[3];
    default: return tables[0];
  }
}

}  // namespace

std::optional<Resolved> resolve_binop(BinOp op, const Type& a, const Type& c) {
  if (is_datetime_like(a) || is_datetime_like(c)) {
    std::string why;
    return resolve_datetime_binop(op, a, c, why);
  }
  // cuda_bf16's operators (+, -, *, /) take two bfloat16 values and give one. Their template holds numba's
  // arithmetic cases too, so a bfloat16 with another number picks among all of them by numba's ranking:
  // int64 * bfloat16 is float64 * float64 (both safe), bfloat16 + int8 is bfloat16 (safe, exact). //, % and
  // ** have numba's cases only: bfloat16 // bfloat16 is float32 // float32.
  const bool bf16_arith = op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::TrueDiv;
  if ((a.is_bfloat16() || c.is_bfloat16()) &&
      (bf16_arith || op == BinOp::FloorDiv || op == BinOp::Mod || op == BinOp::Pow)) {
    if (bf16_arith && a.is_bfloat16() && c.is_bfloat16()) return Resolved{a, a, a};
    if (!(a.is_bfloat16() || a.is_scalar()) || !(c.is_bfloat16() || c.is_scalar())) return std::nullopt;
    std::vector<Case> cases = cached_arith_cases(op);
    if (bf16_arith) cases.push_back({Type::bfloat16(), Type::bfloat16(), Type::bfloat16()});
    return best_case(std::span<const Case>(cases), a, c, bf16_conversion);
  }
  if (!a.is_scalar() || !c.is_scalar()) return std::nullopt;
  switch (op) {
    case BinOp::LShift:
    case BinOp::RShift: {
      if (!(a.is_int() || a.is_bool()) || !(c.is_int() || c.is_bool())) return std::nullopt;
      Type r = (a.is_int() && !a.is_signed()) ? u64() : i64();
      return Resolved{r, r, r};
    }
    case BinOp::BitAnd:
    case BinOp::BitOr:
    case BinOp::BitXor: {
      if (!(a.is_int() || a.is_bool()) || !(c.is_int() || c.is_bool())) return std::nullopt;
      if (a.is_bool() && c.is_bool()) return Resolved{b(), b(), b()};
      return resolve_cases(int_cases(false), a, c);
    }
    case BinOp::Add:
    case BinOp::Sub:
    case BinOp::Mul:
    case BinOp::TrueDiv:
      // The float16 template (cuda_fp16) is tried first: f16 with f16, bool or int8 stays f16.
      if ((a.is_float() && a.bits() == 16 && is_small_f16_partner(c)) ||
          (c.is_float() && c.bits() == 16 && is_small_f16_partner(a)))
        return Resolved{f16(), f16(), f16()};
      [[fallthrough]];
    default: return resolve_cases(cached_arith_cases(op), a, c);
  }
}

std::optional<Type> resolve_compare(bool equality, const Type& a, const Type& c) {
  if (is_datetime_like(a) || is_datetime_like(c)) {  // the emitter converts each operand by its own unit
    std::string why;
    return resolve_datetime_compare(equality, a, c, why) ? std::optional<Type>(a) : std::nullopt;
  }
  if (a.is_bfloat16() && c.is_bfloat16()) return a;  // cuda_bf16's ==, !=, <, <=, >, >=
  // numba's EnumCompare: == and != of two members of one Enum class compare their values (an IntEnum's
  // members are read as integers before they get here)
  if (equality && a.is_enum_member() && a == c) return a.enum_value();
  if (!a.is_scalar() || !c.is_scalar()) return std::nullopt;
  if ((a.is_float() && a.bits() == 16 && is_small_f16_partner(c)) ||
      (c.is_float() && c.bits() == 16 && is_small_f16_partner(a)))
    return f16();
  static const std::vector<Case> ordered = [] {
    std::vector<Case> cs;
    for (Type t : {b(), Type::integer(8, true), Type::integer(16, true), i32(), i64(), Type::integer(8, false),
                   Type::integer(16, false), Type::integer(32, false), u64(), f32(), f64()})
      cs.push_back({t, t, b()});
    return cs;
  }();
  static const std::vector<Case> eq = [] {
    std::vector<Case> cs = ordered;
    cs.push_back({c64(), c64(), b()});
    cs.push_back({c128(), c128(), b()});
    return cs;
  }();
  auto r = resolve_cases(equality ? eq : ordered, a, c);
  if (!r) return std::nullopt;
  return r->lhs;
}

bool bf16_convertible(const Type& from, const Type& to) {
  if (from == to) return true;
  if (to.is_bfloat16()) return from.is_int() || from.is_float();
  if (from.is_bfloat16()) return to.is_int() || to.is_bool() || (to.is_float() && to.bits() >= 32);
  return false;
}

std::optional<Type> resolve_unary(UnaryOp op, const Type& a) {
  if (a.is_timedelta() && (op == UnaryOp::Neg || op == UnaryOp::Pos)) return a;  // numba's -td, +td
  if (a.is_bfloat16() && op != UnaryOp::Invert) return op == UnaryOp::Not ? b() : a;  // cuda_bf16's -x, +x; not x
  if (!a.is_scalar()) return std::nullopt;
  switch (op) {
    case UnaryOp::Not: return b();
    case UnaryOp::Neg:
    case UnaryOp::Pos:
      if (a.is_float() || a.is_complex()) return a;
      return (a.is_int() && !a.is_signed()) ? u64() : i64();
    case UnaryOp::Invert:
      if (a.is_bool()) return b();
      if (!a.is_int()) return std::nullopt;
      return a.is_signed() ? i64() : u64();
  }
  return std::nullopt;
}

std::optional<Type> resolve_builtin1(std::string_view name, const Type& a) {
  if (a.is_bfloat16() || a.is_fp8())  // cuda_bf16's and cuda_fp8's operator bool
    return name == "bool" ? std::optional<Type>(b()) : std::nullopt;
  if (!a.is_scalar()) return std::nullopt;
  if (name == "abs") {
    if (a.is_bool()) return Type::integer(8, true);
    if (a.is_complex()) return a.component();
    return a;
  }
  if (name == "int") {
    if (a.is_int()) return a;
    if (a.is_complex()) return std::nullopt;
    return i64();
  }
  if (name == "float") {
    if (a.is_bool() || a.is_complex()) return std::nullopt;
    if (a.is_float()) return a;
    return f64();
  }
  if (name == "bool") return b();
  if (name == "complex") {
    if (a.is_bool() || (a.is_float() && a.bits() == 16)) return std::nullopt;
    if (a.is_float() && a.bits() == 32) return c64();
    return c128();
  }
  if (name == "round") {
    if (a.is_complex()) return std::nullopt;
    return i64();
  }
  return std::nullopt;
}

std::optional<Type> resolve_round2(const Type& a) {
  if (!a.is_real()) return std::nullopt;
  if (a.is_bool() || (a.is_float() && a.bits() <= 32) || (a.is_int() && (a.bits() == 8 || (a.bits() == 16 && a.is_signed()))))
    return f32();
  return f64();
}

std::optional<Resolved> resolve_divmod(const Type& a, const Type& c) {
  if (!a.is_real() || !c.is_real()) return std::nullopt;
  static const std::vector<Case> cases = {
      {i64(), i64(), i64()}, {u64(), u64(), u64()}, {f32(), f32(), f32()}, {f64(), f64(), f64()}};
  return resolve_cases(cases, a, c);
}

namespace {
bool in(std::string_view n, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), n) != names.end();
}
}  // namespace

std::optional<Type> resolve_math1(std::string_view name, const Type& a) {
  if (!a.is_real()) return std::nullopt;
  if (in(name, {"isnan", "isinf", "isfinite"})) return b();
  bool keeps_f16 = in(name, {"sin", "cos", "exp", "exp2", "log", "log2", "log10", "sqrt", "ceil", "floor", "trunc", "fabs"});
  bool other = in(name, {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "tanh", "degrees",
                         "radians", "erf", "erfc", "expm1", "gamma", "lgamma", "log1p"});
  if (!keeps_f16 && !other) return std::nullopt;
  if (a.is_float() && a.bits() == 16) return keeps_f16 ? f16() : f32();
  if (a.is_float()) return a;
  return f64();
}

std::optional<Resolved> resolve_math2(std::string_view name, const Type& a, const Type& c) {
  if (!a.is_real() || !c.is_real()) return std::nullopt;
  if (name == "atan2" || name == "hypot") {
    static const std::vector<Case> cs = {
        {i64(), i64(), f64()}, {u64(), u64(), f64()}, {f32(), f32(), f32()}, {f64(), f64(), f64()}};
    return resolve_cases(cs, a, c);
  }
  if (name == "copysign" || name == "fmod" || name == "remainder" || name == "nextafter") {
    static const std::vector<Case> cs = {{f32(), f32(), f32()}, {f64(), f64(), f64()}};
    return resolve_cases(cs, a, c);
  }
  if (name == "pow") {
    static const std::vector<Case> cs = {
        {f32(), f32(), f32()}, {f64(), f64(), f64()}, {f32(), i32(), f32()}, {f64(), i32(), f64()}};
    return resolve_cases(cs, a, c);
  }
  if (name == "ldexp") {
    if (!(c.is_int() || c.is_bool())) return std::nullopt;
    static const std::vector<Case> cs = {{f32(), i32(), f32()}, {f64(), i32(), f64()}};
    return resolve_cases(cs, a, i32());
  }
  return std::nullopt;
}

}  // namespace cubridge::compiler
