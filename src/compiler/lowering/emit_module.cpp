// Internal: the NVVM IR module: header, exported entry (Numba ABI core or C-ABI wrapper), module
// functions emitted on first call, helper functions, declarations and the NVVM IR version metadata.
#include <cstdio>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {

constexpr const char* kDataLayout =
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-"
    "f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n\n";

std::string escape_identifier(std::string_view s) {
  // Numba's rule: characters outside [A-Za-z0-9_] become _XX (hex of each UTF-8 byte).
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "_%02x", c);
      out += buf;
    }
  }
  if (!out.empty() && out[0] >= '0' && out[0] <= '9') out = "_" + out;
  return out;
}

std::string mangle_part(std::string_view s) {
  std::string e = escape_identifier(s);
  return std::to_string(e.size()) + e;
}

// An internal core's name: its index, then the Python name length-prefixed as in numba's mangling
// ("__cb_fn1_8set_zero"), so the name reads as numba-cuda's does where tools (and numba's own tests) look
// for a function by its Python name.
std::string internal_symbol(std::size_t index, std::string_view python_name) {
  return "__cb_fn" + std::to_string(index) + "_" + mangle_part(python_name);
}

std::string mangle_type(const Type& t) {
  if (t.is_bool()) return "b";
  if (t.is_int()) {
    switch (t.bits()) {
      case 8: return t.is_signed() ? "a" : "h";
      case 16: return t.is_signed() ? "s" : "t";
      case 32: return t.is_signed() ? "i" : "j";
      default: return t.is_signed() ? "x" : "y";
    }
  }
  if (t.is_float() && t.bits() == 16) return "Dh";
  if (t.is_float() && t.bits() == 32) return "f";
  if (t.is_float() && t.bits() == 64) return "d";
  if (t.is_tuple()) {
    // Numba's template-style spelling: 8UniTupleIxLi2EE, 5TupleIxdE.
    const auto& e = t.elements();
    bool uniform = !e.empty();
    for (const Type& x : e) uniform = uniform && x == e[0];
    if (uniform) return "8UniTupleI" + mangle_type(e[0]) + "Li" + std::to_string(e.size()) + "EE";
    std::string s = "5TupleI";
    for (const Type& x : e) s += mangle_type(x);
    return s + "E";
  }
  if (t.is_array()) {
    // numba's Array.mangling_args: Array<dtype, ndim, layout, mutable|readonly, aligned>.
    return "5ArrayI" + mangle_type(t.dtype()) + "Li" + std::to_string(t.ndim()) + "E1" + std::string(1, t.layout()) +
           (t.readonly() ? "8readonly" : "7mutable") +
           (t.dtype().is_record() && !t.dtype().aligned() ? "9unalignedE" : "7alignedE");
  }
  if (t.is_record()) {
    // Numba mangles a record as Record<its type code>, a number private to its process; a hash of the
    // record's name keeps the symbol short and stable across processes.
    std::uint32_t h = 2166136261u;
    for (unsigned char c : t.name()) h = (h ^ c) * 16777619u;
    return "6RecordILj" + std::to_string(h) + "EE";
  }
  return mangle_part(t.name());
}

}  // namespace

std::string mangle_numba_abi(std::string_view module_name, std::string_view qualname, const std::vector<Type>& args) {
  std::string s = "_ZN";
  auto parts = [&](std::string_view dotted) {
    std::size_t start = 0;
    while (start <= dotted.size()) {
      std::size_t dot = dotted.find('.', start);
      if (dot == std::string_view::npos) dot = dotted.size();
      if (dot > start) s += mangle_part(dotted.substr(start, dot - start));
      start = dot + 1;
    }
  };
  parts(module_name);
  parts(qualname);
  s += "E";
  for (const Type& t : args) s += mangle_type(t);
  return s;
}

const std::string& ModuleEmitter::function_symbol(int index) {
  auto i = static_cast<std::size_t>(index);
  if (symbols.size() <= i) symbols.resize(module.functions.size());
  if (symbols[i].empty()) {
    TypedFunction& f = *module.functions[i];
    symbols[i] = internal_symbol(i, f.def->name);
    pending.push_back(index);
  }
  return symbols[i];
}

