// Internal: bindings of the array layer (only .def lines; the work lives in src/array/).
#include "bindings.hpp"

namespace cubridge::python {
void bind_array(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
