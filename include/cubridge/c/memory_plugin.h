/* The C ABI of a memory-manager plugin loaded from a shared library: CUBRIDGE_MEMORY_MANAGER=/path/lib.so.
 * Implements: EMM v1 (NBEP 7) for plugins written in C/C++ and built apart from cubridge.
 *
 * A plugin library exports two symbols:
 *
 *   uint32_t cubridge_memory_plugin_interface_version(void);
 *       Returns CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION (1). cubridge checks it when the library is
 *       loaded and refuses any other value with an error naming both numbers.
 *
 *   int cubridge_memory_plugin_create(int device_ordinal, cubridge_memory_plugin_v1* out);
 *       Called once per context (one device's primary context), with that context current. Fills
 *       *out (cubridge zeroes it and sets out->struct_size first) and returns 0, or returns non-zero
 *       to refuse (cubridge then raises an error naming the library and the device).
 *
 * Ownership: `state` belongs to the plugin; cubridge passes it back to every function and calls
 * destroy(state) exactly once, when the context is closed or the process ends. Pointers returned by
 * memalloc belong to the plugin; cubridge returns each exactly once through memfree.
 * Return codes: CUBRIDGE_PLUGIN_OK (0), CUBRIDGE_PLUGIN_OUT_OF_MEMORY (1), any other value is an
 * error whose text last_error() may give (it may be NULL). No function may let a C++ exception or a
 * longjmp escape. Host memory (memhostalloc/mempin) stays with cubridge's host-only base, so a C
 * plugin only brings device memory.
 *
 * Versions: a new field is only ever appended (struct_size tells cubridge which exist); a change to
 * the meaning of an existing field bumps CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION.
 */
#ifndef CUBRIDGE_C_MEMORY_PLUGIN_H_
#define CUBRIDGE_C_MEMORY_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUBRIDGE_MEMORY_PLUGIN_INTERFACE_VERSION 1u
#define CUBRIDGE_PLUGIN_OK 0
#define CUBRIDGE_PLUGIN_OUT_OF_MEMORY 1

typedef struct cubridge_memory_plugin_v1 {
  /* Size of this struct as cubridge knows it; set by cubridge before create(). */
  uint32_t struct_size;
  uint32_t reserved0;
  /* The plugin's own state, opaque to cubridge. */
  void* state;
  /* Required. Called before the first allocation; may be called again and must not reset state. */
  int (*initialize)(void* state);
  /* Required. *out_pointer receives a device address of at least `size` bytes. `stream` is a
   * CUstream to order the allocation on, or 0 when the caller named none (use the legacy stream). */
  int (*memalloc)(void* state, size_t size, uintptr_t stream, uintptr_t* out_pointer);
  /* Required. Gives back a pointer from memalloc, with the size and stream it was allocated with. */
  int (*memfree)(void* state, uintptr_t pointer, size_t size, uintptr_t stream);
  /* Optional (NULL, or non-zero when it cannot tell): free and total bytes. */
  int (*get_memory_info)(void* state, size_t* free_bytes, size_t* total_bytes);
  /* Optional: free everything that can be freed now. */
  void (*reset)(void* state);
  /* Optional: suspend / resume deferred freeing; calls nest and come in pairs. */
  void (*defer_begin)(void* state);
  void (*defer_end)(void* state);
  /* Optional: text of the last error on this thread, owned by the plugin; may return NULL. */
  const char* (*last_error)(void* state);
  /* Required. Releases `state`; called exactly once. */
  void (*destroy)(void* state);
} cubridge_memory_plugin_v1;

typedef uint32_t (*cubridge_memory_plugin_interface_version_fn)(void);
typedef int (*cubridge_memory_plugin_create_fn)(int device_ordinal, cubridge_memory_plugin_v1* out);

#define CUBRIDGE_MEMORY_PLUGIN_VERSION_SYMBOL "cubridge_memory_plugin_interface_version"
#define CUBRIDGE_MEMORY_PLUGIN_CREATE_SYMBOL "cubridge_memory_plugin_create"

#ifdef __cplusplus
}
#endif

#endif /* CUBRIDGE_C_MEMORY_PLUGIN_H_ */
