// The parameter list of a kernel, read from a signature in the one grammar (cubridge/types/signature.hpp:
// "void(float32[:, ::1], const float32*, int64)") and flattened to the PTX parameters that the Numba ABI gives each argument. Implements: the Numba
// kernel ABI: an N-d array is meminfo, parent, nitems, itemsize, data, shape[N], strides[N] (5 + 2N
// parameters of 8 bytes); scalars keep their exact type; complex values are two parameters; plus the
// C ABI's pointer parameters of CUDA C++ kernels ("const float32*", "void*": one 8-byte parameter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/array/dtype.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "cubridge/types/signature.hpp"

namespace cubridge {

// Kernel parameters take the scalar types that NumPy has (ScalarTypeInfo::numpy()): every row but bfloat16.

/// "float32", "int64", "bool", ... (Numba's names).
const char* scalar_type_name(ScalarType t) noexcept;
/// Bytes of one element (complex64: 8).
std::uint32_t scalar_type_size(ScalarType t) noexcept;
/// The NumPy typestr kind and size of the type, in this machine's byte order.
DType scalar_type_dtype(ScalarType t) noexcept;
/// The scalar type of an array element, or nullopt for dtypes no kernel parameter has ('V', swapped). Inline:
/// asked twice per array of every launch (the specialization's key and the argument's check).
inline std::optional<ScalarType> scalar_type_of(const DType& dtype) noexcept {
  if (!dtype.native()) return std::nullopt;
  // bfloat16's kind ('E') is in no NumPy row: asked after them.
  if (const ScalarTypeInfo* row = scalar_type_of_numpy(dtype.kind, dtype.itemsize)) return row->type;
  if (dtype == bfloat16_dtype()) return ScalarType::BFloat16;
  return std::nullopt;
}

/// One parameter as the user sees it: a scalar, an array of `ndim` dimensions (Numba ABI), a pointer
/// to the first element of a contiguous array (C ABI, as CUDA C++ kernels take them), or one record
/// (Numba ABI: the address of a structured scalar, e.g. numba.cuda.from_record_like's DeviceRecord).
struct ParamKind {
  enum class Kind : std::uint8_t { Scalar, Array, Pointer, Record };
  Kind kind = Kind::Scalar;
  ScalarType type = ScalarType::Float32;  // the scalar type, the array's element type, or the pointee
  int ndim = 0;                           // arrays only
  char layout = 'A';                      // arrays only: 'C', 'F' or 'A' (any strides)
  bool written = true;                    // arrays and pointers: false for `const` / `readonly` ones
  bool any_pointee = false;               // pointers only: `void*`, which takes arrays of any dtype
  /// Records and arrays of records (NumPy structured dtypes): Numba's spelling of the record,
  /// "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)", and its item size; such an
  /// array takes any CAI array of typestr '|V<record_size>' (`type` is then meaningless). Arrays of
  /// fixed-width strings are held the same way: "[char x 12]" takes '|S12', "[unichr x 12]" '<U12'
  /// (native order); `record_kind` is the typestr kind taken ('V', 'S' or 'U').
  /// A datetime64 / timedelta64 parameter or array (Numba's NPDatetime(unit)) is held the same way:
  /// `record` "datetime64[D]", size 8, `record_kind` 'M' or 'm' and `record_unit` the unit's code; a
  /// scalar one is passed as its int64 count (`type` Int64).
  std::string record;
  std::uint32_t record_size = 0;
  char record_kind = 'V';
  std::uint8_t record_unit = 0;
  bool is_datetime() const noexcept { return record_kind == 'M' || record_kind == 'm'; }

  bool is_array() const noexcept { return kind == Kind::Array; }
  bool is_pointer() const noexcept { return kind == Kind::Pointer; }
  bool is_record() const noexcept { return kind == Kind::Record; }
  /// Arrays, pointers and records: the parameters that are given an array (ArgumentPack keeps its view).
  bool takes_array() const noexcept { return kind != Kind::Scalar; }
  /// Numba's spelling: "float32[:, ::1]", "const float32[:]", "int64"; pointers "const float32*", "void*".
  std::string to_string() const;
  friend bool operator==(const ParamKind&, const ParamKind&) = default;
};

/// One PTX parameter of the flattened list: where its bytes sit in the packed buffer.
struct ParamSlot {
  std::uint32_t offset = 0;  // byte offset in the buffer (aligned to `size`)
  std::uint32_t size = 0;    // 1, 2, 4 or 8
};

/// The parameter kinds plus their precomputed flattened layout, built once per kernel so that each
/// launch only copies values into a buffer.
class KernelSignature {
 public:
  explicit KernelSignature(std::vector<ParamKind> params);
  /// Flattened parameters and the argument types they came from (tuples among them: see parse()).
  KernelSignature(std::vector<ParamKind> params, std::vector<Type> arguments);

