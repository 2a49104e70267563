// Internal: numba.cuda.bf16's public names (include/cubridge/compiler/bf16_names.hpp), built by the rules
// of numba-cuda 0.30's bf16.py: the arithmetic and compare intrinsics drop cuda_bf16's "__" (hadd is
// __hadd), the math functions keep their name (htrunc), the conversions have a NumPy-style name
// (int16_to_bfloat16_rz is __short2bfloat16_rz) and cuda_bf16's own without the "__" (short2bfloat16_rz).
#include "cubridge/compiler/bf16_names.hpp"

#include <algorithm>
#include <array>

namespace cubridge::compiler {
namespace {

std::vector<std::pair<std::string, std::string>> build() {
  std::vector<std::pair<std::string, std::string>> names;
  auto add = [&](std::string pub, std::string c) { names.emplace_back(std::move(pub), std::move(c)); };
  for (std::string_view n : {"habs", "hadd", "hsub", "hmul", "hadd_rn", "hsub_rn", "hmul_rn", "hdiv", "hadd_sat",
                             "hsub_sat", "hmul_sat", "hfma", "hfma_sat", "hneg", "hfma_relu", "heq", "hne", "hge",
                             "hgt", "hle", "hlt", "hmax", "hmin", "hmax_nan", "hmin_nan", "hisinf", "hisnan",
                             "hequ", "hneu", "hgeu", "hgtu", "hleu", "hltu"})
    add(std::string(n), "__" + std::string(n));
  for (std::string_view n : {"htrunc", "hceil", "hfloor", "hrint", "hsqrt", "hrsqrt", "hrcp", "hlog", "hlog2",
                             "hlog10", "hcos", "hsin", "hexp", "hexp2", "hexp10", "htanh", "htanh_approx"})
    add(std::string(n), std::string(n));
  std::vector<std::string> conversions = {"__float2bfloat16", "__double2bfloat16", "__bfloat162float",
                                          "__bfloat162char_rz", "__bfloat162uchar_rz", "__bfloat16_as_short",
                                          "__bfloat16_as_ushort", "__short_as_bfloat16", "__ushort_as_bfloat16"};
  add("float32_to_bfloat16", "__float2bfloat16");
  add("float64_to_bfloat16", "__double2bfloat16");
  add("bfloat16_to_float32", "__bfloat162float");
  add("bfloat16_to_int8_rz", "__bfloat162char_rz");
  add("bfloat16_to_uint8_rz", "__bfloat162uchar_rz");
  add("bfloat16_as_int16", "__bfloat16_as_short");
  add("bfloat16_as_uint16", "__bfloat16_as_ushort");
  add("int16_as_bfloat16", "__short_as_bfloat16");
  add("uint16_as_bfloat16", "__ushort_as_bfloat16");
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kIntegers{{
      {"int16", "short"}, {"uint16", "ushort"}, {"int32", "int"}, {"uint32", "uint"}, {"int64", "ll"}, {"uint64", "ull"}}};
  for (std::string_view m : {"rn", "rz", "rd", "ru"}) {
    std::string mode(m);
    add("float32_to_bfloat16_" + mode, "__float2bfloat16_" + mode);
    conversions.push_back("__float2bfloat16_" + mode);
    for (const auto& [numpy, c] : kIntegers) {
      add(std::string(numpy) + "_to_bfloat16_" + mode, "__" + std::string(c) + "2bfloat16_" + mode);
      add("bfloat16_to_" + std::string(numpy) + "_" + mode, "__bfloat162" + std::string(c) + "_" + mode);
      conversions.push_back("__" + std::string(c) + "2bfloat16_" + mode);
      conversions.push_back("__bfloat162" + std::string(c) + "_" + mode);
    }
  }
  for (const std::string& c : conversions) add(c.substr(2), c);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& bf16_public_names() {
  static const std::vector<std::pair<std::string, std::string>> names = build();
  return names;
}

std::optional<std::string> bf16_binding_of(std::string_view public_name) {
  const auto& names = bf16_public_names();
  auto it = std::lower_bound(names.begin(), names.end(), public_name,
                             [](const auto& row, std::string_view n) { return row.first < n; });
  if (it == names.end() || it->first != public_name) return std::nullopt;
  return it->second;
}

}  // namespace cubridge::compiler
