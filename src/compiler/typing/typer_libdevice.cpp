// Internal: typing of numba.cuda.libdevice.<name>(...) calls (see function_typer.hpp), as numba-cuda types them:
// one signature per function (libdevice_functions.hpp); an argument converts to its parameter's type when
// numba converts it at all (float32 to float64, an int to a float, also a float to an int), output pointers
// come back in a tuple after the result.
#include "compiler/kernel_library/libdevice_functions.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::libdevice_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::string shown = "libdevice." + fname;
  auto f = libdevice_function(fname);
  if (!f)
    error(e.loc, shown + " is not a libdevice function numba-cuda offers (numba.cuda.libdevice has the __nv_ "
                         "functions of NVIDIA's libdevice, without the prefix: sin, sinf, sincos, frexp, popc, ...)");
  std::vector<Type> formals = f->inputs();
  arity(e, shown, args.size(), formals.size(), formals.size());
  e.callee = Callee::Libdevice;
  e.target = fname;
  e.formals = formals;
  if (unknown) return Type();
  for (std::size_t i = 0; i < args.size(); ++i)
    if (can_convert(args[i], formals[i]) == Conversion::None) {
      std::string sig;
      for (std::size_t k = 0; k < formals.size(); ++k) sig += (k ? ", " : "") + formals[k].name();
      error(e.kids[i + 1]->loc, shown + "(" + sig + "): argument " + std::to_string(i + 1) + " is " + args[i].name() +
                                    ", which does not convert to " + formals[i].name());
    }
  return f->returned();
}

}  // namespace cubridge::compiler::typer_detail
