/* Compiling this file as C99 -pedantic -Werror is the test that cubridge/xla/custom_call.h (and the C
 * header it includes) is C; running it checks the status functions' default and last-writer-wins rules. */
#include <string.h>

#include "cubridge/xla/custom_call.h"

static char g_message[64];

static void store(XlaCustomCallStatus* status, const char* message, size_t length) {
  size_t n = 0;
  (void)status;
  while (n < length && n + 1 < sizeof g_message && message[n] != '\0') ++n;
  memcpy(g_message, message, n);
  g_message[n] = '\0';
}

static void target_v2(void* out, const void** in, XlaCustomCallStatus* status) {
  (void)out;
  (void)in;
  XlaCustomCallStatusSetFailure(status, "bad input\0ignored", 20);
}

int main(void) {
  XlaCustomCallStatus status = {CUBRIDGE_XLA_STATUS_MAGIC, CUBRIDGE_XLA_STATUS_VERSION, 0u, store, NULL};
  CubridgeXlaCpuTargetV2 fn = target_v2;
  uint64_t foreign[4] = {0, 0, 0, 0}; /* not ours: the functions must leave it alone */
  fn(NULL, NULL, &status);
  if (status.failed != 1u || strcmp(g_message, "bad input") != 0) return 1;
  XlaCustomCallStatusSetSuccess(&status);
  if (status.failed != 0u) return 2;
  XlaCustomCallStatusSetFailure((XlaCustomCallStatus*)(void*)foreign, "x", 1);
  XlaCustomCallStatusSetFailure(NULL, "x", 1);
  if (foreign[1] != 0) return 3;
  return 0;
}
