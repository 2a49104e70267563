// cubridge-compile: `cubridge compile` without a Python interpreter. Compiles the function FUNC of a Python
// source file to PTX or LTO-IR with cubridge's own front end and libNVVM (the same flags, defaults and
// messages as the Python CLI, python/cubridge/_cli.py). Exit status: 0 done, 1 the compile or the output
// failed, 2 the command line or the source file is unusable.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cubridge/compiler/compile.hpp"

namespace {

constexpr std::size_t kMaxSourceBytes = std::size_t{16} << 20;  // as the Python CLI: /dev/zero is refused

constexpr const char* kUsage =
    "usage: cubridge-compile {FILE.py:FUNC | -:FUNC} --sig SIG [--abi {c,numba}] [--abi-name NAME] [--output {ptx,ltoir}]\n"
    "                        [--cc CC] [--fastmath] [--lineinfo] [--debug] [--kernel] [-O0] [-o OUT] [--timings]\n";

constexpr const char* kHelp =
    "Compile a Python function to PTX or LTO-IR (no Python interpreter, no GPU).\n\n"
    "positional arguments:\n"
    "  FILE.py:FUNC          the function FUNC defined in FILE.py; -:FUNC reads the module's source from\n"
    "                        standard input\n\n"
    "options:\n"
    "  --sig SIG             the signature, e.g. 'float32(float32, float32)', or '(int32, int32)' to infer the\n"
    "                        return type\n"
    "  --abi {c,numba}       c: a plain C function returning its value; numba: numba-cuda's calling convention\n"
    "                        (default: c, and numba with --kernel: a kernel takes the Numba ABI)\n"
    "  --abi-name NAME       the symbol name of a C-ABI function (default: FUNC)\n"
    "  --output {ptx,ltoir}  PTX text or LTO-IR for nvJitLink (default: ptx)\n"
    "  --cc CC               compute capability, e.g. 9.0, 9, 90 or sm_90 (default: the lowest libNVVM supports)\n"
    "  --fastmath            fast-math flags (flush denormals, approximate division and square root, contract)\n"
    "  --lineinfo            line tables for profilers\n"
    "  --debug               debug information (also turns optimisation off)\n"
    "  --kernel              compile a kernel (device=False) instead of a device function\n"
    "  -O0                   disable optimisation\n"
    "  -o OUT                output file, '-' for standard output (default: FUNC.ptx or FUNC.ltoir in the\n"
    "                        current directory)\n"
    "  --timings             print where the time went to stderr\n"
    "  --version             print cubridge's version\n";

// The compiler's advice names compile()'s keywords; the command says its own flags instead (the same table
// as python/cubridge/_cli.py's _CLI_TERMS).
std::string in_cli_terms(std::string message) {
  constexpr std::pair<std::string_view, std::string_view> kCliTerms[] = {
      {"with device=True", "without --kernel"},
      {"(device=False)", "(--kernel)"},
      {"abi='numba'", "--abi numba"},
      {"abi_info={'abi_name': ...} (or --abi-name)", "--abi-name"}};
  for (const auto& [keyword, flag] : kCliTerms)
    for (auto at = message.find(keyword); at != std::string::npos; at = message.find(keyword, at + flag.size()))
      message.replace(at, keyword.size(), flag);
  return message;
}

int usage_error(const std::string& message) {
  std::cerr << kUsage << "cubridge-compile: error: " << message << "\n";
  return 2;
}

// Standard input's text, at most kMaxSourceBytes of it (as the Python CLI reads `-`).
std::optional<std::string> read_stdin(std::string& why) {
  std::string text;
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxSourceBytes) {
      why = "more than 16 MiB; source files of at most 16 MiB are read";
      return std::nullopt;
    }
  }
  if (std::ferror(stdin) != 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  return text;
}

