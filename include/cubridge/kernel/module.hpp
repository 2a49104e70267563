// A loaded CUDA module: PTX text (JIT-compiled by the driver), a cubin or a fatbin, bound to the
// context it was loaded in. Implements: DESIGN.md "kernel/" loading (cuModuleLoadDataEx with the JIT
// error log in the exception; unloaded with its context and invalid after cubridge.close()).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda.h>

#include "cubridge/driver/context.hpp"

namespace cubridge {

class Kernel;

/// The format of a code image, recognised from its first bytes.
enum class ImageFormat { Ptx, Cubin, Fatbin };

/// Cubin (ELF magic), fatbin (its magic number) or PTX (text with a ".version" or ".entry"
/// directive). Throws std::invalid_argument describing the first bytes otherwise (NVVM IR, LTO-IR,
/// an empty image).
ImageFormat detect_image_format(std::span<const std::byte> image);

/// The ".entry" names of PTX text, in order (the mangled names numba-cuda gives its kernels).
std::vector<std::string> ptx_entry_names(std::string_view ptx);

class Module : public std::enable_shared_from_this<Module> {
 public:
  /// Loads `image` in `context`. A JIT failure throws CudaError whose message carries the driver's
  /// error log. Throws std::invalid_argument for an image that is neither PTX nor cubin/fatbin.
  static std::shared_ptr<Module> load(std::shared_ptr<Context> context, std::span<const std::byte> image);
  static std::shared_ptr<Module> load_ptx(std::shared_ptr<Context> context, std::string_view ptx);
  /// The module already loaded from the same bytes in the same (still valid) context, else a new
  /// load that is remembered. Cached modules stay loaded until clear_module_cache() or close().
  static std::shared_ptr<Module> cached(std::shared_ptr<Context> context, std::span<const std::byte> image);

  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Throws CudaError(CONTEXT_IS_DESTROYED) "module ... cubridge.close()" when the context is gone.
  CUmodule handle() const;
  bool valid() const noexcept { return context_->valid(); }
  const std::shared_ptr<Context>& context() const noexcept { return context_; }
  ImageFormat format() const noexcept { return format_; }
  /// The PTX entry names (empty for cubin/fatbin images, whose entries are not listed).
  const std::vector<std::string>& entry_names() const noexcept { return entries_; }
  /// The JIT's informational log (empty for cubins).
  const std::string& info_log() const noexcept { return info_log_; }

  /// The kernel called `name`. Throws std::invalid_argument listing the module's entries when there
  /// is none by that name.
  std::shared_ptr<Kernel> function(const std::string& name) const;

  struct Token {};
  Module(Token, std::shared_ptr<Context> context, CUmodule handle, ImageFormat format,
         std::vector<std::string> entries, std::string info_log);

 private:
  std::shared_ptr<Context> context_;
  CUmodule handle_ = nullptr;
  ImageFormat format_;
  std::vector<std::string> entries_;
  std::string info_log_;
};

/// Drops every cached module (each unloads when its last kernel lets go). Returns how many there were.
std::size_t clear_module_cache();
/// Number of modules currently cached (tests).
std::size_t module_cache_size();

}  // namespace cubridge
