// Numba's scalar typing rules (src/compiler/typing/typing_rules.cpp) checked cell by cell against the matrices
// measured with numba-cuda 0.30.4 on the GPU machine (data/numba-scalar-typing-matrices.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/typing/typing_rules.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {

const char* kCols[] = {"b", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64", "c64", "c128"};

std::optional<Type> abbrev(const std::string& s) {
  static const std::map<std::string, Type> m = {
      {"b", Type::boolean()},          {"i8", Type::integer(8, true)},   {"i16", Type::integer(16, true)},
      {"i32", Type::integer(32, true)}, {"i64", Type::integer(64, true)}, {"u8", Type::integer(8, false)},
      {"u16", Type::integer(16, false)}, {"u32", Type::integer(32, false)}, {"u64", Type::integer(64, false)},
      {"ui64", Type::integer(64, false)}, {"f16", Type::floating(16)},     {"f32", Type::floating(32)},
      {"f64", Type::floating(64)},      {"c64", Type::complex(64)},       {"c128", Type::complex(128)}};
  auto it = m.find(s);
  if (it != m.end()) return it->second;
  if (s.rfind("UT(", 0) == 0) {
    std::string inner = s.substr(3, s.size() - 4);
    auto e = abbrev(inner.substr(0, inner.find(' ')));
    if (!e) return std::nullopt;
    return Type::tuple({*e, *e});
  }
  return std::nullopt;
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    std::size_t start = i;
    if (line.compare(i, 3, "UT(") == 0 || line.compare(i, 6, "Tuple(") == 0) {
      while (i < line.size() && line[i] != ')') ++i;
      ++i;
    } else {
      while (i < line.size() && line[i] != ' ') ++i;
    }
    out.push_back(line.substr(start, i - start));
  }
  return out;
}

// section title -> row label -> cells
using Table = std::map<std::string, std::vector<std::string>>;
std::map<std::string, Table> load() {
  const char* dir = std::getenv("CUBRIDGE_SOURCE_DIR");
  std::string path = std::string(dir ? dir : ".") + "/tests/cpp/compiler/data/numba-scalar-typing-matrices.txt";
  std::ifstream f(path);
  std::map<std::string, Table> out;
  std::string line, section;
  while (std::getline(f, line)) {
    if (line.rfind("## ", 0) == 0) {
      section = line.substr(3, line.find("  ") == std::string::npos ? std::string::npos : line.find("  ") - 3);
      continue;
    }
    if (section.empty() || line.empty() || line[0] == '=') continue;
    auto c = cells(line);
    if (c.size() < 2 || (c[0] == "b" && c.size() == 14)) continue;  // the header line
    std::string label = c[0];
    c.erase(c.begin());
    out[section][label] = c;
  }
  return out;
}

const std::map<std::string, Table>& tables() {
  static const auto t = load();
  return t;
}

template <class F>
void check_matrix(const std::string& section, F resolve, bool skip_bool = false) {
  const Table& t = tables().at(section);
  ASSERT_EQ(t.size(), 14u) << section;
  int mismatches = 0;
  for (const char* row : kCols) {
    const auto& cs = t.at(row);
    ASSERT_EQ(cs.size(), 14u) << section << " row " << row;
    for (int j = 0; j < 14; ++j) {
      if (skip_bool && (std::string(row) == "b" || j == 0)) continue;
      Type a = *abbrev(row), b = *abbrev(kCols[j]);
      std::optional<Type> want = abbrev(cs[j]);
      std::optional<Type> got = resolve(a, b);
      std::string g = got ? got->name() : "ERR", w = want ? want->name() : "ERR";
      if (g != w) ++mismatches;
      EXPECT_EQ(g, w) << section << ": " << a.name() << " , " << b.name();
    }
  }
  EXPECT_EQ(mismatches, 0) << section;
}

std::optional<Type> result_of(std::optional<Resolved> r) {
  if (!r) return std::nullopt;
  return r->result;
}

}  // namespace

TEST(TypingRules, DataFileIsPresent) { EXPECT_GE(tables().size(), 20u); }

TEST(TypingRules, ArithmeticOperatorsMatchNumba) {
  std::pair<const char*, BinOp> ops[] = {{"add", BinOp::Add},           {"sub", BinOp::Sub},   {"mul", BinOp::Mul},
                                         {"truediv", BinOp::TrueDiv},   {"floordiv", BinOp::FloorDiv},
                                         {"mod", BinOp::Mod},           {"pow", BinOp::Pow},   {"and_", BinOp::BitAnd},
                                         {"or_", BinOp::BitOr},         {"xor", BinOp::BitXor}, {"lshift", BinOp::LShift},
                                         {"rshift", BinOp::RShift}};
  for (auto& [name, op] : ops)
    check_matrix(name, [op = op](const Type& a, const Type& b) { return result_of(resolve_binop(op, a, b)); });
}