std::string ModuleEmitter::helper(const std::string& name, const Type& t) {
  std::string ty = llvm_value_type(t);
  std::string sfx = t.is_complex() ? std::to_string(t.bits()) : t.is_float() ? std::to_string(t.bits()) : "";
  std::string sym = "__cb_" + name + sfx;
  if (!helpers.insert(sym).second) return "@" + sym;
  std::string& h = helper_text;
  if (name == "ipow_s" || name == "ipow_u") {
    // Python int ** int with Numba's NumPy-model results for negative exponents: 1 and -1 keep their
    // power, 0 gives INT64_MIN, anything else 0. Non-negative exponents: square and multiply (wraps).
    h += "define internal i64 @" + sym + "(i64 %b, i64 %e) alwaysinline {\nentry:\n";
    if (name == "ipow_s") {
      h += "  %neg = icmp slt i64 %e, 0\n  br i1 %neg, label %negative, label %loop\n"
           "negative:\n  %is1 = icmp eq i64 %b, 1\n  %ism1 = icmp eq i64 %b, -1\n  %is0 = icmp eq i64 %b, 0\n"
           "  %odd = and i64 %e, 1\n  %oddb = icmp ne i64 %odd, 0\n  %m1 = select i1 %oddb, i64 -1, i64 1\n"
           "  %r0 = select i1 %is0, i64 -9223372036854775808, i64 0\n  %r1 = select i1 %ism1, i64 %m1, i64 %r0\n"
           "  %r2 = select i1 %is1, i64 1, i64 %r1\n  ret i64 %r2\n";
    } else {
      h += "  br label %loop\n";
    }
    h += "loop:\n  %r = phi i64 [1, %entry], [%r.next, %body]\n  %x = phi i64 [%b, %entry], [%x.next, %body]\n"
         "  %n = phi i64 [%e, %entry], [%n.next, %body]\n  %done = icmp eq i64 %n, 0\n"
         "  br i1 %done, label %exit, label %body\nbody:\n  %bit = and i64 %n, 1\n  %odd.b = icmp ne i64 %bit, 0\n"
         "  %rx = mul i64 %r, %x\n  %r.next = select i1 %odd.b, i64 %rx, i64 %r\n  %x.next = mul i64 %x, %x\n"
         "  %n.next = lshr i64 %n, 1\n  br label %loop\nexit:\n  ret i64 %r\n}\n\n";
    return "@" + sym;
  }
  std::string one = t.bits() == 32 ? "0x3FF0000000000000" : "0x3FF0000000000000";
  std::string zero = "0x0000000000000000", negzero = "0x8000000000000000", half = "0x3FE0000000000000";
  if (name == "fpowi") {
    // float ** int by repeated squaring (Numba's int_power); a negative exponent takes 1/r, and an
    // exponent beyond 65536 goes to pow(x, float(e)) as Numba does (libdevice, in float64).
    declare("declare double @__nv_pow(double, double)");
    uses_libdevice = true;
    std::string wide = t.bits() == 64 ? "  %bd = select i1 true, double %b, double %b\n"
                                      : "  %bd = fpext " + ty + " %b to double\n";
    std::string back = t.bits() == 64 ? "  ret double %pw\n" : "  %pn = fptrunc double %pw to " + ty + "\n  ret " + ty + " %pn\n";
    h += "define internal " + ty + " @" + sym + "(" + ty + " %b, i64 %e) alwaysinline {\nentry:\n"
         "  %neg = icmp slt i64 %e, 0\n  %me = sub i64 0, %e\n  %n0 = select i1 %neg, i64 %me, i64 %e\n"
         "  %big = icmp ugt i64 %n0, 65536\n  br i1 %big, label %large, label %loop\n"
         "large:\n" + wide + "  %ed = sitofp i64 %e to double\n  %pw = call double @__nv_pow(double %bd, double %ed)\n" +
         back +
         "loop:\n  %r = phi " + ty + " [" + one + ", %entry], [%r.next, %body]\n  %x = phi " + ty +
         " [%b, %entry], [%x.next, %body]\n  %n = phi i64 [%n0, %entry], [%n.next, %body]\n"
         "  %done = icmp eq i64 %n, 0\n  br i1 %done, label %exit, label %body\nbody:\n  %bit = and i64 %n, 1\n"
         "  %odd = icmp ne i64 %bit, 0\n  %rx = fmul " + ty + " %r, %x\n  %r.next = select i1 %odd, " + ty + " %rx, " +
         ty + " %r\n  %x.next = fmul " + ty + " %x, %x\n  %n.next = lshr i64 %n, 1\n  br label %loop\nexit:\n"
         "  %inv = fdiv " + ty + " " + one + ", %r\n  %res = select i1 %neg, " + ty + " %inv, " + ty + " %r\n  ret " + ty +
         " %res\n}\n\n";
    return "@" + sym;
  }
  std::string fl = "llvm.floor." + std::string(t.bits() == 32 ? "f32" : t.bits() == 16 ? "f16" : "f64");
  std::string cs = "llvm.copysign." + std::string(t.bits() == 32 ? "f32" : t.bits() == 16 ? "f16" : "f64");
  if (name == "floordiv" || name == "pymod") {
    declare("declare " + ty + " @" + fl + "(" + ty + ")");
    declare("declare " + ty + " @" + cs + "(" + ty + ", " + ty + ")");
    // CPython's float_divmod; by zero: x / y for //, fmod (nan) for % (NumPy error model).
    h += "define internal " + ty + " @" + sym + "(" + ty + " %x, " + ty + " %y) alwaysinline {\nentry:\n"
         "  %mod0 = frem " + ty + " %x, %y\n  %yz = fcmp oeq " + ty + " %y, " + zero + "\n"
         "  %sub = fsub " + ty + " %x, %mod0\n  %div0 = fdiv " + ty + " %sub, %y\n"
         "  %modnz = fcmp une " + ty + " %mod0, " + zero + "\n  %yneg = fcmp olt " + ty + " %y, " + zero + "\n"
         "  %mneg = fcmp olt " + ty + " %mod0, " + zero + "\n  %diff = xor i1 %yneg, %mneg\n"
         "  %fix = and i1 %modnz, %diff\n  %mod1 = fadd " + ty + " %mod0, %y\n  %div1 = fsub " + ty + " %div0, " + one +
         "\n  %modA = select i1 %fix, " + ty + " %mod1, " + ty + " %mod0\n  %div = select i1 %fix, " + ty + " %div1, " +
         ty + " %div0\n  %mz = call " + ty + " @" + cs + "(" + ty + " " + zero + ", " + ty + " %y)\n"
         "  %mod = select i1 %modnz, " + ty + " %modA, " + ty + " %mz\n";
    if (name == "pymod") {
      h += "  %res = select i1 %yz, " + ty + " %mod0, " + ty + " %mod\n  ret " + ty + " %res\n}\n\n";
    } else {
      h += "  %divnz = fcmp une " + ty + " %div, " + zero + "\n  %fd = call " + ty + " @" + fl + "(" + ty + " %div)\n"
           "  %frac = fsub " + ty + " %div, %fd\n  %up = fcmp ogt " + ty + " %frac, " + half + "\n"
           "  %fd1 = fadd " + ty + " %fd, " + one + "\n  %fdr = select i1 %up, " + ty + " %fd1, " + ty + " %fd\n"
           "  %q = fdiv " + ty + " %x, %y\n  %qz = call " + ty + " @" + cs + "(" + ty + " " + zero + ", " + ty + " %q)\n"
           "  %floordiv = select i1 %divnz, " + ty + " %fdr, " + ty + " %qz\n"
           "  %res = select i1 %yz, " + ty + " %q, " + ty + " %floordiv\n  ret " + ty + " %res\n}\n\n";
    }
    (void)negzero;
    return "@" + sym;
  }
  if (name == "cdiv") {
    // Smith's algorithm, as CPython's _Py_c_quot and Numba's complex division.
    std::string c = llvm_value_type(t.component());
    std::string fa = "llvm.fabs." + std::string(t.bits() == 64 ? "f32" : "f64");
    declare("declare " + c + " @" + fa + "(" + c + ")");
    h += "define internal " + ty + " @" + sym + "(" + ty + " %a, " + ty + " %b) alwaysinline {\nentry:\n"
         "  %ar = extractvalue " + ty + " %a, 0\n  %ai = extractvalue " + ty + " %a, 1\n"
         "  %br = extractvalue " + ty + " %b, 0\n  %bi = extractvalue " + ty + " %b, 1\n"
         "  %abr = call " + c + " @" + fa + "(" + c + " %br)\n  %abi = call " + c + " @" + fa + "(" + c + " %bi)\n"
         "  %ge = fcmp oge " + c + " %abr, %abi\n  br i1 %ge, label %real_big, label %imag_big\n"
         "real_big:\n  %rz = fcmp oeq " + c + " %abr, " + zero + "\n  br i1 %rz, label %nan, label %rb\n"
         "rb:\n  %rat = fdiv " + c + " %bi, %br\n  %t1 = fmul " + c + " %bi, %rat\n  %den = fadd " + c + " %br, %t1\n"
         "  %t2 = fmul " + c + " %ai, %rat\n  %n1 = fadd " + c + " %ar, %t2\n  %re1 = fdiv " + c + " %n1, %den\n"
         "  %t3 = fmul " + c + " %ar, %rat\n  %n2 = fsub " + c + " %ai, %t3\n  %im1 = fdiv " + c + " %n2, %den\n"
         "  br label %done\n"
         "imag_big:\n  %ige = fcmp oge " + c + " %abi, %abr\n  br i1 %ige, label %ib, label %nan\n"
         "ib:\n  %rat2 = fdiv " + c + " %br, %bi\n  %u1 = fmul " + c + " %br, %rat2\n  %den2 = fadd " + c + " %u1, %bi\n"
         "  %u2 = fmul " + c + " %ar, %rat2\n  %m1 = fadd " + c + " %u2, %ai\n  %re2 = fdiv " + c + " %m1, %den2\n"
         "  %u3 = fmul " + c + " %ai, %rat2\n  %m2 = fsub " + c + " %u3, %ar\n  %im2 = fdiv " + c + " %m2, %den2\n"
         "  br label %done\n"
         "nan:\n  br label %done\n"
         "done:\n  %re = phi " + c + " [%re1, %rb], [%re2, %ib], [0x7FF8000000000000, %nan]\n"
         "  %im = phi " + c + " [%im1, %rb], [%im2, %ib], [0x7FF8000000000000, %nan]\n"
         "  %v0 = insertvalue " + ty + " undef, " + c + " %re, 0\n  %v1 = insertvalue " + ty + " %v0, " + c + " %im, 1\n"
         "  ret " + ty + " %v1\n}\n\n";
    return "@" + sym;
  }
  return "@" + sym;
}

