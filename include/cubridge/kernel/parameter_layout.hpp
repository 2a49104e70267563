// How a kernel's parameters lie in the driver's parameter buffer, and whether a signature's packed buffer is that
// layout. Where it is, a launch hands the driver the one buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) rather than one
// pointer per parameter: the driver then copies it whole, ~2.5 ns less per parameter on an H100 (a 1-d array is
// numba's 7 parameters; bench/probe_param_passing.c). Where it is not, the launch would read the wrong bytes, so
// it is refused by name. Implements: DESIGN.md "kernel/" launch (cuFuncGetParamInfo, CUDA 12.4).
#pragma once

#include <optional>
#include <vector>

#include <cuda.h>

#include "cubridge/kernel/kernel_signature.hpp"

namespace cubridge {

class Kernel;

/// Each parameter's offset and size in `function`'s parameter buffer, as the driver reports them; nullopt where
/// the driver cannot say (older than CUDA 12.4, or it declines for this function).
std::optional<std::vector<ParamSlot>> read_parameter_layout(CUfunction function);

/// True where `kernel` lays out its parameters exactly as `signature` packs them, slot for slot, a complex scalar's
/// two halves (numba's two parameters) also filling one C parameter of its size at its offset (cuFloatComplex,
/// float2, cuDoubleComplex): a launch may hand over the packed buffer. False where the driver cannot say (older than
/// CUDA 12.4, or no parameter reported for a signature with some): a launch then passes one pointer per parameter,
/// as before. Throws InvalidArgument naming the first parameter that differs, and what each side has, where they
/// differ: any launch would hand the kernel wrong bytes.
bool check_parameter_layout(const Kernel& kernel, const KernelSignature& signature);

}  // namespace cubridge
