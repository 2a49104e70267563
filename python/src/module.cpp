// Internal: the cubridge._core extension module; each layer binds itself.
#include "bindings.hpp"

NB_MODULE(_core, m) {
  using namespace cubridge::python;
  m.attr("__version__") = CUBRIDGE_VERSION;
  // JAX keeps the callables of registered custom calls (and through them our KernelSignature objects)
  // past interpreter finalization, which nanobind would report as leaks at every exit.
  nb::set_leak_warnings(false);
  // The base of every error cubridge raises (each also keeps the built-in base its callers catch).
  m.attr("Error") = nb::handle(PyErr_NewExceptionWithDoc(
      "cubridge.Error",
      "The base of every error cubridge raises. Each subclass also derives from the built-in exception its "
      "callers catch: CompileError and ArrayInterfaceError from ValueError, CudaError and ToolkitError (LinkError, "
      "NvvmError, NvrtcError) from RuntimeError.",
      PyExc_Exception, nullptr));
  bind_scalar_types(m);
  bind_types(m);
  bind_driver(m);
  bind_memory(m);
  bind_array(m);
  bind_toolkit(m);
  bind_code_cache(m);
  bind_compiler(m);
  bind_kernel(m);
  bind_xla(m);
  bind_random(m);
}
