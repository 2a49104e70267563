// The spelling table: every way the one grammar (cubridge/types/type_spelling.hpp) lets a user write a
// type, with the Numba name it denotes. The types floor, the compiler and the kernel layer test over it,
// so each accepts the same spellings (tests/python/types/test_type_spellings.py holds the Python twin).
#pragma once

#include <array>
#include <string_view>

namespace cubridge::test {

struct SpellingRow {
  std::string_view spelling;
  std::string_view numba_name;  ///< Type::name() of what it denotes
  bool kernel_parameter;        ///< whether a kernel (KernelSignature) takes it
};

inline constexpr std::array<SpellingRow, 31> kSpellings{{
    {"float32", "float32", true},
    {"double", "float64", true},
    {"float", "float64", true},
    {"bool_", "bool", true},
    {"boolean", "bool", true},
    {"bool", "bool", true},
    {"f4", "float32", true},
    {"i8", "int64", true},
    {"intp", "int64", true},
    {"uintp", "uint64", true},
    {"half", "float16", true},
    {"int", "int64", true},
    {"complex", "complex128", true},
    {"c8", "complex64", true},
    {"float32[:, ::1]", "array(float32, 2d, C)", true},
    {"float32[::1, :]", "array(float32, 2d, F)", true},
    {"int16[:, :, :]", "array(int16, 3d, A)", true},
    {"array(float32, 2d, C)", "array(float32, 2d, C)", true},
    {"const float64[:]", "readonly array(float64, 1d, A)", true},
    {"readonly array(int64, 1d, A)", "readonly array(int64, 1d, A)", true},
    {"double[::1]", "array(float64, 1d, C)", true},
    {"float64*", "float64*", true},
    {"const float32 *", "const float32*", true},
    {"void*", "void*", true},
    {"Record(x=float32, y=int32)", "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)", true},
    {"Record(x=float32, y=int32)[::1]",
     "unaligned array(Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False), 1d, C)", true},
    {"UniTuple(int64 x 2)", "UniTuple(int64 x 2)", true},
    {"UniTuple(int64, 2)", "UniTuple(int64 x 2)", true},
    {"Tuple(int64, float64)", "Tuple(int64, float64)", true},
    {"(int64, float32)", "Tuple(int64, float32)", true},
    {"bfloat16[::1]", "array(bfloat16, 1d, C)", true},  // numba.cuda.types.bfloat16 arrays
}};

/// Spellings that name no type, with the part the one error message must quote and what it says.
struct BadSpelling {
  std::string_view spelling;
  std::string_view says;  ///< text the message holds after "unknown argument type '<spelling>': "
};

inline constexpr std::array<BadSpelling, 7> kBadSpellings{{
    {"float31", "'float31' is not a type; accepted: bool, int8..int64"},
    {"float31[:]", "'float31' is not a type; accepted: bool, int8..int64"},
    {"flt*", "'flt' is not a type; accepted: bool, int8..int64"},
    {"bfloat32", "'bfloat32' is not a type; accepted:"},
    {"float32**", "'float32**' is a pointer to a pointer; pass such an address as a uint64 scalar"},
    {"float32[::2]", "'::2' is not a dimension; write ':' (any stride) or '::1' (contiguous)"},
    {"const int32", "'const int32' is not a type; accepted:"},
}};

}  // namespace cubridge::test
