// Internal: typing of numba-cuda's fp8 (numba.cuda._internal.cuda_fp8, see function_typer.hpp), as numba-cuda
// types it:
// - fp8_e4m3(x), fp8_e5m2(x), fp8_e8m0(x) take float16/32/64, bfloat16 and the integers (8-bit ones widened,
//   as numba picks the 16-bit constructor); their default constructor (no argument) leaves the value
//   uninitialized in numba-cuda and is refused;
// - an fp8 casts to float16, float32, float64, bfloat16, bool and the integers (cuda_fp8.hpp's conversion
//   operators); it has no arithmetic or compare operators, as in numba-cuda;
// - cvt_float_to_fp8, cvt_double_to_fp8, cvt_bfloat16raw_to_fp8, cvt_float_to_e8m0, cvt_double_to_e8m0,
//   cvt_bfloat16raw_to_e8m0 give the fp8 byte (uint8) and cvt_e8m0_to_bf16raw a bfloat16_raw (its bits in
//   .x, typed as a one-component uint16 vector). Their saturation_t / fp8_interpretation_t / cudaRoundMode
//   arguments must be constants (enum members): the conversion is chosen when the kernel compiles;
// - the paired forms (fp8x2_*, fp8x4_*, cvt_*2_to_*x2) are refused by name.
// fp8 needs compute capability 8.9 (numba-cuda: cuda.is_fp8_supported()).
#include "compiler/kernel_library/fp8_functions.hpp"
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {
namespace {

std::optional<Type> fp8_type_named(std::string_view name) {
  if (name == "fp8_e4m3") return Type::fp8_e4m3();
  if (name == "fp8_e5m2") return Type::fp8_e5m2();
  if (name == "fp8_e8m0") return Type::fp8_e8m0();
  return std::nullopt;
}

// The storage intrinsics: the letter of their value argument ('S' a bfloat16_raw, 'C' a uint8), and the
// enum their second and third arguments come from ("" for none).
struct CvtIntrinsic {
  std::string_view name;
  char from;
  std::string_view third;
};
constexpr CvtIntrinsic kCvt[] = {
    {"cvt_float_to_fp8", 'f', "fp8_interpretation_t"}, {"cvt_double_to_fp8", 'd', "fp8_interpretation_t"},
    {"cvt_bfloat16raw_to_fp8", 'S', "fp8_interpretation_t"}, {"cvt_float_to_e8m0", 'f', "cudaRoundMode"},
    {"cvt_double_to_e8m0", 'd', "cudaRoundMode"}, {"cvt_bfloat16raw_to_e8m0", 'S', "cudaRoundMode"},
    {"cvt_e8m0_to_bf16raw", 'C', ""}};

}  // namespace

int FunctionTyper::fp8_target(const Expr& e, const std::string& what) {
  const auto& cc = prog_.options.cc;
  if (!cc || cc->major * 10 + cc->minor < 89)
    error(e.loc, what + ": fp8 needs compute capability 8.9 or higher (numba-cuda: cuda.is_fp8_supported()); the "
                        "target is " +
                     (cc ? cc->to_string() : std::string("the lowest architecture (no cc given: pass cc=(8, 9) or higher)")));
  return cc->major * 10 + cc->minor;
}

Type FunctionTyper::fp8_call(Expr& e, const std::string& fname, const std::vector<Type>& args, bool unknown) {
  const std::string shown = "cuda_fp8." + fname;
  if (auto t = fp8_type_named(fname)) {
    fp8_target(e, fname + "()");
    if (args.empty())
      error(e.loc, fname + "() with no argument is numba-cuda's default constructor, which leaves the value "
                           "uninitialized; pass the number to convert: " + fname + "(x)");
    arity(e, fname, args.size(), 1, 1);
    e.callee = Callee::TypeCast;
    e.target = t->name();
    if (unknown) return Type();
    const Type& a = args[0];
    if (!(a.is_int() || a.is_float() || a.is_bfloat16()))
      error(e.loc, "cannot convert " + a.name() + " to " + fname + " (" + fname +
                       "() takes float16, float32, float64, bfloat16 and integers, as numba-cuda's cuda_fp8 does)");
    return *t;
  }
  const CvtIntrinsic* cvt = nullptr;
  for (const auto& c : kCvt)
    if (c.name == fname) cvt = &c;
  if (!cvt)
    error(e.loc, shown + " is not an fp8 binding cubridge compiles; it compiles fp8_e4m3, fp8_e5m2 and fp8_e8m0 "
                         "(constructors and casts), cvt_float_to_fp8, cvt_double_to_fp8, cvt_bfloat16raw_to_fp8, "
                         "cvt_float_to_e8m0, cvt_double_to_e8m0, cvt_bfloat16raw_to_e8m0 and cvt_e8m0_to_bf16raw (the "
                         "paired fp8x2/fp8x4 forms are not compiled yet)");
  const int cc = fp8_target(e, shown + "()");
  const bool unary = cvt->third.empty();
  arity(e, shown, args.size(), unary ? 1 : 3, unary ? 1 : 3);
  const Type raw = Type::vector(Type::integer(16, false), 1);
  const Type value = cvt->from == 'S' ? raw : fp8_letter_type(cvt->from);
  e.callee = Callee::Fp8;
  e.formals = {value};
  if (!unary) e.formals.insert(e.formals.end(), {Type::integer(64, true), Type::integer(64, true)});
  // the enum arguments: constants, each in its enum's range
  std::vector<std::int64_t> members;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const Expr& written = *e.kids[i + 1];  // an IntEnum's member is read as its integer: an Unwrap of it
    const Expr& arg = written.kind == ExprKind::Unwrap ? *written.kids[0] : written;
    const std::string_view enum_name = i == 1 ? std::string_view("saturation_t") : cvt->third;
    const std::int64_t hi = enum_name == "cudaRoundMode" ? 3 : 1;
    const bool integral = arg.constant && (arg.constant->type.is_int() || arg.constant->type.is_int_enum_member());
    if (!integral || arg.constant->i < 0 || arg.constant->i > hi)
      error(arg.loc, shown + "(): argument " + std::to_string(i + 1) + " must be a member of " + std::string(enum_name) +
                         " (a constant such as " + std::string(enum_name) +
                         (enum_name == "saturation_t" ? ".SATFINITE" : enum_name == "cudaRoundMode" ? ".cudaRoundZero" : ".E4M3") +
                         "): cubridge chooses the conversion when it compiles the kernel");
    members.push_back(arg.constant->i);
  }
  e.target = fname;
  for (std::int64_t m : members) e.target += " " + std::to_string(m);
  if (fname.ends_with("_to_e8m0") && cvt->from != 'S' &&
      !fp8_cvt_to_e8m0(cvt->from, static_cast<Fp8Saturation>(members[0]), static_cast<CudaRoundMode>(members[1]), cc))
    error(e.kids[3]->loc, shown + "(): cuda_fp8.hpp's __nv_" + fname.substr(4) + " takes cudaRoundMode.cudaRoundZero "
                              "or cudaRoundMode.cudaRoundPosInf only (it asserts the rounding), got member " +
                              std::to_string(members[1]));
  if (unknown) return Type();
  const Type& a = args[0];
  const bool ok = cvt->from == 'S' ? a == raw : a.is_int() || a.is_float();
  if (!ok)
    error(e.kids[1]->loc, shown + "(): argument 1 must be a " +
                              (cvt->from == 'S' ? std::string("bfloat16_raw (what cvt_e8m0_to_bf16raw returns)") : value.name()) +
                              " (or a number that converts to it), got " + a.name());
  return cvt->name == "cvt_e8m0_to_bf16raw" ? raw : Type::integer(8, false);
}

Type FunctionTyper::fp8_cast(Expr& e, const Type& to, const std::vector<Type>& args, bool unknown) {
  fp8_target(e, to.name() + "()");
  arity(e, to.name(), args.size(), 1, 1);
  e.callee = Callee::TypeCast;
  e.target = to.name();
  if (unknown) return Type();
  if (!(to.is_int() || to.is_bool() || to.is_float() || to.is_bfloat16()))
    error(e.loc, "cannot convert " + args[0].name() + " to " + to.name() +
                     " (an fp8 converts to float16, float32, float64, bfloat16, bool and integers)");
  return to;
}

}  // namespace cubridge::compiler::typer_detail
