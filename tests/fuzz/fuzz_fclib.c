/* fuzz_fclib.c: libFuzzer harness of the FCLIB HDF5 reader (local and global problems, as a cone problem and as a contact system), each input read first in a child process as the cpkit command does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sanitizer/common_interface_defs.h>
#include <cpkit/cpkit.h>
#include "fuzz_input.h"

#define HDF5_CRASH 77 /* the child's exit status when libhdf5 itself faulted */

/* 1 in libhdf5, 0 in libcpkit, -1 elsewhere (libc, the sanitizers, this harness). */
static int where(void *pc)
{
  Dl_info info;
  if (!dladdr(pc, &info) || !info.dli_fname) return -1;
  if (strstr(info.dli_fname, "libhdf5")) return 1;
  return strstr(info.dli_fname, "libcpkit") ? 0 : -1;
}

/*
 * In the child: the innermost frame that is HDF5's or cpkit's says whose crash
 * it is (a fault in memcpy called by HDF5 is HDF5's). HDF5 1.10 trusts the
 * file's metadata and can crash on it, which cpkit cannot prevent, only
 * contain (cpk_fclib_probe); a fault in cpkit's own code is a finding.
 */
static void exit_if_hdf5(void)
{
  void *pc[128];
  int n = backtrace(pc, 128);
  for (int k = 0; k < n; k++) {
    int w = where(pc[k]);
    if (w == 1) _exit(HDF5_CRASH);
    if (w == 0) return;
  }
}

static void on_fault(int sig)
{
  exit_if_hdf5();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void read_file(const char *path)
{
  cpk_problem *p = NULL;
  cpk_contact_system *s = NULL;
  cpk_error err;
  if (cpk_problem_read_fclib(path, &p, &err) == CPK_OK) cpk_problem_free(p);
  if (cpk_contact_system_read_fclib(path, &s, &err) == CPK_OK) cpk_contact_system_free(s);
}

/* 1 when the child read the file and exited, 0 when libhdf5 crashed on it; aborts on any other death. */
static int survives(const char *path)
{
  int status = 0;
  pid_t pid = fork();
  if (pid < 0) abort();
  if (pid == 0) {
    /* A sanitizer's report (ASan sees HDF5's memcpy of -1 bytes before it faults) and a raw fault. */
    __sanitizer_set_death_callback(exit_if_hdf5);
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    read_file(path);
    _exit(0);
  }
  if (waitpid(pid, &status, 0) < 0) abort();
  if (WIFEXITED(status) && WEXITSTATUS(status) == HDF5_CRASH) return 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) abort(); /* a finding: the child says why */
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fuzz_file(data, size, ".hdf5");
  /* In-process only after the child survived: coverage and the sanitizers see cpkit's code. */
  if (path && survives(path)) read_file(path);
  return 0;
}
