#!/bin/sh
# t_failalloc_full.sh: t_failalloc.sh with every case (the longer sweeps too), for make check-long.
CPK_FAILALLOC_FULL=1
export CPK_FAILALLOC_FULL
exec sh "${CPK_TEST_SRCDIR:-.}/t_failalloc.sh"
