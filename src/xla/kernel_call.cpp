// Internal: the kernel table behind cubridge.jax.kernel_call, the call site's opaque bytes and the
// built-in GPU target. The hot path copies the trace-time argument buffer, writes XLA's data pointers
// into it and launches: no ArrayView, no allocation for kernels of up to 64 words / 128 PTX parameters.
#include "cubridge/xla/kernel_call.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cubridge/driver/context.hpp"
#include "cubridge/driver/device.hpp"
#include "cubridge/kernel/kernel.hpp"
#include "cubridge/kernel/module.hpp"
#include "cubridge/kernel/parameter_layout.hpp"
#include "cubridge/xla/opaque.hpp"
#include "driver/driver_api.hpp"
#include "cubridge/error.hpp"

namespace cubridge::xla {

namespace {

Extent3 extent_of(const OpaqueReader& r, const char* name) {
  std::vector<std::int64_t> v = r.get_ints(name);
  if (v.empty() || v.size() > 3)
    throw cubridge::InvalidArgument(std::string("kernel_call opaque: '") + name + "' has " + std::to_string(v.size()) +
                                " values; a launch extent has 1 to 3");
  return Extent3::of(v, name);
}

std::vector<std::int64_t> extent_values(const Extent3& e) {
  std::vector<std::int64_t> v{e.x, e.y, e.z};
  v.resize(static_cast<std::size_t>(e.rank < 1 || e.rank > 3 ? 3 : e.rank));
  return v;
}

}  // namespace

std::string KernelCallSite::encode() const {
  OpaqueWriter w;
  w.add_int("kernel", kernel);
  w.add_int("fingerprint", static_cast<std::int64_t>(fingerprint));
  w.add("grid", extent_values(grid));
  w.add("block", extent_values(block));
  w.add_int("shared", shared_mem);
  w.add_bytes("args", arguments);
  if (!image.empty()) {
    w.add_bytes("image", image);
    w.add_bytes("entry", entry);
    w.add_bytes("signature", signature);
  }
  return w.bytes();
}

KernelCallSite KernelCallSite::decode(std::string_view opaque) {
  OpaqueReader r(opaque);
  KernelCallSite s;
  s.kernel = r.get_int("kernel");
  s.fingerprint = static_cast<std::uint64_t>(r.get_int("fingerprint"));
  s.grid = extent_of(r, "grid");
  s.block = extent_of(r, "block");
  s.shared_mem = r.get_int("shared");
  s.arguments = r.get_bytes("args");
  if (r.contains("image")) {
    s.image = r.get_bytes("image");
    s.entry = r.get_bytes("entry");
    s.signature = r.get_bytes("signature");
  }
  static constexpr std::string_view kOrder[] = {"kernel", "fingerprint", "grid", "block", "shared", "args"};
  const std::vector<std::string_view> names = r.names();
  if (names.size() >= std::size(kOrder) && std::equal(std::begin(kOrder), std::end(kOrder), names.begin()))
    s.fixed_size = static_cast<std::size_t>(s.arguments.data() + s.arguments.size() - opaque.data());
  if (s.shared_mem < 0)
    throw cubridge::InvalidArgument("kernel_call opaque: 'shared' is " + std::to_string(s.shared_mem) +
                                "; dynamic shared memory is 0 or more bytes");
  return s;
}

std::uint64_t kernel_fingerprint(std::span<const std::byte> image, std::string_view entry,
                                 const KernelSignature& signature) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  };
  mix(image.data(), image.size());
  mix("", 1);
  mix(entry.data(), entry.size());
  mix("", 1);
  try {
    std::string text = signature.to_string();
    mix(text.data(), text.size());
  } catch (...) {
    // Out of memory: the image and the entry still tell kernels apart.
  }
  return h;
}

namespace {

struct Entry {
  std::int64_t id = 0;
  std::uint64_t fingerprint = 0;
  std::string image;
  std::string name;
  std::shared_ptr<const KernelSignature> signature;
  std::vector<std::uint32_t> data_offsets;  // byte offset of each array/pointer parameter's data pointer
  std::vector<std::pair<CUcontext, std::shared_ptr<Kernel>>> per_context;  // immutable once published
  bool packed = true;  // every device's driver lays the parameters out as the signature packs them: one buffer

