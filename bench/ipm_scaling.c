/* ipm_scaling.c: benchmark of the ipm solver's iterations and time against size on sparse contact problems, with lemke and the Newton solvers alongside. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <cpkit/cpkit.h>
#include "families.h"
#include "isolate.h"
#include "mcp_problems.h"

/*
 * The scenes: a wall of nx-by-ny unit boxes standing on the ground, each box
 * touching its right and upper neighbours and the bottom row touching the
 * ground, two contact points per interface. Unlike the random body pairs of
 * bench/families.h (whose contact graph is an expander, so any direct
 * factorization fills in almost completely), this graph is planar, as in a
 * real stack or pile, and sparse LU scales. Two forms of one time step:
 * the Delassus LCP W p + q >= 0 (n = contacts) and the affine MCP with free
 * velocities (n = 6 bodies + contacts), both monotone.
 */
#define STEP_H 0.01
#define GROUND SIZE_MAX

typedef struct scene {
  size_t nb, nc;
  double *mass;       /* 6 per body: m, m, m, I1, I2, I3 */
  double *vprev;      /* 6 per body */
  double *fext;       /* 6 per body */
  size_t *ca, *cb;    /* the two bodies of each contact (cb may be GROUND) */
  double *ja, *jb;    /* 6 per contact: Jacobian row blocks on ca and cb */
  double *gap;
} scene;

enum { FAM_GRID_LCP, FAM_GRID_KKT, FAM_CHAIN, FAM_RANDOM_DELASSUS };

typedef struct row {
  size_t n, nnz;
  long iterations, factorizations, symbolic;
  double build_s, time_s, factor_s, residual, peak_mb;
  int status;
} row;

static const char *usage =
    "usage: ipm_scaling [--grid-lcp N,...] [--grid-kkt N,...] [--chain N,...] [--random N,...]\n"
    "                   [--lemke-max N] [--newton-max N] [--time-limit S] [--seed S] [--linsys NAME]\n"
    "  --grid-lcp  contacts of the Delassus LCP of a wall of boxes (default 1000,3000,10000,30000,100000)\n"
    "  --grid-kkt  unknowns of the same scene with free velocities (default 1000,10000,100000)\n"
    "  --chain     unknowns of the contact-chain NCP of bench/mcp_problems.h (default 1001,10003,100002)\n"
    "  --random    contacts of bench/families.h's random Delassus LCP (default 1000,2000,4000)\n"
    "  --lemke-max, --newton-max  largest n given to lemke (default 10000) and bdnewton/fbnewton (default 100002)\n"
    "  --time-limit  per solve, seconds (default 600)\n"
    "  --linsys    linear-solver backend of every solve (default automatic; e.g. umfpack, petsc)\n"
    "Each (instance, solver) runs in its own process, so peak memory is per solve.\n";

/* ---- the wall of boxes ----------------------------------------------------- */

static void scene_free(scene *s)
{
  free(s->mass);
  free(s->vprev);
  free(s->fext);
  free(s->ca);
  free(s->cb);
  free(s->ja);
  free(s->jb);
  free(s->gap);
}

