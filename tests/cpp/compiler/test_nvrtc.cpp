// NVRTC wrapper: PTX, LTO-IR and cubin outputs, options, headers, lowered names, errors with the log.
#include <gtest/gtest.h>

#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/toolkit.hpp"
#include "test_toolkit_samples.hpp"

namespace {

using namespace cubridge;

template <class Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

constexpr const char* kSaxpy = R"(extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})";

TEST(Nvrtc, VersionAndArchs) {
  auto [major, minor] = nvrtc::version();
  EXPECT_GE(major, 12);
  EXPECT_GE(minor, 0);
  std::vector<ComputeCapability> archs = nvrtc::supported_archs();
  ASSERT_FALSE(archs.empty());
  EXPECT_TRUE(std::is_sorted(archs.begin(), archs.end()));
  EXPECT_NE(std::find(archs.begin(), archs.end(), ComputeCapability{9, 0}), archs.end());
}

TEST(Nvrtc, CompilesToPtxThatAssembles) {
  nvrtc::Result r = nvrtc::compile(kSaxpy, "saxpy.cu", {.cc = {9, 0}});
  EXPECT_NE(r.code.find(".visible .entry saxpy("), std::string::npos) << r.code;
  EXPECT_NE(r.code.back(), '\0');
  PtxasResult as = ptxas_check(r.code, {9, 0});
  EXPECT_TRUE(as.ok) << as.log;
}

TEST(Nvrtc, CompilesToLtoIrAndCubin) {
  nvrtc::Result lto = nvrtc::compile(kSaxpy, "saxpy.cu", {.cc = {9, 0}, .output = nvrtc::Output::ltoir});
  EXPECT_GT(lto.code.size(), 16u);
  nvrtc::Result cubin = nvrtc::compile(kSaxpy, "saxpy.cu", {.cc = {9, 0}, .output = nvrtc::Output::cubin});
  EXPECT_EQ(cubin.code.substr(0, 4), "\x7f" "ELF");
}

TEST(Nvrtc, OptionStrings) {
  nvrtc::Options o{.cc = {9, 0}, .output = nvrtc::Output::ltoir, .lineinfo = true, .fastmath = true};
  o.include_dirs = {"/opt/inc"};
  std::vector<std::string> expected = {"-arch=compute_90", "-dlto",        "-rdc=true",
                                       "-lineinfo",        "--use_fast_math", "-std=c++17",
                                       "--include-path=/opt/inc"};
  EXPECT_EQ(nvrtc::option_strings(o), expected);
  nvrtc::Options cubin{.cc = {8, 0}, .output = nvrtc::Output::cubin, .debug = true, .std = ""};
  EXPECT_EQ(nvrtc::option_strings(cubin), (std::vector<std::string>{"-arch=sm_80", "-G"}));
}

TEST(Nvrtc, HeadersAndLoweredNames) {
  nvrtc::Options o{.cc = {9, 0}};
  o.headers = {{"twice.h", "template <class T> __device__ T twice(T x) { return x + x; }\n"}};
  o.name_expressions = {"&scale<float>"};
  nvrtc::Result r = nvrtc::compile(
      "#include \"twice.h\"\n"
      "template <class T> __global__ void scale(T* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n",
      "scale.cu", o);
  ASSERT_EQ(r.lowered_names.size(), 1u);
  EXPECT_EQ(r.lowered_names[0].first, "&scale<float>");
  EXPECT_EQ(r.lowered_names[0].second, "_Z5scaleIfEvPT_");
  EXPECT_NE(r.code.find("_Z5scaleIfEvPT_"), std::string::npos);
}

TEST(Nvrtc, CompileErrorCarriesTheLog) {
  try {
    nvrtc::compile("__global__ void k() { undeclared_thing(); }", "broken.cu", {.cc = {9, 0}});
    FAIL() << "no exception";
  } catch (const nvrtc::NvrtcError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("NVRTC failed: nvrtcCompileProgram of 'broken.cu' with options "
                        "'-arch=compute_90 -std=c++17' returned NVRTC_ERROR_COMPILATION"),
              std::string::npos)
        << what;
    EXPECT_NE(e.log().find("undeclared_thing"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("broken.cu"), std::string::npos) << e.log();
  }
}

TEST(Nvrtc, RejectsBadArguments) {
  EXPECT_EQ(message_of([] { nvrtc::compile(kSaxpy, "", {}); }),
            "nvrtc::compile: the program name is empty; expected a name such as 'kernel.cu' (it "
            "appears in messages)");
  std::string msg = message_of([] { nvrtc::compile(kSaxpy, "k.cu", {.cc = {2, 0}}); });
  EXPECT_NE(msg.find("nvrtc: compute capability 2.0 is not supported by this NVRTC; it accepts "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("9.0"), std::string::npos);
  EXPECT_THROW(nvrtc::compile(kSaxpy, "k.cu", {.cc = {9, 0}, .extra_options = {"--no-such-flag"}}),
               nvrtc::NvrtcError);
}

}  // namespace
