// Benchmark only: the bare-cuLaunchKernel floor (see launch_floor.hpp).
#include "launch_floor.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>

#include "cubridge/driver/context.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "cubridge/kernel/module.hpp"
#include "driver/driver_api.hpp"

namespace cubridge::bench {

double bare_launch_ns(const std::string& ptx, const std::string& entry, const std::vector<std::uint64_t>& words,
                      int repeat) {
  auto context = Context::current();
  // The PTX with its terminating NUL, as the driver reads PTX text.
  std::span<const std::byte> image(reinterpret_cast<const std::byte*>(ptx.c_str()), ptx.size() + 1);
  auto module = Module::cached(context, image);
  auto kernel = module->function(entry);
  std::vector<std::uint64_t> values(words);
  std::vector<void*> params(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) params[i] = &values[i];
  CUfunction f = kernel->handle();
  ScopedContext scope(*context);
  const auto& api = driver::api();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeat; ++i) {
    CUresult r = api.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, CU_STREAM_LEGACY, params.data(), nullptr);
    if (r != CUDA_SUCCESS) driver::throw_error(r, "cuLaunchKernel");
  }
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / repeat;
}

namespace {

/// What a python_launcher keeps: the loaded kernel (its module stays loaded) and its packed parameters.
struct PythonLauncher {
  std::shared_ptr<Kernel> kernel;
  CUfunction function = nullptr;
  std::vector<std::uint64_t> values;
  std::vector<void*> params;
};

constexpr const char* kLauncherCapsule = "cubridge._bench.python_launcher";

PyObject* launch_once(PyObject* self, PyObject* /*unused*/) {
  auto* l = static_cast<PythonLauncher*>(PyCapsule_GetPointer(self, kLauncherCapsule));
  if (l == nullptr) return nullptr;
  CUresult r = driver::api().cuLaunchKernel(l->function, 1, 1, 1, 32, 1, 1, 0, CU_STREAM_LEGACY, l->params.data(), nullptr);
  if (r != CUDA_SUCCESS) {
    PyErr_Format(PyExc_RuntimeError, "cuLaunchKernel failed: %s (%d)", driver::error_name(r), static_cast<int>(r));
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyMethodDef launch_once_def = {"bare_launch", launch_once, METH_NOARGS,
                               "One bare cuLaunchKernel (cubridge._bench.python_launcher)."};

}  // namespace

PyObject* python_launcher(const std::string& ptx, const std::string& entry, const std::vector<std::uint64_t>& words) {
  auto context = Context::current();
  std::span<const std::byte> image(reinterpret_cast<const std::byte*>(ptx.c_str()), ptx.size() + 1);
  auto l = std::make_unique<PythonLauncher>();
  l->kernel = Module::cached(context, image)->function(entry);
  l->function = l->kernel->handle();
  l->values = words;
  l->params.resize(l->values.size());
  for (std::size_t i = 0; i < l->values.size(); ++i) l->params[i] = &l->values[i];
  PyObject* capsule = PyCapsule_New(l.get(), kLauncherCapsule, [](PyObject* c) {
    delete static_cast<PythonLauncher*>(PyCapsule_GetPointer(c, kLauncherCapsule));
  });
  if (capsule == nullptr) return nullptr;
  l.release();
  PyObject* fn = PyCFunction_New(&launch_once_def, capsule);
  Py_DECREF(capsule);
  return fn;
}

std::vector<std::pair<std::string, double>> driver_call_ns(int repeat) {
  const auto& api = driver::api();
  auto context = Context::current();
  auto timed = [&](auto&& call) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < repeat; ++i) call();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / repeat;
  };
  CUcontext current = nullptr;
  CUdevice device = 0;
  std::vector<std::pair<std::string, double>> out;
  out.emplace_back("cuCtxGetCurrent", timed([&] { api.cuCtxGetCurrent(&current); }));
  ScopedContext scope(*context);
  out.emplace_back("cuCtxGetDevice", timed([&] { api.cuCtxGetDevice(&device); }));
  out.emplace_back("cuCtxPushCurrent+cuCtxPopCurrent", timed([&] {
    api.cuCtxPushCurrent(context->handle());
    CUcontext popped = nullptr;
    api.cuCtxPopCurrent(&popped);
  }));
  return out;
}

}  // namespace cubridge::bench