TEST(TypingRules, ComparisonsMatchNumba) {
  check_matrix("lt: formal arg type used", [](const Type& a, const Type& b) { return resolve_compare(false, a, b); });
  check_matrix("eq: formal arg type used", [](const Type& a, const Type& b) { return resolve_compare(true, a, b); });
}

TEST(TypingRules, UnificationAndConversionsMatchNumba) {
  check_matrix("unify_pairs (variable/phi/return merging)", [](const Type& a, const Type& b) { return unify(a, b); });
  const Table& t = tables().at("can_convert (row -> col): e=exact p=promote s=safe u=unsafe -=none");
  for (const char* row : kCols)
    for (int j = 0; j < 14; ++j) {
      Conversion c = can_convert(*abbrev(row), *abbrev(kCols[j]));
      const char* s = c == Conversion::Exact ? "e" : c == Conversion::Promote ? "p" : c == Conversion::Safe ? "s"
                      : c == Conversion::Unsafe ? "u" : "-";
      EXPECT_EQ(s, t.at(row)[static_cast<std::size_t>(j)]) << row << " -> " << kCols[j];
    }
}

TEST(TypingRules, BuiltinsAndMathMatchNumba) {
  check_matrix("divmod", [](const Type& a, const Type& b) -> std::optional<Type> {
    auto r = resolve_divmod(a, b);
    if (!r) return std::nullopt;
    return Type::tuple({r->result, r->result});
  });
  check_matrix("pow builtin", [](const Type& a, const Type& b) { return result_of(resolve_binop(BinOp::Pow, a, b)); });
  // min/max: the bool row and column come from the context, not from a compile (see the data file).
  for (const char* s : {"min", "max"})
    check_matrix(s, [](const Type& a, const Type& b) { return unify(a, b); }, true);
  for (const char* s : {"atan2", "pow", "fmod", "copysign", "hypot"})
    check_matrix(std::string("math.") + s,
                 [s](const Type& a, const Type& b) { return result_of(resolve_math2(s, a, b)); });
}

TEST(TypingRules, UnaryAndOneArgumentBuiltinsMatchNumba) {
  const Table& t = tables().at("unary / builtin (per arg type)");
  for (const auto& [row, cs] : t) {
    if (row == "truth" || row == "math.modf" || row == "math.frexp" || cs[0] == "-") continue;
    for (int j = 0; j < 14; ++j) {
      Type a = *abbrev(kCols[j]);
      std::optional<Type> got;
      if (row == "neg") got = resolve_unary(UnaryOp::Neg, a);
      else if (row == "pos") got = resolve_unary(UnaryOp::Pos, a);
      else if (row == "invert") got = resolve_unary(UnaryOp::Invert, a);
      else if (row == "not_") got = resolve_unary(UnaryOp::Not, a);
      else if (row == "round1") got = resolve_builtin1("round", a);
      else if (row.rfind("math.", 0) == 0) got = resolve_math1(row.substr(5), a);
      else got = resolve_builtin1(row, a);
      std::optional<Type> want = abbrev(cs[static_cast<std::size_t>(j)]);
      EXPECT_EQ(got ? got->name() : "ERR", want ? want->name() : "ERR") << row << "(" << a.name() << ")";
    }
  }
}

TEST(TypingRules, ArraysUnifyAsNumbasArrayUnify) {
  const Type f32 = Type::floating(32), i32 = Type::integer(32, true);
  auto arr = [](const Type& dt, int nd, char layout, bool ro = false) { return Type::array(dt, nd, layout, ro); };
  EXPECT_EQ(unify(arr(f32, 1, 'C'), arr(f32, 1, 'C')), arr(f32, 1, 'C'));
  EXPECT_EQ(unify(arr(f32, 2, 'C'), arr(f32, 2, 'F')), arr(f32, 2, 'A'));      // layouts differ: any
  EXPECT_EQ(unify(arr(f32, 1, 'C'), arr(f32, 1, 'A', true)), arr(f32, 1, 'A', true));  // read-only wins
  EXPECT_EQ(unify(arr(f32, 1, 'C'), arr(i32, 1, 'C')), std::nullopt);           // dtypes differ
  EXPECT_EQ(unify(arr(f32, 1, 'C'), arr(f32, 2, 'C')), std::nullopt);           // ranks differ
  EXPECT_EQ(unify(arr(f32, 1, 'C'), f32), std::nullopt);
  // Inside tuples, element by element.
  EXPECT_EQ(unify(Type::tuple({arr(f32, 1, 'C'), i32}), Type::tuple({arr(f32, 1, 'A'), Type::integer(64, true)})),
            Type::tuple({arr(f32, 1, 'A'), Type::integer(64, true)}));
}

