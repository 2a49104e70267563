// Internal: bindings of the xla layer (only .def lines; the work lives in src/xla/).
#include "bindings.hpp"

namespace cubridge::python {
void bind_xla(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
