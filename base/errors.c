/* errors.c: error-code messages and names, and the cpk_error detail struct. */
#include <stdarg.h>
#include <stdio.h>
#include <cpkit/errors.h>

const char *cpk_strerror(int code)
{
  switch (code) {
#define CPK_ERRNO_TEXT_(name, value, text) \
  case CPK_##name: return text;
    CPK_ERRNO_MAP(CPK_ERRNO_TEXT_)
#undef CPK_ERRNO_TEXT_
  default: return "unknown error";
  }
}

const char *cpk_errname(int code)
{
  switch (code) {
#define CPK_ERRNO_NAME_(name, value, text) \
  case CPK_##name: return "CPK_" #name;
    CPK_ERRNO_MAP(CPK_ERRNO_NAME_)
#undef CPK_ERRNO_NAME_
  default: return "CPK_UNKNOWN";
  }
}

int cpk_error_set(cpk_error *err, int code, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

void cpk_error_clear(cpk_error *err)
{
  if (err) {
    err->code = CPK_OK;
    err->message[0] = '\0';
  }
}
