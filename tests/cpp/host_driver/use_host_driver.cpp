// This executable's driver is bench/host_driver's stand-in (host memory serves as device memory), chosen
// before anything loads a driver, so that its tests exercise cubridge's host side on every machine, with
// or without a GPU. CMake passes the stand-in's path as CUBRIDGE_HOST_LIBCUDA.
#include <stdlib.h>

namespace {
const bool g_host_driver_chosen = ::setenv("CUBRIDGE_LIBCUDA", CUBRIDGE_HOST_LIBCUDA, 1) == 0;
}  // namespace
