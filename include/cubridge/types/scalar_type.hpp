// THE ONE TABLE of scalar types: every name, size and code by which cubridge knows bool, the integers,
// the floats and the complex types. Every layer and the Python package (_core._scalar_types()) read it;
// no other file lists them. Implements: NumPy's array-interface typestr (CAI v3 "typestr"), DLPack 1.x
// DLDataType, XLA's PrimitiveType, Numba's type names. Constexpr and layer-free: any layer may include it.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cubridge/c/dlpack.h"

namespace cubridge {

/// One enumerator per row of kScalarTypes, in row order. The order is stored: XLA opaque shapes
/// (cubridge/xla/shape.hpp) write a type as its value + 1, so a new type is added at the end.
enum class ScalarType : std::uint8_t {
  Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float16, BFloat16, Float32, Float64, Complex64, Complex128
};

/// One row. Every string is a literal, so `.data()` is NUL-terminated.
struct ScalarTypeInfo {
  ScalarType type;
  std::string_view name;       ///< Numba's name ("float32"): the name every layer prints
  char kind;                   ///< NumPy's kind 'b', 'i', 'u', 'f' or 'c'; '\0' for a type NumPy lacks
  std::uint8_t itemsize;       ///< bytes of one value
  std::string_view typestr;    ///< NumPy's typestr, little-endian ("<f4", "|b1"); empty when kind is '\0'
  std::string_view alias;      ///< the one other name that signatures accept ("intp", "half"), or empty
  std::string_view c_type;     ///< the type in C and CUDA C++ ("int64_t", "__half", "cuFloatComplex")
  CubridgeDLDataType dlpack;   ///< DLPack's {code, bits, lanes}
  std::string_view xla;        ///< XLA's name ("f32", "pred", "bf16")
  std::uint8_t xla_primitive;  ///< XLA's PrimitiveType value (= XLA_FFI_DataType)

