// Internal: print() and raise in NVVM IR (see emitter.hpp), as numba-cuda lowers them.
//
// print(a, b, ...) is one vprintf(format, buffer) call (numba-cuda's printimpl.py): integers as %lld/%llu
// of their value widened to 64 bits, floats as %f of a double, bools and string literals as %s (of
// "True"/"False" and the text), tuples as "(a, b)" / "(a,)", dim3 values as "(%d, %d, %d)"; the formats
// joined by spaces and ended by "\n". Like numba-cuda, more than 32 arguments (vprintf's limit) print the
// format string itself, its '%' doubled.
//
// raise returns a status code from the function (the Numba ABI: callers pass non-zero statuses on); each
// raise site gets its own code, numbered across the module, so device functions' sites keep their
// meaning in the kernel. Without debug a kernel drops the status (the raising thread just stops); with
// debug=True the kernel records the first status and thread in globals the launcher reads back.
#include <cstdio>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {

std::string llvm_string_bytes(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    }
  }
  return out + "\\00";
}

const char* dim3_register(const std::string& name) {
  if (name == "threadIdx") return "tid";
  if (name == "blockIdx") return "ctaid";
  if (name == "blockDim") return "ntid";
  return "nctaid";
}

}  // namespace

std::string ModuleEmitter::string_constant(const std::string& text) {
  auto it = strings.find(text);
  if (it != strings.end()) return it->second;
  std::string g = "@__cb_str." + std::to_string(strings.size());
  std::string array = "[" + std::to_string(text.size() + 1) + " x i8]";
  globals += g + " = internal unnamed_addr addrspace(4) constant " + array + " c\"" + llvm_string_bytes(text) +
             "\", align 1\n";
  std::string ref = "addrspacecast (i8 addrspace(4)* getelementptr inbounds (" + array + ", " + array +
                    " addrspace(4)* " + g + ", i64 0, i64 0) to i8*)";
  return strings[text] = ref;
}

int ModuleEmitter::raise_site(RaiseSite site) {
  for (const RaiseSite& r : raise_sites)
    if (r.exception == site.exception && r.args == site.args && r.function == site.function && r.file == site.file &&
        r.line == site.line)
      return r.code;
  site.code = static_cast<int>(raise_sites.size()) + 1;
  raise_sites.push_back(std::move(site));
  return raise_sites.back().code;
}

void FunctionEmitter::raise_exception(const std::string& exception, const std::vector<std::string>& args,
                                      SourceLoc loc) {
  RaiseSite site;
  site.exception = exception;
  site.args = args;
  site.function = fn_.def->name;
  site.file = fn_.def->file;
  site.line = loc.line;
  int code = m_.raise_site(std::move(site));
  if (m_.options.abi == Abi::c && m_.options.debug) {
    m_.declare("declare void @llvm.trap() noreturn nounwind");
    line("call void @llvm.trap()");
  }
  raise_status(code);
}

std::string ModuleEmitter::record_raise(const std::string& kernel, const std::string& dbg) {
  auto global = [&](const std::string& suffix) {
    std::string g = "@" + kernel + suffix;
    globals += g + " = addrspace(1) global i32 0, align 4\n";
    return g;
  };
  std::string errcode = global("__errcode__");
  std::string w =
      "  %raise.any = icmp sgt i32 %.status, 0\n  br i1 %raise.any, label %raise.record, label %raise.done\n"
      "raise.record:\n  %raise.old = cmpxchg i32 addrspace(1)* " + errcode +
      ", i32 0, i32 %.status monotonic monotonic" + dbg + "\n  %raise.first = extractvalue { i32, i1 } %raise.old, 1\n"
      "  br i1 %raise.first, label %raise.where, label %raise.done\nraise.where:\n";
  for (const char* reg : {"tid", "ctaid"}) {
    for (const char* axis : {"x", "y", "z"}) {
      std::string fn = std::string("@llvm.nvvm.read.ptx.sreg.") + reg + "." + axis;
      declare("declare i32 " + fn + "() nounwind readnone");
      std::string v = std::string("%raise.") + reg + axis;
      w += "  " + v + " = call i32 " + fn + "()\n  store i32 " + v + ", i32 addrspace(1)* " +
           global(std::string("__") + reg + axis + "__") + ", align 4\n";
    }
  }
  return w + "  br label %raise.done\nraise.done:\n";
}