static void cross(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Row of contact c: [n, ra x n] on body a, [-n, -(rb x n)] on body b (normal from b towards a). */
static void add_contact(scene *s, size_t a, size_t b, const double *nrm, const double *ra,
                        const double *rb, double gap)
{
  size_t c = s->nc++;
  double *ja = s->ja + 6 * c, *jb = s->jb + 6 * c;
  s->ca[c] = a;
  s->cb[c] = b;
  s->gap[c] = gap;
  for (int k = 0; k < 3; k++) ja[k] = nrm[k], jb[k] = -nrm[k];
  cross(ra, nrm, ja + 3);
  cross(rb, nrm, jb + 3);
  for (int k = 3; k < 6; k++) jb[k] = -jb[k];
}

/* Two contact points on the interface below (vertical = 1) or to the left of body a. */
static void add_interface(scene *s, gsl_rng *r, size_t a, size_t b, int vertical)
{
  double nrm[3] = {vertical ? 0.0 : 1.0, 0.0, vertical ? 1.0 : 0.0};
  for (int side = -1; side <= 1; side += 2) {
    double y = 0.35 * side, t = gsl_ran_flat(r, -0.4, 0.4);
    double ra[3] = {vertical ? t : -0.5, y, vertical ? -0.5 : t};
    double rb[3] = {vertical ? t : 0.5, y, vertical ? 0.5 : t};
    add_contact(s, a, b, nrm, ra, rb, gsl_ran_flat(r, 0.0, 0.002));
  }
}

static void body_data(scene *s, gsl_rng *r, size_t b)
{
  double m = gsl_ran_flat(r, 1.0, 2.0);
  for (int k = 0; k < 6; k++) {
    s->mass[6 * b + k] = k < 3 ? m : m / 6.0; /* unit cube: I = m (1 + 1) / 12 */
    s->vprev[6 * b + k] = gsl_ran_gaussian(r, 0.05);
    s->fext[6 * b + k] = k == 2 ? -9.81 * m : 0.0;
  }
}

static int scene_build(size_t nx, size_t ny, unsigned long seed, scene *s)
{
  memset(s, 0, sizeof *s);
  size_t nb = nx * ny, cap = 4 * nb + 2 * nx;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  s->mass = malloc(6 * nb * sizeof *s->mass);
  s->vprev = malloc(6 * nb * sizeof *s->vprev);
  s->fext = malloc(6 * nb * sizeof *s->fext);
  s->ca = malloc(cap * sizeof *s->ca);
  s->cb = malloc(cap * sizeof *s->cb);
  s->ja = malloc(6 * cap * sizeof *s->ja);
  s->jb = malloc(6 * cap * sizeof *s->jb);
  s->gap = malloc(cap * sizeof *s->gap);
  if (!r || !s->mass || !s->vprev || !s->fext || !s->ca || !s->cb || !s->ja || !s->jb || !s->gap) {
    gsl_rng_free(r);
    return CPK_ENOMEM;
  }
  gsl_rng_set(r, seed);
  s->nb = nb;
  for (size_t j = 0; j < ny; j++)
    for (size_t i = 0; i < nx; i++) {
      size_t b = j * nx + i;
      body_data(s, r, b);
      add_interface(s, r, b, j == 0 ? GROUND : b - nx, 1);
      if (i > 0) add_interface(s, r, b, b - 1, 0);
    }
  gsl_rng_free(r);
  return CPK_OK;
}

/* Sides of body b in contact c: 0 for ca, 1 for cb. */
static const double *jrow(const scene *s, size_t c, int side) { return (side ? s->jb : s->ja) + 6 * c; }

/* q_c = J_c v* + gap_c / h with v* = v_prev + h M^-1 f_ext. */
static double free_velocity(const scene *s, size_t c)
{
  double q = s->gap[c] / STEP_H;
  size_t bodies[2] = {s->ca[c], s->cb[c]};
  for (int side = 0; side < 2; side++) {
    if (bodies[side] == GROUND) continue;
    size_t b = bodies[side];
    for (int k = 0; k < 6; k++)
      q += jrow(s, c, side)[k] * (s->vprev[6 * b + k] + STEP_H * s->fext[6 * b + k] / s->mass[6 * b + k]);
  }
  return q;
}

/* Contacts of each body (CSR): list[start[b] .. start[b+1]) = 2 c + side. */
static int incidence(const scene *s, size_t **start, size_t **list)
{
  *start = calloc(s->nb + 1, sizeof **start);
  *list = malloc(2 * s->nc * sizeof **list);
  if (!*start || !*list) return CPK_ENOMEM;
  for (size_t c = 0; c < s->nc; c++) {
    (*start)[s->ca[c] + 1]++;
    if (s->cb[c] != GROUND) (*start)[s->cb[c] + 1]++;
  }
  for (size_t b = 0; b < s->nb; b++) (*start)[b + 1] += (*start)[b];
  size_t *fill = malloc(s->nb * sizeof *fill);
  if (!fill) return CPK_ENOMEM;
  memcpy(fill, *start, s->nb * sizeof *fill);
  for (size_t c = 0; c < s->nc; c++) {
    (*list)[fill[s->ca[c]]++] = 2 * c;
    if (s->cb[c] != GROUND) (*list)[fill[s->cb[c]]++] = 2 * c + 1;
  }
  free(fill);
  return CPK_OK;
}

/* W = J M^-1 J^T + eps I, eps = 1e-6 mean diag, one triplet per pair of contacts sharing a body. */
static int delassus_triplets(const scene *s, const size_t *start, const size_t *list,
                             cpk_int *ti, cpk_int *tj, double *tx, size_t *nt)
{
  size_t k = 0;
  for (size_t b = 0; b < s->nb; b++)
    for (size_t u = start[b]; u < start[b + 1]; u++)
      for (size_t v = start[b]; v < start[b + 1]; v++) {
        const double *ju = jrow(s, list[u] / 2, (int)(list[u] % 2));
        const double *jv = jrow(s, list[v] / 2, (int)(list[v] % 2));
        double w = 0.0;
        for (int d = 0; d < 6; d++) w += ju[d] * jv[d] / s->mass[6 * b + d];
        ti[k] = (cpk_int)(list[u] / 2);
        tj[k] = (cpk_int)(list[v] / 2);
        tx[k++] = w;
      }
  double diag = 0.0;
  for (size_t t = 0; t < k; t++)
    if (ti[t] == tj[t]) diag += tx[t];
  for (size_t c = 0; c < s->nc; c++) {
    ti[k] = tj[k] = (cpk_int)c;
    tx[k++] = 1e-6 * diag / (double)s->nc;
  }
  *nt = k;
  return CPK_OK;
}

static int grid_lcp(const scene *s, cpk_problem **out)
{
  size_t *start = NULL, *list = NULL, nt = 0, cap = s->nc;
  int rc = incidence(s, &start, &list);
  for (size_t b = 0; !rc && b < s->nb; b++) cap += (start[b + 1] - start[b]) * (start[b + 1] - start[b]);
  cpk_int *ti = rc ? NULL : malloc(cap * sizeof *ti), *tj = rc ? NULL : malloc(cap * sizeof *tj);
  double *tx = rc ? NULL : malloc(cap * sizeof *tx), *q = malloc(s->nc * sizeof *q);
  cpk_matrix *W = NULL;
  if (!rc && (!ti || !tj || !tx || !q)) rc = CPK_ENOMEM;
  if (!rc) rc = delassus_triplets(s, start, list, ti, tj, tx, &nt);
  if (!rc) rc = cpk_matrix_from_triplets(s->nc, s->nc, nt, ti, tj, tx, &W);
  for (size_t c = 0; !rc && c < s->nc; c++) q[c] = free_velocity(s, c);
  if (!rc) rc = cpk_problem_alloc_lcp(W, q, out);
  cpk_matrix_free(W);
  free(start), free(list), free(ti), free(tj), free(tx), free(q);
  return rc;
}

/* KKT entries: Mass, -J^T (velocity rows), J (contact rows), eps I; returns the count. */
static size_t kkt_triplets(const scene *s, double eps, cpk_int *ti, cpk_int *tj, double *tx)
{
  size_t k = 0, nv = 6 * s->nb;
  for (size_t d = 0; d < nv; d++) ti[k] = tj[k] = (cpk_int)d, tx[k++] = s->mass[d];
  for (size_t c = 0; c < s->nc; c++) {
    size_t bodies[2] = {s->ca[c], s->cb[c]};
    for (int side = 0; side < 2; side++) {
      if (bodies[side] == GROUND) continue;
      for (int d = 0; d < 6; d++) {
        cpk_int col = (cpk_int)(6 * bodies[side] + (size_t)d), rw = (cpk_int)(nv + c);
        double v = jrow(s, c, side)[d];
        ti[k] = col, tj[k] = rw, tx[k++] = -v;
        ti[k] = rw, tj[k] = col, tx[k++] = v;
      }
    }
    ti[k] = tj[k] = (cpk_int)(nv + c), tx[k++] = eps;
  }
  return k;
}

static int grid_kkt(const scene *s, cpk_problem **out)
{
  size_t nv = 6 * s->nb, n = nv + s->nc, cap = nv + 25 * s->nc;
  cpk_int *ti = malloc(cap * sizeof *ti), *tj = malloc(cap * sizeof *tj);
  double *tx = malloc(cap * sizeof *tx), *q = malloc(n * sizeof *q), *lo = malloc(n * sizeof *lo);
  double *up = malloc(n * sizeof *up);
  cpk_matrix *K = NULL;
  int rc = (!ti || !tj || !tx || !q || !lo || !up) ? CPK_ENOMEM : CPK_OK;
  if (!rc) {
    double mean_inv = 0.0; /* eps as in the LCP: 1e-6 of a typical diagonal of J M^-1 J^T */
    for (size_t d = 0; d < nv; d++) mean_inv += 1.0 / s->mass[d];
    size_t nt = kkt_triplets(s, 1e-6 * 2.0 * mean_inv / (double)nv, ti, tj, tx);
    rc = cpk_matrix_from_triplets(n, n, nt, ti, tj, tx, &K);
  }
  for (size_t i = 0; !rc && i < n; i++) {
    q[i] = i < nv ? -s->mass[i] * s->vprev[i] - STEP_H * s->fext[i] : s->gap[i - nv] / STEP_H;
    lo[i] = i < nv ? -INFINITY : 0.0;
    up[i] = INFINITY;
  }
  if (!rc) rc = cpk_problem_alloc_affine_mcp(K, q, lo, up, out);
  cpk_matrix_free(K);
  free(ti), free(tj), free(tx), free(q), free(lo), free(up);
  return rc;
}

/* ---- instances ------------------------------------------------------------- */

/* A wall close to square with about n unknowns (4 contacts per box; 10 unknowns per box in KKT form). */
static int make_grid(int family, size_t n, unsigned long seed, cpk_problem **p)
{
  double boxes = (double)n / (family == FAM_GRID_LCP ? 4.0 : 10.0);
  size_t ny = (size_t)fmax(1.0, floor(sqrt(boxes))), nx = (size_t)fmax(1.0, ceil(boxes / (double)ny));
  scene s;
  int rc = scene_build(nx, ny, seed, &s);
  if (!rc) rc = family == FAM_GRID_LCP ? grid_lcp(&s, p) : grid_kkt(&s, p);
  scene_free(&s);
  return rc;
}

static int make_problem(int family, size_t n, unsigned long seed, cpk_mcp_data **data,
                        cpk_problem **p, double **z0)
{
  *z0 = NULL;
  if (family == FAM_RANDOM_DELASSUS) return cpk_family_delassus(n, n / 2 + 1, seed, p);
  if (family != FAM_CHAIN) return make_grid(family, n, seed, p);
  int rc = cpk_mcp_contact_chain(n / 7 > 0 ? n / 7 : 1, seed, data, p);
  if (!rc && !(*z0 = malloc((*p)->n * sizeof **z0))) rc = CPK_ENOMEM;
  if (!rc) cpk_mcp_contact_chain_start(*data, *z0);
  return rc;
}

static double stat(const cpk_result *r, const char *name)
{
  double v = 0.0;
  cpk_result_get_stat(r, name, &v);
  return v;
}

typedef struct job_args {
  int family;
  size_t n;
  const char *solver;
  double limit;
  unsigned long seed;
  const char *linsys; /* NULL: automatic */
} job_args;

/* Runs in a child process (bench/isolate.c): build, solve, measure. */
static void solve_job(const void *vargs, void *vrow)
{
  const job_args *args = vargs;
  row *out = vrow;
  *out = (row){args->n, 0, 0, 0, 0, 0, 0, 0, INFINITY, 0, -1};
  cpk_mcp_data *data = NULL;
  cpk_problem *p = NULL;
  cpk_result *r = NULL;
  double *z0 = NULL, t0 = cpk_wtime();
  cpk_settings s;
  cpk_settings_default(&s);
  s.time_limit = args->limit;
  s.linsys = args->linsys ? cpk_linsys_find(args->linsys) : NULL;
  if (strcmp(args->solver, "lemke") == 0) s.max_iter = 1L << 26;
  if (!make_problem(args->family, args->n, args->seed, &data, &p, &z0) && !cpk_result_alloc(p->n, &r)) {
    out->build_s = cpk_wtime() - t0;
    out->n = p->n;
    out->nnz = p->kind == CPK_KIND_NONLINEAR_MCP ? (size_t)p->jac_pattern->p[p->n] : cpk_matrix_nnz(p->M);
    s.z0 = strcmp(args->solver, "ipm") == 0 ? NULL : z0; /* ipm starts cold: see doc/solvers.md */
    if (!cpk_solve(p, args->solver, &s, r, NULL)) {
      out->iterations = r->iterations;
      out->factorizations = (long)stat(r, "factorizations");
      out->symbolic = (long)stat(r, "symbolic_analyses");
      out->factor_s = stat(r, "factor_time_s");
      out->time_s = r->time_s;
      out->residual = r->residual;
      out->status = (int)r->status;
    }
  }
}

/* ---- reporting -------------------------------------------------------------- */

typedef struct options {
  size_t lemke_max, newton_max;
  double time_limit;
  unsigned long seed;
  const char *linsys;
} options;

static void print_row(const char *solver, const row *r)
{
  printf("%-9s %8zu %9zu %6ld %5ld %4ld %9.3f %9.3f %8.3f %8.1f %-14s %8.1e\n", solver, r->n, r->nnz,
         r->iterations, r->factorizations, r->symbolic, r->time_s, r->factor_s, r->build_s,
         r->peak_mb, cpk_status_name((cpk_status)r->status), r->residual);
  fflush(stdout);
}

static int solver_takes(const char *solver, int family, size_t n, const options *o)
{
  if (strcmp(solver, "lemke") == 0) return family != FAM_CHAIN && n <= o->lemke_max;
  if (strcmp(solver, "ipm") == 0) return 1;
  return cpk_solver_find(solver) != NULL && n <= o->newton_max;
}

/* One solver over the size list; prints the ipm iteration spread at the end. */
static void run_solver(const char *solver, int family, const char *list, const options *o)
{
  long itmin = -1, itmax = -1;
  size_t nmin = 0, nmax = 0;
  char *copy = strdup(list), *save = NULL;
  for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
    row r;
    size_t n = strtoul(tok, NULL, 10);
    if (n == 0 || !solver_takes(solver, family, n, o)) continue;
    job_args args = {family, n, solver, o->time_limit, o->seed, o->linsys};
    if (cpk_bench_isolated(solve_job, &args, &r, sizeof r, &r.peak_mb)) {
      printf("%-9s %8zu  failed to run (out of memory?)\n", solver, n);
      continue;
    }
    print_row(solver, &r);
    if (r.status != CPK_STATUS_SOLVED) continue;
    if (itmin < 0 || r.iterations < itmin) itmin = r.iterations;
    if (r.iterations > itmax) itmax = r.iterations;
    if (nmin == 0 || r.n < nmin) nmin = r.n;
    if (r.n > nmax) nmax = r.n;
  }
  if (strcmp(solver, "ipm") == 0 && nmin > 0)
    printf("ipm: %ld to %ld iterations while n grows %.0f-fold (%zu to %zu)\n", itmin, itmax,
           (double)nmax / (double)nmin, nmin, nmax);
  free(copy);
}