// numba's IntEnumMember.can_convert_to: an IntEnum's member converts to what its integer converts to, at best
// safely; a plain Enum's member converts to nothing else; members of two classes neither convert nor unify.
// unify_pairs of an IntEnum's member and a number is the number where the member converts to it safely.
TEST(TypingRules, EnumMembersConvertAsNumbaConvertsThem) {
  const Type i64 = Type::integer(64, true);
  const Type shape = Type::enum_member("m.Shape", i64, true);
  const Type other = Type::enum_member("m.Other", i64, true);
  const Type color = Type::enum_member("m.Color", i64, false);
  EXPECT_EQ(can_convert(shape, shape), Conversion::Exact);
  EXPECT_EQ(can_convert(shape, i64), Conversion::Safe);
  EXPECT_EQ(can_convert(shape, Type::floating(64)), Conversion::Safe);
  EXPECT_EQ(can_convert(shape, Type::integer(32, true)), Conversion::Unsafe);
  EXPECT_EQ(can_convert(shape, Type::complex(128)), Conversion::Safe);
  EXPECT_EQ(can_convert(i64, shape), Conversion::None);
  EXPECT_EQ(can_convert(shape, other), Conversion::None);
  EXPECT_EQ(can_convert(color, i64), Conversion::None);
  EXPECT_EQ(can_convert(color, color), Conversion::Exact);
  EXPECT_EQ(unify(shape, i64), i64);
  EXPECT_EQ(unify(Type::floating(64), shape), Type::floating(64));
  EXPECT_FALSE(unify(shape, Type::floating(32)).has_value());  // int64 -> float32 is unsafe
  EXPECT_FALSE(unify(shape, other).has_value());
  EXPECT_FALSE(unify(color, i64).has_value());
  EXPECT_EQ(unify(color, color), color);
  EXPECT_EQ(resolve_compare(true, color, color), i64);  // numba's EnumCompare: the values
  EXPECT_FALSE(resolve_compare(false, color, color).has_value());  // no order
  EXPECT_FALSE(resolve_compare(true, color, Type::enum_member("m.Shake", i64, false)).has_value());
}

// bfloat16 with another number: cuda_bf16's operator templates are numba's BinOp cases plus (bfloat16,
// bfloat16), ranked with numba-cuda's Bfloat16 conversions (from floats and wide integers unsafe, from 8-bit
// integers safe; to float32/float64 safe; none with bool or complex). Derived from numba-cuda 0.30.4's
// ext_types.Bfloat16 and typeconv rules; the GPU test compares the values with numba-cuda.
TEST(TypingRules, BFloat16MixedArithmeticRanksAsNumbaCuda) {
  const Type bf = Type::bfloat16(), i64 = Type::integer(64, true), i8 = Type::integer(8, true),
             f32 = Type::floating(32), f64 = Type::floating(64), f16 = Type::floating(16), b = Type::boolean();
  auto result = [](BinOp op, const Type& x, const Type& y) {
    auto r = resolve_binop(op, x, y);
    return r ? r->result.name() : std::string("none");
  };
  for (BinOp op : {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::TrueDiv}) {
    EXPECT_EQ(result(op, bf, bf), "bfloat16");
    EXPECT_EQ(result(op, i64, bf), "float64");  // int64 -> float64 and bfloat16 -> float64 are both safe
    EXPECT_EQ(result(op, bf, i64), "float64");
    EXPECT_EQ(result(op, bf, f64), "float64");
    EXPECT_EQ(result(op, bf, f32), "float32");  // bfloat16 -> float32 safe, float32 exact
    EXPECT_EQ(result(op, i8, bf), "bfloat16");  // int8 -> bfloat16 safe, bfloat16 exact
    EXPECT_EQ(result(op, bf, f16), "float32");  // safe + promote; float32 listed before float64
    EXPECT_EQ(result(op, bf, b), "float32");    // bool -> float32 safe, bfloat16 -> float32 safe
    EXPECT_EQ(result(op, bf, Type::complex(128)), "none");  // a bfloat16 converts to no complex
  }
  const auto mixed = resolve_binop(BinOp::Mul, i64, bf);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_EQ(mixed->lhs, f64);  // both operands are converted to float64 before the multiply
  EXPECT_EQ(mixed->rhs, f64);
  // //, % and ** are numba's own templates only: a bfloat16 converts to float32 (safe) for them.
  EXPECT_EQ(result(BinOp::FloorDiv, bf, bf), "float32");
  EXPECT_EQ(result(BinOp::Mod, bf, bf), "float32");
  EXPECT_EQ(result(BinOp::FloorDiv, bf, i64), "float64");
  EXPECT_EQ(result(BinOp::Pow, bf, bf), "float32");
  // Operators with no float case keep refusing a bfloat16 operand.
  EXPECT_EQ(result(BinOp::BitAnd, bf, i64), "none");
  EXPECT_EQ(result(BinOp::LShift, bf, i64), "none");
}
