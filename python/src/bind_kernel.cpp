// Internal: bindings of the kernel layer (only .def lines; the work lives in src/kernel/).
#include "bindings.hpp"

namespace cubridge::python {
void bind_kernel(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
