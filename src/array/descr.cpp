// Internal: the value rules of a 'descr' list (NumPy's array interface grammar, CAI v3 "descr").
#include "cubridge/array/descr.hpp"

#include "cubridge/array/errors.hpp"

namespace cubridge {
namespace {

std::int64_t size_at(std::span<const DescrField> fields, const std::string& path, int depth) {
  if (depth >= kMaxDescrDepth) throw_descr_too_deep(path);
  auto overflow = [](const std::string& where) -> std::int64_t {
    throw ArrayInterfaceError(where + ": the size in bytes overflows 64 bits");
  };
  std::int64_t total = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const DescrField& f = fields[i];
    const std::string here = path + "[" + std::to_string(i) + "]";
    std::int64_t size = f.nested ? size_at(f.fields, here + "[1]", depth + 1)
                                 : parse_typestr(f.typestr, here + "[1]").itemsize;
    for (std::int64_t d : f.shape) {
      if (d < 0) throw ArrayInterfaceError(here + "[2]: extent " + std::to_string(d) + " is negative");
      if (__builtin_mul_overflow(size, d, &size)) overflow(here);
    }
    if (__builtin_add_overflow(total, size, &total)) overflow(path);
  }
  return total;
}

}  // namespace

void throw_descr_too_deep(const std::string& path) {
  throw ArrayInterfaceError(path + ": descr lists nest more than " + std::to_string(kMaxDescrDepth) +
                            " deep (or the list contains itself)");
}

std::int64_t descr_size(std::span<const DescrField> fields, const std::string& path) {
  return size_at(fields, path, 0);
}

void check_descr(std::span<const DescrField> fields, const DType& dtype, const std::string& path) {
  const std::int64_t bytes = descr_size(fields, path);
  if (bytes != dtype.itemsize)
    throw ArrayInterfaceError(path + ": describes " + std::to_string(bytes) + " bytes per element but typestr '" +
                              dtype.typestr() + "' has " + std::to_string(dtype.itemsize));
}

}  // namespace cubridge
