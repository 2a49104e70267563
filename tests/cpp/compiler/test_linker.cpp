// nvJitLink wrapper: LTO of NVRTC LTO-IR with hand-written NVVM LTO-IR (the link example, CPU half),
// PTX and cubin inputs, options and every rejection message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/nvvm.hpp"
#include "test_toolkit_samples.hpp"

namespace {

using namespace cubridge;
using cubridge::testing::f_module;
using cubridge::testing::transform_kernel_source;

constexpr ComputeCapability kCc{9, 0};

template <class Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

std::string f_ltoir() {
  nvvm::Options o;
  o.cc = kCc;
  o.output = nvvm::Output::ltoir;
  return nvvm::compile(f_module(), o);
}

std::string kernel(nvrtc::Output output) {
  nvrtc::Options o;
  o.cc = kCc;
  o.output = output;
  o.relocatable = true;
  return nvrtc::compile(transform_kernel_source(), "transform.cu", o).code;
}

// The body of the PTX function or entry `name`, up to its closing brace at column 0.
std::string ptx_body(const std::string& ptx, const std::string& name) {
  auto at = ptx.find(name + "(");
  if (at == std::string::npos) return {};
  auto end = ptx.find("\n}", at);
  return ptx.substr(at, end - at);
}

TEST(Linker, LtoInlinesTheNvvmFunctionIntoTheNvrtcKernel) {
  Linker linker({.cc = kCc});
  linker.add_ltoir(kernel(nvrtc::Output::ltoir), "transform.ltoir").add_ltoir(f_ltoir(), "f.ltoir");
  LinkResult r = linker.link(/*want_ptx=*/true);
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");
  std::string body = ptx_body(r.ptx, ".entry transform");
  ASSERT_FALSE(body.empty()) << r.ptx;
  EXPECT_EQ(body.find("call"), std::string::npos) << "f was not inlined:\n" << body;
  EXPECT_NE(body.find("fma.rn.f32"), std::string::npos) << body;  // x*y+1 contracted, inline
  // -ptx gives the same PTX without generating a cubin.
  std::string ptx_only = linker.link_ptx();
  EXPECT_NE(ptx_only.find(".entry transform"), std::string::npos);
}

TEST(Linker, LinksPtxInputsWithoutLto) {
  nvvm::Options o;
  o.cc = kCc;
  std::string f_ptx = nvvm::compile(f_module(), o);
  Linker linker({.cc = kCc, .lto = false});
  linker.add_ptx(kernel(nvrtc::Output::ptx), "transform.ptx").add_ptx(f_ptx, "f.ptx");
  LinkResult r = linker.link();
  EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_TRUE(r.ptx.empty());
}

TEST(Linker, LinksACubinInput) {
  nvrtc::Options o;
  o.cc = kCc;
  o.output = nvrtc::Output::cubin;
  o.relocatable = true;
  std::string kernel_cubin = nvrtc::compile(transform_kernel_source(), "transform.cu", o).code;
  nvvm::Options no;
  no.cc = kCc;
  std::string f_ptx = nvvm::compile(f_module(), no);
  Linker linker({.cc = kCc, .lto = false});
  linker.add_cubin(kernel_cubin, "transform.cubin").add_ptx(f_ptx, "f.ptx");
  EXPECT_EQ(linker.link().cubin.substr(0, 4), "\x7f" "ELF");
}

TEST(Linker, UndefinedFunctionCarriesTheErrorLog) {
  Linker linker({.cc = kCc});
  linker.add_ltoir(kernel(nvrtc::Output::ltoir), "transform.ltoir");
  try {
    linker.link();
    FAIL() << "no exception";
  } catch (const LinkError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("nvJitLink failed: nvJitLinkComplete returned NVJITLINK_ERROR_"),
              std::string::npos)
        << what;
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(e.log().find("f"), std::string::npos) << e.log();
  }
}

TEST(Linker, GarbageInputIsALinkError) {
  Linker linker({.cc = kCc});
  linker.add_cubin("not a cubin at all", "junk.cubin");
  std::string msg = message_of([&] { linker.link(); });
  EXPECT_NE(msg.find("nvJitLink failed: nvJitLinkAddData (cubin input 'junk.cubin') returned"),
            std::string::npos)
      << msg;
}

TEST(Linker, OptionStrings) {
  Linker l({.cc = {8, 6}, .lto = true, .opt_level = 0, .debug = true, .ftz = true});
  std::vector<std::string> expected = {"-arch=sm_86", "-O0",         "-lto",         "-g",
                                       "-ftz=1",      "-prec-div=1", "-prec-sqrt=1", "-fma=1"};
  EXPECT_EQ(l.option_strings(), expected);
  Linker plain({.cc = {9, 0}, .lto = false, .lineinfo = true});
  EXPECT_EQ(plain.option_strings(), (std::vector<std::string>{"-arch=sm_90", "-O3", "-lineinfo"}));
}

