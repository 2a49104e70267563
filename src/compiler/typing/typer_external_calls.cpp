// Internal: typing of calls of external device functions (numba-cuda's cuda.declare_device; see
// function_typer.hpp). numba types such a call against the one declared signature: each argument converts
// to its parameter's type as numba converts arguments of a call (unsafely where needed: int64 -> int32),
// the result is the declared return type, and a Numba-ABI function's status makes the caller able to
// return early, as numba-cuda's callers propagate it.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

// The types an external function's parameters and result may have: numbers other than complex and C
// pointers, which pass in one register under both ABIs; the result may also be void.
bool passes_by_value(const Type& t) { return (t.is_scalar() && !t.is_complex()) || t.is_pointer(); }

// A pointer argument converts to a parameter pointing to the same type, or to void*, and not from a pointer
// to const to a pointer to non-const.
Conversion pointer_conversion(const Type& from, const Type& to) {
  if (from == to) return Conversion::Exact;
  const bool pointee = from.pointee() == to.pointee() || to.pointee().is_none();
  return pointee && (!from.readonly() || to.readonly()) ? Conversion::Safe : Conversion::None;
}

}  // namespace

Type FunctionTyper::external_call(Expr& e, const std::string& name, const ExternalFunction& f) {
  const Signature& sig = f.signature;
  std::string shown = name + "(" + sig.str() + ", declared with cuda.declare_device as '" + f.symbol + "')";
  for (std::size_t i = 0; i < sig.args.size(); ++i)
    if (!passes_by_value(sig.args[i]) && !(sig.args[i].is_foreign() && f.abi == Abi::numba))
      error(e.loc, shown + ": parameter " + std::to_string(i + 1) + " is " + sig.args[i].name() +
                       ", which cubridge cannot pass to an external function; declare numbers (int32, float64, "
                       "bool, ...) or C pointers (CPointer(int32), 'int32*')");
  const Type result = sig.result.value_or(Type::none());
  // A numba extension type's StructModel of numbers (Numba ABI only: numba's lowering) comes back through
  // numba's result pointer and is passed member by member, as numba's calling convention passes it.
  const bool foreign_result = result.is_foreign() && f.abi == Abi::numba;
  if (!result.is_none() && !passes_by_value(result) && !foreign_result)
    error(e.loc, shown + ": the return type " + result.name() + " cannot come back from an external function; "
                         "declare a number, a C pointer or void");
  bool unknown = false;
  std::vector<Type> args = args_of(e, unknown);
  arity(e, name, args.size(), sig.args.size(), sig.args.size());
  e.callee = Callee::External;
  e.target = name;
  e.formals = sig.args;
  if (f.abi == Abi::numba) fn_.can_raise = true;  // a non-zero status returns from the caller
  if (unknown) return Type();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Type& to = sig.args[i];
    const Conversion c = args[i].is_pointer() && to.is_pointer() ? pointer_conversion(args[i], to)
                         : args[i].is_scalar() && to.is_scalar() ? can_convert(args[i], to)
                         : args[i].is_foreign() && args[i] == to ? Conversion::Exact
                                                                 : Conversion::None;
    if (c == Conversion::None)
      error(e.kids[i + 1]->loc, shown + ": argument " + std::to_string(i + 1) + " is " + args[i].name() +
                                    ", which does not convert to " + to.name());
  }
  return result;
}

}  // namespace cubridge::compiler::typer_detail
