/* cmd_solvers.c: PLACEHOLDER. */
typedef int cpk_placeholder_cmd_solvers;
