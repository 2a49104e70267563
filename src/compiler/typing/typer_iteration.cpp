// Internal: typing of for loops (see function_typer.hpp). Every iterable gets an iterator kind and the
// type of its items, as numba's getiter/iternext give them: range() counts in int32, int64 or uint64;
// an array yields its elements (1-d) or views of its rows in layout 'A'; a homogeneous tuple (numba's
// UniTuple) yields its items (a heterogeneous one needs numba's literal_unroll, rewritten before typing
// by literal_unroll.cpp); enumerate() yields (int64 index, item) and zip() a tuple of items, over any of these.
#include <array>

#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {
constexpr const char* kIterables =
    "for loops iterate over range(), arrays, tuples whose items have one type, and enumerate() and zip() of them";

bool is_builtin_call(const Expr& it, std::string_view name) {
  return it.kind == ExprKind::Call && it.kids[0]->kind == ExprKind::Name && it.kids[0]->name == name;
}
}  // namespace

void FunctionTyper::for_loop(Stmt& s) {
  Type item = iterable(*s.value);
  Expr& target = *s.targets[0];
  auto names_only = [](auto&& self, const Expr& t) -> bool {
    if (t.kind == ExprKind::Name) return true;
    if (t.kind != ExprKind::Tuple) return false;
    return std::all_of(t.kids.begin(), t.kids.end(), [&](const ExprPtr& k) { return self(self, *k); });
  };
  if (!names_only(names_only, target))
    error(target.loc, "the target of a for loop must be a name or a tuple of names (for i, v in enumerate(a))");
  bind_target(target, item, s.loc);
}

Type FunctionTyper::iterable(Expr& it) {
  bool builtin = it.kind == ExprKind::Call && it.kids[0]->kind == ExprKind::Name &&
                 slot_of(it.kids[0]->name) < 0 && !prog_.functions.count(it.kids[0]->name);
  if (builtin && is_builtin_call(it, "range")) return range_iterable(it);
  if (builtin && is_builtin_call(it, "reversed"))
    error(it.loc, "reversed() is not supported (numba-cuda does not type it in kernels either); count down with "
                  "range(n - 1, -1, -1)");
  if (builtin && is_builtin_call(it, "enumerate")) {
    std::size_t n = it.kids.size() - 1;
    bool keyword_ok = it.keywords.empty() || (it.keywords.size() == 1 && it.keywords[0] == "start" && n == 2);
    if (!keyword_ok) error(it.loc, "enumerate() takes an iterable and an optional start (enumerate(a, 1), start=1)");
    if (n < 1 || n > 2) error(it.loc, "enumerate() takes 1 or 2 arguments, got " + std::to_string(n));
    Type inner = iterable(*it.kids[1]);
    bool unknown = inner.is_unknown();
    if (n == 2) {
      Type start = expr(*it.kids[2]);
      if (start.is_unknown()) unknown = true;
      else if (!start.is_int()) error(it.kids[2]->loc, "enumerate()'s start must be an integer, got " + start.name());
    }
    if (unknown) return Type();
    it.iter = IterKind::Enumerate;
    it.item = Type::tuple({i64(), inner});  // numba counts in intp whatever the start's type
    return it.item;
  }
  if (builtin && is_builtin_call(it, "zip")) {
    if (!it.keywords.empty()) error(it.loc, "zip() takes no keyword arguments here");
    if (it.kids.size() < 2) error(it.loc, "zip() needs at least one iterable");
    std::vector<Type> items;
    bool unknown = false;
    for (std::size_t k = 1; k < it.kids.size(); ++k) {
      items.push_back(iterable(*it.kids[k]));
      unknown = unknown || items.back().is_unknown();
    }
    if (unknown) return Type();
    it.iter = IterKind::Zip;
    it.item = Type::tuple(std::move(items));
    return it.item;
  }
  Type t = expr(it);
  if (t.is_unknown()) return t;
  if (t.is_array()) {
    if (t.ndim() == 0)
      error(it.loc, "cannot iterate over a 0-d array (" + t.name() + "; NumPy raises TypeError: iteration over a 0-d "
                    "array); read its element with a[()]");
    it.iter = IterKind::Array;
    it.item = t.ndim() == 1 ? t.dtype() : t.with_array(t.ndim() - 1, 'A', t.readonly());
    return it.item;
  }
  if (t.is_tuple()) {
    const std::vector<Type>& items = t.elements();
    if (!std::all_of(items.begin(), items.end(), [&](const Type& e) { return e == items[0]; }))
      error(it.loc, "cannot iterate over the heterogeneous tuple " + t.name() +
                         " (numba-cuda needs literal_unroll for that: for v in literal_unroll(t)); " + kIterables);
    it.iter = IterKind::Tuple;
    it.item = items[0];
    return it.item;
  }
  error(it.loc, "cannot iterate over a value of type " + t.name() + "; " + kIterables);
}

Type FunctionTyper::range_iterable(Expr& it) {
  if (!it.keywords.empty()) error(it.loc, "range() takes no keyword arguments");
  std::size_t n = it.kids.size() - 1;
  if (n < 1 || n > 3) error(it.loc, "range expected 1 to 3 arguments, got " + std::to_string(n));
  std::vector<Type> args;
  bool unknown = false;
  for (std::size_t i = 1; i <= n; ++i) {
    Type t = expr(*it.kids[i]);
    if (t.is_unknown()) unknown = true;
    else if (!(t.is_int() || t.is_bool()))
      error(it.kids[i]->loc, "range() arguments must be integers, got " + t.name());
    args.push_back(t);
  }
  if (unknown) return Type();
  // Numba's Range cases: all int32 -> range_state32, all int64 -> range_state64, all uint64 ->
  // unsigned_range_state64, chosen by the usual score.
  const Type cands[] = {Type::integer(32, true), i64(), u64()};
  std::array<int, 3> best{};
  int best_i = -1;
  for (int c = 0; c < 3; ++c) {
    std::array<int, 3> score{};
    bool ok = true;
    for (const Type& a : args) {
      Conversion k = can_convert(a, cands[c]);
      if (k == Conversion::None) ok = false;
      if (k == Conversion::Unsafe) ++score[0];
      if (k == Conversion::Safe) ++score[1];
      if (k == Conversion::Promote) ++score[2];
    }
    if (ok && (best_i < 0 || score < best)) {
      best = score;
      best_i = c;
    }
  }
  it.iter = IterKind::Range;
  it.item = cands[best_i];
  return it.item;
}

}  // namespace cubridge::compiler::typer_detail
