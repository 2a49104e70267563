// Internal (Python glue of the kernel face): the lazy @cubridge.jit launch, `kernel[griddim, blockdim](*args)`
// and `kernel.forall(n)(*args)` with no signature given, in one C++ call: each argument is imported once, the
// specialization is found by a per-dispatcher cache keyed on the arguments' Python types and, for arrays, the
// facts typeof reads (element type, rank, layout, mutability), with no text built and no dict of strings, and
// the arguments are packed from the views already imported. What the cache does not know (NumPy and
// DLPack-only arrays, records, tuples, enums and other subclasses of numbers, NumPy scalars, a debug kernel)
// is left to the Python dispatcher's general path, before anything is launched. Included only by
// python/src/bind_kernel.cpp.
// Implements: numba-cuda's lazy dispatch (one specialization per argument types; typeof as
// python/cubridge/_types.py spells it) over the launch of py_kernel.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <vector>

#include "py_kernel.hpp"

namespace cubridge::python::kernel_glue {

/// What a specialization depends on for one argument. `type` is the argument's Python type (not
/// referenced: for numbers it is a builtin type, and an array's type adds nothing typeof reads, so a
/// freed type's address reused by another can only meet facts that give the same parameter type);
/// `facts` packs an array's ArrayParam (0 for a number).
struct ArgumentKey {
  PyTypeObject* type = nullptr;
  std::uint32_t facts = 0;
  bool operator==(const ArgumentKey&) const = default;
};

/// A @jit dispatcher's specializations as its lazy launches find them (the C++ base of
/// cubridge.Dispatcher, whose `kernel[griddim, blockdim]` is py_launch.hpp's lazy KernelLaunch): (argument keys, current device) →
/// the loaded cubridge.Kernel the dispatcher's `_kernel_for_types` gave for those types. Bounded: past
/// kMaxEntries the oldest entry is replaced (a miss costs one call into Python, never a wrong kernel).
struct DispatchCache {
  struct Entry {
    std::vector<ArgumentKey> key;
    int device = 0;
    nb::object kernel;  // a cubridge.Kernel; it holds no reference back to the dispatcher
  };
  static constexpr std::size_t kMaxEntries = 64;
  std::vector<Entry> entries;
  std::size_t next = 0;  // the entry replaced next once full
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  // Counts clear()s (recompile(): new code): a kernel remembered elsewhere (a torch op's direct call) from an
  // earlier generation is looked up again.
  std::uint64_t generation = 0;
  // What every subscript asks (py_launch.hpp wants_hooks), kept here rather than in the Python instance's dict
  // (two attribute reads a launch, ~0.15 µs): whether this is a numba-cuda program's kernel (`_numba_launch`),
  // and numba-cuda's launch-argument extensions (`extensions`: a list users append to at any time; visited by
  // the type's GC slots, py_launch.hpp).
  bool numba_launch = false;
  nb::object extensions;
  // The last lazy KernelLaunch `dispatcher[...]` made without a stream (py_launch.hpp lazy_subscript): a
  // launch is immutable, so the next subscript with the same configuration hands it out again instead of
  // making another (numba-style code writes `k[blocks, threads](...)` at every launch). The launch holds the
  // dispatcher, a cycle the type's GC slots show to the collector.
  nb::object last_launch;
  // The key facts of the arrays of the last lazy launch, by argument position: a view given again unchanged (SeenView:
  // an import memo's view, our array's) has the facts it had.
  struct SeenFacts {
    SeenView view;
    std::uint32_t facts = 0;
  };
  static constexpr std::size_t kSeenFacts = 16;
  std::array<SeenFacts, kSeenFacts> seen_facts{};

  /// Forgets every loaded kernel: the dispatcher compiled its signatures afresh.
  void clear() noexcept {
    std::vector<Entry> old;
    old.swap(entries);  // emptied before any kernel is released: the GC's traverse never sees a freed one
    next = 0;
    ++generation;
  }

