// The link example's CUDA C++ kernel: out[i] = f(a[i], b[i]) over n floats, with f defined elsewhere (LTO-IR
// from libNVVM or cubridge.compile, or CUDA C++ for the reference). Shared by examples/link/link_example.py
// and the C++ tests, so the linked kernel and its CUDA C++ reference are the same code.
//
// A grid-stride loop over float4s (16-byte loads and stores, the widest one thread issues) when the three
// arrays are 16-byte aligned, then element by element for the tail (or for unaligned arrays). Launch
// transform_blocks(n) blocks of 256 threads: one float4 per thread.
extern "C" __device__ float f(float, float);

extern "C" __global__ void transform(const float* __restrict__ a, const float* __restrict__ b,
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
      r.x = f(x.x, y.x);
      r.y = f(x.y, y.y);
      r.z = f(x.z, y.z);
      r.w = f(x.w, y.w);
      out4[i] = r;
    }
    done = n4 * 4;
  }
  for (unsigned long long i = done + tid; i < n; i += stride) out[i] = f(a[i], b[i]);
}