int ModuleEmitter::subprogram(const FunctionDef& def, const std::string& linkage_name, const TypedFunction* fn) {
  if (!options.lineinfo && !options.debug) return -1;
  auto file_id = [&](const std::string& path) {
    auto it = files.find(path);
    if (it != files.end()) return it->second;
    std::size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    int id = next_metadata++;
    metadata += "!" + std::to_string(id) + " = !DIFile(filename: \"" + name + "\", directory: \"" + dir + "\")\n";
    files[path] = id;
    return id;
  };
  int file = file_id(def.file);
  if (compile_unit < 0) {
    // lineinfo alone is numba-cuda's DebugDirectivesOnly: .file/.loc directives, no .debug_info section and
    // no ", debug" on the .target line (which would make ptxas build an unoptimised debug cubin).
    compile_unit = next_metadata++;
    metadata += "!" + std::to_string(compile_unit) + " = distinct !DICompileUnit(language: DW_LANG_Python, file: !" +
                std::to_string(file) + ", producer: \"cubridge\", isOptimized: " + (options.opt ? "true" : "false") +
                ", runtimeVersion: 0, emissionKind: " + (options.debug ? "FullDebug" : "DebugDirectivesOnly") + ")\n";
  }
  int type;
  if (options.debug && fn != nullptr) {
    type = subroutine_type(*fn);
  } else {
    type = next_metadata++;
    metadata += "!" + std::to_string(type) + " = !DISubroutineType(types: !{})\n";
  }
  int sp = next_metadata++;
  std::string line = std::to_string(def.loc.line);
  metadata += "!" + std::to_string(sp) + " = distinct !DISubprogram(name: \"" + def.name + "\", linkageName: \"" +
              linkage_name + "\", scope: !" + std::to_string(file) + ", file: !" + std::to_string(file) + ", line: " +
              line + ", type: !" + std::to_string(type) + ", isLocal: false, isDefinition: true, scopeLine: " + line +
              ", isOptimized: " + (options.opt ? "true" : "false") + ", unit: !" + std::to_string(compile_unit) + ")\n";
  return sp;
}

