// The transform kernel: out[i] = f(a[i], b[i]) over n floats, with f defined elsewhere (LTO-IR from
// libNVVM or cubridge.compile, or CUDA C++ for the reference). One source for `cubridge demo` (one kernel
// per function: cubridge.demo.transform.transform_source defines TRANSFORM_FUNCTION and TRANSFORM_KERNEL),
// examples/link/link_example.py and the C++ tests, so the linked kernel and its CUDA C++ reference are the
// same code.
//
// A grid-stride loop over float4s (16-byte loads and stores, the widest one thread issues) when the three
// arrays are 16-byte aligned, then element by element for the tail (or for unaligned arrays). Launch
// transform_blocks(n) blocks of 256 threads for one float4 per thread; any grid is correct.
#ifndef TRANSFORM_FUNCTION
#define TRANSFORM_FUNCTION f
#endif
#ifndef TRANSFORM_KERNEL
#define TRANSFORM_KERNEL transform
#endif
extern "C" __device__ float TRANSFORM_FUNCTION(float, float);

extern "C" __global__ void TRANSFORM_KERNEL(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ out, unsigned long long n) {
  unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long done = 0;
  if ((((unsigned long long)a | (unsigned long long)b | (unsigned long long)out) & 15) == 0) {
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    unsigned long long n4 = n / 4;
    for (unsigned long long i = tid; i < n4; i += stride) {
      float4 x = a4[i], y = b4[i], r;
      r.x = TRANSFORM_FUNCTION(x.x, y.x);
      r.y = TRANSFORM_FUNCTION(x.y, y.y);
      r.z = TRANSFORM_FUNCTION(x.z, y.z);
      r.w = TRANSFORM_FUNCTION(x.w, y.w);
      out4[i] = r;
    }
    done = n4 * 4;
  }
  for (unsigned long long i = done + tid; i < n; i += stride) out[i] = TRANSFORM_FUNCTION(a[i], b[i]);
}
