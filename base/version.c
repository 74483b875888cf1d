/* version.c: the version string of the linked library. */
#include <cpkit/version.h>

const char *cpk_version(void) { return CPK_VERSION; }