int ModuleEmitter::location(SourceLoc loc, int scope) {
  auto key = std::make_tuple(loc.line, loc.col, scope);
  auto it = locations.find(key);
  if (it != locations.end()) return it->second;
  int id = next_metadata++;
  metadata += "!" + std::to_string(id) + " = !DILocation(line: " + std::to_string(loc.line) + ", column: " +
              std::to_string(loc.col) + ", scope: !" + std::to_string(scope) + ")\n";
  locations[key] = id;
  return id;
}

EmittedModule emit_module(TypedModule& module, const CompileOptions& options) {
  ModuleEmitter m(module, options);
  TypedFunction& entry = *module.functions[0];
  std::string name = options.abi_name;
  if (name.empty())
    name = options.abi == Abi::c ? entry.def->name
                                 : mangle_numba_abi(options.module_name, entry.def->qualname, entry.arg_types);
  // The C ABI exports the function under its own name, and PTX names are ASCII ([A-Za-z_$][A-Za-z0-9_$]*):
  // a Python name such as 'ñ' needs another (the Numba ABI's mangling escapes it instead).
  auto ptx_char = [](char c, bool first) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$' || (!first && c >= '0' && c <= '9');
  };
  bool valid = !name.empty();
  for (std::size_t i = 0; i < name.size(); ++i) valid = valid && ptx_char(name[i], i == 0);
  if (!valid)
    fail(entry.def->file, entry.def->loc,
         "the C ABI exports '" + name + "' under that name, which is not a PTX identifier (ASCII letters, digits, "
         "_ and $); give the symbol another name with abi_info={'abi_name': ...} (or --abi-name), or use the "
         "Numba ABI, whose mangling escapes it");
  std::string body;
  m.symbols.resize(module.functions.size());
  // Under the Numba ABI the entry's core is the exported function itself.
  bool kernel = !options.device;
  // An optimised kernel is emitted as its own entry (numba-cuda's shape: no wrapper call, one subprogram),
  // unless it calls itself (its core then keeps the status convention its calls need). Unoptimised
  // (opt=False) its body stays a function of its own that the entry calls with a status slot in local
  // memory: a frame to step through, and the local memory numba-cuda's unoptimised kernels have.
  bool direct_kernel = kernel && options.abi == Abi::numba && !entry.recursive && options.opt;
  bool wrapper = options.abi == Abi::c || (kernel && !direct_kernel);
  std::string entry_core = !wrapper ? name : internal_symbol(0, entry.def->name);
  m.symbols[0] = entry_core;
  entry.symbol = entry_core;
  std::vector<std::string> param_types;  // the entry's parameters
  {
    FunctionEmitter fe(m, entry, body);
    fe.emit_core(entry_core, !wrapper, direct_kernel);
    if (direct_kernel) param_types = fe.entry_params();
  }
  while (!m.pending.empty()) {
    int idx = m.pending.back();
    m.pending.pop_back();
    TypedFunction& f = *module.functions[static_cast<std::size_t>(idx)];
    FunctionEmitter fe(m, f, body);
    fe.emit_core(m.symbols[static_cast<std::size_t>(idx)], false);
  }
  if (wrapper) {
    // The C ABI (and kernels, which return nothing): the function's own arguments and its value as the result.
    const Type& R = entry.return_type;
    std::string slot_ty = R.is_none() ? "i8" : llvm_data_type(R);
    // A float16 result is returned as its bits (i16, as numba-cuda's C ABI does): libNVVM drops the whole
    // body of a function that returns `half`. The PTX prototype is the same (.param .b32 func_retval0).
    bool half_bits = R.is_float() && R.bits() == 16;
    std::string rty = R.is_none() ? "void" : half_bits ? "i16" : slot_ty;
    // Arguments are flattened as Numba's C ABI does (its argument packer): a complex is two floats, a
    // tuple its elements; the result is returned by value. A kernel's array is numba-cuda's 5 + 2N
    // parameters (meminfo, parent, nitems, itemsize, data, shape, strides), rebuilt into the core's struct.
    std::string rebuild, call_args;
    std::vector<std::string> param_names;
    std::string python_param;
    bool whole_param = true;
    int next_piece = 0;
    // The wrapper's own values have names starting with '.', which no Python parameter name has.
    auto param_name = [&]() {
      return "%\"" + python_param + (whole_param ? std::string() : "." + std::to_string(next_piece++)) + "\"";
    };
    auto flatten = [&](auto&& self, const Type& ty) -> void {
      if (ty.is_complex()) {
        self(self, ty.component());
        self(self, ty.component());
      } else if (ty.is_tuple()) {
        for (const Type& e : ty.elements()) self(self, e);
      } else if (ty.is_enum_member()) {  // passed as its value
        self(self, ty.enum_value());
      } else if (ty.is_array()) {
        std::string st = llvm_value_type(ty), agg = "undef";
        std::vector<std::string> pieces = array_piece_types(ty);
        auto n = static_cast<std::size_t>(ty.ndim());
        for (std::size_t j = 0; j < pieces.size(); ++j) {
          std::string arg = param_name();
          param_types.push_back(pieces[j]);
          param_names.push_back(arg);
          std::string where = j < 5 ? std::to_string(j) : std::to_string(j < 5 + n ? 5 : 6) + ", " + std::to_string((j - 5) % n);
          std::string next = "%.arr" + std::to_string(param_types.size());
          rebuild += "  " + next + " = insertvalue " + st + " " + agg + ", " + pieces[j] + " " + arg + ", " + where + "\n";
          agg = next;
        }
        call_args += ", " + st + " " + agg;
      } else {
        std::string arg = param_name();
        call_args += ", " + llvm_data_type(ty) + " " + arg;
        param_types.push_back(llvm_data_type(ty));
        param_names.push_back(arg);
      }
    };
    // Parameters are named after the Python ones as numba-cuda names them (%"x"; the pieces of an
    // aggregate %"x.0", %"x.1", ...), which debuggers and readers of the IR see.
    for (std::size_t i = 0; i < entry.arg_types.size(); ++i) {
      const Type& t = entry.arg_types[i];
      python_param = i < entry.def->params.size() ? entry.def->params[i] : "arg" + std::to_string(i);
      const Type& held = t.is_enum_member() ? t.enum_value() : t;
      whole_param = !(held.is_complex() || held.is_tuple() || held.is_array());
      next_piece = 0;
      flatten(flatten, t);
    }
    std::string w = "define " + rty + " @" + name + "(";
    for (std::size_t i = 0; i < param_types.size(); ++i) w += (i ? ", " : "") + param_types[i] + " " + param_names[i];
    // With line info the wrapper needs its own subprogram, or inlining the core drops the locations.
    int sp = m.subprogram(*entry.def, name, &entry);
    std::string dbg = sp >= 0 ? ", !dbg !" + std::to_string(m.location(entry.def->loc, sp)) : "";
    w += sp >= 0 ? ") !dbg !" + std::to_string(sp) + " {\n" : ") {\n";
    w += ".entry:\n  %.ret = alloca " + slot_ty + "\n" + rebuild;
    w += "  %.status = call i32 @" + entry_core + "(" + slot_ty + "* %.ret" + call_args + ")" + dbg + "\n";
    if (kernel && options.debug) w += m.record_raise(name, dbg);
    if (R.is_none()) {
      w += "  ret void" + dbg + "\n}\n\n";
    } else {
      w += "  %.v = load " + slot_ty + ", " + slot_ty + "* %.ret" + dbg + "\n";
      if (half_bits) w += "  %.bits = bitcast half %.v to i16\n";
      w += "  ret " + rty + (half_bits ? " %.bits" : " %.v") + dbg + "\n}\n\n";
    }
    // The entry first, as numba-cuda's module starts with it: PTX numbers local depots in function order,
    // so an unoptimised kernel's own locals are __local_depot0 there as here.
    body = w + body;
  }
  EmittedModule out;
  out.symbol = name;
  out.uses_libdevice = m.uses_libdevice;
  out.raise_sites = m.raise_sites;
  out.cooperative = m.cooperative;
  out.warnings = m.warnings;
  out.ir.reserve(body.size() + m.helper_text.size() + 1024);
  out.ir += kDataLayout;
  out.ir += m.globals;
  out.ir += body;
  out.ir += m.helper_text;
  for (const std::string& d : m.declarations) out.ir += d + "\n";
  out.ir += "\n!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0, i32 3, i32 2}\n";
  if (m.compile_unit >= 0) {
    out.ir += "!llvm.dbg.cu = !{!" + std::to_string(m.compile_unit) + "}\n!llvm.module.flags = !{!" +
              std::to_string(m.next_metadata) + "}\n!" + std::to_string(m.next_metadata) +
              " = !{i32 2, !\"Debug Info Version\", i32 3}\n" + m.metadata;
    ++m.next_metadata;
  }
  if (kernel) {
    std::string fty = "void (";
    for (std::size_t i = 0; i < param_types.size(); ++i) fty += (i ? ", " : "") + param_types[i];
    // The kernel mark plus numba-cuda's max_registers and launch_bounds, which libNVVM writes as the
    // entry's .maxnreg, .maxntid, .minnctapersm and .maxclusterrank.
    const std::string fn = fty + ")* @" + name;
    std::vector<std::string> notes = {"!{" + fn + ", !\"kernel\", i32 1}"};
    for (const auto& [property, value] : {std::pair{"maxnreg", options.max_registers},
                                          std::pair{"maxntidx", options.max_threads_per_block},
                                          std::pair{"minctasm", options.min_blocks_per_sm},
                                          std::pair{"cluster_max_blocks", options.max_blocks_per_cluster}})
      if (value > 0) notes.push_back("!{" + fn + ", !\"" + property + "\", i32 " + std::to_string(value) + "}");
    std::string refs, defs;
    for (std::size_t i = 0; i < notes.size(); ++i) {
      // !0 is the version and !1 the kernel mark; the others follow the debug metadata's numbers.
      const std::string id = "!" + std::to_string(i == 0 ? 1 : m.next_metadata++);
      refs += (i ? ", " : "") + id;
      defs += id + " = " + notes[i] + "\n";
    }
    out.ir += "!nvvm.annotations = !{" + refs + "}\n" + defs;
    // The kernel is also in @llvm.used, as numba-cuda's set_cuda_kernel puts it: a link-time-optimised link
    // (nvJitLink -lto, inspect_lto_ptx) otherwise drops the entry as unreferenced.
    out.ir += "@llvm.used = appending global [1 x i8*] [i8* bitcast (" + fn + " to i8*)], section \"llvm.metadata\"\n";
  }
  return out;
}

}  // namespace cubridge::compiler