  /// Parses a signature in the one grammar of type spellings (cubridge/types/signature.hpp): an optional
  /// void/none return and the parameters, each a number, an array ("float32[:, ::1]", "array(float32, 2d,
  /// C)", "const float64[:]"), a record or an array of records in Numba's spelling, or a C pointer
  /// ("float32*", "const float32*", "void*"), or a tuple of these (numba-cuda passes a tuple by value, as
  /// its elements flattened depth first: params() then lists the elements, arguments() the tuples). Types
  /// no kernel takes are refused by name.
  /// Throws std::invalid_argument: the types floor's message with "kernel " in front.
  static KernelSignature parse(std::string_view text);
  /// The same for a signature already parsed (what the Python package hands over: no text crosses).
  static KernelSignature of(const Signature& signature);

  /// The flattened parameters: each tuple argument's elements in its place (no tuples: the arguments).
  const std::vector<ParamKind>& params() const noexcept { return params_; }
  std::size_t size() const noexcept { return params_.size(); }
  /// The arguments a launch is given (before flattening), as typed; size() differs only with tuples.
  const std::vector<Type>& arguments() const noexcept { return arguments_; }
  std::size_t argument_count() const noexcept { return arguments_.size(); }
  /// Whether an argument is a tuple or an Enum member (passed as its value): a launch then flattens its arguments
  /// the way params() lists them.
  bool has_tuples() const noexcept { return has_tuples_; }
  /// How messages name parameter `i` (of params()): "argument 2", or "argument 2[1][0]" inside a tuple.
  std::string parameter_name(std::size_t i) const;
  const ParamKind& operator[](std::size_t i) const { return params_[i]; }

  /// Every PTX parameter, in order.
  const std::vector<ParamSlot>& slots() const noexcept { return slots_; }
  /// Index into slots() of the first PTX parameter of user parameter `i`.
  std::uint32_t first_slot(std::size_t i) const { return first_slot_[i]; }
  /// Number of PTX parameters for user parameter `i` (5 + 2N for arrays, 2 for complex, else 1).
  std::uint32_t slot_count(std::size_t i) const { return first_slot_[i + 1] - first_slot_[i]; }
  /// Bytes of the packed buffer (a multiple of 8).
  std::uint32_t buffer_size() const noexcept { return buffer_size_; }
  /// Where the last PTX parameter ends: the bytes a kernel of this signature takes (buffer_size() unpadded).
  std::uint32_t parameter_bytes() const noexcept { return parameter_bytes_; }
  /// The user parameter (index into params()) that PTX parameter `slot` belongs to.
  std::size_t parameter_of_slot(std::size_t slot) const;
  /// Parameters that take an array (arrays and pointers).
  std::size_t array_count() const noexcept { return array_count_; }

  /// "void(float32[::1], const float32[:], int64)".
  std::string to_string() const;
  friend bool operator==(const KernelSignature& a, const KernelSignature& b) {
    return a.params_ == b.params_ && a.has_tuples_ == b.has_tuples_ && (!a.has_tuples_ || a.arguments_ == b.arguments_);
  }

 private:
  std::vector<ParamKind> params_;
  std::vector<Type> arguments_;  // as given; without tuples, one per parameter (unknown() for ParamKind-built ones)
  bool has_tuples_ = false;
  std::vector<std::string> tuple_paths_;  // with tuples: parameter_name() of each parameter
  std::vector<ParamSlot> slots_;
  std::vector<std::uint32_t> first_slot_;  // size() + 1 entries
  std::uint32_t buffer_size_ = 0;
  std::uint32_t parameter_bytes_ = 0;
  std::size_t array_count_ = 0;
};

}  // namespace cubridge
