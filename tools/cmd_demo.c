/* cmd_demo.c: `cpkit demo`, run every experiment scene of a directory and print one table of analytic vs simulated values. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "sim_report.h"

#ifndef CPK_EXAMPLES_DIR
#define CPK_EXAMPLES_DIR "examples"
#endif

static int run(int argc, char **argv);

const cli_command cli_cmd_demo = {
    "demo", "run the papers' experiments (scene files) and print the checks table",
    "usage: cpkit demo [DIR] [OPTIONS]\n"
    "\n"
    "Run every scene file DIR/*.scene.json that has checks (default DIR: the\n"
    "installed examples, " CPK_EXAMPLES_DIR ") and print one table:\n"
    "experiment, quantity, analytic or published value, simulated value, error,\n"
    "tolerance. Each scene runs with its own model, solver and step.\n"
    "\n"
    "Options:\n"
    "  --strict            exit 3 when a check fails\n"
    "  --match TEXT        only the scenes whose file name contains TEXT\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 when every scene ran; 1 when a scene could not be read or\n"
    "its run stopped; 2 for a usage error; 3 with --strict when a check failed.\n",
    run};

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.scene.json files of dir whose name contains match, sorted. */
static int list_scenes(const char *dir, const char *match, char ***out, size_t *n)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  if (!d) return cli_error("%s: cannot open the directory", dir);
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 11 || strcmp(e->d_name + len - 11, ".scene.json") || (match && !strstr(e->d_name, match)))
      continue;
    if (*n == cap) {
      char **nl = realloc(*out, (cap = cap ? 2 * cap : 16) * sizeof *nl);
      if (!nl) break;
      *out = nl;
    }
    size_t size = strlen(dir) + len + 2;
    if (!((*out)[*n] = malloc(size))) break;
    snprintf((*out)[(*n)++], size, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (e) return cli_error("out of memory");
  if (*n) qsort(*out, *n, sizeof **out, by_name); /* no match leaves *out NULL: qsort must not see it */
  return CLI_EXIT_OK;
}

/* Run one scene quietly and print its rows; adds to *failed. */
static int demo_scene(const char *path, int *failed)
{
  cpk_scene *scene = NULL;
  cpk_error err;
  sim_options o;
  int rc = cpk_scene_read_file(path, &scene, &err);
  if (rc) return cli_file_error(path, rc, &err);
  if (!cpk_scene_nchecks(scene)) {
    cpk_scene_free(scene);
    return CLI_EXIT_OK;
  }
  memset(&o, 0, sizeof o);
  o.scene_path = path;
  o.quiet = 1;
  o.implicit = -1;
  cpk_compile_options_default(&o.directions);
  FILE *null = fopen("/dev/null", "w");
  int status = null ? sim_run_scene_to(scene, &o, null) : cli_error("cannot open /dev/null");
  if (null) fclose(null);
  *failed += sim_print_checks(stdout, scene, cpk_scene_name(scene));
  fflush(stdout);
  cpk_scene_free(scene);
  return status;
}

static int run(int argc, char **argv)
{
  static const struct option longopts[] = {{"strict", no_argument, NULL, 's'},
                                           {"match", required_argument, NULL, 'm'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  const char *match = NULL, *dir = CPK_EXAMPLES_DIR;
  int c, strict = 0, failed = 0, status = CLI_EXIT_OK;
  while ((c = cli_getopt(&cli_cmd_demo, argc, argv, ":h", longopts)) != -1) {
    if (c == 'h') return cli_print_usage(&cli_cmd_demo);
    if (c == 's') strict = 1;
    else if (c == 'm') match = optarg;
    else return CLI_EXIT_USAGE;
  }
  if (optind + 1 < argc) return cli_usage_error(&cli_cmd_demo, "unexpected argument '%s'", argv[optind + 1]);
  if (optind < argc) dir = argv[optind];
  char **files = NULL;
  size_t n = 0;
  status = list_scenes(dir, match, &files, &n);
  if (status == CLI_EXIT_OK && n == 0 && match)
    status = cli_error("%s: --match '%s': no *.scene.json file name contains it", dir, match);
  else if (status == CLI_EXIT_OK && n == 0)
    status = cli_error("%s: no *.scene.json files", dir);
  if (status == CLI_EXIT_OK) sim_print_checks_header(stdout);
  for (size_t i = 0; i < n && status == CLI_EXIT_OK; i++) {
    int st = demo_scene(files[i], &failed);
    if (st != CLI_EXIT_OK && st != CLI_EXIT_CHECKS) status = st;
  }
  for (size_t i = 0; i < n; i++) free(files[i]);
  free(files);
  if (status == CLI_EXIT_OK) printf("%d check%s failed\n", failed, failed == 1 ? "" : "s");
  return status == CLI_EXIT_OK && strict && failed ? CLI_EXIT_CHECKS : status;
}
