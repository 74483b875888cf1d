/* fuzz_system_json.c: libFuzzer harness of the contact-system JSON reader. */
#include <stdlib.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  cpk_contact_system *s = NULL;
  cpk_error err;
  if (text && cpk_contact_system_read_json_string(text, "fuzz", &s, &err) == CPK_OK)
    cpk_contact_system_free(s);
  free(text);
  return 0;
}
