// Toolkit discovery: search order, CUDA homes from the environment, messages for missing files,
// the per-component report and the ptxas check.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>

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
                         ", the loader's search path as libcubridge_absent.so.9. Install a CUDA 13 "
                         "toolkit and set CUBRIDGE_CUDA_HOME (or CUDA_HOME) to its directory, or put "
                         "libFOO on PATH";
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

// A scratch environment for discover_cuda_homes(inputs): only the variables given exist.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  HomeSearchInputs inputs(std::vector<std::string> wheels = {}) const {
    HomeSearchInputs in;
    in.getenv = [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
    in.wheel_directories = std::move(wheels);
    in.cuda_major = 13;
    return in;
  }
};

std::vector<std::string> origins(const std::vector<CudaHome>& homes) {
  std::vector<std::string> out;
  for (const CudaHome& h : homes) out.push_back(h.source + ":" + h.origin);
  return out;
}

TEST(Toolkit, CudaHomesFromTheEnvironmentInOrder) {
  ScratchDir mine, other;
  FakeEnv env{{{"CUBRIDGE_CUDA_HOME", mine.path.string()}, {"CUDA_HOME", other.path.string()},
               {"CUDA_PATH", "/nonexistent/cuda"}}};  // skipped: not a directory
  std::vector<CudaHome> homes = discover_cuda_homes(env.inputs());
  ASSERT_GE(homes.size(), 2u);
  EXPECT_EQ(homes[0].path, mine.path.string());
  EXPECT_EQ(homes[0].origin, "$CUBRIDGE_CUDA_HOME");
  EXPECT_EQ(homes[1].path, other.path.string());
  EXPECT_EQ(homes[1].origin, "$CUDA_HOME");
  for (const CudaHome& h : homes) EXPECT_NE(h.path, "/nonexistent/cuda");
  env.vars["CUDA_HOME"] = mine.path.string();  // the same directory twice counts once
  homes = discover_cuda_homes(env.inputs());
  EXPECT_EQ(std::count_if(homes.begin(), homes.end(), [&](const CudaHome& h) { return h.path == mine.path.string(); }),
            1);
}

// Rule: variables, then nvidia/cu13 under each wheel directory, then $CONDA_PREFIX, then the system.
TEST(Toolkit, CudaHomesOrderVariablesWheelsCondaSystem) {
  ScratchDir var, site_a, site_b, conda, nvcc_home;
  site_a.touch("nvidia/cu13/lib/libnvvm.so.4");
  site_b.touch("nvidia/cu12/lib/libnvvm.so.4");  // another CUDA major's wheels: not ours
  nvcc_home.touch("bin/nvcc");
  FakeEnv env{{{"CUDA_PATH", var.path.string()}, {"CONDA_PREFIX", conda.path.string()},
               {"PATH", "/nonexistent:" + (nvcc_home.path / "bin").string()}}};
  std::vector<CudaHome> homes = discover_cuda_homes(env.inputs({site_a.path.string(), site_b.path.string()}));
  std::vector<std::string> expected = {"variables:$CUDA_PATH",
                                       "wheels:nvidia-* wheels in " + site_a.path.string(),
                                       "conda:$CONDA_PREFIX", "system:nvcc on PATH"};
  std::vector<std::string> got = origins(homes);
  if (!got.empty() && got.back() == "system:/usr/local/cuda") got.pop_back();  // where this machine has one
  EXPECT_EQ(got, expected);
  EXPECT_EQ(homes[1].path, (site_a.path / "nvidia/cu13").string());
  EXPECT_EQ(homes[3].path, fs::canonical(nvcc_home.path).string());
}

// Rule: CUBRIDGE_TOOLKIT_SEARCH limits the search to the places it names; a bad name is refused by name.
TEST(Toolkit, ToolkitSearchVariableLimitsThePlaces) {
  ScratchDir var, site, conda;
  site.touch("nvidia/cu13/lib/libnvrtc.so.13");
  FakeEnv env{{{"CUDA_HOME", var.path.string()}, {"CONDA_PREFIX", conda.path.string()},
               {"CUBRIDGE_TOOLKIT_SEARCH", "wheels"}}};
  EXPECT_EQ(origins(discover_cuda_homes(env.inputs({site.path.string()}))),
            std::vector<std::string>{"wheels:nvidia-* wheels in " + site.path.string()});
  env.vars["CUBRIDGE_TOOLKIT_SEARCH"] = "conda, variables";  // the order stays the documented one
  EXPECT_EQ(origins(discover_cuda_homes(env.inputs({site.path.string()}))),
            (std::vector<std::string>{"variables:$CUDA_HOME", "conda:$CONDA_PREFIX"}));
  env.vars["CUBRIDGE_TOOLKIT_SEARCH"] = "wheels,pip";
  EXPECT_EQ(message_of([&] { discover_cuda_homes(env.inputs()); }),
            "CUBRIDGE_TOOLKIT_SEARCH='wheels,pip': 'pip' is not a place to search; expected a "
            "comma-separated list of variables, wheels, conda, system");
  env.vars["CUBRIDGE_TOOLKIT_SEARCH"] = ",";
  EXPECT_EQ(message_of([&] { discover_cuda_homes(env.inputs()); }),
            "CUBRIDGE_TOOLKIT_SEARCH=',' names no place to search; expected a comma-separated list of "
            "variables, wheels, conda, system (unset it to search all four)");
}

TEST(Toolkit, WithoutTheSystemTheLoaderIsNotAsked) {
  ScopedEnv only_wheels("CUBRIDGE_TOOLKIT_SEARCH", "wheels");
  ScratchDir home;
  LoadedLibrary lib = open_library("libc", {{"libc.so.6"}, {"lib"}, "printf"}, {home.path.string()});
  EXPECT_EQ(lib.handle, nullptr);
  EXPECT_EQ(lib.searched, std::vector<std::string>{(home.path / "lib/libc.so.6").string()});
}

TEST(Toolkit, MissingLibraryAdviceNamesTheWheel) {
  EXPECT_NE(not_found_message("NVRTC", "libnvrtc.so.13", {}).find("`pip install cubridge[cu13]`; NVRTC comes in "
                                                                  "nvidia-cuda-nvrtc"),
            std::string::npos);
  EXPECT_NE(not_found_message("libdevice", "libdevice.10.bc", {}).find("libdevice comes in nvidia-nvvm"),
            std::string::npos);
  EXPECT_NE(not_found_message("nvJitLink", "libnvJitLink.so.13", {}).find("nvJitLink comes in nvidia-nvjitlink"),
            std::string::npos);
}

// Rule: the wheel directories are fixed once the toolkit has been looked for.
TEST(Toolkit, WheelDirectoriesAreSetBeforeDiscovery) {
  (void)toolkit().homes();
  std::vector<std::string> current = wheel_directories();
  EXPECT_NO_THROW(set_wheel_directories(current));  // the same list again is fine
  EXPECT_EQ(message_of([&] { set_wheel_directories({"/somewhere/else"}); }),
            "set_wheel_directories: the CUDA toolkit was already looked for in this process; give the "
            "directories that hold NVIDIA's wheels before the first compile, link or toolkit query");
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
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_FALSE(c.origin.empty()) << c.name;
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
