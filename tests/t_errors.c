/* t_errors.c: error codes, messages and the cpk_error detail struct. */
#include <string.h>
#include "testlib.h"

int main(void)
{
  cpk_error err;
  t_ok(strcmp(cpk_strerror(CPK_OK), "success") == 0, "CPK_OK reads success");
  t_ok(strcmp(cpk_errname(CPK_EPARSE), "CPK_EPARSE") == 0, "name of CPK_EPARSE");
  t_ok(strcmp(cpk_strerror(12345), "unknown error") == 0, "unknown code has a message");
  t_ok(cpk_error_set(&err, CPK_EINVAL, "x=%d", 3) == CPK_EINVAL, "cpk_error_set returns the code");
  t_ok(err.code == CPK_EINVAL && strcmp(err.message, "x=3") == 0, "message formatted");
  t_ok(cpk_error_set(NULL, CPK_ENOMEM, "ignored") == CPK_ENOMEM, "NULL error struct accepted");
  cpk_error_clear(&err);
  t_ok(err.code == CPK_OK && err.message[0] == '\0', "cleared");
  return t_done();
}
