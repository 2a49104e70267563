// numba-cuda's max_registers and launch_bounds, written by the emitter as NVVM annotations that libNVVM
// turns into the entry's .maxnreg, .maxntid, .minnctapersm and .maxclusterrank (no PTX text is edited).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/types/signature.hpp"
#include "test_kernel_helpers.hpp"

namespace {

using cubridge::parse_signature;
using cubridge::compiler::CompileOptions;
using cubridge::testing::kernel_options;

constexpr const char* kSource = "def k(a):\n    a[0] = 1\n";

std::string ir_with(const CompileOptions& o) {
  return cubridge::compiler::compile_to_nvvm_ir(kSource, "k", parse_signature("void(int32[:])"), o).nvvm_ir;
}

TEST(KernelDirectives, EachGivenOneIsAnAnnotationOfTheKernel) {
  CompileOptions o = kernel_options();
  o.cc = cubridge::ComputeCapability{9, 0};
  o.max_registers = 40;
  o.max_threads_per_block = 128;
  o.min_blocks_per_sm = 4;
  o.max_blocks_per_cluster = 2;
  const std::string ir = ir_with(o);
  for (const char* note : {"!\"kernel\", i32 1}", "!\"maxnreg\", i32 40}", "!\"maxntidx\", i32 128}",
                           "!\"minctasm\", i32 4}", "!\"cluster_max_blocks\", i32 2}"})
    EXPECT_NE(ir.find(note), std::string::npos) << note << "\n" << ir.substr(ir.find("!nvvm.annotations"));
  const std::string plain = ir_with(kernel_options());
  EXPECT_EQ(plain.find("maxnreg"), std::string::npos);
  EXPECT_EQ(plain.find("maxntidx"), std::string::npos);
}

TEST(KernelDirectives, ClustersNeedComputeCapability9AndDeviceFunctionsTakeNone) {
  CompileOptions o = kernel_options();
  o.cc = cubridge::ComputeCapability{7, 5};
  o.max_blocks_per_cluster = 2;
  try {
    ir_with(o);
    FAIL() << "a cluster bound below 9.0 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs thread-block clusters, compute capability 9.0 or higher; the "
                                         "target is 7.5"),
              std::string::npos)
        << e.what();
  }
  CompileOptions d = kernel_options();
  d.device = true;
  d.max_registers = 32;
  EXPECT_THROW(ir_with(d), std::invalid_argument);
}

}  // namespace
