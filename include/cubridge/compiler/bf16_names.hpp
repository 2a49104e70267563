// Implements: numba-cuda's numba.cuda.bf16 module, by name: each public name it exports (hadd,
// float32_to_bfloat16_rz, bfloat162float, ...) and the CUDA cuda_bf16.h function it is (__hadd,
// __float2bfloat16_rz, __bfloat162float). The compiler resolves numba.cuda.bf16.<name> and cubridge.bf16.<name>
// with it; the Python package builds cubridge.bf16's names from it (one table).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubridge::compiler {

/// (public name, cuda_bf16.h name) for every function numba.cuda.bf16 exports, sorted by public name.
const std::vector<std::pair<std::string, std::string>>& bf16_public_names();
/// The cuda_bf16.h name of numba.cuda.bf16.<public_name>, or nullopt.
std::optional<std::string> bf16_binding_of(std::string_view public_name);

}  // namespace cubridge::compiler
