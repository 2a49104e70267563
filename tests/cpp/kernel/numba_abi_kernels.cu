// Test kernels whose parameters follow the Numba ABI (an N-d array is meminfo, parent, nitems,
// itemsize, data, shape[N], strides[N] in bytes; complex scalars are two parameters), so they launch
// through cubridge exactly as numba-cuda's PTX does. Regenerate numba_abi_kernels.ptx with:
//   tests/cpp/kernel/make_test_ptx.sh
#define ARR1(T, n) void *n##_mi, void *n##_p, long long n##_nitems, long long n##_isz, T *n, \
  long long n##_s0, long long n##_st0
#define ARR2(T, n) void *n##_mi, void *n##_p, long long n##_nitems, long long n##_isz, T *n, \
  long long n##_s0, long long n##_s1, long long n##_st0, long long n##_st1
#define ARR3(T, n) void *n##_mi, void *n##_p, long long n##_nitems, long long n##_isz, T *n, \
  long long n##_s0, long long n##_s1, long long n##_s2, long long n##_st0, long long n##_st1, long long n##_st2
#define AT1(T, n, i) (*(T *)((char *)n + (i) * n##_st0))
#define AT2(T, n, i, j) (*(T *)((char *)n + (i) * n##_st0 + (j) * n##_st1))
#define AT3(T, n, i, j, k) (*(T *)((char *)n + (i) * n##_st0 + (j) * n##_st1 + (k) * n##_st2))

// out[i] = a[i] + b[i] over any strides.
extern "C" __global__ void add_f32(ARR1(float, a), ARR1(float, b), ARR1(float, out)) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < out_s0) AT1(float, out, i) = AT1(float, a, i) + AT1(float, b, i);
}

// x[i, j] *= alpha over any strides (C, F or sliced).
extern "C" __global__ void scale_2d(ARR2(double, x), double alpha) {
  long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < x_s0 && j < x_s1) AT2(double, x, i, j) *= alpha;
}

// x[i, j, k] = 100 i + 10 j + k, with a 3-D grid; also checks nitems and itemsize.
extern "C" __global__ void fill_3d(ARR3(int, x), ARR1(long long, info)) {
  long long i = blockIdx.z * (long long)blockDim.z + threadIdx.z;
  long long j = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < x_s0 && j < x_s1 && k < x_s2) AT3(int, x, i, j, k) = (int)(100 * i + 10 * j + k);
  if (i == 0 && j == 0 && k == 0) {
    AT1(long long, info, 0) = x_nitems;
    AT1(long long, info, 1) = x_isz;
    AT1(long long, info, 2) = (long long)x_mi | (long long)x_p;
  }
}

// Every scalar type, stored as raw 64-bit words in out[0..16] so the host can compare bits.
extern "C" __global__ void scalars(ARR1(unsigned long long, out), bool b, signed char i8, short i16, int i32,
                                   long long i64, unsigned char u8, unsigned short u16, unsigned int u32,
                                   unsigned long long u64, unsigned short f16_bits, float f32, double f64,
                                   float c64_re, float c64_im, double c128_re, double c128_im) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned long long v[16];
  v[0] = b; v[1] = (unsigned long long)(long long)i8; v[2] = (unsigned long long)(long long)i16;
  v[3] = (unsigned long long)(long long)i32; v[4] = (unsigned long long)i64; v[5] = u8; v[6] = u16;
  v[7] = u32; v[8] = u64; v[9] = f16_bits; v[10] = __float_as_uint(f32);
  v[11] = (unsigned long long)__double_as_longlong(f64); v[12] = __float_as_uint(c64_re);
  v[13] = __float_as_uint(c64_im); v[14] = (unsigned long long)__double_as_longlong(c128_re);
  v[15] = (unsigned long long)__double_as_longlong(c128_im);
  for (int k = 0; k < 16 && k < out_s0; ++k) AT1(unsigned long long, out, k) = v[k];
}

// Dynamic shared memory: each block reverses its slice of `x` into `out` through shared memory.
extern "C" __global__ void reverse_block(ARR1(float, x), ARR1(float, out)) {
  extern __shared__ float tile[];
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < x_s0) tile[threadIdx.x] = AT1(float, x, i);
  __syncthreads();
  long long src = blockIdx.x * (long long)blockDim.x + (blockDim.x - 1 - threadIdx.x);
  if (i < out_s0 && src < x_s0) AT1(float, out, i) = tile[blockDim.x - 1 - threadIdx.x];
}

// Busy-waits about `cycles` clock cycles, then writes x[i] = value: a slow producer for stream tests.
extern "C" __global__ void slow_fill(ARR1(float, x), float value, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < x_s0) AT1(float, x, i) = value;
}
