// Internal: typing of numba.cuda.fp16.<name>(...) calls (see function_typer.hpp), as numba-cuda types them:
// every argument converts to float16 (numba's single float16 signature accepts any number), and the result
// is float16, or bool for the comparisons.
#include "compiler/kernel_library/fp16_functions.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

Type FunctionTyper::fp16_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::string shown = "fp16." + fname;
  auto f = fp16_function(fname);
  if (!f)
    error(e.loc, shown + " is not a numba.cuda.fp16 function; the fp16 functions cubridge compiles are: " +
                     std::string(fp16_function_names()));
  arity(e, shown, args.size(), static_cast<std::size_t>(f->arity), static_cast<std::size_t>(f->arity));
  e.callee = Callee::Fp16;
  e.target = fname;
  Type half = Type::floating(16);
  e.formals.assign(args.size(), half);
  if (unknown) return Type();
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!args[i].is_scalar() || args[i].is_complex())
      error(e.kids[i + 1]->loc, shown + "(): argument " + std::to_string(i + 1) + " must be a real number (it "
                                    "converts to float16), got " + args[i].name());
  return f->predicate ? Type::boolean() : half;
}

}  // namespace cubridge::compiler::typer_detail
