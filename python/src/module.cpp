// Internal: the cubridge._core extension module; each layer binds itself.
#include "bindings.hpp"

NB_MODULE(_core, m) {
  using namespace cubridge::python;
  m.attr("__version__") = CUBRIDGE_VERSION;
  bind_driver(m);
  bind_memory(m);
  bind_array(m);
  bind_toolkit(m);
  bind_compiler(m);
  bind_kernel(m);
  bind_xla(m);
}
