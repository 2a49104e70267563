// libFuzzer target for the compiler front end: tokenizer, parser, typer and IR emitter (no libNVVM).
// Input: the first line is a signature ("(int32, float64)"), the rest is Python source compiled as `f`.
// Any input must end in IR or in CompileError/std::invalid_argument: no crash, hang or leak.
// Build and run: fuzz/run_fuzz.sh [seconds]
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "compiler/frontend/ast.hpp"
#include "compiler/lowering/emitter.hpp"
#include "compiler/typing/typer.hpp"

using namespace cubridge::compiler;
using cubridge::parse_signature;
using cubridge::Signature;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t nl = in.find('\n');
  std::string_view sig_text = nl == std::string_view::npos ? std::string_view("(int64,)") : in.substr(0, nl);
  std::string_view source = nl == std::string_view::npos ? in : in.substr(nl + 1);
  CompileOptions options;
  options.filename = "fuzz.py";
  try {
    Signature sig = parse_signature(sig_text);
    SourceSet sources;
    sources.units.push_back(parse_module(source, options.filename, 1));
    for (const char* entry : {"f", "g"}) {
      try {
        TypedModule typed = type_program(sources, entry, sig, options);
        for (Abi abi : {Abi::c, Abi::numba}) {
          options.abi = abi;
          EmittedModule m = emit_module(typed, options);
          if (m.ir.empty()) __builtin_trap();
        }
      } catch (const std::invalid_argument&) {
      }
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