  /// The entry for `key` on `device`, or null.
  Entry* find(std::span<const ArgumentKey> key, int device) noexcept {
    for (Entry& e : entries)
      if (e.device == device && std::equal(e.key.begin(), e.key.end(), key.begin(), key.end())) return &e;
    return nullptr;
  }

  Entry& insert(std::span<const ArgumentKey> key, int device, nb::object kernel) {
    Entry made{std::vector<ArgumentKey>(key.begin(), key.end()), device, std::move(kernel)};
    if (entries.size() < kMaxEntries) return entries.emplace_back(std::move(made));
    Entry& slot = entries[next++ % kMaxEntries];
    slot = std::move(made);
    return slot;
  }
};

namespace dispatch_detail {

inline std::uint32_t pack_facts(const ArrayParam& p) {
  const std::uint32_t layout = p.layout == 'C' ? 1 : p.layout == 'F' ? 2 : 3;
  return 1u << 31 | static_cast<std::uint32_t>(p.element) << 16 | static_cast<std::uint32_t>(p.ndim) << 8 |
         layout << 1 | (p.readonly ? 1u : 0u);
}

inline ArrayParam unpack_facts(std::uint32_t f) {
  const std::uint32_t layout = f >> 1 & 3;
  return ArrayParam{static_cast<ScalarType>(f >> 16 & 0xff), static_cast<int>(f >> 8 & 0xff),
                    layout == 1 ? 'C' : layout == 2 ? 'F' : 'A', (f & 1) != 0};
}

/// The parameter type typeof gives a number of exactly `tp` (python/cubridge/_types.py's _PYTHON_TYPES).
inline std::optional<Type> number_type(PyTypeObject* tp) {
  if (tp == &PyLong_Type) return Type::scalar(ScalarType::Int64);
  if (tp == &PyFloat_Type) return Type::scalar(ScalarType::Float64);
  if (tp == &PyBool_Type) return Type::scalar(ScalarType::Bool);
  if (tp == &PyComplex_Type) return Type::scalar(ScalarType::Complex128);
  return std::nullopt;
}

inline bool is_exact_number(PyTypeObject* tp) {
  return tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyBool_Type || tp == &PyComplex_Type;
}

/// A Python int (not bool) that fits in int64.
inline bool int64_of(PyObject* o, std::int64_t& out) {
  if (!PyLong_Check(o) || PyBool_Check(o)) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  out = v;
  return true;
}

/// A launch's argument keys: in place for the usual argument counts (a launch makes no allocation for them),
/// on the heap past kInline.
class ArgumentKeys {
 public:
  explicit ArgumentKeys(std::size_t n) {
    if (n > kInline) heap_.resize(n);
    keys_ = n > kInline ? std::span<ArgumentKey>(heap_) : std::span<ArgumentKey>(inline_.data(), n);
  }
  ArgumentKeys(const ArgumentKeys&) = delete;
  ArgumentKeys& operator=(const ArgumentKeys&) = delete;
  ArgumentKey& operator[](std::size_t i) noexcept { return keys_[i]; }
  std::span<const ArgumentKey> span() const noexcept { return keys_; }

 private:
  static constexpr std::size_t kInline = 16;
  std::array<ArgumentKey, kInline> inline_;
  std::vector<ArgumentKey> heap_;
  std::span<ArgumentKey> keys_;
};

/// A launch's imported views of its foreign arrays, by argument: in place for the usual argument counts (a launch on
/// foreign arrays makes no allocation for them), on the heap past kInline. Slots are made up to the last foreign
/// array only (a launch's trailing scalars and the slots past its last array cost nothing, not even their
/// construction), and a slot never moves once made: the pack borrows it.
class ImportedViews {
 public:
  explicit ImportedViews(std::size_t arguments) noexcept : arguments_(arguments) {}
  ImportedViews(const ImportedViews&) = delete;
  ImportedViews& operator=(const ImportedViews&) = delete;
  ~ImportedViews() { std::destroy(inline_slots(), inline_slots() + made_); }

