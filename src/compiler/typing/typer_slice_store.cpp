// Internal: typing of slice stores (see function_typer.hpp): a[1:4] = b[0:3], out[i, :] = 0.0, a[i] = row.
// numba's SetItemBuffer rule: when the index names a view, the value may be a number that converts to
// the dtype (broadcast to every element), an array whose dtype converts (any rank: shapes are matched by
// broadcasting at run time), or, for a 1-d view, a homogeneous tuple of such numbers.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

void FunctionTyper::slice_store(Expr& target, const Type& value, const std::string& what) {
  const Type& view = target.type;
  if (value.is_unknown()) return;
  auto refuse = [&](const std::string& why) {
    error(target.loc, "cannot store a value of type " + value.name() + " into a slice of " + what + " (" +
                          view.name() + "): " + why);
  };
  const char* accepted = "a slice takes a number, an array (broadcast to the slice's shape) or, in 1-d, a "
                         "tuple of numbers";
  if (value.is_scalar()) {
    if (can_convert(value, view.dtype()) == Conversion::None)
      refuse(value.name() + " does not convert to " + view.dtype().name());
    return;
  }
  if (value.is_array()) {
    if (can_convert(value.dtype(), view.dtype()) == Conversion::None)
      refuse("its dtype " + value.dtype().name() + " does not convert to " + view.dtype().name());
    fn_.can_raise = true;  // ValueError when the shapes do not broadcast, MemoryError without scratch memory
    return;
  }
  if (value.is_tuple()) {
    const std::vector<Type>& items = value.elements();
    bool uniform = std::all_of(items.begin(), items.end(), [&](const Type& t) { return t == items[0]; });
    if (!uniform) refuse("its items have different types; " + std::string(accepted));
    if (!items[0].is_scalar() || can_convert(items[0], view.dtype()) == Conversion::None)
      refuse("its items do not convert to " + view.dtype().name());
    if (view.ndim() != 1) refuse("a tuple fills a 1-d slice only");
    fn_.can_raise = true;  // ValueError when the lengths differ
    return;
  }
  refuse(accepted);
}

}  // namespace cubridge::compiler::typer_detail
