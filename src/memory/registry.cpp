// Internal: the process-wide manager choice and one manager per context (keyed by the Context,
// dropped once close() invalidated it), the allocation entry point, and statistics.
#include "cubridge/memory/registry.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "cubridge/memory/builtin_managers.hpp"
#include "cubridge/error.hpp"

namespace cubridge::memory {

namespace {

struct ContextManagers {
  std::mutex mutex;
  ManagerFactory factory;
  std::string description;
  bool from_environment = false;
  std::unordered_map<const Context*, std::shared_ptr<MemoryManager>> managers;
  // Bumped whenever a manager leaves `managers`: per-thread caches of manager_for answers check it, so a
  // context's address reused after it closed never finds the old manager.
  std::atomic<std::uint64_t> generation{0};

  static ContextManagers& instance() {
    static ContextManagers* r = new ContextManagers;  // never destroyed: pointers may die during static destruction
    return *r;
  }

 private:
  ContextManagers() { Context::add_close_hook(&ContextManagers::closing); }

  // close(): EMM v1 resets the context's manager (its memory goes back: pending frees, pooled blocks,
  // a stream-ordered pool trimmed) before the context itself is destroyed, and the manager is dropped
  // so the next context gets one from the factory set then. Called with the context current.
  static void closing(const std::shared_ptr<Context>& context) {
    std::shared_ptr<MemoryManager> manager;
    {
      auto& r = instance();
      std::lock_guard lock(r.mutex);
      auto it = r.managers.find(context.get());
      if (it == r.managers.end()) return;
      manager = std::move(it->second);
      r.managers.erase(it);
      r.generation.fetch_add(1, std::memory_order_acq_rel);
    }
    manager->reset();  // outside the lock: a Python plugin's reset takes the GIL and may allocate
  }
};

const char* environment_choice() {
  const char* v = std::getenv(kManagerEnvironmentVariable);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

bool is_library_path(const std::string& v) {
  return v.find('/') != std::string::npos || (v.size() > 3 && v.ends_with(".so")) || v.find(".so.") != std::string::npos;
}

// Called with the registry's mutex held.
void resolve_locked(ContextManagers& r) {
  if (r.factory) return;
  if (const char* env = environment_choice()) {
    std::string v = env;
    if (v == "default" || v == "caching" || v == "async") {
      r.factory = builtin_manager(v);
    } else if (is_library_path(v)) {
      r.factory = load_plugin_library(v);
    } else {
      throw cubridge::RuntimeError(std::string(kManagerEnvironmentVariable) + "='" + v +
                               "' names a Python module, which only the cubridge Python package can load "
                               "(import cubridge first); from C++ use default, caching, async or a plugin library path");
    }
    r.description = v;
    r.from_environment = true;
    return;
  }
  r.factory = builtin_manager("default");
  r.description = "default";
}

}  // namespace

bool set_memory_manager(ManagerFactory factory, std::string description, bool from_environment) {
  if (!factory) throw cubridge::InvalidArgument("set_memory_manager: the factory is empty");
  if (!from_environment && environment_choice() != nullptr) return false;
  auto& r = ContextManagers::instance();
  std::lock_guard lock(r.mutex);
  r.factory = std::move(factory);
  r.description = std::move(description);
  r.from_environment = from_environment;
  return true;
}

ManagerFactory builtin_manager(const std::string& name) {
  if (name == "default")
    return [](std::shared_ptr<Context> c) -> std::shared_ptr<MemoryManager> { return std::make_shared<DefaultMemoryManager>(c); };
  if (name == "caching")
    return [](std::shared_ptr<Context> c) -> std::shared_ptr<MemoryManager> { return std::make_shared<CachingPoolMemoryManager>(c); };
  if (name == "async")
    return [](std::shared_ptr<Context> c) -> std::shared_ptr<MemoryManager> { return std::make_shared<AsyncPoolMemoryManager>(c); };
  throw cubridge::InvalidArgument("memory manager '" + name + "' is not built in (accepted: 'default', 'caching', 'async')");
}

std::string memory_manager_description() {
  auto& r = ContextManagers::instance();
  std::lock_guard lock(r.mutex);
  if (!r.factory) {
    const char* env = environment_choice();
    return env ? env : "default";
  }
  return r.description;
}

bool memory_manager_set_by_environment() { return environment_choice() != nullptr; }

namespace {

std::shared_ptr<MemoryManager> find_or_make_manager(ContextManagers& r, const std::shared_ptr<Context>& context) {
  ManagerFactory factory;
  // Destroyed after the lock is released: a Python plugin's last reference needs the GIL.
  std::vector<std::shared_ptr<MemoryManager>> closed;
  {
    std::lock_guard lock(r.mutex);
    auto it = r.managers.find(context.get());
    if (it != r.managers.end()) return it->second;
    // Forget managers of closed contexts before a new context could reuse their address.
    for (auto i = r.managers.begin(); i != r.managers.end();) {
      if (!i->second->context() || !i->second->context()->valid()) {
        closed.push_back(std::move(i->second));
        i = r.managers.erase(i);
        r.generation.fetch_add(1, std::memory_order_acq_rel);
      } else {
        ++i;
      }
    }
    resolve_locked(r);
    factory = r.factory;
  }
  // Built outside the lock: a Python plugin's constructor takes the GIL and may allocate itself.
  std::shared_ptr<MemoryManager> made = factory(context);
  if (!made) throw cubridge::RuntimeError("the memory manager factory returned no manager");
  if (made->interface_version() != kInterfaceVersion)
    throw cubridge::RuntimeError("memory manager '" + made->name() + "' implements EMM interface version " +
                             std::to_string(made->interface_version()) + "; cubridge accepts version " +
                             std::to_string(kInterfaceVersion));
  {
    ScopedContext scope(*context);
    made->initialize();
  }
  std::lock_guard lock(r.mutex);
  auto [it, inserted] = r.managers.emplace(context.get(), made);
  return it->second;  // another thread may have won the race: everyone uses the first
}

}  // namespace

std::shared_ptr<MemoryManager> manager_for(const std::shared_ptr<Context>& context) {
  if (!context) throw cubridge::InvalidArgument("memory manager: no context given");
  context->ensure_valid("memory allocation");
  auto& r = ContextManagers::instance();
  // This thread's last answer (a weak reference, checked against the registry's generation) spares the
  // lock and the map lookup on every allocation.
  struct Last {
    const Context* context = nullptr;
    std::uint64_t generation = 0;
    std::weak_ptr<MemoryManager> manager;
  };
  thread_local Last last;
  const std::uint64_t generation = r.generation.load(std::memory_order_acquire);
  if (last.context == context.get() && last.generation == generation)
    if (std::shared_ptr<MemoryManager> m = last.manager.lock()) return m;
  std::shared_ptr<MemoryManager> found = find_or_make_manager(r, context);
  last = {context.get(), generation, found};
  return found;
}

std::shared_ptr<MemoryPointer> allocate(const std::shared_ptr<Context>& context, std::size_t bytes, StreamRef stream) {
  if (bytes == 0) return std::make_shared<MemoryPointer>(context, 0, 0);
  auto manager = manager_for(context);
  ScopedContext scope(*context);
  auto p = manager->stream_aware() ? manager->memalloc(bytes, stream) : manager->memalloc(bytes);
  if (!p) throw cubridge::RuntimeError("memory manager '" + manager->name() + "' returned no memory for " + std::to_string(bytes) + " bytes");
  if (p->size() < bytes)
    throw cubridge::RuntimeError("memory manager '" + manager->name() + "' returned " + std::to_string(p->size()) +
                             " bytes when " + std::to_string(bytes) + " were asked for");
  return p;
}

std::shared_ptr<MemoryPointer> allocate(const std::shared_ptr<Context>& context, std::size_t bytes) {
  return allocate(context, bytes, StreamRef::legacy());
}

std::vector<ManagerStats> memory_stats() {
  std::vector<std::shared_ptr<MemoryManager>> live;
  {
    auto& r = ContextManagers::instance();
    std::lock_guard lock(r.mutex);
    for (auto& [ctx, m] : r.managers)
      if (m->context() && m->context()->valid()) live.push_back(m);
  }
  std::vector<ManagerStats> out;
  for (auto& m : live)
    out.push_back({m->context()->device().ordinal(), m->name(), m->stats().snapshot(), m->pending()});
  return out;
}

void reset_registry_for_testing() {
  auto& r = ContextManagers::instance();
  std::unordered_map<const Context*, std::shared_ptr<MemoryManager>> dropped;
  std::lock_guard lock(r.mutex);
  r.factory = nullptr;
  r.description.clear();
  r.from_environment = false;
  dropped.swap(r.managers);
  r.generation.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace cubridge::memory
