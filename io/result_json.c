/* result_json.c: PLACEHOLDER, being written. */
typedef int cpk_placeholder_result_json;
