// Internal: compile() through the on-disk code cache (include/cubridge/compiler/cached_compile.hpp).
// An entry holds the exported symbol, the result type's name, the kernel facts (cooperative launch, raise
// sites, reads of possibly unassigned variables) and the code, one per line before the code.
#include "cubridge/compiler/cached_compile.hpp"

#include "compiler/toolkit/trusted_ltoir.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <filesystem>
#include <vector>

namespace cubridge::compiler {
namespace {

std::atomic<std::uint64_t> g_hits{0}, g_misses{0}, g_stores{0};

// This build of cubridge: the file holding this code (the Python extension or libcubridge), its size
// and modification time. Computed once per process.
const std::string& build_identity() {
  static const std::string id = [] {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&compile_cache_key), &info) == 0 || info.dli_fname == nullptr)
      return std::string("unknown build");
    std::error_code ec;
    std::filesystem::path p(info.dli_fname);
    auto size = std::filesystem::file_size(p, ec);
    auto mtime = std::filesystem::last_write_time(p, ec).time_since_epoch().count();
    return p.string() + " " + std::to_string(size) + " " + std::to_string(mtime);
  }();
  return id;
}

void add_constant(std::string& out, const Constant& c) {
  out += c.type.name() + "{" + std::to_string(c.i) + "," + std::to_string(c.u) + ",";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a,%a", c.re, c.im);  // hex floats: exact, locale-free
  out += buf;
  for (const Constant& e : c.elements) add_constant(out, e);
  out += "}";
}

// The kernel facts as one line: "c<0|1>" then, per raise site, a tab and its fields separated by
// \x1f, each with '%', tab, newline and \x1f written as %XX; then per uninitialized read, a tab, "u" and its
// fields the same way.
std::string escape_field(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%' || c == '\t' || c == '\n' || c == '\x1f') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape_field(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::strtol(std::string(s.substr(i + 1, 2)).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::string kernel_facts(const CompileResult& r) {
  std::string line = r.cooperative ? "c1" : "c0";
  for (const RaiseSite& s : r.raise_sites) {
    line += "\t" + std::to_string(s.code) + "\x1f" + escape_field(s.exception) + "\x1f" + escape_field(s.function) +
            "\x1f" + escape_field(s.file) + "\x1f" + std::to_string(s.line);
    for (const std::string& a : s.args) line += "\x1f" + escape_field(a);
  }
  for (const UninitializedRead& u : r.uninitialized_reads)  // "u", variable, function, file, line
    line += "\tu\x1f" + escape_field(u.variable) + "\x1f" + escape_field(u.function) + "\x1f" + escape_field(u.file) +
            "\x1f" + std::to_string(u.line);
  return line;
}

bool read_kernel_facts(std::string_view line, CompileResult& r) {
  std::vector<std::string_view> sites = split(line, '\t');
  if (sites[0] != "c0" && sites[0] != "c1") return false;
  r.cooperative = sites[0] == "c1";
  for (std::size_t i = 1; i < sites.size(); ++i) {
    std::vector<std::string_view> f = split(sites[i], '\x1f');
    if (f.size() < 5) return false;
    if (f[0] == "u") {
      r.uninitialized_reads.push_back({unescape_field(f[1]), unescape_field(f[2]), unescape_field(f[3]),
                                       std::atoi(std::string(f[4]).c_str())});
      continue;
    }
    RaiseSite s;
    s.code = std::atoi(std::string(f[0]).c_str());
    s.exception = unescape_field(f[1]);
    s.function = unescape_field(f[2]);
    s.file = unescape_field(f[3]);
    s.line = std::atoi(std::string(f[4]).c_str());
    for (std::size_t k = 5; k < f.size(); ++k) s.args.push_back(unescape_field(f[k]));
    r.raise_sites.push_back(std::move(s));
  }
  return true;
}

}  // namespace