static void run_family(const char *title, int family, const char *list, const options *o)
{
  static const char *const solvers[] = {"ipm", "lemke", "bdnewton", "fbnewton"};
  printf("\n%s\n%-9s %8s %9s %6s %5s %4s %9s %9s %8s %8s %-14s %8s\n", title, "solver", "n", "nnz",
         "iter", "fact", "sym", "time_s", "factor_s", "build_s", "peak_MB", "status", "residual");
  for (size_t v = 0; v < sizeof solvers / sizeof solvers[0]; v++) run_solver(solvers[v], family, list, o);
}

int main(int argc, char **argv)
{
  const char *grid_lcp_sizes = "1000,3000,10000,30000,100000", *grid_kkt_sizes = "1000,10000,100000";
  const char *chain = "1001,10003,100002", *random = "1000,2000,4000";
  options o = {10000, 100002, 600.0, 1, NULL};
  for (int a = 1; a < argc; a++) {
    const char **list = strcmp(argv[a], "--grid-lcp") == 0   ? &grid_lcp_sizes
                        : strcmp(argv[a], "--grid-kkt") == 0 ? &grid_kkt_sizes
                        : strcmp(argv[a], "--chain") == 0    ? &chain
                        : strcmp(argv[a], "--random") == 0   ? &random
                                                             : NULL;
    if (list && a + 1 < argc) *list = argv[++a];
    else if (strcmp(argv[a], "--lemke-max") == 0 && a + 1 < argc) o.lemke_max = strtoul(argv[++a], NULL, 10);
    else if (strcmp(argv[a], "--newton-max") == 0 && a + 1 < argc) o.newton_max = strtoul(argv[++a], NULL, 10);
    else if (strcmp(argv[a], "--time-limit") == 0 && a + 1 < argc) o.time_limit = strtod(argv[++a], NULL);
    else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) o.seed = strtoul(argv[++a], NULL, 10);
    else if (strcmp(argv[a], "--linsys") == 0 && a + 1 < argc && cpk_linsys_find(argv[a + 1])) o.linsys = argv[++a];
    else {
      fputs(usage, strcmp(argv[a], "--help") == 0 ? stdout : stderr);
      return strcmp(argv[a], "--help") == 0 ? 0 : 2;
    }
  }
  if (cpk_mpi_rank() != 0 && !freopen("/dev/null", "w", stdout)) return 1; /* rank 0 reports */
  printf("ipm_scaling: cpkit %s, seed %lu, time limit %.0f s per solve\n", cpk_version(), o.seed, o.time_limit);
  printf("columns: fact = factorizations, sym = symbolic analyses, factor_s = time in factorizations,\n"
         "build_s = time to generate the instance (not in time_s), peak_MB = max RSS of the process\n");
  if (*grid_lcp_sizes)
    run_family("wall of boxes, Delassus LCP (n = contacts), UMFPACK", FAM_GRID_LCP, grid_lcp_sizes, &o);
  if (*grid_kkt_sizes)
    run_family("wall of boxes, affine MCP with free velocities (n = 6 boxes + contacts)", FAM_GRID_KKT,
               grid_kkt_sizes, &o);
  if (*chain)
    run_family("contact-chain NCP (quadratic cone, not monotone): ipm's potential reduction; Newton hot-started",
               FAM_CHAIN, chain, &o);
  if (*random)
    run_family("bench/families.h random Delassus LCP (random body pairs: LU fill grows fast)",
               FAM_RANDOM_DELASSUS, random, &o);
  return 0;
}
