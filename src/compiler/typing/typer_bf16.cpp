// Internal: typing of numba-cuda's bfloat16 (see function_typer.hpp), as numba-cuda types it:
// - cuda_bf16's bindings (numba.cuda.bf16.hadd is numba.cuda._internal.cuda_bf16.__hadd) take the types of
//   their C signatures; a number passed for a bfloat16 converts as the constructor converts it;
// - bfloat16(x) takes float16/32/64 and the integers (8-bit ones widened, as numba picks the int16 case);
// - a bfloat16 casts to float32, float64, bool and the integers (cuda_bf16's conversion operators), not to
//   float16 or complex, for which numba-cuda has no cast;
// - math.trunc, ceil, floor, sqrt, log, log10, cos, sin, tanh, exp, exp2 on a bfloat16 are numba-cuda's
//   overloads (htrunc, ...); other math functions on a bfloat16 are refused by name.
// - an integer constant passed for a bfloat16 is refused: numba-cuda types it as a literal, and its
//   literal-to-bfloat16 cast keeps the low half of the float32's bits (not the value);
// bfloat16 needs compute capability 8.0 (numba-cuda: cuda.is_bfloat16_supported()).
#include "compiler/kernel_library/bf16_functions.hpp"
#include "compiler/typing/function_typer.hpp"
#include "compiler/typing/typing_rules.hpp"

namespace cubridge::compiler::typer_detail {

int FunctionTyper::bf16_target(const Expr& e, const std::string& what) { return bf16_target_at(e.loc, what); }

int FunctionTyper::bf16_target_at(SourceLoc loc, const std::string& what) {
  const auto& cc = prog_.options.cc;
  if (!cc || cc->major < 8)
    error(loc, what + ": bfloat16 needs compute capability 8.0 or higher (numba-cuda: "
                        "cuda.is_bfloat16_supported()); the target is " +
                     (cc ? cc->to_string() : std::string("the lowest architecture (no cc given: pass cc=(8, 0) or higher)")));
  return cc->major * 10 + cc->minor;
}

Type FunctionTyper::bf16_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::string shown = "cuda_bf16." + fname;
  auto f = bf16_function(fname, bf16_target(e, shown));
  if (!f)
    error(e.loc, shown + " is not a bfloat16 binding cubridge compiles; it compiles " +
                     std::string(bf16_function_families()));
  std::size_t n = f->signature.size() - 1;
  arity(e, shown, args.size(), n, n);
  e.callee = Callee::Bf16;
  e.target = fname;
  e.formals.clear();
  for (std::size_t i = 0; i < n; ++i) e.formals.push_back(bf16_letter_type(f->signature[i + 1]));
  if (unknown) return Type();
  for (std::size_t i = 0; i < n; ++i) {
    const Type& want = e.formals[i];
    const Expr& arg = *e.kids[i + 1];
    const bool int_constant = args[i].is_int() && (arg.kind == ExprKind::Int || arg.constant != nullptr ||
                                                   (arg.kind == ExprKind::Unary && arg.kids[0]->kind == ExprKind::Int));
    if (want.is_bfloat16() && int_constant)  // numba-cuda types it as a literal, whose cast to bfloat16 differs
      error(arg.loc, shown + "(): argument " + std::to_string(i + 1) + " is an integer constant, which numba-cuda "
                             "converts to bfloat16 by keeping the low 16 bits of its float32 (cuda_bf16.py's "
                             "IntegerLiteral cast), not by value; pass bfloat16(<constant>) for the value");
    bool ok = want.is_bfloat16() ? bf16_convertible(args[i], want)
                                 : args[i] == want || (args[i].is_bfloat16() ? bf16_convertible(args[i], want)
                                                                              : args[i].is_real());
    if (!ok)
      error(e.kids[i + 1]->loc, shown + "(): argument " + std::to_string(i + 1) + " must be a " + want.name() +
                                    " (or a number that converts to it), got " + args[i].name());
  }
  return bf16_letter_type(f->signature[0]);
}

Type FunctionTyper::bf16_math_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  std::string_view binding = bf16_math_function(fname);
  if (binding.empty())
    error(e.loc, "math." + fname + " on a bfloat16 is not supported: numba-cuda overloads only math.trunc, ceil, "
                                   "floor, sqrt, log, log10, cos, sin, tanh, exp and exp2 for bfloat16 (convert "
                                   "to float32 first: math." + fname + "(float32(x)))");
  return bf16_call(e, std::string(binding), args, unknown);
}

Type FunctionTyper::bf16_cast(Expr& e, const Type& to, const std::vector<Type>& args, bool unknown) {
  if (args.size() == 1 && args[0].is_fp8()) return fp8_cast(e, to, args, unknown);  // cuda_fp8's operator __nv_bfloat16
  std::string shown = to.name();
  if (!args.empty() && (to.is_bfloat16() || args[0].is_bfloat16())) bf16_target(e, shown + "()");
  arity(e, shown, args.size(), 1, 1);
  e.callee = Callee::TypeCast;
  e.target = to.name();
  if (unknown) return Type();
  if (!bf16_convertible(args[0], to))
    error(e.loc, "cannot convert " + args[0].name() + " to " + to.name() +
                     (to.is_bfloat16() ? " (bfloat16() takes float16, float32, float64 and integers)"
                                       : " (a bfloat16 converts to float32, float64, bool and integers)"));
  return to;
}

}  // namespace cubridge::compiler::typer_detail
