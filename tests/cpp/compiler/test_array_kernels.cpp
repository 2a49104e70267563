// Kernels with array arguments (no GPU): array type names and parsing, the Numba-ABI kernel prototype
// (numba-cuda's flattened array parameters and mangled names), numba-cuda's `cuda.` spelling of the
// intrinsics, and the NVVM intrinsics the emitter uses (checked through libNVVM and the PTX).
#include <gtest/gtest.h>

#include <string>

#include "cubridge/compiler/compile.hpp"
#include "test_kernel_helpers.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
using cubridge::testing::kernel_options;
using cubridge::testing::count;
const char* kNumbaSource =
    "from numba import cuda, float32\n"
    "def k(x, out):\n"
    "    s = cuda.shared.array((4, 8), float32)\n"
    "    i = cuda.grid(1)\n"
    "    t = cuda.threadIdx.x\n"
    "    s[t % 4, t % 8] = x[i]\n"
    "    cuda.syncthreads()\n"
    "    v = cuda.shfl_down_sync(0xFFFFFFFF, x[i], 1)\n"
    "    if cuda.all_sync(0xFFFFFFFF, v > 0):\n"
    "        cuda.atomic.add(out, 0, s[0, 1])\n"
    "    cuda.atomic.max(out, 1, v)\n"
    "    out[-1] = cuda.laneid + cuda.blockIdx.y + cuda.gridDim.z\n";
}  // namespace

TEST(ArrayTypes, ParseNumbaSpellings) {
  EXPECT_EQ(parse_type_name("float32[:]")->name(), "array(float32, 1d, A)");
  EXPECT_EQ(parse_type_name("float32[::1]")->name(), "array(float32, 1d, C)");
  EXPECT_EQ(parse_type_name("f8[:, ::1]")->name(), "array(float64, 2d, C)");
  EXPECT_EQ(parse_type_name("int64[::1, :, :]")->name(), "array(int64, 3d, F)");
  EXPECT_EQ(parse_type_name("const int8[:, :]")->name(), "readonly array(int8, 2d, A)");
  EXPECT_EQ(parse_type_name("array(complex64, 2d, F)")->name(), "array(complex64, 2d, F)");
  EXPECT_EQ(*parse_type_name("array(float32, 1d, F)"), *parse_type_name("float32[::1]"));
  EXPECT_EQ(parse_type_name("array(float32, 0d, C)")->name(), "array(float32, 0d, C)");  // numba's 0-d arrays
  for (const char* bad : {"float32[:, ::1, :]", "float32[3]", "float32[]", "const int32",
                          "UniTuple(float32* x 2)", "(Record(a=int8), int32)"})
    EXPECT_FALSE(parse_type_name(bad).has_value()) << bad;
  // Tuples hold arrays (numba-cuda's tuples of arrays, also as kernel arguments).
  EXPECT_EQ(parse_type_name("UniTuple(float32[:] x 2)")->name(), "UniTuple(array(float32, 1d, A) x 2)");
  EXPECT_EQ(parse_type_name("(float32[:], int32)")->name(), "Tuple(array(float32, 1d, A), int32)");
  Signature s = parse_signature("void(float32[:, ::1], const int64[:], int32)");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_TRUE(s.result && s.result->is_none());
  EXPECT_EQ(s.args[1].name(), "readonly array(int64, 1d, A)");
}

TEST(ArrayTypes, MangledLikeNumba) {
  EXPECT_EQ(mangle_numba_abi("m", "k", {Type::array(Type::floating(32), 1, 'C'), Type::integer(64, true)}),
            "_ZN1m1kE5ArrayIfLi1E1C7mutable7alignedEx");
  EXPECT_EQ(mangle_numba_abi("m", "k", {Type::array(Type::integer(32, false), 3, 'A', true)}),
            "_ZN1m1kE5ArrayIjLi3E1A8readonly7alignedE");
}

