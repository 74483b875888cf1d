/* fuzz_scene_json.c: libFuzzer harness of the scene JSON reader. */
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  cpk_scene *s = NULL;
  cpk_error err;
  if (text && cpk_scene_read_string(text, "fuzz", &s, &err) == CPK_OK) cpk_scene_free(s);
  free(text);
  return 0;
}
