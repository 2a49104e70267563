// Toolkit discovery: search order, CUDA homes from the environment, messages for missing files,
// the per-component report and the ptxas check.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "compiler/toolkit/toolkit_libraries.hpp"
#include "cubridge/compiler/toolkit.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cubridge;
using namespace cubridge::toolkit_detail;

template <class Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

// A scratch directory removed at the end of the test.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "cubridge-tk-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~ScratchDir() { fs::remove_all(path); }
  void touch(const fs::path& rel) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << "x";
  }
};

// Sets an environment variable for one test and restores it after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

TEST(Toolkit, LocateTriesHomesThenSubdirsThenNames) {
  ScratchDir a, b;
  b.touch("lib64/libx.so");
  b.touch("lib64/libx.so.2");
  Located l = locate({a.path.string(), b.path.string()}, {{"libx.so.2", "libx.so"}, {"nvvm/lib64", "lib64"}});
  EXPECT_EQ(l.path, (b.path / "lib64/libx.so.2").string());
  std::vector<std::string> expected = {
      (a.path / "nvvm/lib64/libx.so.2").string(), (a.path / "nvvm/lib64/libx.so").string(),
      (a.path / "lib64/libx.so.2").string(),      (a.path / "lib64/libx.so").string(),
      (b.path / "nvvm/lib64/libx.so.2").string(), (b.path / "nvvm/lib64/libx.so").string(),
      (b.path / "lib64/libx.so.2").string()};
  EXPECT_EQ(l.searched, expected);
}

TEST(Toolkit, LocateExpandsTargetsGlob) {
  ScratchDir home;
  home.touch("targets/x86_64-linux/lib/libnvvm.so");
  Located l = locate({home.path.string()}, {{"libnvvm.so"}, {"targets/*/lib"}});
  EXPECT_EQ(l.path, (home.path / "targets/x86_64-linux/lib/libnvvm.so").string());
  ScratchDir empty;
  Located none = locate({empty.path.string()}, {{"libnvvm.so"}, {"targets/*/lib"}});
  EXPECT_TRUE(none.path.empty());
  EXPECT_EQ(none.searched, std::vector<std::string>{(empty.path / "targets/*/lib/libnvvm.so").string()});
}

TEST(Toolkit, MissingLibraryNamesTheFileAndEveryPlace) {
  ScratchDir home;
  LoadedLibrary lib = open_library("libFOO", {{"libcubridge_absent.so.9"}, {"lib64", "lib"}},
                                   {home.path.string()});
  EXPECT_EQ(lib.handle, nullptr);
  std::string expected = "cannot find libFOO (libcubridge_absent.so.9): looked in " +
                         (home.path / "lib64/libcubridge_absent.so.9").string() + ", " +
                         (home.path / "lib/libcubridge_absent.so.9").string() +
                         ", the loader's search path as libcubridge_absent.so.9. Set "
                         "CUBRIDGE_CUDA_HOME (or CUDA_HOME) to the CUDA toolkit's directory";
  EXPECT_EQ(lib.error, expected);
  EXPECT_EQ(lib.searched.size(), 3u);
}

TEST(Toolkit, FileThatIsNotALibraryReportsDlopensReason) {
  ScratchDir home;
  home.touch("lib64/libcubridge_fake.so");
  LoadedLibrary lib = open_library("fake", {{"libcubridge_fake.so"}, {"lib64"}}, {home.path.string()});
  EXPECT_EQ(lib.handle, nullptr);
  EXPECT_NE(lib.error.find("; dlopen(\"" + (home.path / "lib64/libcubridge_fake.so").string() +
                           "\") failed: "),
            std::string::npos)
      << lib.error;
}

TEST(Toolkit, LoaderFallbackFindsTheRealPath) {
  ScratchDir home;  // nothing there: the loader's search path must find libc by soname
  LoadedLibrary lib = open_library("libc", {{"libc.so.6"}, {"lib"}, "printf"}, {home.path.string()});
  ASSERT_NE(lib.handle, nullptr) << lib.error;
  EXPECT_NE(lib.path.find("libc"), std::string::npos);
  EXPECT_TRUE(fs::path(lib.path).is_absolute()) << lib.path;
}

TEST(Toolkit, CudaHomesFromTheEnvironmentInOrder) {
  ScratchDir mine, other;
  ScopedEnv e1("CUBRIDGE_CUDA_HOME", mine.path.string());
  ScopedEnv e2("CUDA_HOME", other.path.string());
  ScopedEnv e3("CUDA_PATH", "/nonexistent/cuda");   // skipped: not a directory
  std::vector<std::string> homes = discover_cuda_homes();
  ASSERT_GE(homes.size(), 2u);
  EXPECT_EQ(homes[0], mine.path.string());
  EXPECT_EQ(homes[1], other.path.string());
  for (const std::string& h : homes) EXPECT_NE(h, "/nonexistent/cuda");
  ScopedEnv e4("CUDA_HOME", mine.path.string());  // the same directory twice counts once
  homes = discover_cuda_homes();
  EXPECT_EQ(std::count(homes.begin(), homes.end(), mine.path.string()), 1);
}

TEST(Toolkit, ComponentsReportEveryLibrary) {
  std::vector<ToolkitComponent> cs = toolkit().components();
  ASSERT_EQ(cs.size(), 5u);
  std::vector<std::string> names;
  for (const ToolkitComponent& c : cs) {
    names.push_back(c.name);
    EXPECT_TRUE(c.found) << c.name << ": " << c.error;  // this machine has the whole toolkit
    EXPECT_FALSE(c.path.empty()) << c.name;
    EXPECT_FALSE(c.version.empty()) << c.name;
    EXPECT_FALSE(c.searched.empty()) << c.name;
    EXPECT_EQ(c.searched.back(), c.path);  // found in a CUDA home, the last place tried
  }
  EXPECT_EQ(names, (std::vector<std::string>{"libNVVM", "libdevice", "nvJitLink", "NVRTC", "ptxas"}));
  EXPECT_EQ(toolkit().component("nvjitlink").name, "nvJitLink");
  EXPECT_EQ(message_of([] { toolkit().component("cublas"); }),
            "toolkit component 'cublas' is unknown; expected one of libNVVM, libdevice, nvJitLink, "
            "NVRTC, ptxas");
  EXPECT_EQ(toolkit().libdevice_path(), toolkit().component("libdevice").path);
}

TEST(Toolkit, PtxasCheckReportsFailure) {
  PtxasResult r = ptxas_check(".version 8.0\n.target sm_90\n.address_size 64\nthis is not ptx\n", {9, 0});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(r.log.empty());
  EXPECT_EQ(message_of([] { ptxas_check("", {9, 10}); }),
            "ptxas_check: compute capability 9.10 is not valid; expected major >= 1 and minor 0-9");
}

}  // namespace