  /// Argument i's slot (i below the argument count), the slots before it made empty.
  ImportedView& slot(std::size_t i) {
    if (arguments_ <= kInline) {
      for (; made_ <= i; ++made_) new (inline_slots() + made_) ImportedView();
      return inline_slots()[i];
    }
    if (heap_.capacity() == 0) heap_.reserve(arguments_);  // no reallocation after: pointers into it stay
    if (heap_.size() <= i) heap_.resize(i + 1);
    return heap_[i];
  }
  std::span<ImportedView> span() noexcept {
    return arguments_ <= kInline ? std::span<ImportedView>(inline_slots(), made_) : std::span<ImportedView>(heap_);
  }

 private:
  // As ArgumentKeys': with 8, a launch of 9 to 16 foreign arrays allocated and freed a vector of views per call.
  static constexpr std::size_t kInline = 16;
  ImportedView* inline_slots() noexcept { return std::launder(reinterpret_cast<ImportedView*>(inline_)); }
  std::size_t arguments_;
  std::size_t made_ = 0;  // inline slots constructed
  alignas(ImportedView) std::byte inline_[kInline * sizeof(ImportedView)];
  std::vector<ImportedView> heap_;
};

/// The argument types the keys stand for, as typeof would give them.
inline nb::list types_of(std::span<const ArgumentKey> keys) {
  nb::list out;
  for (const ArgumentKey& k : keys)
    out.append(k.facts != 0 ? unpack_facts(k.facts).type() : *number_type(k.type));
  return out;
}

}  // namespace dispatch_detail

/// The dispatcher's general path (Python: typeof each argument, then its kernel) for a launch that
/// lazy_launch declined.
inline void general_launch(nb::handle dispatcher, bool forall, nb::handle config, Args args) {
  nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(args.size())));
  if (!tuple.is_valid()) throw nb::python_error();
  for (std::size_t i = 0; i < args.size(); ++i)
    PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(i), nb::borrow(args[i]).release().ptr());
  static PyObject* const name = PyUnicode_InternFromString("_general_launch");
  dispatcher.attr(name)(forall, config, tuple);
}