  Kernel& kernel_for(CUstream stream) const {
    CUcontext ctx = nullptr;
    CUBRIDGE_CU(cuStreamGetCtx, stream, &ctx);
    for (const auto& [c, k] : per_context)
      if (c == ctx) return *k;
    throw cubridge::InvalidArgument("kernel_call: XLA's stream belongs to a CUDA context that is not the primary "
                                "context of any of the " + std::to_string(per_context.size()) +
                                " devices kernel '" + name + "' was loaded on at registration");
  }
};

std::string label(const Entry& e) { return "kernel '" + e.name + "' " + e.signature->to_string(); }

}  // namespace

struct KernelCallTable::State {
  mutable std::mutex mutex;
  std::deque<Entry> entries;  // never erased: ids index it, and entries' addresses stay stable
  // The launch path reads the first kPublished entries without the mutex (one thread per GPU under XLA
  // launches at once): an entry is published here, complete, after it is stored, and never changes.
  static constexpr std::size_t kPublished = 4096;
  std::array<std::atomic<const Entry*>, kPublished> published{};

  // The entry registered under `id` if its fingerprint is `fingerprint`, else null (lock-free for the
  // published ids).
  const Entry* try_find(std::int64_t id, std::uint64_t fingerprint) const {
    const Entry* p = nullptr;
    if (id >= 1 && static_cast<std::size_t>(id) <= kPublished)
      p = published[static_cast<std::size_t>(id - 1)].load(std::memory_order_acquire);
    if (p == nullptr) {
      std::lock_guard lock(mutex);
      if (id >= 1 && static_cast<std::size_t>(id) <= entries.size()) p = &entries[static_cast<std::size_t>(id - 1)];
    }
    return p != nullptr && p->fingerprint == fingerprint ? p : nullptr;
  }

  const Entry* find_fingerprint(std::uint64_t fingerprint) const {
    std::lock_guard lock(mutex);
    for (const Entry& e : entries)
      if (e.fingerprint == fingerprint) return &e;
    return nullptr;
  }

  // Why a site without its kernel cannot run here.
  [[noreturn]] void refuse(std::int64_t id) const {
    std::lock_guard lock(mutex);
    if (id < 1 || static_cast<std::size_t>(id) > entries.size())
      throw cubridge::InvalidArgument("kernel_call: kernel id " + std::to_string(id) + " is not registered in this "
                                  "process (" + std::to_string(entries.size()) + " kernels are); the call "
                                  "site was made by another process or by hand");
    throw cubridge::InvalidArgument("kernel_call: kernel id " + std::to_string(id) + " is " +
                                label(entries[static_cast<std::size_t>(id - 1)]) +
                                " in this process, not the kernel this call site was compiled for "
                                "(fingerprints differ: a cached executable from another process?)");
  }
};

KernelCallTable& KernelCallTable::global() {
  static KernelCallTable table;
  return table;
}

KernelCallTable::State& KernelCallTable::state() const {
  // The constructor is private and global() makes the only table, so the state can be static.
  static State state;
  return state;
}

std::size_t KernelCallTable::size() const {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.entries.size();
}

