/* t_fclib_probe.c: cpk_fclib_probe: an FCLIB file that crashes libhdf5 (tests/data/reliab/fclib-heap-size.hdf5) is reported, not crashed on; good and cleanly refused files pass it; the caller's signal handlers and stderr are untouched. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <signal.h>
#include <string.h>
#include "testlib.h"

static void handler(int sig) { (void)sig; }

int main(void)
{
  cpk_error err;
  int rc = cpk_fclib_probe(t_srcpath("data/fclib/FrictionContact3D_1c.hdf5"), &err);
  t_ok(rc == CPK_OK && err.message[0] == '\0', "a good file: CPK_OK, no message (%d)", rc);
  rc = cpk_fclib_probe(t_srcpath("data/bad/fclib-mu-negative.hdf5"), &err);
  t_ok(rc == CPK_OK, "a file the reader refuses cleanly: CPK_OK, the reader gives the message");
  t_ok(cpk_fclib_probe(NULL, &err) == CPK_EINVAL, "no path: CPK_EINVAL");
#ifdef HAVE_HDF5
  /* The caller's own crash handler must not run in the child (nor be reset here). */
  struct sigaction sa, now;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigaction(SIGABRT, &sa, NULL);
  const char *bad = t_srcpath("data/reliab/fclib-heap-size.hdf5");
  rc = cpk_fclib_probe(bad, &err);
  t_ok(rc == CPK_EPARSE && strstr(err.message, "fclib-heap-size.hdf5: ") &&
           strstr(err.message, "the file is corrupt"),
       "the file that crashes libhdf5 1.10.8 in H5Lexists: CPK_EPARSE, %s", err.message);
  sigaction(SIGABRT, NULL, &now);
  t_ok(now.sa_handler == handler, "the caller's SIGABRT handler is still its own");
  cpk_problem *p = NULL;
  const char *global = t_srcpath("data/fclib/LMGC_GlobalFrictionContactProblem00046.hdf5");
  rc = cpk_fclib_probe(global, &err);
  int read = rc == CPK_OK && cpk_problem_read_fclib(global, &p, &err) == CPK_OK && p;
  t_ok(read && p->nc > 0, "a global problem: probed, then read in-process (%zu contacts)",
       read ? p->nc : 0);
  cpk_problem_free(p);
#endif
  return t_done();
}