TEST(ArrayKernels, EntryTakesNumbaCudasFlattenedArrays) {
  CompileOptions o = kernel_options();
  std::string ir = compile_to_nvvm_ir("def k(a, b, n):\n    b[n] = a[n, 0]\n", "k",
                                      parse_signature("void(float64[:, ::1], int32[::1], int64)"), o).nvvm_ir;
  EXPECT_NE(ir.find("define void @_ZN1m1kE5ArrayIdLi2E1C7mutable7alignedE5ArrayIiLi1E1C7mutable7alignedEx(i8* %p0.0, i8* %p0.1, "
                    "i64 %p0.2, i64 %p0.3, double* %p0.4, i64 %p0.5, i64 %p0.6, i64 %p0.7, i64 %p0.8, i8* %p1.0, i8* %p1.1, "
                    "i64 %p1.2, i64 %p1.3, i32* %p1.4, i64 %p1.5, i64 %p1.6, i64 %\"n\")"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("!{void (i8*, i8*, i64, i64, double*, i64, i64, i64, i64, i8*, i8*, i64, i64, i32*, i64, i64, i64)* @_ZN1m1k"),
            std::string::npos);
  CompileResult r = compile("def k(a, b, n):\n    b[n] = a[n, 0]\n", "k", "void(float64[:, ::1], int32[::1], int64)", o);
  EXPECT_EQ(count(r.code, "_param_"), 17u + count(r.code, "ld.param"));  // 9 + 7 + 1 declared parameters
}

TEST(ArrayKernels, NumbaSpellingOfTheIntrinsics) {
  CompileResult r = compile(kNumbaSource, "k", "void(float32[::1], float32[::1])", kernel_options());
  for (const char* want : {".shared .align 16 .b8", "bar.sync", "shfl.sync.down.b32", "vote.sync.all.pred",
                           "atom.global.add.f32", "%laneid", "%ctaid.y", "%nctaid.z", "atom.global.cas.b32"})
    EXPECT_NE(r.code.find(want), std::string::npos) << want << "\n" << r.code;
}

TEST(ArrayKernels, NegativeIndicesWrapAndUnsignedDoNot) {
  CompileOptions o = kernel_options();
  std::string s = compile_to_nvvm_ir("def k(a, i, j):\n    a[i] = a[j]\n", "k", parse_signature("void(int32[:], int64, uint64)"), o)
                      .nvvm_ir;
  EXPECT_EQ(count(s, "icmp slt i64"), 1u) << s;  // only the signed index wraps
}

TEST(ArrayKernels, Rejections) {
  CompileOptions o = kernel_options();
  struct Bad {
    const char* src;
    const char* sig;
    const char* message;
  } cases[] = {
      {"def k(a):\n    a[0] = 1\n", "void(const int32[:])", "cannot store to 'a': it is a read-only array"},
      {"def k(a):\n    x = (a, None)\n", "void(int32[:])", "tuples hold numbers, arrays and tuples; got a value of type none"},
      // (a parameter re-bound and read only after its re-binding is a version of its own, as numba's SSA makes
      // it; a re-binding under a condition meets the parameter at the read after the if.)
      {"def k(a, b, c):\n    if c:\n        a = b\n    a[0] = 0\n", "void(int32[:], float32[::1], boolean)",
       "cannot unify the types of variable 'a'"},
      {"def k(a, b, c):\n    if c:\n        a = b\n    a[0, 0] = 0\n", "void(int32[:], int32[:, :], boolean)",
       "cannot unify the types of variable 'a'"},
      {"def k(a, b, f):\n    c = a if f else b\n    c[0] = 1\n", "void(int32[::1], const int32[:], bool)",
       "cannot store to 'c': it is a read-only array (readonly array(int32, 1d, A))"},
      {"import numba.cuda as cuda\ndef k(a):\n    a[0] = cuda.gridsize(0)\n", "void(int64[:])", "gridsize(ndim) takes the constant 1, 2 or 3"},
      {"import numba.cuda as cuda\ndef k(a):\n    cuda.atomic.nand(a, 0, 1)\n", "void(int64[:])", "cuda.atomic.nand is not supported; the atomics are"},
      {"import numba.cuda as cuda\ndef k(a):\n    cuda.atomic.cas(a, 0, 1)\n", "void(int64[:])", "cuda.atomic.cas(array, index, old, value) takes 4 arguments, got 3"},
      {"import numba.cuda as cuda\ndef k(a):\n    s = cuda.local.array(0, cuda.float32)\n", "void(int64[:])", "dimension 0 of the shape must be positive"},
      {"import numba.cuda as cuda\ndef k(a):\n    a[0] = cuda.syncthreads_count(1.5)\n", "void(int64[:])", "the predicate must be an integer or a bool, got float64"},
      {"def k(a):\n    a[0][0] = 1\n", "void(int64[:])", "cannot assign to an element of a value of type int64"},
      // Errors name an intrinsic the way the kernel reached it: cuda.X through numba, cubridge.X through cubridge.
      {"import cubridge\ndef k(a):\n    cubridge.atomic.cas(a, 0, 1)\n", "void(int64[:])", "cubridge.atomic.cas(array, index, old, value) takes 4 arguments, got 3"},
      {"import cubridge\ndef k(a):\n    a[0] = cubridge.threadIdx.w\n", "void(int64[:])", "cubridge.threadIdx.w is not supported; read cubridge.threadIdx.x, .y or .z"},
      {"from numba import cuda\ndef k(a):\n    a[0] = cuda.threadIdx.w\n", "void(int64[:])", "cuda.threadIdx.w is not supported; read cuda.threadIdx.x, .y or .z"},
      {"import cubridge\ndef k(a):\n    s = cubridge.shared.array((a[0],), cubridge.int32)\n", "void(int64[:])", "cubridge.shared.array: the shape must be an integer constant"},
  };
  for (const Bad& b : cases) {
    try {
      compile_to_nvvm_ir(b.src, "k", parse_signature(b.sig), o);
      ADD_FAILURE() << "accepted: " << b.src;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << e.what();
    }
  }
}

namespace {
std::string message_of_constant_array(std::string_view dtype, std::vector<std::int64_t> shape, std::string bytes) {
  try {
    constant_array(dtype, std::move(shape), std::move(bytes));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

TEST(ConstantArrays, CheckedWhenHandedOver) {
  EXPECT_EQ(constant_array("int16", {2, 3}, std::string(12, '\1')).shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_NE(message_of_constant_array("object", {2}, std::string(16, '\0')).find("dtype 'object' is not a number type"),
            std::string::npos);
  EXPECT_NE(message_of_constant_array("float64", {2}, std::string(15, '\0'))
                .find("15 bytes given for 2 elements of float64 (16 bytes expected)"),
            std::string::npos);
  EXPECT_EQ(constant_array("float64", {}, std::string(8, '\0')).shape.size(), 0u);  // numba's 0-d array
  EXPECT_NE(message_of_constant_array("float64", {}, "").find("0 bytes given for 1 elements"), std::string::npos);
  EXPECT_NE(message_of_constant_array("float64", std::vector<std::int64_t>(33, 1), std::string(8, '\0'))
                .find("rank 33 is not supported; expected 0 to 32 dimensions"),
            std::string::npos);
  EXPECT_NE(message_of_constant_array("int8", {-1}, "").find("dimension -1 is negative"), std::string::npos);
}

TEST(DeviceArrays, A0dArrayIsCapturedWithNoExtentsOrStrides) {
  DeviceArrayRef a = device_array_ref("array(float32, 0d, C)", 0x7F0000004000, {}, {});  // numba's 0-d array
  EXPECT_EQ(a.type.ndim(), 0);
  EXPECT_TRUE(a.shape.empty() && a.strides.empty());
  try {
    device_array_ref("array(float32, 0d, C)", 0x7F0000004000, {1}, {4});
    ADD_FAILURE() << "a 0-d array with one extent was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("needs 0 extents and strides, got 1 and 1"), std::string::npos) << e.what();
  }
}

TEST(ConstantArrays, GlobalsBecomeAddrspace4BytesReadThroughAGenericPointer) {
  CompileOptions o = kernel_options();
  std::string bytes = {'\x01', '\x00', '\x00', '\x00', '\xff', '\xff', '\xff', '\xff'};  // int32 1, -1
  o.constant_arrays["W"] = constant_array("int32", {2}, bytes);
  const char* src =
      "import cubridge\n"
      "def k(out, i):\n"
      "    w = cubridge.const.array_like(W)\n"
      "    out[0] = W[i] + w[i] + W.shape[0]\n";
  std::string ir = compile_to_nvvm_ir(src, "k", parse_signature("void(int32[::1], int64)"), o).nvvm_ir;
  EXPECT_EQ(count(ir, "@__cb_const_W = internal addrspace(4) constant [8 x i8] c\"\\01\\00\\00\\00\\FF\\FF\\FF\\FF\""), 1u)
      << ir;  // one global, however often it is read
  EXPECT_NE(ir.find("addrspacecast i32 addrspace(4)*"), std::string::npos) << ir;
  std::string ptx = compile(src, "k", parse_signature("void(int32[::1], int64)"), o).code;
  EXPECT_NE(ptx.find("ld.const.u32"), std::string::npos) << ptx;
}

TEST(ConstantArrays, TupleItemsAreUnrolledWithTheirOwnTypes) {
  // A captured tuple (CompileOptions::constant_tuples) of a 1-d float64 and a 2-d int32 array: literal_unroll
  // runs the body once per item, t[k] and len(t) fold, each item is its own addrspace(4) global.
  CompileOptions o = kernel_options();
  o.constant_arrays["T[0]"] = constant_array("float64", {1}, std::string(8, '\0'));
  o.constant_arrays["T[1]"] = constant_array("int32", {2, 2}, std::string(16, '\0'));
  o.constant_tuples["T"] = {"T[0]", "T[1]"};
  const char* src =
      "import numba.misc.special.literal_unroll as literal_unroll\n"
      "def k(out, i):\n"
      "    j = 0\n"
      "    for a in literal_unroll(T):\n"
      "        first = a[0]\n"
      "        out[j] = a.size + a.ndim\n"
      "        j += 1\n"
      "    out[2] = len(T) + T[-1][i, i]\n";
  std::string ir = compile_to_nvvm_ir(src, "k", parse_signature("void(float64[::1], int64)"), o).nvvm_ir;
  EXPECT_EQ(count(ir, "@__cb_const_T$1 = internal addrspace(4) constant [16 x i8]"), 1u) << ir;
}

TEST(ConstantArrays, ReadOnlyAndWithinConstantMemory) {
  CompileOptions o = kernel_options();
  o.constant_arrays["W"] = constant_array("float32", {2}, std::string(8, '\0'));
  o.constant_arrays["BIG"] = constant_array("uint8", {40000}, std::string(40000, '\0'));
  o.constant_arrays["BIG2"] = constant_array("uint8", {30000}, std::string(30000, '\0'));
  struct Bad {
    const char* src;
    const char* message;
  } cases[] = {
      {"def k(out):\n    W[0] = 1.0\n", "cannot store to 'W': it is a NumPy array bound outside the kernel"},
      {"def k(out):\n    out[0] = BIG[0] + BIG2[0]\n",
       "array 'BIG2' (30000 bytes) does not fit: the module's constant arrays take 70000 bytes"},
      {"import cubridge\ndef k(out):\n    w = cubridge.const.array_like(out)\n",
       "cubridge.const.array_like(ary): ary must be a NumPy array bound outside the kernel"},
  };
  for (const Bad& b : cases) {
    try {
      compile_to_nvvm_ir(b.src, "k", parse_signature("void(float32[::1])"), o);
      ADD_FAILURE() << "accepted: " << b.src;
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << e.what();
    }
  }
}
