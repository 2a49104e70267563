// Internal: the libdevice table's rows as types (see libdevice_functions.hpp).
#include "compiler/kernel_library/libdevice_functions.hpp"

#include "support/split_fields.hpp"
#include "cubridge/types/type_spelling.hpp"

namespace cubridge::compiler {
namespace {

#include "compiler/kernel_library/libdevice_table.inc"

}  // namespace

std::vector<Type> LibdeviceFunction::inputs() const {
  std::vector<Type> in;
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!is_output[i]) in.push_back(params[i]);
  return in;
}

Type LibdeviceFunction::returned() const {
  std::vector<Type> out;
  if (result) out.push_back(*result);
  for (std::size_t i = 0; i < params.size(); ++i)
    if (is_output[i]) out.push_back(params[i]);
  return out.size() == 1 ? out[0] : Type::tuple(std::move(out));
}

std::optional<LibdeviceFunction> libdevice_function(std::string_view name) {
  for (const LibdeviceRow& row : kLibdevice) {
    std::string_view symbol = row.symbol;
    if (symbol.substr(5) != name) continue;
    LibdeviceFunction f;
    f.symbol = row.symbol;
    if (std::string_view(row.result) != "void") f.result = parse_type_name(row.result);
    for (std::string p : compiler_detail::split_fields(row.params, ' ')) {
      bool out = p.ends_with('*');
      if (out) p.pop_back();
      f.params.push_back(*parse_type_name(p));
      f.is_output.push_back(out);
    }
    return f;
  }
  return std::nullopt;
}

}  // namespace cubridge::compiler