TEST(Linker, RejectsBadArguments) {
  EXPECT_EQ(message_of([] { Linker({.opt_level = 2}); }),
            "Linker: opt level 2 is not valid; nvJitLink accepts 0 or 3");
  EXPECT_EQ(message_of([] { Linker({.cc = {9, 12}}); }),
            "Linker: compute capability 9.12 is not valid; expected major >= 1 and minor 0-9");
  Linker l;
  EXPECT_EQ(message_of([&] { l.link(); }),
            "Linker::link: no inputs; add PTX, LTO-IR, cubin or fatbin first");
  EXPECT_EQ(message_of([&] { l.add_ptx("", "a.ptx"); }),
            "Linker::add: the ptx input 'a.ptx' is empty; expected its bytes");
  Linker no_lto({.lto = false});
  no_lto.add_ptx(".version 8.0", "a.ptx");
  EXPECT_EQ(message_of([&] { no_lto.link(true); }),
            "Linker::link: linked PTX exists only with LTO (lto=true); got lto=false");
  EXPECT_EQ(message_of([&] { no_lto.link_ptx(); }),
            "Linker::link_ptx: linked PTX exists only with LTO (lto=true); got lto=false");
  EXPECT_EQ(message_of([&] { l.add_file("/nonexistent/x.ptx"); }),
            "Linker::add_file: cannot open '/nonexistent/x.ptx'");
}

TEST(Linker, InputTypes) {
  EXPECT_EQ(link_input_type_of_path("a/b/k.ptx"), LinkInputType::ptx);
  EXPECT_EQ(link_input_type_of_path("f.ltoir"), LinkInputType::ltoir);
  EXPECT_EQ(link_input_type_of_path("f.lto"), LinkInputType::ltoir);
  EXPECT_EQ(link_input_type_of_path("x.cubin"), LinkInputType::cubin);
  EXPECT_EQ(link_input_type_of_path("x.fatbin"), LinkInputType::fatbin);
  EXPECT_EQ(link_input_type_of_path("x.o"), LinkInputType::object);
  EXPECT_EQ(link_input_type_of_path("libx.a"), LinkInputType::library);
  EXPECT_EQ(message_of([] { link_input_type_of_path("dir.v2/kernel"); }),
            "cannot tell the link input type of 'dir.v2/kernel' from its extension; expected .ptx, "
            ".ltoir, .lto, .cubin, .fatbin, .o or .a, or give the type");
  EXPECT_EQ(message_of([] { parse_link_input_type("elf"); }),
            "link input type 'elf' is not valid; expected one of 'ptx', 'ltoir', 'cubin', 'fatbin', "
            "'object', 'library'");
  for (LinkInputType t : {LinkInputType::ptx, LinkInputType::ltoir, LinkInputType::cubin,
                          LinkInputType::fatbin, LinkInputType::object, LinkInputType::library})
    EXPECT_EQ(parse_link_input_type(to_string(t)), t);
}

TEST(Linker, AddFileReadsAndInfersTheType) {
  auto path = std::filesystem::temp_directory_path() /
              ("cubridge-test-f-" + std::to_string(::getpid()) + ".ltoir");  // unique per process
  {
    std::ofstream out(path, std::ios::binary);
    std::string lto = f_ltoir();
    out.write(lto.data(), static_cast<std::streamsize>(lto.size()));
  }
  Linker linker({.cc = kCc});
  linker.add_file(path.string()).add_ltoir(kernel(nvrtc::Output::ltoir), "transform.ltoir");
  EXPECT_EQ(linker.input_count(), 2u);
  EXPECT_EQ(linker.link().cubin.substr(0, 4), "\x7f" "ELF");
  std::filesystem::remove(path);
}

TEST(Linker, OneCallLinksEveryInput) {
  std::string k = kernel(nvrtc::Output::ltoir), f = f_ltoir();
  LinkResult r = link({{LinkInputType::ltoir, k, "transform.ltoir"}, {LinkInputType::ltoir, f, "f.ltoir"}},
                      {.cc = kCc});
  EXPECT_EQ(r.cubin.substr(0, 4), "\x7f" "ELF");
}

TEST(Linker, ReportsTheLoadedLibrarysVersion) {
  auto [major, minor] = nvjitlink_version();
  EXPECT_GE(major, 12u);
  EXPECT_LT(minor, 100u);
}

}  // namespace
