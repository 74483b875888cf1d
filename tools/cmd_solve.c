/* cmd_solve.c: PLACEHOLDER. */
typedef int cpk_placeholder_cmd_solve;
