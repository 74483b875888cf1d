/* warm_start.c: PLACEHOLDER, being written. */
typedef int cpk_placeholder_warm_start;