Value FunctionEmitter::print(const Expr& e) {
  std::vector<std::string> formats;
  std::vector<Value> values;
  for (std::size_t i = 1; i < e.kids.size(); ++i) print_item(*e.kids[i], formats, values);
  std::string format;
  for (std::size_t i = 0; i < formats.size(); ++i) format += (i ? " " : "") + formats[i];
  format += "\n";
  if (e.kids.size() - 1 > 32) {  // numba-cuda prints the format string instead (vprintf takes 32 at most)
    m_.warnings.push_back("CUDA print() cannot print more than 32 items. The raw format string will be emitted by the kernel "
            "instead.");
    std::string doubled;
    for (char c : format) doubled += c == '%' ? std::string("%%") : std::string(1, c);
    format = doubled;
  }
  // The buffer is the values as one struct, each at its natural alignment (what vprintf reads).
  // Strings (%s) are generic i8* pointers, the one kind of value without a Type here.
  auto field_type = [](const Value& v) { return v.t.is_unknown() ? std::string("i8*") : llvm_value_type(v.t); };
  std::string buffer = "null";
  if (!values.empty()) {
    std::string st = "{";
    for (std::size_t i = 0; i < values.size(); ++i) st += (i ? ", " : "") + field_type(values[i]);
    st += "}";
    std::string agg = "undef";
    for (std::size_t i = 0; i < values.size(); ++i)
      agg = ins("insertvalue " + st + " " + agg + ", " + field_type(values[i]) + " " + values[i].v + ", " +
                std::to_string(i));
    std::string slot = alloca(st);
    line("store " + st + " " + agg + ", " + st + "* " + slot);
    buffer = ins("bitcast " + st + "* " + slot + " to i8*");
  }
  m_.declare("declare i32 @vprintf(i8*, i8*)");
  ins("call i32 @vprintf(i8* " + m_.string_constant(format) + ", i8* " + buffer + ")");
  return {"undef", Type::none()};
}

void FunctionEmitter::print_item(const Expr& arg, std::vector<std::string>& formats, std::vector<Value>& values) {
  if (arg.kind == ExprKind::Str) {
    formats.push_back("%s");
    values.push_back({m_.string_constant(arg.name), Type()});  // an i8* (see print)
    return;
  }
  if (arg.kind == ExprKind::Attribute && !arg.target.empty() && arg.type.is_tuple() && arg.kids.size() == 1 &&
      (arg.target == "threadIdx" || arg.target == "blockIdx" || arg.target == "blockDim" || arg.target == "gridDim")) {
    formats.push_back("(%d, %d, %d)");
    for (const char* axis : {"x", "y", "z"}) values.push_back(sreg(std::string(dim3_register(arg.target)) + "." + axis));
    return;
  }
  print_value(expr(arg), formats, values);
}

void FunctionEmitter::print_value(const Value& v, std::vector<std::string>& formats, std::vector<Value>& values) {
  const Type& t = v.t;
  if (t.is_tuple()) {
    std::vector<std::string> inner;
    for (std::size_t i = 0; i < t.elements().size(); ++i) print_value(extract(v, i), inner, values);
    std::string f = "(";
    for (std::size_t i = 0; i < inner.size(); ++i) f += (i ? ", " : "") + inner[i];
    formats.push_back(f + (inner.size() == 1 ? ",)" : ")"));
    return;
  }
  if (t.is_bool()) {
    formats.push_back("%s");
    std::string s = ins("select i1 " + v.v + ", i8* " + m_.string_constant("True") + ", i8* " +
                        m_.string_constant("False"));
    values.push_back({s, Type()});
    return;
  }
  if (t.is_int()) {
    formats.push_back(t.is_signed() ? "%lld" : "%llu");
    values.push_back(convert(v, Type::integer(64, t.is_signed())));
    return;
  }
  formats.push_back("%f");
  values.push_back(convert(v, Type::floating(64)));
}

}  // namespace cubridge::compiler
