// Internal: bindings of the memory layer (only .def lines; the work lives in src/memory/).
#include "bindings.hpp"

namespace cubridge::python {
void bind_memory(nb::module_& m) { (void)m; }
}  // namespace cubridge::python