/// The loaded kernel (a cubridge.Kernel) for `args`, found by their types and layouts, or an invalid object,
/// having launched nothing, when an argument is of a kind only the Python dispatcher types (the caller then
/// takes its general path) or when the dispatcher gives a kernel that is not a plain cubridge.Kernel
/// (debug=True). The foreign arrays' views, imported once with argument_request(), are left in `imported`
/// for launch_with.
inline nb::object lazy_kernel(DispatchCache& cache, nb::handle dispatcher, Args args,
                              dispatch_detail::ImportedViews& imported) {
  using namespace dispatch_detail;
  ArgumentKeys keys(args.size());
  std::optional<ImportRequest> request;  // made for the first foreign array, shared by the others
  for (std::size_t i = 0; i < args.size(); ++i) {
    PyObject* obj = args[i];
    PyTypeObject* tp = Py_TYPE(obj);
    if (is_exact_number(tp)) {
      keys[i] = ArgumentKey{tp, 0};
      continue;
    }
    const ArrayView* view = nullptr;
    const Route route = route_of(tp);
    if (route == Route::ours) {
      view = &nb::inst_ptr<PyDeviceArray>(obj)->view;
    } else {
      // Subclasses of numbers (IntEnum, NumPy's float64) are typed by Python's rules. The array libraries'
      // own routes (CuPy, numba, the exchange table) are no numbers: the checks walk the type's bases.
      if (route == Route::attributes && (PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj))) return {};
      if (!request) request = argument_request();
      // The readers' view as it is (the memo's borrowed: argument_request shares them), else the protocols'.
      ImportedView& slot = imported.slot(i);
      slot = reader_view(obj, *request, route);
      if (!slot) {
        ImportedArray a = import_protocols(obj, *request);
        if (!a.made) return {};  // a NumPy or DLPack-only array, or no array: the general path
        slot.owned.emplace(std::move(a.made->view));
      }
      view = &slot.get();
    }
    DispatchCache::SeenFacts* seen = i < DispatchCache::kSeenFacts ? &cache.seen_facts[i] : nullptr;
    if (seen != nullptr && seen->view.is(*view)) {
      keys[i] = ArgumentKey{tp, seen->facts};
      continue;
    }
    const std::optional<ArrayParam> p = array_param_facts(*view);
    if (!p) return {};  // records, 0-d arrays, dtypes typeof refuses: typed (or refused) by Python
    keys[i] = ArgumentKey{tp, pack_facts(*p)};
    if (seen != nullptr) *seen = DispatchCache::SeenFacts{SeenView(*view), keys[i].facts};
  }

  const int device = Context::current_ordinal();
  DispatchCache::Entry* entry = cache.find(keys.span(), device);
  if (entry != nullptr && nb::inst_ptr<PyKernel>(entry->kernel)->kernel->module()->valid()) {
    ++cache.hits;
    return entry->kernel;
  }
  // A miss, or a kernel whose context was closed since: the dispatcher compiles or loads it.
  ++cache.misses;
  static PyObject* const name = PyUnicode_InternFromString("_kernel_for_types");
  nb::object kernel = dispatcher.attr(name)(types_of(keys.span()));
  if (!nb::isinstance<PyKernel>(kernel)) return {};
  if (DispatchCache::Entry* stale = cache.find(keys.span(), device)) stale->kernel = kernel;  // looked up again:
  else cache.insert(keys.span(), device, kernel);  // Python may have launched (and cached) meanwhile
  return kernel;
}

/// `dispatcher[...]`'s call: `config` was read from `key` when the launch was made, and is checked here
/// against the kernel the arguments select. False when lazy_kernel declined (nothing launched).
inline bool lazy_launch(DispatchCache& cache, nb::handle dispatcher, const LaunchConfig& config, Args args) {
  MemoPins pins;  // the remembered views in `imported` are borrowed until the launch returns
  dispatch_detail::ImportedViews imported(args.size());
  nb::object kernel = lazy_kernel(cache, dispatcher, args, imported);
  if (!kernel.is_valid()) return false;
  PyKernel& k = *nb::inst_ptr<PyKernel>(kernel);
  k.kernel->validate(config);
  launch_with(k, config, args, imported.span());
  return true;
}

/// `dispatcher.forall(ntasks, stream, sharedmem)`'s call. False when lazy_kernel declined, or when ntasks
/// or sharedmem is no Python int in int64 (Kernel.forall's own conversion then refuses it).
inline bool lazy_forall(DispatchCache& cache, nb::handle dispatcher, nb::handle ntasks, nb::handle stream,
                        nb::handle sharedmem, Args args) {
  std::int64_t n = 0, smem = 0;
  if (!dispatch_detail::int64_of(ntasks.ptr(), n) || !dispatch_detail::int64_of(sharedmem.ptr(), smem)) return false;
  MemoPins pins;  // as lazy_launch's
  dispatch_detail::ImportedViews imported(args.size());
  nb::object kernel = lazy_kernel(cache, dispatcher, args, imported);
  if (!kernel.is_valid()) return false;
  PyKernel& k = *nb::inst_ptr<PyKernel>(kernel);
  bool nothing_to_do = false;
  const LaunchConfig c = forall_config(k, n, stream, smem, nothing_to_do);
  if (nothing_to_do) check_count(k, args);
  else launch_with(k, c, args, imported.span());
  return true;
}

}  // namespace cubridge::python::kernel_glue
