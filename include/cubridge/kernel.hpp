// Umbrella header of the kernel layer: loading compiled code and launching kernels on any GPU array.
// Implements: DESIGN.md "kernel/" (modules, argument marshalling with the Numba ABI, launch).
#pragma once

#include "cubridge/kernel/argument_pack.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/kernel/launch.hpp"
#include "cubridge/kernel/launch_config.hpp"
#include "cubridge/kernel/launch_config_error.hpp"
#include "cubridge/kernel/module.hpp"
#include "cubridge/kernel/parameter_layout.hpp"
#include "cubridge/kernel/scalar.hpp"