  /// Whether NumPy has the type: only such types have a typestr, and only they reach arrays and kernels.
  constexpr bool numpy() const noexcept { return kind != '\0'; }
  /// The typestr without its byte order ("f4", "c16"): a short spelling signatures accept.
  constexpr std::string_view short_typestr() const noexcept { return typestr.empty() ? typestr : typestr.substr(1); }
};

// clang-format off
inline constexpr std::array<ScalarTypeInfo, 15> kScalarTypes{{
//  type                     name          kind itemsize typestr  alias      c_type             dlpack {code, bits, lanes}  xla   XLA primitive
    {ScalarType::Bool,       "bool",       'b', 1,  "|b1",  "boolean", "bool",            {CUBRIDGE_DL_BOOL, 8, 1},      "pred", 1},
    {ScalarType::Int8,       "int8",       'i', 1,  "|i1",  "",        "int8_t",          {CUBRIDGE_DL_INT, 8, 1},       "s8",   2},
    {ScalarType::Int16,      "int16",      'i', 2,  "<i2",  "",        "int16_t",         {CUBRIDGE_DL_INT, 16, 1},      "s16",  3},
    {ScalarType::Int32,      "int32",      'i', 4,  "<i4",  "",        "int32_t",         {CUBRIDGE_DL_INT, 32, 1},      "s32",  4},
    {ScalarType::Int64,      "int64",      'i', 8,  "<i8",  "intp",    "int64_t",         {CUBRIDGE_DL_INT, 64, 1},      "s64",  5},
    {ScalarType::UInt8,      "uint8",      'u', 1,  "|u1",  "",        "uint8_t",         {CUBRIDGE_DL_UINT, 8, 1},      "u8",   6},
    {ScalarType::UInt16,     "uint16",     'u', 2,  "<u2",  "",        "uint16_t",        {CUBRIDGE_DL_UINT, 16, 1},     "u16",  7},
    {ScalarType::UInt32,     "uint32",     'u', 4,  "<u4",  "",        "uint32_t",        {CUBRIDGE_DL_UINT, 32, 1},     "u32",  8},
    {ScalarType::UInt64,     "uint64",     'u', 8,  "<u8",  "uintp",   "uint64_t",        {CUBRIDGE_DL_UINT, 64, 1},     "u64",  9},
    {ScalarType::Float16,    "float16",    'f', 2,  "<f2",  "half",    "__half",          {CUBRIDGE_DL_FLOAT, 16, 1},    "f16",  10},
    {ScalarType::BFloat16,   "bfloat16",   0,   2,  "",     "",        "__nv_bfloat16",   {CUBRIDGE_DL_BFLOAT, 16, 1},   "bf16", 16},
    {ScalarType::Float32,    "float32",    'f', 4,  "<f4",  "",        "float",           {CUBRIDGE_DL_FLOAT, 32, 1},    "f32",  11},
    {ScalarType::Float64,    "float64",    'f', 8,  "<f8",  "",        "double",          {CUBRIDGE_DL_FLOAT, 64, 1},    "f64",  12},
    {ScalarType::Complex64,  "complex64",  'c', 8,  "<c8",  "",        "cuFloatComplex",  {CUBRIDGE_DL_COMPLEX, 64, 1},  "c64",  15},
    {ScalarType::Complex128, "complex128", 'c', 16, "<c16", "",        "cuDoubleComplex", {CUBRIDGE_DL_COMPLEX, 128, 1}, "c128", 18},
}};
// clang-format on

/// The row of `type`.
constexpr const ScalarTypeInfo& scalar_type_info(ScalarType type) noexcept {
  return kScalarTypes[static_cast<std::size_t>(type)];
}

/// The first row for which `pred(row)` holds, or nullptr: the one way a layer looks a type up by the
/// columns it reads.
template <class Pred>
constexpr const ScalarTypeInfo* find_scalar_type(Pred pred) noexcept {
  for (const ScalarTypeInfo& row : kScalarTypes)
    if (pred(row)) return &row;
  return nullptr;
}

/// The row that a signature's type name names: its Numba name, its alias, or its typestr without the
/// byte order ("float32", "half", "f4"); nullptr for any other text.
constexpr const ScalarTypeInfo* scalar_type_spelled(std::string_view text) noexcept {
  if (text.empty()) return nullptr;
  return find_scalar_type([text](const ScalarTypeInfo& row) {
    return row.name == text || row.alias == text || row.short_typestr() == text;
  });
}

namespace scalar_type_detail {
// (NumPy kind, itemsize) -> row, as a grid indexed by letter and log2(itemsize): what an array's
// element type is, asked on every launch, answered without walking the table.
inline constexpr int kSizeSlots = 5;  // itemsizes 1, 2, 4, 8, 16
using NumpyGrid = std::array<std::array<std::int8_t, kSizeSlots>, 26>;
constexpr NumpyGrid numpy_grid() noexcept {
  NumpyGrid grid{};
  for (auto& sizes : grid) sizes.fill(-1);
  for (std::size_t i = 0; i < kScalarTypes.size(); ++i)
    if (kScalarTypes[i].numpy())
      grid[static_cast<std::size_t>(kScalarTypes[i].kind - 'a')]
          [static_cast<std::size_t>(std::countr_zero(unsigned{kScalarTypes[i].itemsize}))] = static_cast<std::int8_t>(i);
  return grid;
}
inline constexpr NumpyGrid kNumpyGrid = numpy_grid();
}  // namespace scalar_type_detail

/// The row of the NumPy type of `kind` and `itemsize` ('f', 4: float32), or nullptr when NumPy's kind
/// and size name no row ('V', 'f' of 3 bytes, ...).
constexpr const ScalarTypeInfo* scalar_type_of_numpy(char kind, std::uint32_t itemsize) noexcept {
  // A power of two, tested without std::has_single_bit: without -mpopcnt that is a libgcc call, and this
  // runs for every array of every launch.
  if (kind < 'a' || kind > 'z' || itemsize == 0 || (itemsize & (itemsize - 1)) != 0) return nullptr;
  const auto slot = static_cast<std::size_t>(std::countr_zero(itemsize));
  if (slot >= static_cast<std::size_t>(scalar_type_detail::kSizeSlots)) return nullptr;
  const std::int8_t row = scalar_type_detail::kNumpyGrid[static_cast<std::size_t>(kind - 'a')][slot];
  return row < 0 ? nullptr : &kScalarTypes[static_cast<std::size_t>(row)];
}

/// The row of a DLPack dtype (code, bits, lanes all equal), or nullptr.
constexpr const ScalarTypeInfo* scalar_type_of_dlpack(CubridgeDLDataType dtype) noexcept {
  return find_scalar_type([dtype](const ScalarTypeInfo& row) {
    return row.dlpack.code == dtype.code && row.dlpack.bits == dtype.bits && row.dlpack.lanes == dtype.lanes;
  });
}

// The row order is the enumerator order (scalar_type_info indexes by it).
static_assert([] {
  for (std::size_t i = 0; i < kScalarTypes.size(); ++i)
    if (static_cast<std::size_t>(kScalarTypes[i].type) != i) return false;
  return true;
}());

}  // namespace cubridge
