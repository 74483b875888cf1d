/* cli.c: PLACEHOLDER. */
typedef int cpk_placeholder_cli;
