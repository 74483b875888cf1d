/* problem_writer.c: PLACEHOLDER, being written. */
typedef int cpk_placeholder_problem_writer;