std::string compile_cache_key(std::string_view source, std::string_view function_name, std::string_view signature,
                              const CompileOptions& o) {
  std::vector<std::string> parts = {"cubridge compile v3", build_identity(), std::string(source),
                                    std::string(function_name), std::string(signature)};
  parts.push_back(std::string("debug=") + (o.debug ? "1" : "0") + " lineinfo=" + (o.lineinfo ? "1" : "0") +
                  " device=" + (o.device ? "1" : "0") + " fastmath=" + (o.fastmath ? "1" : "0") +
                  " opt=" + (o.opt ? "1" : "0") + " optnone=" + (o.optnone ? "1" : "0") + " abi=" + (o.abi == Abi::numba ? "numba" : "c") +
                  " output=" + (o.output == Output::ltoir ? "ltoir" : "ptx") +
                  " cc=" + (o.cc ? o.cc->to_string() + o.arch_variant : "default") + " maxnreg=" + std::to_string(o.max_registers) +
                  " launch_bounds=" + std::to_string(o.max_threads_per_block) + "," +
                  std::to_string(o.min_blocks_per_sm) + "," + std::to_string(o.max_blocks_per_cluster));
  parts.push_back(o.abi_name);
  parts.push_back(o.filename + ":" + std::to_string(o.first_line));
  parts.push_back(o.module_name);
  for (const auto& [name, c] : o.constants) {
    std::string text = name + "=";
    add_constant(text, c);
    parts.push_back(std::move(text));
  }
  for (const auto& [name, a] : o.constant_arrays) {
    std::string text = name + "=" + a.dtype.name() + "[";
    for (std::int64_t d : a.shape) text += std::to_string(d) + ",";
    parts.push_back(text + "]");
    parts.push_back(a.bytes);
  }
  for (const auto& [name, items] : o.constant_tuples) {
    std::string text = "tuple " + name + "=(";
    for (const std::string& item : items) text += item + ",";
    parts.push_back(text + ")");
  }
  for (const auto& [name, a] : o.device_arrays) {  // the address too: the code embeds it
    std::string text = name + "=" + a.type.name() + "@" + std::to_string(a.address) + "[";
    for (std::int64_t d : a.shape) text += std::to_string(d) + ",";
    text += "][";
    for (std::int64_t s : a.strides) text += std::to_string(s) + ",";
    parts.push_back(text + "]");
  }
  for (const auto& [name, qualified] : o.exception_classes) parts.push_back("exception " + name + "=" + qualified);
  for (const auto& [name, t] : o.dtypes) parts.push_back(name + ":" + t.name());
  for (const auto& [alias, function] : o.function_aliases) parts.push_back("alias " + alias + "=" + function);
  for (const std::string& function : o.inline_never) parts.push_back("inline_never " + function);
  for (const std::string& function : o.inline_ir) parts.push_back("inline_ir " + function);
  for (const auto& [name, reason] : o.refused_functions) parts.push_back("refused " + name + "=" + reason);
  for (const auto& [name, signatures] : o.declared_signatures)
    for (const Signature& s : signatures) parts.push_back("signature " + name + "=" + s.str());
  for (const auto& [name, resolutions] : o.overloads) {
    parts.push_back("overloaded " + name);
    for (const OverloadResolution& r : resolutions) {
      std::string text = "overload " + name + "(";
      for (std::size_t i = 0; i < r.args.size(); ++i)
        text += (i < r.functions.size() && !r.functions[i].empty() ? "function " + r.functions[i] : r.args[i].name()) + ",";
      for (const std::string& k : r.keywords) text += k + "=,";
      parts.push_back(text + ")=" + r.function);
    }
  }
  for (const auto& [name, f] : o.external_functions)
    parts.push_back("external " + name + "=" + f.symbol + ":" + f.signature.str() + (f.abi == Abi::c ? ":c" : ":numba") +
                    (f.cooperative ? ":cooperative" : ""));
  for (const std::string& m : o.nvvm_modules) parts.push_back("nvvm module\n" + m);
  for (const CompileOptions::Unit& u : o.extra_units) {
    parts.push_back(u.filename + ":" + std::to_string(u.first_line));
    parts.push_back(u.source);
  }
  return CodeCache::make_key(std::span<const std::string>(parts), {.nvvm = true});
}

std::string encode_compile_result(const CompileResult& r) {
  return r.name + "\n" + r.result_type.name() + "\n" + kernel_facts(r) + "\n" + r.code;
}

std::optional<CompileResult> decode_compile_result(std::string_view entry, Output output) {
  std::size_t a = entry.find('\n');
  std::size_t b = a == std::string::npos ? a : entry.find('\n', a + 1);
  std::size_t c = b == std::string::npos ? b : entry.find('\n', b + 1);
  std::optional<Type> type = c == std::string::npos ? std::nullopt : parse_type_name(entry.substr(a + 1, b - a - 1));
  CompileResult r;
  if (!type || !read_kernel_facts(entry.substr(b + 1, c - b - 1), r)) return std::nullopt;
  r.name = std::string(entry.substr(0, a));
  r.result_type = *type;
  r.code = std::string(entry.substr(c + 1));
  r.from_cache = true;
  // the entry's MAC checked: libNVVM's output from an earlier run, which the linker takes in-process
  if (output == Output::ltoir) toolkit_detail::trust_ltoir(r.code);
  return r;
}

CompileResult compile_cached(std::string_view source, std::string_view function_name, std::string_view signature,
                             const CompileOptions& options, const CodeCache& cache) {
  std::string key = compile_cache_key(source, function_name, signature, options);
  if (std::optional<std::string> entry = cache.get(key)) {
    // Anything but a record of ours is not an entry of ours: compile again and overwrite it.
    if (std::optional<CompileResult> r = decode_compile_result(*entry, options.output)) {
      ++g_hits;
      return *std::move(r);
    }
  }
  ++g_misses;
  CompileResult r = compile(source, function_name, signature, options);
  if (cache.put(key, encode_compile_result(r))) ++g_stores;
  return r;
}

CompileCacheStats compile_cache_stats() { return {g_hits.load(), g_misses.load(), g_stores.load()}; }

}  // namespace cubridge::compiler
