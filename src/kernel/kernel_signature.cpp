// Internal: parsing Numba's signature spelling and flattening it to PTX parameter slots.
#include "cubridge/kernel/kernel_signature.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>

#include "support/spelling_text.hpp"
#include "cubridge/types/signature.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

using spelling_text::quoted;

[[noreturn]] void fail(std::string_view whole, const std::string& why) {
  throw cubridge::InvalidArgument("kernel signature " + quoted(whole) + ": " + why);
}

// The row of a number type (every Type::is_scalar() is one of NumPy's; bfloat16 is the one other).
ScalarType scalar_of(const Type& t) {
  if (t.is_bfloat16()) return ScalarType::BFloat16;
  const char kind = t.is_bool() ? 'b' : t.is_int() ? (t.is_signed() ? 'i' : 'u') : t.is_float() ? 'f' : 'c';
  return scalar_type_of_numpy(kind, static_cast<std::uint32_t>(t.storage_size()))->type;
}

// A record, or an array of records: Numba's spelling and the item size (all that a launch reads).
void read_record(const Type& record, ParamKind& p) {
  // Numba's spelling of the record itself: a read-only one ("const Record(...)") keeps that in p.written.
  constexpr std::string_view kReadonly = "readonly ";
  p.record = record.readonly() ? record.name().substr(kReadonly.size()) : record.name();
  p.record_size = static_cast<std::uint32_t>(record.record_size());
  p.type = ScalarType::UInt8;
}

// An array of fixed-width strings: its element's name, item size and the typestr kind it takes.
void read_char_seq(const Type& chars, ParamKind& p) {
  p.record = chars.name();
  p.record_size = static_cast<std::uint32_t>(chars.storage_size());
  p.record_kind = chars.bits() == 8 ? 'S' : 'U';
  p.type = ScalarType::UInt8;
}

// A datetime64 / timedelta64 (or an array of them): its name, the typestr kind and unit it takes; an int64.
void read_datetime(const Type& t, ParamKind& p) {
  p.record = t.name();
  p.record_size = 8;
  p.record_kind = t.is_datetime() ? 'M' : 'm';
  p.record_unit = t.datetime_unit();
  p.type = ScalarType::Int64;
}

// One parameter as the ABI sees it: the kernel layer keeps only what lays out and checks a launch.
ParamKind param_of(std::string_view whole, std::size_t index, const Type& t) {
  ParamKind p;
  if (t.is_scalar()) {
    p.type = scalar_of(t);
  } else if (t.is_datetime() || t.is_timedelta()) {
    read_datetime(t, p);
  } else if (t.is_array()) {
    p.kind = ParamKind::Kind::Array;
    // an array of a numba extension type lays out like a record array of its size (numba passes any array)
    if (t.dtype().is_record() || t.dtype().is_foreign()) read_record(t.dtype(), p);
    else if (t.dtype().is_char_seq()) read_char_seq(t.dtype(), p);
    else if (t.dtype().is_datetime() || t.dtype().is_timedelta()) read_datetime(t.dtype(), p);
    else p.type = scalar_of(t.dtype());
    p.ndim = t.ndim();
    p.layout = t.layout();
  } else if (t.is_record()) {  // one record, passed by address as numba-cuda passes a DeviceRecord
    p.kind = ParamKind::Kind::Record;
    read_record(t, p);
  } else if (t.is_foreign() && t.is_foreign_opaque()) {  // numba's OpaqueModel: one i8* parameter
    p.kind = ParamKind::Kind::Pointer;
    p.any_pointee = true;
    p.type = ScalarType::UInt8;
  } else if (t.is_pointer()) {
    p.kind = ParamKind::Kind::Pointer;
    p.any_pointee = t.pointee().is_none();
    p.type = p.any_pointee ? ScalarType::UInt8 : scalar_of(t.pointee());
  } else {
    fail(whole, "parameter " + std::to_string(index) + ", " + quoted(t.name()) +
                    ", is not a kernel parameter type; kernels take numbers, arrays, records, pointers and tuples of these");
  }
  p.written = p.takes_array() && !t.readonly();
  return p;
}

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

