// This executable's driver is bench/host_driver's stand-in modelling two devices (CUBRIDGE_HOST_DEVICES=2),
// chosen before anything loads a driver: the several-GPU tests of the memory layer
// (tests/cpp/memory/gpu_multi_device_test.cpp) then check, on a machine without a GPU, which context each
// driver call runs in and which device a pointer names. CMake passes the stand-in's path.
#include <stdlib.h>

namespace {
const bool g_host_driver_chosen = ::setenv("CUBRIDGE_LIBCUDA", CUBRIDGE_HOST_LIBCUDA, 1) == 0 &&
                                  ::setenv("CUBRIDGE_HOST_DEVICES", "2", 1) == 0;
}  // namespace
