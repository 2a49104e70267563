// nvJitLink: PTX, LTO-IR, cubin, fatbin and object inputs linked into one cubin (or linked PTX), with
// link-time optimisation so that device functions from different compilers inline into their callers.
// Implements: nvJitLink API (nvJitLink.h) inputs and options; the code face's "link" (cubridge.link).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cubridge/compiler/toolkit.hpp"

namespace cubridge {

/// The kinds of input nvJitLink takes (nvJitLinkInputType).
enum class LinkInputType { cubin, ptx, ltoir, fatbin, object, library };

/// "ptx", "ltoir", "cubin", "fatbin", "object", "library".
std::string_view to_string(LinkInputType type);
/// The inverse of to_string, also accepting "lto", "o", "a"; std::invalid_argument naming the text.
LinkInputType parse_link_input_type(std::string_view text);
/// The type a file name implies by its extension (.ptx .ltoir .lto .cubin .fatbin .o .a);
/// std::invalid_argument naming the path when the extension says nothing.
LinkInputType link_input_type_of_path(std::string_view path);

struct LinkOptions {
  ComputeCapability cc{9, 0};  ///< the target (-arch=sm_XY)
  bool lto = true;             ///< -lto: needed for LTO-IR inputs and for inlining across them
  int opt_level = 3;           ///< nvJitLink accepts 0 or 3
  bool debug = false;          ///< -g
  bool lineinfo = false;       ///< -lineinfo
  bool ftz = false;            ///< with prec_div, prec_sqrt, fma: the math flags of LTO code generation
  bool prec_div = true;
  bool prec_sqrt = true;
  bool fma = true;
  std::vector<std::string> extra_options = {};  ///< passed as they are, after ours
};

/// What a link produced. `ptx` is filled only when asked for (link(true)) and LTO is on.
struct LinkResult {
  std::string cubin;
  std::string ptx;
  std::string info_log;
};

/// A link failed: what() names the call and nvJitLink's result and carries its error log; log() is the log.
class LinkError : public ToolkitError {
 public:
  using ToolkitError::ToolkitError;
};

/// Collects inputs (copied, so the caller's buffers may go away) and links them on demand. LTO-IR that
/// cubridge did not produce in this process is linked in a child process, so a corrupt input that crashes
/// nvJitLink gives a LinkError instead of taking the process down (docs/linking.md). A Linker can
/// link any number of times; each link uses a fresh nvJitLink handle. Threads may share one Linker: add()
/// and link() may run at once, and a link uses the inputs added before it started (an input added while it
/// runs joins the next link), because linking takes milliseconds to seconds and bindings run it without
/// their interpreter's lock.
class Linker {
 public:
  /// std::invalid_argument for an opt level other than 0 or 3.
  explicit Linker(LinkOptions options = {});
  /// Copies take the inputs added so far (they share the bytes, which never change once added).
  Linker(const Linker& other);
  Linker& operator=(const Linker& other);

  /// `name` shows in nvJitLink's logs; std::invalid_argument for empty data.
  Linker& add(LinkInputType type, std::string_view data, std::string name = {});
  Linker& add_ptx(std::string_view ptx, std::string name = "input.ptx");
  Linker& add_ltoir(std::string_view ltoir, std::string name = "input.ltoir");
  Linker& add_cubin(std::string_view cubin, std::string name = "input.cubin");
  Linker& add_fatbin(std::string_view fatbin, std::string name = "input.fatbin");
  /// Reads the file now; the type comes from the extension unless given.
  Linker& add_file(const std::string& path);
  Linker& add_file(const std::string& path, LinkInputType type);

  /// Links into a cubin; with `want_ptx` (LTO only) also returns the linked PTX (a second link with
  /// -ptx: nvJitLink keeps no PTX from a cubin link). Throws LinkError with
  /// nvJitLink's error log, std::invalid_argument when there is nothing to link or `want_ptx` without LTO.
  LinkResult link(bool want_ptx = false) const;
  /// Links into PTX only (nvJitLink's -ptx, LTO only): no cubin is generated.
  std::string link_ptx() const;

  /// The nvJitLink options this Linker passes (e.g. {"-arch=sm_90", "-lto", "-O3"}).
  std::vector<std::string> option_strings() const;
  const LinkOptions& options() const noexcept { return options_; }
  size_t input_count() const;

 private:
  struct Input {
    LinkInputType type;
    std::string data;
    std::string name;
  };
  using Inputs = std::vector<std::shared_ptr<const Input>>;
  Inputs inputs() const;  ///< the inputs added so far, taken under the lock
  std::string link_ptx_of(const Inputs& inputs) const;
  /// Links `inputs` into a cubin (want_cubin) and/or linked PTX (want_ptx): in this process when every
  /// LTO-IR input is cubridge's own, else in a child process (docs/linking.md, "Which inputs are trusted").
  LinkResult run(const Inputs& inputs, bool want_cubin, bool want_ptx) const;

  LinkOptions options_;
  mutable std::mutex mutex_;  ///< guards inputs_
  Inputs inputs_;
};

/// One call: link `inputs` ({type, bytes, name}) with `options` into a cubin.
struct LinkInput {
  LinkInputType type;
  std::string_view data;
  std::string name = {};
};
LinkResult link(const std::vector<LinkInput>& inputs, const LinkOptions& options, bool want_ptx = false);

/// nvJitLinkVersion() of the loaded library.
std::pair<unsigned, unsigned> nvjitlink_version();

}  // namespace cubridge