const char* scalar_type_name(ScalarType t) noexcept { return scalar_type_info(t).name.data(); }

std::uint32_t scalar_type_size(ScalarType t) noexcept { return scalar_type_info(t).itemsize; }

DType scalar_type_dtype(ScalarType t) noexcept {
  if (t == ScalarType::BFloat16) return bfloat16_dtype();
  const ScalarTypeInfo& row = scalar_type_info(t);
  DType d;
  d.itemsize = row.itemsize;
  d.kind = row.kind;
  d.byteorder = d.itemsize == 1 || !row.numpy() ? '|' : kNativeByteOrder;
  return d;
}


std::string ParamKind::to_string() const {
  std::string s = is_pointer() && any_pointee ? "void" : !record.empty() ? record : scalar_type_name(type);
  if (!takes_array()) return s;
  if (!written) s = "const " + s;
  if (is_pointer()) return s + '*';
  if (is_record()) return s;
  if (ndim == 0) {  // numba's spelling: the bracket form has no 0-d
    const bool readonly = s.starts_with("const ");
    return (readonly ? "const " : "") + std::string("array(") + s.substr(readonly ? 6 : 0) + ", 0d, C)";
  }
  s += '[';
  for (int i = 0; i < ndim; ++i) {
    if (i) s += ", ";
    bool contiguous = (layout == 'C' && i == ndim - 1) || (layout == 'F' && i == 0);
    s += contiguous ? "::1" : ":";
  }
  return s + ']';
}

KernelSignature::KernelSignature(std::vector<ParamKind> params, std::vector<Type> arguments)
    : KernelSignature(std::move(params)) {
  arguments_ = std::move(arguments);
  has_tuples_ = std::any_of(arguments_.begin(), arguments_.end(),
                            [](const Type& t) { return t.is_tuple() || t.is_enum_member(); });
  if (!has_tuples_) return;
  auto paths = [this](auto&& self, const Type& t, const std::string& path) -> void {
    if (t.is_enum_member()) return self(self, t.enum_value(), path);  // passed as its value
    if (!t.is_tuple()) {
      tuple_paths_.push_back(path);
      return;
    }
    for (std::size_t j = 0; j < t.elements().size(); ++j) self(self, t.elements()[j], path + "[" + std::to_string(j) + "]");
  };
  for (std::size_t i = 0; i < arguments_.size(); ++i) paths(paths, arguments_[i], "argument " + std::to_string(i));
}

std::string KernelSignature::parameter_name(std::size_t i) const {
  return i < tuple_paths_.size() ? tuple_paths_[i] : "argument " + std::to_string(i);
}

KernelSignature::KernelSignature(std::vector<ParamKind> params)
    : params_(std::move(params)), arguments_(params_.size(), Type::unknown()) {
  first_slot_.reserve(params_.size() + 1);
  std::uint32_t offset = 0;
  auto add = [&](std::uint32_t size) {
    offset = align_up(offset, size);
    slots_.push_back({offset, size});
    offset += size;
  };
  for (std::size_t i = 0; i < params_.size(); ++i) {
    ParamKind& p = params_[i];
    first_slot_.push_back(static_cast<std::uint32_t>(slots_.size()));
    const bool typed = !(p.is_record() || (!p.record.empty() && !p.is_datetime()) || (p.is_pointer() && p.any_pointee));
    // bfloat16 arrays are the one exception: DLPack (kDLBfloat) and ml_dtypes give them a dtype.
    if (typed && !scalar_type_info(p.type).numpy() && !(p.is_array() && p.type == ScalarType::BFloat16))
      throw cubridge::InvalidArgument("kernel signature: parameter " + std::to_string(i) + " has type " +
                                  scalar_type_name(p.type) + ", which NumPy lacks; accepted: " + accepted_type_names());
    if (p.is_array()) {
      if (p.ndim < 0 || p.ndim > 32)
        throw cubridge::InvalidArgument("kernel signature: parameter " + std::to_string(i) + " has " +
                                    std::to_string(p.ndim) + " dimensions; arrays have 0 to 32");
      if (p.layout != 'C' && p.layout != 'F' && p.layout != 'A')
        throw cubridge::InvalidArgument("kernel signature: parameter " + std::to_string(i) + " has layout '" +
                                    std::string(1, p.layout) + "'; accepted: 'C', 'F', 'A'");
      if (p.ndim == 1 && p.layout == 'F') p.layout = 'C';  // one axis: both orders are the same
      ++array_count_;
      for (int k = 0; k < 5 + 2 * p.ndim; ++k) add(8);  // meminfo parent nitems itemsize data shape strides
    } else if (p.is_record()) {
      p.ndim = 0;
      p.layout = 'A';
      ++array_count_;
      add(8);  // the record's address
    } else if (p.is_pointer()) {
      p.ndim = 0;
      p.layout = 'A';
      if (p.any_pointee) p.type = ScalarType::UInt8;
      ++array_count_;
      add(8);  // the data pointer
    } else {
      p.ndim = 0;
      p.layout = 'A';
      p.written = false;
      p.any_pointee = false;
      std::uint32_t size = scalar_type_size(p.type);
      if (p.type == ScalarType::Complex64 || p.type == ScalarType::Complex128) {
        add(size / 2);  // real
        add(size / 2);  // imaginary
      } else {
        add(size);
      }
    }
  }
  first_slot_.push_back(static_cast<std::uint32_t>(slots_.size()));
  parameter_bytes_ = offset;
  buffer_size_ = align_up(offset, 8);
}

