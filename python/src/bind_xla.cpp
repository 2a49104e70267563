// Internal: bindings of the xla layer (only .def lines and tiny lambdas; the work lives in src/xla/).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>

#include "bindings.hpp"
#include "cubridge/xla/ffi_adapter.hpp"
#include "cubridge/xla/kernel_call.hpp"
#include "cubridge/xla/opaque.hpp"
#include "cubridge/xla/registry.hpp"

namespace cubridge::python {

namespace {
xla::Target make_target(const std::string& name, const std::string& platform, int api_version,
                        std::uintptr_t function, bool command_buffer_compatible) {
  xla::Target t;
  t.name = name;
  t.platform = xla::parse_platform(platform);
  t.api_version = api_version;
  t.function = reinterpret_cast<void (*)(void)>(function);
  t.command_buffer_compatible = command_buffer_compatible;
  return t;
}
xla::KernelCallSite make_site(std::int64_t kernel, std::uint64_t fingerprint, const std::vector<std::int64_t>& grid,
                              const std::vector<std::int64_t>& block, std::int64_t shared, std::string_view args) {
  return {kernel, fingerprint, Extent3::of(grid, "griddim"), Extent3::of(block, "blockdim"), shared, args};
}
}  // namespace

void bind_xla(nb::module_& m) {
  m.def("_xla_adapter_available", &xla::ffi_adapter_available);
  m.def("_xla_ffi_api_version", &xla::ffi_api_version);
  m.def("_xla_max_adapted_targets", [] { return xla::kMaxAdaptedTargets; });
  m.def("_xla_platform_name", [](const std::string& p) { return std::string(xla::platform_name(xla::parse_platform(p))); });
  // Adapts first (a repeated identical target gets its handler back), then records the registration.
  m.def("_xla_register_adapted",
        [](const std::string& name, const std::string& platform, int api_version, std::uintptr_t fn, bool graphs) {
          xla::Target t = make_target(name, platform, api_version, fn, graphs);
          void* handler = xla::ffi_handler_for(t);
          xla::Registry::global().add(t);
          return reinterpret_cast<std::uintptr_t>(handler);
        });
  m.def("_xla_register_classic",
        [](const std::string& name, const std::string& platform, int api_version, std::uintptr_t fn) {
          xla::Registry::global().add(make_target(name, platform, api_version, fn, true));
        });
  m.def("_xla_is_registered", [](const std::string& name, const std::string& platform) {
    return xla::Registry::global().find(name, xla::parse_platform(platform)).has_value();
  });
  m.def("_xla_read_descriptor", [](std::uintptr_t address) {
    xla::Target t = xla::target_from_descriptor(*reinterpret_cast<const CubridgeXlaTargetDescriptor*>(address));
    return std::make_tuple(t.name, std::string(xla::platform_name(t.platform)), t.api_version,
                           reinterpret_cast<std::uintptr_t>(t.function), t.command_buffer_compatible);
  });
  m.def("_xla_kernel_call_target", [] {
    return nb::capsule(reinterpret_cast<void*>(&cubridge_kernel_call_gpu), "xla._CUSTOM_CALL_TARGET"); });
  m.def("_xla_kernel_call_add", [](nb::bytes image, const std::string& entry, std::shared_ptr<KernelSignature> sig) {
    auto r = xla::KernelCallTable::global().add(std::as_bytes(std::span(image.c_str(), image.size())), entry, sig);
    return std::make_tuple(r.id, r.fingerprint); });
  m.def("_xla_kernel_call_prepare", [](std::int64_t id, const std::vector<std::int64_t>& grid,
                                       const std::vector<std::int64_t>& block, std::int64_t shared) {
    xla::KernelCallTable::global().prepare(id, LaunchConfig{Extent3::of(grid, "griddim"), Extent3::of(block, "blockdim"), shared}); });
  m.def("_xla_kernel_call_opaque", [](std::int64_t kernel, std::uint64_t fingerprint, const std::vector<std::int64_t>& grid,
                                      const std::vector<std::int64_t>& block, std::int64_t shared, nb::bytes args) {
    // The site carries its kernel: a process where the id means nothing (jax.export) loads it from there.
    const auto source = xla::KernelCallTable::global().source(kernel);
    xla::KernelCallSite site = make_site(kernel, fingerprint, grid, block, shared, {args.c_str(), args.size()});
    if (source) {
      site.image = source->image;
      site.entry = source->entry;
      site.signature = source->signature;
    }
    std::string b = site.encode();
    return nb::bytes(b.data(), b.size()); });
  m.def("_xla_kernel_call_decode", [](nb::bytes opaque) {
    auto s = xla::KernelCallSite::decode({opaque.c_str(), opaque.size()});
    return std::make_tuple(s.kernel, s.fingerprint, s.grid.to_string(), s.block.to_string(), s.shared_mem,
                           nb::bytes(s.arguments.data(), s.arguments.size())); });
  m.def("_xla_opaque_validate", [](nb::bytes data) {
    return xla::OpaqueReader(std::string_view(data.c_str(), data.size())).size();
  });
  // Every entry as (name bytes, value): the C++ reader is the only parser of the format. Shapes come back
  // as (element type name, dims); bytes entries as bytes.
  m.def("_xla_opaque_decode", [](nb::bytes data) {
    nb::list out;
    for (auto& [name, value] : xla::decode_opaque(std::string_view(data.c_str(), data.size()))) {
      nb::object v = std::visit([](auto& x) -> nb::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) return nb::bytes(x.data(), x.size());
        else if constexpr (std::is_same_v<T, xla::Shape>)
          return nb::make_tuple(xla::element_type_name(x.type), nb::tuple(nb::cast(x.dims)));
        else return nb::cast(x);
      }, value);
      out.append(nb::make_tuple(nb::bytes(name.data(), name.size()), v));
    }
    return out;
  });
}

}  // namespace cubridge::python
