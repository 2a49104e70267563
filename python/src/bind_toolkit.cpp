// Internal: bindings of the toolkit libraries (libNVVM, nvJitLink, NVRTC, libdevice) and linking.
#include "bindings.hpp"

namespace cubridge::python {
void bind_toolkit(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
