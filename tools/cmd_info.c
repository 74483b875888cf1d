/* cmd_info.c: PLACEHOLDER. */
typedef int cpk_placeholder_cmd_info;
