// Internal: compile() through the on-disk code cache (include/cubridge/compiler/compile_cache.hpp).
// An entry holds the exported symbol, the result type's name and the code, one per line before the code.
#include "cubridge/compiler/compile_cache.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
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

}  // namespace

std::string compile_cache_key(std::string_view source, std::string_view function_name, std::string_view signature,
                              const CompileOptions& o) {
  std::vector<std::string> parts = {"cubridge compile v1", build_identity(), std::string(source),
                                    std::string(function_name), std::string(signature)};
  parts.push_back(std::string("debug=") + (o.debug ? "1" : "0") + " lineinfo=" + (o.lineinfo ? "1" : "0") +
                  " device=" + (o.device ? "1" : "0") + " fastmath=" + (o.fastmath ? "1" : "0") +
                  " opt=" + (o.opt ? "1" : "0") + " abi=" + (o.abi == Abi::numba ? "numba" : "c") +
                  " output=" + (o.output == Output::ltoir ? "ltoir" : "ptx") +
                  " cc=" + (o.cc ? o.cc->to_string() : "default"));
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
  for (const auto& [name, t] : o.dtypes) parts.push_back(name + ":" + t.name());
  for (const CompileOptions::Unit& u : o.extra_units) {
    parts.push_back(u.filename + ":" + std::to_string(u.first_line));
    parts.push_back(u.source);
  }
  return CodeCache::make_key(std::span<const std::string>(parts), {.nvvm = true});
}

CompileResult compile_cached(std::string_view source, std::string_view function_name, std::string_view signature,
                             const CompileOptions& options, const CodeCache& cache) {
  std::string key = compile_cache_key(source, function_name, signature, options);
  if (std::optional<std::string> entry = cache.get(key)) {
    std::size_t a = entry->find('\n');
    std::size_t b = a == std::string::npos ? a : entry->find('\n', a + 1);
    std::optional<Type> type = b == std::string::npos ? std::nullopt : parse_type_name(entry->substr(a + 1, b - a - 1));
    if (type) {  // anything else is not an entry of ours: compile again and overwrite it
      ++g_hits;
      CompileResult r;
      r.name = entry->substr(0, a);
      r.result_type = *type;
      r.code = entry->substr(b + 1);
      r.from_cache = true;
      return r;
    }
  }
  ++g_misses;
  CompileResult r = compile(source, function_name, signature, options);
  if (cache.put(key, r.name + "\n" + r.result_type.name() + "\n" + r.code)) ++g_stores;
  return r;
}

CompileCacheStats compile_cache_stats() { return {g_hits.load(), g_misses.load(), g_stores.load()}; }

}  // namespace cubridge::compiler
