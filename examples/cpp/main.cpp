// A Python function, compiled from its source text by cubridge's C++ API (no Python interpreter), inlined
// into a CUDA C++ kernel by nvJitLink, and run on the GPU when there is one:
//   1. f(x, y) = x * y + 1 -> LTO-IR with the C ABI (cubridge::compile)
//   2. a CUDA C++ kernel calling f -> LTO-IR (cubridge::nvrtc::compile)
//   3. both linked with link-time optimisation -> PTX and a cubin (cubridge::Linker); f is inlined
//   4. on a GPU: the kernel runs over 1M floats and the result is checked.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cubridge/array.hpp"
#include "cubridge/compiler/compile.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/driver.hpp"
#include "cubridge/kernel.hpp"
#include "cubridge/memory.hpp"

namespace {

constexpr const char* kPython = R"(
def f(x, y):
    return x * y + 1.0
)";

constexpr const char* kCuda = R"(
extern "C" __device__ float f(float, float);
extern "C" __global__ void transform(const float* a, const float* b, float* out, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = f(a[i], b[i]);
}
)";

// Runs the kernel over n floats and returns the largest error against x * y + 1.
double run_on_gpu(const std::string& cubin, std::size_t n) {
  using namespace cubridge;
  auto context = Context::primary(Device(0));
  ScopedContext scope(*context);
  auto module = Module::load(context, std::as_bytes(std::span(cubin)));
  auto kernel = module->function("transform");
  std::vector<float> a(n), b(n), out(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) / 7.0f;
    b[i] = static_cast<float>(i % 13) - 6.0f;
  }
  const std::int64_t shape[] = {static_cast<std::int64_t>(n)};
  DType f32 = dtype_of<float>();
  std::vector<std::shared_ptr<memory::MemoryPointer>> memory;
  std::vector<ArrayView> views;
  for (int k = 0; k < 3; ++k) {
    memory.push_back(memory::allocate(context, n * sizeof(float)));
    ArrayView::Layout l{reinterpret_cast<void*>(memory.back()->device_pointer()), f32, shape, std::nullopt, false};
    views.emplace_back(l, memory.back());
  }
  copy_extent_from_host(views[0], a.data(), n * sizeof(float), StreamRef::legacy());
  copy_extent_from_host(views[1], b.data(), n * sizeof(float), StreamRef::legacy());
  void* pa = views[0].data();
  void* pb = views[1].data();
  void* po = views[2].data();
  unsigned long long count = n;
  void* params[] = {&pa, &pb, &po, &count};
  LaunchConfig config{.grid = {1024}, .block = {256}};
  kernel->launch_raw(config, StreamRef::legacy(), params);
  copy_extent_to_host(views[2], out.data(), n * sizeof(float), StreamRef::legacy());
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) worst = std::fmax(worst, std::fabs(out[i] - (a[i] * b[i] + 1.0f)));
  return worst;
}

}  // namespace

int main() {
  using namespace cubridge;
  const ComputeCapability cc{9, 0};

  compiler::CompileOptions options;
  options.output = compiler::Output::ltoir;
  options.cc = cc;
  options.filename = "f.py";
  compiler::CompileResult f = compile(kPython, "f", "float32(float32, float32)", options);
  std::printf("1. compiled the Python function %s -> %s to %zu bytes of LTO-IR in %.1f ms\n", f.name.c_str(),
              f.result_type.name().c_str(), f.code.size(), 1e3 * (f.timings.parse + f.timings.type +
                                                                  f.timings.emit + f.timings.nvvm));

  nvrtc::Result k = nvrtc::compile(kCuda, "transform.cu", {.cc = cc, .output = nvrtc::Output::ltoir});
  std::printf("2. compiled the CUDA C++ kernel to %zu bytes of LTO-IR\n", k.code.size());

  Linker linker({.cc = cc});
  linker.add_ltoir(k.code, "transform.ltoir").add_ltoir(f.code, "f.ltoir");
  LinkResult linked = linker.link(/*want_ptx=*/true);
  const std::string body = linked.ptx.substr(linked.ptx.find(".entry transform"));
  const bool inlined = body.find("call") == std::string::npos;
  std::printf("3. linked them with nvJitLink: a %zu-byte cubin; f %s\n", linked.cubin.size(),
              inlined ? "was inlined into the kernel" : "was NOT inlined");
  if (!inlined) return 1;

  int devices = 0;
  try {
    devices = Device::count();
  } catch (const CudaError& e) {
    std::printf("4. skipped: no usable GPU here (%s)\n", e.what());
    return 0;
  }
  if (devices == 0) {
    std::printf("4. skipped: no GPU here\n");
    return 0;
  }
  const double worst = run_on_gpu(linked.cubin, std::size_t{1} << 20);
  std::printf("4. ran the kernel over 1M floats on the GPU: largest error %g\n", worst);
  return worst < 1e-4 ? 0 : 1;
}
