// Internal: numba-cuda's CUDA vector types (numba.cuda.float32x4, numba.cuda.short2, ...), typed as
// numba-cuda's vector_types.py types them:
// - the types are <int8..int64|uint8..uint64|float32|float64>x<1..4>, also named by C's aliases (char,
//   short, int, long, longlong, uchar, ushort, uint, ulong, ulonglong, float, double + count; numpy's sizes
//   on Linux x86-64: long is 64 bits);
// - the constructor takes numbers and vectors of the same base type whose components add up to the count
//   (float32x3(float32x2(...), 1.0)); numbers convert to the base type, vectors must match it exactly;
// - v.x, v.y, v.z, v.w read the components the type has.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {
namespace {

constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"char", "int8"},       {"short", "int16"},  {"int", "int32"},      {"long", "int64"},
    {"longlong", "int64"},  {"uchar", "uint8"},  {"ushort", "uint16"},  {"uint", "uint32"},
    {"ulong", "uint64"},    {"ulonglong", "uint64"}, {"float", "float32"}, {"double", "float64"}};

std::optional<Type> base_named(std::string_view base) {
  for (const auto& [alias, numba] : kAliases)
    if (alias == base) base = numba;
  auto t = parse_type_name(base);
  if (!t || !(t->is_int() || (t->is_float() && t->bits() >= 32))) return std::nullopt;
  return t;
}

}  // namespace

std::optional<Type> vector_type_named(std::string_view name) {
  if (name.size() < 2) return std::nullopt;
  const char last = name.back();
  if (last < '1' || last > '4') return std::nullopt;
  std::string_view base = name.substr(0, name.size() - 1);
  if (base.ends_with('x')) {  // float32x4: only the numba spelling has the 'x'
    auto t = base_named(base.substr(0, base.size() - 1));
    if (!t || base.substr(0, base.size() - 1) != t->name()) return std::nullopt;
    return Type::vector(*t, last - '0');
  }
  for (const auto& [alias, numba] : kAliases)
    if (alias == base) return Type::vector(*base_named(numba), last - '0');
  return std::nullopt;
}

Type FunctionTyper::vector_call(Expr& e, const Type& vector, const std::vector<Type>& args, bool unknown) {
  const std::string shown = vector.name() + "()";
  if (!e.keywords.empty()) error(e.loc, shown + " takes no keyword arguments");
  e.callee = Callee::Vector;
  e.target = vector.name();
  if (unknown) return Type();
  const Type& base = vector.elements()[0];
  std::size_t components = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Type& a = args[i];
    if (a.is_vector()) {
      if (a.elements()[0] != base)
        error(e.kids[i + 1]->loc, shown + ": argument " + std::to_string(i + 1) + " is a " + a.name() +
                                      "; a vector argument must have the base type " + base.name());
      components += a.elements().size();
    } else if (a.is_real()) {
      components += 1;
    } else {
      error(e.kids[i + 1]->loc, shown + ": argument " + std::to_string(i + 1) + " must be a number or a " +
                                    base.name() + " vector, got " + a.name());
    }
  }
  if (components != vector.elements().size())
    error(e.loc, shown + " takes numbers and " + base.name() + " vectors with " + std::to_string(vector.elements().size()) +
                     " components in all, got " + std::to_string(components));
  return vector;
}

Type FunctionTyper::vector_attribute(Expr& e, const Type& vector) {
  auto i = std::string_view("xyzw").find(e.name);
  if (e.name.size() != 1 || i == std::string_view::npos || i >= vector.elements().size())
    error(e.loc, "a " + vector.name() + " has no attribute '" + e.name + "'; it has " +
                     std::string("x, y, z, w").substr(0, 3 * vector.elements().size() - 2));
  return vector.elements()[i];
}

}  // namespace cubridge::compiler::typer_detail
