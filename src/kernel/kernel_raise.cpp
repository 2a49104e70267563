// Internal: reading back the exception status of debug=True kernels (include/cubridge/kernel/kernel_raise.hpp).
#include "cubridge/kernel/kernel_raise.hpp"

#include "cubridge/kernel/module.hpp"
#include "driver/driver_api.hpp"

namespace cubridge {

namespace {

std::string position(const std::array<int, 3>& v) {  // numba-cuda's order: [z, y, x]
  return "[" + std::to_string(v[2]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[0]) + "]";
}

std::optional<CUdeviceptr> global_of(const Module& module, const std::string& name) {
  CUdeviceptr ptr = 0;
  std::size_t bytes = 0;
  CUresult r = CUBRIDGE_CU_RESULT(cuModuleGetGlobal, &ptr, &bytes, module.handle(), name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) return std::nullopt;
  if (r != CUDA_SUCCESS) driver::throw_error(r, "cuModuleGetGlobal");
  if (bytes != sizeof(int)) return std::nullopt;  // not one of ours
  return ptr;
}

int read_int(CUdeviceptr p) {
  int v = 0;
  CUBRIDGE_CU(cuMemcpyDtoH, &v, p, sizeof v);
  return v;
}

}  // namespace

KernelRaised::KernelRaised(const std::string& kernel, int code, std::array<int, 3> tid, std::array<int, 3> ctaid)
    : std::runtime_error("kernel '" + kernel + "' raised exception " + std::to_string(code) + " at tid=" +
                         position(tid) + " ctaid=" + position(ctaid)),
      code_(code), tid_(tid), ctaid_(ctaid) {}

std::optional<RaiseRecord> RaiseRecord::find(const Module& module, const std::string& name) {
  auto errcode = global_of(module, name + "__errcode__");
  if (!errcode) return std::nullopt;
  RaiseRecord r;
  r.kernel_ = name;
  r.errcode_ = *errcode;
  static const char* const axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    auto tid = global_of(module, name + "__tid" + axes[i] + "__");
    auto ctaid = global_of(module, name + "__ctaid" + axes[i] + "__");
    if (!tid || !ctaid) return std::nullopt;
    r.tid_[i] = *tid;
    r.ctaid_[i] = *ctaid;
  }
  return r;
}

void RaiseRecord::reset(StreamRef stream) const { CUBRIDGE_CU(cuMemsetD32Async, errcode_, 0u, 1, stream.handle()); }

void RaiseRecord::check(StreamRef stream) const {
  stream.synchronize();
  int code = read_int(errcode_);
  if (code == 0) return;
  std::array<int, 3> tid{}, ctaid{};
  for (int i = 0; i < 3; ++i) {
    tid[i] = read_int(tid_[i]);
    ctaid[i] = read_int(ctaid_[i]);
  }
  throw KernelRaised(kernel_, code, tid, ctaid);
}

}  // namespace cubridge
