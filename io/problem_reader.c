/* problem_reader.c: PLACEHOLDER, being written. */
typedef int cpk_placeholder_problem_reader;
