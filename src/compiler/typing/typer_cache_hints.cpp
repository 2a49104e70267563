// Internal: typing of numba-cuda's cache-hinted loads and stores (see function_typer.hpp):
// cuda.ldca/ldcg/ldcs/ldlu/ldcv(array, i) read one element with PTX's ld.global.<hint>, and
// cuda.stcg/stcs/stwb/stwt(array, i, value) write one with st.global.<hint>. The rules are numba-cuda's
// (cache_hints.py): an array of integers or floats, one integer index for a 1-d array or a UniTuple of
// ndim integers (a C pointer: one integer), the value cast to the element type; the refusals carry
// numba-cuda's words.
#include <span>

#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {
constexpr const char* kLoads[] = {"ldca", "ldcg", "ldcs", "ldlu", "ldcv"};
constexpr const char* kStores[] = {"stcg", "stcs", "stwb", "stwt"};

bool one_of(std::string_view name, std::span<const char* const> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}
}  // namespace

bool FunctionTyper::is_cache_hint(std::string_view name) {
  return one_of(name, kLoads) || one_of(name, kStores);
}

Type FunctionTyper::cache_hint(Expr& e, const Intrinsic& in) {
  const std::string& name = in.name;
  const std::string& shown = in.shown;
  bool store = one_of(name, kStores);
  if (!e.keywords.empty()) error(e.loc, shown + "() takes no keyword arguments");
  arity(e, shown, e.kids.size() - 1, store ? 3 : 2, store ? 3 : 2);
  Type arr = expr(*e.kids[1]);
  Type index = expr(*e.kids[2]);
  Type value = store ? expr(*e.kids[3]) : Type::none();
  if (arr.is_unknown() || index.is_unknown() || value.is_unknown()) return Type();
  if (!arr.is_array() && !arr.is_pointer())
    error(e.kids[1]->loc, name + " operates on arrays or pointers. Got type " + arr.name());
  if (arr.is_pointer() && arr.pointee().is_none())
    error(e.kids[1]->loc, name + " requires array of integer or float type, got void (a void* has no element type)");
  // numba-cuda's _validate_arguments: an integer for a pointer or a 1-d array, else a UniTuple of ndim integers.
  const int ndim = arr.is_pointer() ? 1 : arr.ndim();
  std::vector<Type> idx;
  if (arr.is_pointer()) {
    if (!index.is_int()) error(e.kids[2]->loc, "Expected an integer index, got " + index.name());
    idx = {i64()};
  } else if (index.is_int()) {
    if (ndim != 1) error(e.kids[2]->loc, "Expected " + std::to_string(ndim) + " indices, got a scalar");
    idx = {index};
  } else if (index.is_tuple() && !index.elements().empty()) {
    const auto& parts = index.elements();
    bool uniform = std::all_of(parts.begin(), parts.end(), [&](const Type& p) { return p == parts[0]; });
    if (uniform && static_cast<int>(parts.size()) != ndim)
      error(e.kids[2]->loc, "Expected " + std::to_string(ndim) + " indices, got " + std::to_string(parts.size()));
    if (uniform && parts[0].is_int()) idx = parts;
  }
  if (idx.empty()) error(e.kids[2]->loc, index.name() + " is not a valid index");
  const Type d = arr.is_pointer() ? arr.pointee() : arr.dtype();
  if (!d.is_int() && !d.is_float())
    error(e.kids[1]->loc, name + " requires array of integer or float type, got " + d.name());
  if (store) {
    if (!value.is_scalar() || value.is_complex())
      error(e.kids[3]->loc, shown + "(): the value must be a real number (it is cast to " + d.name() + "), got " +
                                value.name());
    const Expr& a = *e.kids[1];
    if (arr.readonly())
      error(a.loc, shown + "() cannot store into " +
                       (a.kind == ExprKind::Name ? "'" + a.name + "'" : std::string("this array")) +
                       ": it is " + (arr.is_pointer() ? "a pointer to const (" : "a read-only array (") + arr.name() + ")");
  }
  e.callee = Callee::Intrinsic;
  e.formals = idx;
  return store ? Type::none() : d;
}

}  // namespace cubridge::compiler::typer_detail
