// Internal: bindings of the compiler layer (only .def lines; the work lives in src/compiler/).
#include "bindings.hpp"

namespace cubridge::python {
void bind_compiler(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