std::size_t KernelSignature::parameter_of_slot(std::size_t slot) const {
  // first_slot_ is sorted: the last parameter whose first slot is at or before `slot`.
  const auto after = std::upper_bound(first_slot_.begin(), first_slot_.end() - 1, static_cast<std::uint32_t>(slot));
  return static_cast<std::size_t>(after - first_slot_.begin()) - 1;
}

namespace {

KernelSignature signature_of(std::string_view text, const Signature& sig) {
  if (sig.result && !sig.result->is_none())
    fail(text, "a kernel returns void, but the signature says " + quoted(sig.result->name()));
  std::vector<ParamKind> params;
  params.reserve(sig.args.size());
  // A tuple is passed as its elements, depth first (numba-cuda's _prepare_args); an empty one as nothing; an
  // Enum's member as its value.
  auto add = [&](auto&& self, std::size_t i, const Type& t) -> void {
    if (t.is_enum_member()) return self(self, i, t.enum_value());
    if (!t.is_tuple()) {
      params.push_back(param_of(text, i, t));
      return;
    }
    for (const Type& e : t.elements()) self(self, i, e);
  };
  for (std::size_t i = 0; i < sig.args.size(); ++i) add(add, i, sig.args[i]);
  return KernelSignature(std::move(params), sig.args);
}

}  // namespace

KernelSignature KernelSignature::parse(std::string_view text) {
  Signature sig;
  try {
    sig = parse_signature(text);
  } catch (const std::invalid_argument& e) {
    throw cubridge::InvalidArgument(std::string("kernel ") + e.what());  // "kernel signature '...': ..."
  }
  return signature_of(text, sig);
}

KernelSignature KernelSignature::of(const Signature& signature) { return signature_of(signature.str(), signature); }

std::string KernelSignature::to_string() const {
  std::string s = "void(";
  if (has_tuples_) {  // a tuple is spelt as the types floor spells it; the rest as parameters are
    std::size_t leaf = 0;
    auto leaves = [](auto&& self, const Type& t) -> std::size_t {
      if (t.is_enum_member()) return self(self, t.enum_value());
      if (!t.is_tuple()) return 1;
      std::size_t n = 0;
      for (const Type& e : t.elements()) n += self(self, e);
      return n;
    };
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
      if (i) s += ", ";
      const bool whole = arguments_[i].is_tuple() || arguments_[i].is_enum_member();
      s += whole ? arguments_[i].name() : params_[leaf].to_string();
      leaf += leaves(leaves, arguments_[i]);
    }
    return s + ')';
  }
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (i) s += ", ";
    s += params_[i].to_string();
  }
  return s + ')';
}

}  // namespace cubridge
