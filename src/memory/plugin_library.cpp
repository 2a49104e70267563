// Internal: C plugins (include/cubridge/c/memory_plugin.h): the version check, the manager wrapping
// the function table, and loading a plugin library. dlopen appears here as well as in
// src/driver/loader.cpp because this loads a user's plugin, never libcuda.
#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "cubridge/memory/out_of_memory.hpp"
#include "cubridge/memory/registry.hpp"
#include "memory/memory_detail.hpp"
#include "cubridge/error.hpp"

namespace cubridge::memory {

namespace {

class CPluginManager;

class CPluginPointer final : public MemoryPointer {
 public:
  CPluginPointer(std::shared_ptr<Context> context, std::uintptr_t p, std::size_t size, std::uintptr_t stream,
                 std::shared_ptr<CPluginManager> manager)
      : MemoryPointer(std::move(context), p, size), stream_(stream), manager_(std::move(manager)) {}
  ~CPluginPointer() override { free(); }

 private:
  void release() noexcept override;
  std::uintptr_t stream_;
  std::shared_ptr<CPluginManager> manager_;
};

class CPluginManager : public HostOnlyMemoryManager, public std::enable_shared_from_this<CPluginManager> {
 public:
  CPluginManager(std::shared_ptr<Context> context, cubridge_memory_plugin_create_fn create, std::string origin)
      : HostOnlyMemoryManager(context), origin_(std::move(origin)) {
    table_.struct_size = sizeof table_;
    int device = context ? context->device().ordinal() : 0;
    if (int rc = create(device, &table_); rc != CUBRIDGE_PLUGIN_OK)
      throw cubridge::RuntimeError("memory plugin " + origin_ + ": cubridge_memory_plugin_create(device " +
                               std::to_string(device) + ") refused with code " + std::to_string(rc));
    const char* missing = !table_.initialize ? "initialize"
                          : !table_.memalloc ? "memalloc"
                          : !table_.memfree  ? "memfree"
                          : !table_.destroy  ? "destroy"
                                             : nullptr;
    if (missing != nullptr) {
      if (table_.destroy) table_.destroy(table_.state);
      table_.destroy = nullptr;
      throw cubridge::RuntimeError("memory plugin " + origin_ + ": the function table leaves the required member '" +
                               missing + "' NULL (required: initialize, memalloc, memfree, destroy)");
    }
  }
  ~CPluginManager() override {
    if (table_.destroy) table_.destroy(table_.state);
  }

  using MemoryManager::memalloc;
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size) override { return alloc(size, 0); }
  std::shared_ptr<MemoryPointer> memalloc(std::size_t size, StreamRef stream) override {
    return alloc(size, reinterpret_cast<std::uintptr_t>(stream.handle()));
  }
  bool stream_aware() const noexcept override { return true; }
  void initialize() override { check(table_.initialize(table_.state), "initialize", 0); }
  MemoryInfo get_memory_info() override {
    std::size_t free = 0, total = 0;
    if (!table_.get_memory_info || table_.get_memory_info(table_.state, &free, &total) != CUBRIDGE_PLUGIN_OK)
      throw cubridge::RuntimeError("memory plugin " + origin_ + " cannot tell its free/total memory");
    return {free, total};
  }
  void reset() override {
    if (table_.reset) table_.reset(table_.state);
    HostOnlyMemoryManager::reset();
  }
  std::shared_ptr<void> defer_cleanup() override {
    auto host = HostOnlyMemoryManager::defer_cleanup();
    if (table_.defer_begin == nullptr || table_.defer_end == nullptr) return host;
    table_.defer_begin(table_.state);
    auto self = shared_from_this();
    return std::shared_ptr<void>(host.get(), [self, host](void*) { self->table_.defer_end(self->table_.state); });
  }
  std::string name() const override { return "plugin " + origin_; }
  void give_back(std::uintptr_t p, std::size_t size, std::uintptr_t stream) noexcept {
    stats().record_free(size);
    table_.memfree(table_.state, p, size, stream);
  }

 private:
  std::shared_ptr<MemoryPointer> alloc(std::size_t size, std::uintptr_t stream) {
    std::uintptr_t p = 0;
    check(table_.memalloc(table_.state, size, stream, &p), "memalloc", size);
    stats().record_alloc(size);
    return std::make_shared<CPluginPointer>(context(), p, size, stream, shared_from_this());
  }
  void check(int rc, const char* what, std::size_t size) {
    if (rc == CUBRIDGE_PLUGIN_OK) return;
    if (rc == CUBRIDGE_PLUGIN_OUT_OF_MEMORY) detail::throw_out_of_memory(context().get(), size, name(), what);
    const char* text = table_.last_error ? table_.last_error(table_.state) : nullptr;
    throw cubridge::RuntimeError("memory plugin " + origin_ + ": " + what + " failed with code " + std::to_string(rc) +
                             (text ? std::string(": ") + text : std::string()));
  }
  cubridge_memory_plugin_v1 table_{};
  std::string origin_;
};

void CPluginPointer::release() noexcept {
  // After close() the plugin's memory of that context is gone with it; the plugin still gets it
  // back so its bookkeeping balances.
  manager_->give_back(device_pointer(), size(), stream_);
}

}  // namespace

ManagerFactory c_plugin_factory(cubridge_memory_plugin_interface_version_fn version,
                                cubridge_memory_plugin_create_fn create, const std::string& origin) {
  if (version == nullptr || create == nullptr)
    throw cubridge::RuntimeError("memory plugin " + origin + ": missing entry point " +
                             (version == nullptr ? CUBRIDGE_MEMORY_PLUGIN_VERSION_SYMBOL : CUBRIDGE_MEMORY_PLUGIN_CREATE_SYMBOL));
  std::uint32_t v = version();
  if (v != CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION)
    throw cubridge::RuntimeError("memory plugin " + origin + " implements interface version " + std::to_string(v) +
                             "; cubridge accepts version " + std::to_string(CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION));
  return [create, origin](std::shared_ptr<Context> context) -> std::shared_ptr<MemoryManager> {
    return std::make_shared<CPluginManager>(std::move(context), create, origin);
  };
}

ManagerFactory load_plugin_library(const std::string& path) {
  // Never closed: pointers and managers made from it may live until the process ends.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    throw cubridge::RuntimeError("memory plugin library '" + path + "' could not be loaded: " + (why ? why : "unknown reason"));
  }
  auto version = reinterpret_cast<cubridge_memory_plugin_interface_version_fn>(dlsym(lib, CUBRIDGE_MEMORY_PLUGIN_VERSION_SYMBOL));
  auto create = reinterpret_cast<cubridge_memory_plugin_create_fn>(dlsym(lib, CUBRIDGE_MEMORY_PLUGIN_CREATE_SYMBOL));
  if (version == nullptr || create == nullptr)
    throw cubridge::RuntimeError("memory plugin library '" + path + "' does not export " +
                             (version == nullptr ? CUBRIDGE_MEMORY_PLUGIN_VERSION_SYMBOL : CUBRIDGE_MEMORY_PLUGIN_CREATE_SYMBOL) +
                             " (see include/cubridge/c/memory_plugin.h)");
  return c_plugin_factory(version, create, "'" + path + "'");
}

}  // namespace cubridge::memory