KernelCallTable::Registered KernelCallTable::add(std::span<const std::byte> image, const std::string& entry,
                                                 std::shared_ptr<const KernelSignature> signature) {
  if (!signature) throw cubridge::InvalidArgument("kernel_call: a kernel needs a signature");
  if (signature->has_tuples())  // XLA hands over buffers and attributes one by one: no Python tuple to flatten
    throw cubridge::InvalidArgument("kernel_call: kernel '" + entry + "' takes a tuple (" + signature->to_string() +
                                    "); an XLA call passes arrays and scalars one by one: give the kernel one "
                                    "parameter per tuple element");
  const std::uint64_t fp = kernel_fingerprint(image, entry, *signature);
  const std::string_view bytes(reinterpret_cast<const char*>(image.data()), image.size());
  State& s = state();
  // Held while loading: two threads registering the same kernel must get one id.
  std::lock_guard lock(s.mutex);
  for (const Entry& e : s.entries)
    if (e.fingerprint == fp && e.name == entry && e.image == bytes && *e.signature == *signature)
      return {e.id, e.fingerprint};

  Entry e;
  e.fingerprint = fp;
  e.image = std::string(bytes);
  e.name = entry;
  e.signature = std::move(signature);
  const KernelSignature& sig = *e.signature;
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (!sig[i].takes_array()) continue;
    // Numba ABI: an array's data is word 4; a pointer or one record is its only word.
    const std::uint32_t k = sig.first_slot(i) + (sig[i].is_pointer() || sig[i].is_record() ? 0u : 4u);
    e.data_offsets.push_back(sig.slots()[k].offset);
  }
  const int devices = Device::count();
  for (int d = 0; d < devices; ++d) {
    try {
      auto context = Context::primary(Device(d));
      auto module = Module::cached(context, image);
      std::shared_ptr<Kernel> kernel = module->function(entry);
      e.packed = check_parameter_layout(*kernel, sig) && e.packed;  // refuses a signature laid out otherwise
      e.per_context.emplace_back(context->handle(), std::move(kernel));
    } catch (const CudaError&) {
      throw;
    } catch (const std::exception& ex) {
      throw cubridge::InvalidArgument("kernel_call: loading kernel '" + entry + "' on device " + std::to_string(d) +
                                  ": " + ex.what());
    }
  }
  e.id = static_cast<std::int64_t>(s.entries.size()) + 1;
  s.entries.push_back(std::move(e));
  const Entry& stored = s.entries.back();
  if (static_cast<std::size_t>(stored.id) <= State::kPublished)
    s.published[static_cast<std::size_t>(stored.id - 1)].store(&stored, std::memory_order_release);
  return {stored.id, fp};
}

std::optional<KernelCallTable::Source> KernelCallTable::source(std::int64_t id) const {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (id < 1 || static_cast<std::size_t>(id) > s.entries.size()) return std::nullopt;
  const Entry& e = s.entries[static_cast<std::size_t>(id - 1)];
  return Source{e.image, e.name, e.signature->to_string()};
}

void KernelCallTable::prepare(std::int64_t id, const LaunchConfig& config) {
  State& s = state();
  const Entry* e = nullptr;
  {
    std::lock_guard lock(s.mutex);
    if (id < 1 || static_cast<std::size_t>(id) > s.entries.size())
      throw cubridge::InvalidArgument("kernel_call: kernel id " + std::to_string(id) + " is not registered");
    e = &s.entries[static_cast<std::size_t>(id - 1)];
  }
  for (const auto& [ctx, kernel] : e->per_context) {
    kernel->validate(config);
    // Opting in now means launch_raw never has to while XLA captures; never lower an earlier opt-in.
    if (config.shared_mem > 0)
      kernel->set_max_dynamic_shared_memory(std::max(config.shared_mem, kernel->attributes().max_dynamic_shared));
  }
}

