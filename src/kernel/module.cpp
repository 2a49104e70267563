// Internal: loading code images (with the JIT's logs), the module cache, and entry-name discovery.
#include "cubridge/kernel/module.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "cubridge/driver/stream_capture.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"

namespace cubridge {

namespace {

constexpr std::size_t kLogBytes = 16 * 1024;

std::string hex_head(std::span<const std::byte> image) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < image.size() && i < 8; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned>(image[i]));
    s += (i ? " " : "") + std::string(buf);
  }
  return s;
}

bool starts_with(std::span<const std::byte> image, std::initializer_list<unsigned char> magic) {
  if (image.size() < magic.size()) return false;
  std::size_t i = 0;
  for (unsigned char m : magic)
    if (static_cast<unsigned char>(image[i++]) != m) return false;
  return true;
}

std::string_view as_text(std::span<const std::byte> image) {
  return {reinterpret_cast<const char*>(image.data()), image.size()};
}

struct CacheKey {
  const Context* context;
  std::string image;
  friend bool operator<(const CacheKey& a, const CacheKey& b) {
    return a.context != b.context ? std::less<const Context*>()(a.context, b.context) : a.image < b.image;
  }
};

struct ModuleCache {
  std::mutex mutex;
  std::map<CacheKey, std::shared_ptr<Module>> modules;
};

ModuleCache& module_cache() {
  static auto* cache = new ModuleCache;  // never destroyed: modules must not unload after main()
  return *cache;
}

}  // namespace

ImageFormat detect_image_format(std::span<const std::byte> image) {
  if (image.empty()) throw cubridge::InvalidArgument("code image: empty; pass PTX text, a cubin or a fatbin");
  if (starts_with(image, {0x7f, 'E', 'L', 'F'})) return ImageFormat::Cubin;
  if (starts_with(image, {0x50, 0xed, 0x55, 0xba})) return ImageFormat::Fatbin;
  if (starts_with(image, {'B', 'C', 0xc0, 0xde}))
    throw cubridge::InvalidArgument(
        "code image: LLVM bitcode (NVVM IR or LTO-IR) cannot be loaded directly; compile it to PTX, or "
        "link it to a cubin with nvJitLink first");
  std::string_view text = as_text(image);
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  if (text.find('\0') == std::string_view::npos &&
      (text.find(".version") != std::string_view::npos || text.find(".entry") != std::string_view::npos))
    return ImageFormat::Ptx;
  throw cubridge::InvalidArgument("code image: " + std::to_string(image.size()) + " bytes starting with " +
                              hex_head(image) +
                              " are neither PTX text (no .version directive) nor a cubin (ELF) nor a fatbin");
}

std::vector<std::string> ptx_entry_names(std::string_view ptx) {
  std::vector<std::string> names;
  std::size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string_view::npos) {
    bool directive = pos == 0 || ptx[pos - 1] == ' ' || ptx[pos - 1] == '\t' || ptx[pos - 1] == '\n';
    pos += 6;
    if (!directive || pos >= ptx.size() || (ptx[pos] != ' ' && ptx[pos] != '\t')) continue;
    while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t')) ++pos;
    std::size_t start = pos;
    while (pos < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[pos])) || ptx[pos] == '_' ||
                                ptx[pos] == '$' || ptx[pos] == '.'))
      ++pos;
    if (pos > start) names.emplace_back(ptx.substr(start, pos - start));
  }
  return names;
}

Module::Module(Token, std::shared_ptr<Context> context, CUmodule handle, ImageFormat format,
               std::vector<std::string> entries, std::string info_log)
    : context_(std::move(context)),
      handle_(handle),
      format_(format),
      entries_(std::move(entries)),
      info_log_(std::move(info_log)) {}

Module::~Module() {
  // A context reset (cubridge.close()) already unloaded the module with everything else.
  if (handle_ != nullptr && context_->valid()) CUBRIDGE_CU_RESULT(cuModuleUnload, handle_);
}

CUmodule Module::handle() const {
  context_->ensure_valid("module");
  return handle_;
}

std::shared_ptr<Module> Module::load(std::shared_ptr<Context> context, std::span<const std::byte> image) {
  const ImageFormat format = detect_image_format(image);
  context->ensure_valid("module");
  std::vector<std::string> entries;
  std::string ptx;  // PTX must reach the driver NUL-terminated
  const void* data = image.data();
  if (format == ImageFormat::Ptx) {
    ptx.assign(as_text(image));
    entries = ptx_entry_names(ptx);
    data = ptx.c_str();
  }
  std::string error_log(kLogBytes, '\0'), info_log(kLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes)),
                    info_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes))};
  CUmodule handle = nullptr;
  {
    ScopedContext scope(*context);
    // A module first needed inside a graph capture (a lazy @jit's first call under torch.cuda.graph) loads
    // now: loading is no work to record, and a global capture would refuse it and invalidate itself.
    RelaxedCaptureScope relaxed;
    CUresult r = CUBRIDGE_CU_RESULT(cuModuleLoadDataEx, &handle, data, 4u, options, values);
    if (r != CUDA_SUCCESS) {
      error_log.resize(std::strlen(error_log.c_str()));
      const char* description = nullptr;
      if (driver::api().cuGetErrorString(r, &description) != CUDA_SUCCESS || description == nullptr)
        description = "unknown error";
      std::string detail = description;
      detail += error_log.empty() ? "; the JIT left no error log" : "; JIT error log:\n" + error_log;
      throw CudaError(static_cast<int>(r), driver::error_name(r), detail, "cuModuleLoadDataEx");
    }
  }
  info_log.resize(std::strlen(info_log.c_str()));
  return std::make_shared<Module>(Token{}, std::move(context), handle, format, std::move(entries),
                                  std::move(info_log));
}

std::shared_ptr<Module> Module::load_ptx(std::shared_ptr<Context> context, std::string_view ptx) {
  return load(std::move(context), std::as_bytes(std::span(ptx.data(), ptx.size())));
}

std::shared_ptr<Module> Module::cached(std::shared_ptr<Context> context, std::span<const std::byte> image) {
  context->ensure_valid("module");
  ModuleCache& cache = module_cache();
  CacheKey key{context.get(), std::string(as_text(image))};
  {
    std::lock_guard lock(cache.mutex);
    auto it = cache.modules.find(key);
    if (it != cache.modules.end() && it->second->valid()) return it->second;
  }
  auto module = load(context, image);  // outside the lock: a JIT compile can take a while
  std::lock_guard lock(cache.mutex);
  std::erase_if(cache.modules, [](const auto& kv) { return !kv.second->valid(); });
  auto [it, inserted] = cache.modules.try_emplace(std::move(key), module);
  return inserted ? module : it->second;  // another thread may have loaded the same image first
}

std::shared_ptr<Kernel> Module::function(const std::string& name) const {
  return std::make_shared<Kernel>(shared_from_this(), name);
}

std::size_t clear_module_cache() {
  ModuleCache& cache = module_cache();
  std::map<CacheKey, std::shared_ptr<Module>> dropped;
  {
    std::lock_guard lock(cache.mutex);
    dropped.swap(cache.modules);
  }
  return dropped.size();
}

std::size_t module_cache_size() {
  ModuleCache& cache = module_cache();
  std::lock_guard lock(cache.mutex);
  return cache.modules.size();
}

}  // namespace cubridge