// The file's text ("-": standard input's): a regular UTF-8 file of at most kMaxSourceBytes, a byte-order
// mark skipped; nullopt and `why` set otherwise.
std::optional<std::string> read_source(const std::string& path, std::string& why) {
  if (path == "-") {
    std::optional<std::string> text = read_stdin(why);
    if (text && text->starts_with("\xEF\xBB\xBF")) text->erase(0, 3);
    return text;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxSourceBytes) {
    why = std::to_string(st.st_size) + " bytes; source files of at most 16 MiB are read";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cubridge;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  compiler::CompileOptions options;
  std::string target, sig, out, abi_name;
  bool have_sig = false, timings = false, abi_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    // The value of the flag `a`: the next argument.
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument("argument " + std::string(a) + ": expected one argument");
      return std::string(args[++i]);
    };
    try {
      if (a == "-h" || a == "--help") {
        std::cout << kUsage << "\n" << kHelp;
        return 0;
      } else if (a == "--version") {
        std::cout << "cubridge " << CUBRIDGE_VERSION << "\n";
        return 0;
      } else if (a == "--sig") {
        sig = value();
        have_sig = true;
      } else if (a == "--abi") {
        std::string v = value();
        if (v != "c" && v != "numba")
          throw std::invalid_argument("argument --abi: invalid choice: '" + v + "' (choose from 'c', 'numba')");
        options.abi = v == "c" ? compiler::Abi::c : compiler::Abi::numba;
        abi_given = true;
      } else if (a == "--abi-name") {
        abi_name = value();
      } else if (a == "--output") {
        std::string v = value();
        if (v != "ptx" && v != "ltoir")
          throw std::invalid_argument("argument --output: invalid choice: '" + v + "' (choose from 'ptx', 'ltoir')");
        options.output = v == "ptx" ? compiler::Output::ptx : compiler::Output::ltoir;
      } else if (a == "--cc") {
        options.cc = ComputeCapability::parse(value());
      } else if (a == "--fastmath") {
        options.fastmath = true;
      } else if (a == "--lineinfo") {
        options.lineinfo = true;
      } else if (a == "--debug") {
        options.debug = true;
      } else if (a == "--kernel") {
        options.device = false;
      } else if (a == "-O0") {
        options.opt = false;
      } else if (a == "-o") {
        out = value();
      } else if (a == "--timings") {
        timings = true;
      } else if (a.starts_with("-") && a != "-" && !a.starts_with("-:")) {
        return usage_error("unrecognized arguments: " + std::string(a));
      } else if (target.empty()) {
        target = a;
      } else {
        return usage_error("unrecognized arguments: " + std::string(a));
      }
    } catch (const std::invalid_argument& e) {
      return usage_error(e.what());
    }
  }
  if (target.empty() || !have_sig)
    return usage_error(std::string("the following arguments are required: ") +
                       (target.empty() ? "FILE.py:FUNC" : "--sig"));
  const auto colon = target.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == target.size()) {
    std::cerr << "cubridge compile: expected FILE.py:FUNC (or -:FUNC for a module on standard input), got '"
              << target << "'\n";
    return 2;
  }
  const std::string path = target.substr(0, colon), func = target.substr(colon + 1);
  std::string why;
  std::optional<std::string> source = read_source(path, why);
  if (!source) {
    std::cerr << "cubridge compile: cannot read " << (path == "-" ? std::string("standard input") : path) << ": "
              << why << "\n";
    return 2;
  }
  if (out.empty()) out = func + (options.output == compiler::Output::ptx ? ".ptx" : ".ltoir");
  if (path == "-") {  // as Python names a module read from standard input, in messages and line tables
    options.filename = "<stdin>";
    options.module_name = "__main__";
  } else {
    options.filename = path;
    std::string stem = path.substr(path.find_last_of('/') + 1);
    options.module_name = stem.substr(0, stem.rfind(".py") == std::string::npos ? stem.size() : stem.rfind(".py"));
  }
  options.abi_name = abi_name;
  if (!abi_given && !options.device) options.abi = compiler::Abi::numba;  // a kernel takes the Numba ABI
  compiler::CompileResult r;
  try {
    r = compile(*source, func, sig, options);
  } catch (const std::exception& e) {  // CompileError, a bad signature, ToolkitError/NvvmError
    std::cerr << "cubridge compile: " << in_cli_terms(e.what()) << "\n";
    return 1;
  }
  if (out == "-") {
    std::cout.write(r.code.data(), static_cast<std::streamsize>(r.code.size()));
    std::cout.flush();
  } else {
    struct stat st {};
    if (::stat(out.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      std::cerr << "cubridge compile: cannot write " << out
                << ": -o " << out << ": is a directory; give a file name (or '-' for standard output)\n";
      return 1;
    }
    std::ofstream f(out, std::ios::binary);
    if (!f || !f.write(r.code.data(), static_cast<std::streamsize>(r.code.size()))) {
      std::cerr << "cubridge compile: cannot write " << out << ": " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  if (timings) {
    const auto& t = r.timings;
    std::fprintf(stderr, "parse %.3f ms, type %.3f ms, emit %.3f ms, libNVVM %.3f ms; %s -> %s\n", t.parse * 1e3,
                 t.type * 1e3, t.emit * 1e3, t.nvvm * 1e3, r.name.c_str(), r.result_type.name().c_str());
  }
  return 0;
}
