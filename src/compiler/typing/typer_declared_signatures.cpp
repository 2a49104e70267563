// Internal: calls of module functions that carry their own signatures (numba-cuda's
// jit(sigs, device=True)); see function_typer.hpp. numba types such a call against the declared
// signatures only: the one whose parameters the arguments convert to best (fewest unsafe, then safe,
// then promoting conversions; the first declared wins ties) is compiled, and the arguments are cast to
// it, unsafely where needed (1.5 -> int64 is 1), as numba-cuda does for device functions.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

// An array converts to a declared array parameter of the same dtype and rank when the layouts agree or
// the parameter's is 'A', and a writable array to a read-only parameter; anything else must match.
Conversion argument_conversion(const Type& from, const Type& to) {
  if (from == to) return Conversion::Exact;
  if (from.is_array() && to.is_array()) {
    bool same = from.dtype() == to.dtype() && from.ndim() == to.ndim();
    bool layout = from.layout() == to.layout() || to.layout() == 'A';
    bool mutability = !from.readonly() || to.readonly();
    return same && layout && mutability ? Conversion::Safe : Conversion::None;
  }
  if (from.is_array() || to.is_array()) return Conversion::None;
  return can_convert(from, to);
}

}  // namespace

const Signature& FunctionTyper::declared_signature(Expr& e, const FunctionDef& def, const std::vector<Signature>& sigs,
                                                   const std::vector<Type>& args) {
  const Signature* best = nullptr;
  std::array<int, 3> best_score{};
  for (const Signature& s : sigs) {
    if (s.args.size() != args.size()) continue;
    std::array<int, 3> score{};
    bool ok = true;
    for (std::size_t i = 0; i < args.size() && ok; ++i) {
      Conversion c = argument_conversion(args[i], s.args[i]);
      ok = c != Conversion::None;
      if (c == Conversion::Unsafe) ++score[0];
      if (c == Conversion::Safe) ++score[1];
      if (c == Conversion::Promote) ++score[2];
    }
    if (ok && (!best || score < best_score)) {
      best = &s;
      best_score = score;
    }
  }
  if (!best) {
    std::string given, declared;
    for (std::size_t i = 0; i < args.size(); ++i) given += (i ? ", " : "") + args[i].name();
    for (const Signature& s : sigs) declared += (declared.empty() ? "" : ", ") + s.str();
    // numba's words first (its typing error for a dispatcher whose signatures take none of the arguments)
    error(e.loc, "Invalid use of type(CUDADispatcher(<function " + def.name + ">)) with parameters (" + given + "): " +
                     def.name + "(" + given + "): no declared signature of '" + def.name + "' accepts these arguments; " +
                     "it was declared with " + declared);
  }
  return *best;
}

}  // namespace cubridge::compiler::typer_detail