void KernelCallTable::launch(CUstream_st* stream, void** buffers, std::string_view opaque) {
  // XLA hands a call site the same opaque bytes at the same address on every call: each site is decoded
  // once per thread and found again by its address, its length and the leading bytes that hold what the
  // launch reads (a site freed and another made at its address differs there, or is decoded again).
  struct Decoded {
    std::size_t size = 0;
    std::string fixed;
    KernelCallSite site;
  };
  thread_local std::unordered_map<const char*, Decoded> decoded;
  auto it = decoded.find(opaque.data());
  if (it == decoded.end() || it->second.size != opaque.size() || it->second.fixed.empty() ||
      std::memcmp(opaque.data(), it->second.fixed.data(), it->second.fixed.size()) != 0) {
    KernelCallSite fresh = KernelCallSite::decode(opaque);
    if (decoded.size() >= 4096) decoded.clear();  // programs come and go: keep the table bounded
    it = decoded.insert_or_assign(opaque.data(), Decoded{opaque.size(), std::string(opaque.data(), fresh.fixed_size),
                                                          fresh}).first;
  }
  const KernelCallSite& site = it->second.site;
  State& s = state();
  const Entry* found = s.try_find(site.kernel, site.fingerprint);
  if (found == nullptr) {
    // A site made in another process (jax.export, a persistent compilation cache): its kernel by
    // fingerprint, else loaded from the kernel the site carries (a second site then finds it).
    found = s.find_fingerprint(site.fingerprint);
    if (found == nullptr) {
      if (site.image.empty()) s.refuse(site.kernel);
      auto signature = std::make_shared<const KernelSignature>(KernelSignature::parse(site.signature));
      const Registered r = add(std::as_bytes(std::span(site.image.data(), site.image.size())),
                               std::string(site.entry), std::move(signature));
      if (r.fingerprint != site.fingerprint)
        throw cubridge::InvalidArgument("kernel_call: the kernel '" + std::string(site.entry) + "' this call site "
                                        "carries does not match the site's fingerprint (altered opaque bytes?)");
      found = s.try_find(r.id, r.fingerprint);
      if (found == nullptr) s.refuse(r.id);
      // What kernel_call's trace did in the process that made the site: check the configuration and
      // opt in to the dynamic shared memory.
      LaunchConfig config;
      config.grid = site.grid;
      config.block = site.block;
      config.shared_mem = site.shared_mem;
      prepare(r.id, config);
    }
  }
  const Entry& e = *found;
  const KernelSignature& sig = *e.signature;
  if (site.arguments.size() != sig.buffer_size())
    throw cubridge::InvalidArgument("kernel_call: the call site's arguments have " +
                                std::to_string(site.arguments.size()) + " bytes, but " + label(e) + " packs " +
                                std::to_string(sig.buffer_size()));
  // XLA launches each GPU's work from a thread of its own, on a stream that lives as long as the client:
  // the last (entry, stream) -> kernel answer of this thread saves a driver query (cuStreamGetCtx, which
  // serialises XLA's per-GPU threads) per call. A recycled stream handle of another context would make the
  // launch fail with the driver's invalid-handle error, never run in the wrong place.
  thread_local const Entry* last_entry = nullptr;
  thread_local CUstream last_stream = nullptr;
  thread_local Kernel* last_kernel = nullptr;
  if (last_entry != &e || last_stream != stream) {
    last_kernel = &e.kernel_for(stream);
    last_entry = &e;
    last_stream = stream;
  }
  Kernel& kernel = *last_kernel;

  // The buffer as 8-byte words, so every slot is aligned; small kernels stay on the stack. Where the driver lays the
  // parameters out as the signature packs them, it takes the buffer whole; else one pointer per parameter.
  constexpr std::size_t kInlineWords = 64, kInlineSlots = 128;
  std::uint64_t inline_words[kInlineWords];
  void* inline_params[kInlineSlots];
  std::vector<std::uint64_t> heap_words;
  std::vector<void*> heap_params;
  std::uint64_t* words = inline_words;
  void** params = inline_params;
  const std::size_t n_words = sig.buffer_size() / 8;
  if (n_words > kInlineWords) {
    heap_words.resize(n_words);
    words = heap_words.data();
  }
  const bool pointers = !e.packed || kernel.cooperative();  // a cooperative launch takes pointers (Kernel::launch_validated)
  if (pointers && sig.slots().size() > kInlineSlots) {
    heap_params.resize(sig.slots().size());
    params = heap_params.data();
  }
  auto* base = reinterpret_cast<std::byte*>(words);
  if (!site.arguments.empty()) std::memcpy(base, site.arguments.data(), site.arguments.size());
  for (std::size_t b = 0; b < e.data_offsets.size(); ++b) std::memcpy(base + e.data_offsets[b], &buffers[b], 8);
  std::span<const std::byte> packed;
  if (e.packed) packed = {base, sig.parameter_bytes()};
  if (pointers)
    for (std::size_t k = 0; k < sig.slots().size(); ++k) params[k] = base + sig.slots()[k].offset;

  LaunchConfig config;
  config.grid = site.grid;
  config.block = site.block;
  config.shared_mem = site.shared_mem;
  kernel.launch_raw(config, StreamRef::external(stream), params, packed);
}

}  // namespace cubridge::xla

extern "C" void cubridge_kernel_call_gpu(CUstream_st* stream, void** buffers, const char* opaque,
                                         std::size_t opaque_len, XlaCustomCallStatus* status) {
  try {
    cubridge::xla::KernelCallTable::global().launch(stream, buffers, std::string_view(opaque, opaque_len));
  } catch (const std::exception& e) {
    XlaCustomCallStatusSetFailure(status, e.what(), std::strlen(e.what()));
  } catch (...) {
    const char* message = "kernel_call: an unknown exception";
    XlaCustomCallStatusSetFailure(status, message, std::strlen(message));
  }
}
