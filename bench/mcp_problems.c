/* mcp_problems.c: small nonlinear MCP test problems (MCPLIB and others) and the contact NCPs of seed 004 eq. (9), with exact Jacobians. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <cpkit/util.h>
#include "families.h"
#include "mcp_problems.h"

#define PI 3.14159265358979323846

/* ---- Kojima-Shindo and Josephy (MCPLIB kojshin, josephy) ------------------------- */

/* The eight starting points of MCPLIB's kojshin and josephy, one per row. */
static const double ks_starts[8 * 4] = {0, 0, 0, 0, 1, 1, 1, 1, 100, 100, 100, 100, 1, 0, 1, 0,
                                        1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1.25, 0, 0, 0.5};
/* sqrt(6)/2 */
#define SQRT6_2 1.2247448713915890491
static const double kojshin_solutions[2 * 4] = {1, 0, 3, 0, SQRT6_2, 0, 0, 0.5};
static const double josephy_solutions[1 * 4] = {SQRT6_2, 0, 0, 0.5};

static int kojshin_f(const double *x, double *f, void *params)
{
  (void)params;
  double a = x[0] * x[0], b = x[1] * x[1];
  f[0] = 3 * a + 2 * x[0] * x[1] + 2 * b + x[2] + 3 * x[3] - 6;
  f[1] = 2 * a + x[0] + b + 10 * x[2] + 2 * x[3] - 2;
  f[2] = 3 * a + x[0] * x[1] + 2 * b + 2 * x[2] + 9 * x[3] - 9;
  f[3] = a + 3 * b + 2 * x[2] + 3 * x[3] - 3;
  return 0;
}

static void kojshin_j(const double *x, double *J)
{
  const double r[16] = {6 * x[0] + 2 * x[1], 2 * x[0] + 4 * x[1], 1, 3,
                        4 * x[0] + 1,        2 * x[1],            10, 2,
                        6 * x[0] + x[1],     x[0] + 4 * x[1],     2, 9,
                        2 * x[0],            6 * x[1],            2, 3};
  memcpy(J, r, sizeof r);
}

static int josephy_f(const double *x, double *f, void *params)
{
  (void)params;
  double a = x[0] * x[0], b = x[1] * x[1];
  f[0] = 3 * a + 2 * x[0] * x[1] + 2 * b + x[2] + 3 * x[3] - 6;
  f[1] = 2 * a + b + x[0] + 3 * x[2] + 2 * x[3] - 2;
  f[2] = 3 * a + x[0] * x[1] + 2 * b + 2 * x[2] + 3 * x[3] - 1;
  f[3] = a + 3 * b + 2 * x[2] + 3 * x[3] - 3;
  return 0;
}

static void josephy_j(const double *x, double *J)
{
  const double r[16] = {6 * x[0] + 2 * x[1], 2 * x[0] + 4 * x[1], 1, 3,
                        4 * x[0] + 1,        2 * x[1],            3, 2,
                        6 * x[0] + x[1],     x[0] + 4 * x[1],     2, 3,
                        2 * x[0],            6 * x[1],            2, 3};
  memcpy(J, r, sizeof r);
}

/* ---- Mathiesen's Walrasian equilibrium ---------------------------------------------- */

/*
 * One activity with technology column (1, -1, -1), Cobb-Douglas demand with
 * budget shares (0.9, 0.1, 0) of the income I = p'b, endowment b = (0, 5, 3)
 * (Mathiesen 1987; data as in the GAMS EMP library's mopec_mathiesen, which
 * reports y* = 3, p* = (6, 1, 5)). Unknowns (y, p1, p2, p3):
 *   F_y  = -p1 + p2 + p3               (zero profit)
 *   F_pi = b_i + a_i y - s_i I / p_i   (supply minus demand)
 */
static const double mathiesen_start[4] = {1, 1, 1, 1};
static const double mathiesen_solutions[4] = {3, 6, 1, 5};

static int mathiesen_f(const double *x, double *f, void *params)
{
  (void)params;
  if (!(x[1] > 0.0) || !(x[2] > 0.0)) return -1; /* demand is undefined at a zero price */
  double income = 5 * x[2] + 3 * x[3];
  f[0] = -x[1] + x[2] + x[3];
  f[1] = x[0] - 0.9 * income / x[1];
  f[2] = 5 - x[0] - 0.1 * income / x[2];
  f[3] = 3 - x[0];
  return 0;
}

static void mathiesen_j(const double *x, double *J)
{
  double income = 5 * x[2] + 3 * x[3], p1 = x[1], p2 = x[2];
  const double r[16] = {0,  -1, 1, 1,
                        1,  0.9 * income / (p1 * p1), -4.5 / p1, -2.7 / p1,
                        -1, 0, -0.5 / p2 + 0.1 * income / (p2 * p2), -0.3 / p2,
                        -1, 0, 0, 0};
  memcpy(J, r, sizeof r);
}

static const double mathinum_start[3] = {1, 1, 1};
static const double mathinum_solutions[3] = {3, 6, 5};

/* (y, p1, p3) with p2 = 1 fixed (numeraire) and the p2 market dropped (Walras' law). */
static int mathinum_f(const double *x, double *f, void *params)
{
  (void)params;
  if (!(x[1] > 0.0)) return -1;
  double income = 5 + 3 * x[2];
  f[0] = -x[1] + 1 + x[2];
  f[1] = x[0] - 0.9 * income / x[1];
  f[2] = 3 - x[0];
  return 0;
}

static void mathinum_j(const double *x, double *J)
{
  double income = 5 + 3 * x[2], p1 = x[1];
  const double r[9] = {0, -1, 1, 1, 0.9 * income / (p1 * p1), -2.7 / p1, -1, 0, 0};
  memcpy(J, r, sizeof r);
}

/* ---- Nash-Cournot oligopolies ---------------------------------------------------- */

/*
 * Firm i's first-order condition: marginal cost minus marginal revenue,
 *   F_i = c_i + mc_i(q_i) - p(Q) - q_i p'(Q),  p(Q) = (5000 / Q)^(1/gamma),
 * with mc_i(q) = (L_i q)^(1/beta_i) (MCPLIB nash) or (q / K_i)^(1/beta_i)
 * (Murphy, Sherali and Soyster), i.e. mc_i(q) = (s_i q)^(1/beta_i).
 */
typedef struct oligopoly {
  size_t n;
  double gamma;
  const double *c, *s, *beta;
} oligopoly;

static const double nash_c[10] = {5, 3, 8, 5, 1, 3, 7, 4, 6, 3};
static const double nash_s[10] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
static const double nash_beta[10] = {1.2, 1, .9, .6, 1.5, 1, .7, 1.1, .95, .75};
static const oligopoly nash_data = {10, 1.2, nash_c, nash_s, nash_beta};
static const double nash_starts[2 * 10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                           10, 10, 10, 10, 10, 10, 10, 10, 10, 10};

static const double mss_c[5] = {10, 8, 6, 4, 2};
static const double mss_s[5] = {0.2, 0.2, 0.2, 0.2, 0.2}; /* 1 / K_i, K_i = 5 */
static const double mss_beta[5] = {1.2, 1.1, 1.0, 0.9, 0.8};
static const oligopoly mss_data = {5, 1.1, mss_c, mss_s, mss_beta};
static const double mss_starts[2 * 5] = {10, 10, 10, 10, 10, 1, 1, 1, 1, 1};

static int oligopoly_f(const oligopoly *o, const double *q, double *f)
{
  double Q = 0.0;
  for (size_t i = 0; i < o->n; i++) {
    if (!(q[i] >= 0.0)) return -1; /* a fractional power of a negative output */
    Q += q[i];
  }
  if (!(Q > 0.0)) return -1;
  double p = pow(5000.0 / Q, 1.0 / o->gamma), dp = -p / (o->gamma * Q);
  for (size_t i = 0; i < o->n; i++)
    f[i] = o->c[i] + pow(o->s[i] * q[i], 1.0 / o->beta[i]) - p - q[i] * dp;
  return 0;
}

/* dF_i/dq_j = delta_ij (mc_i' - p') - p' - q_i p'', p' = -p/(gamma Q), p'' = (1 + 1/gamma) p / (gamma Q^2). */
static void oligopoly_j(const oligopoly *o, const double *q, double *J)
{
  size_t n = o->n;
  double Q = 0.0;
  for (size_t i = 0; i < n; i++) Q += q[i];
  double g = o->gamma, p = pow(5000.0 / Q, 1.0 / g), dp = -p / (g * Q);
  double ddp = (1.0 + 1.0 / g) * p / (g * Q * Q);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double v = -dp - q[i] * ddp;
      if (i == j) {
        double e = 1.0 / o->beta[i];
        v += e * o->s[i] * pow(o->s[i] * q[i], e - 1.0) - dp;
      }
      J[i * n + j] = v;
    }
}

static int nash_f(const double *x, double *f, void *params)
{
  (void)params;
  return oligopoly_f(&nash_data, x, f);
}
static void nash_j(const double *x, double *J) { oligopoly_j(&nash_data, x, J); }
static int cournot5_f(const double *x, double *f, void *params)
{
  (void)params;
  return oligopoly_f(&mss_data, x, f);
}
static void cournot5_j(const double *x, double *J) { oligopoly_j(&mss_data, x, J); }

/* ---- Billups' one-dimensional trap ------------------------------------------------- */

static const double billups_starts[2] = {0, 3};
static const double billups_solutions[1] = {2.00498756211208902702}; /* 1 + sqrt(1.01) */

static int billups_f(const double *x, double *f, void *params)
{
  (void)params;
  f[0] = (x[0] - 1) * (x[0] - 1) - 1.01;
  return 0;
}
static void billups_j(const double *x, double *J) { J[0] = 2 * (x[0] - 1); }

/* ---- A box-constrained, strongly monotone obstacle problem (ours) --------------------- */

#define OBS_N 16
static const double obstacle_lower[OBS_N] = {-.5, -.5, -.5, -.5, -.5, -.5, -.5, -.5,
                                             -.5, -.5, -.5, -.5, -.5, -.5, -.5, -.5};
static const double obstacle_upper[OBS_N] = {.6, .6, .6, .6, .6, .6, .6, .6,
                                             .6, .6, .6, .6, .6, .6, .6, .6};
static const double obstacle_start[OBS_N] = {0};

/* F_i = (N+1)^2 (2u_i - u_{i-1} - u_{i+1}) + u_i^3 - 50 sin(2 pi x_i), x_i = i/(N+1), u_0 = u_{N+1} = 0. */
static int obstacle_f(const double *u, double *f, void *params)
{
  (void)params;
  double k = (OBS_N + 1.0) * (OBS_N + 1.0);
  for (size_t i = 0; i < OBS_N; i++) {
    double left = i > 0 ? u[i - 1] : 0.0, right = i + 1 < OBS_N ? u[i + 1] : 0.0;
    double x = (double)(i + 1) / (OBS_N + 1.0);
    f[i] = k * (2 * u[i] - left - right) + u[i] * u[i] * u[i] - 50.0 * sin(2 * PI * x);
  }
  return 0;
}

static void obstacle_j(const double *u, double *J)
{
  double k = (OBS_N + 1.0) * (OBS_N + 1.0);
  memset(J, 0, OBS_N * OBS_N * sizeof *J);
  for (size_t i = 0; i < OBS_N; i++) {
    J[i * OBS_N + i] = 2 * k + 3 * u[i] * u[i];
    if (i > 0) J[i * OBS_N + i - 1] = -k;
    if (i + 1 < OBS_N) J[i * OBS_N + i + 1] = -k;
  }
}

/* ---- the table ------------------------------------------------------------------- */

static const cpk_mcp_info table[] = {
    {"kojshin", "M. Kojima and S. Shindo, J. Oper. Res. Soc. Japan 29 (1986) 352-374; MCPLIB kojshin",
     "two solutions: (1, 0, 3, 0) and the degenerate (sqrt(6)/2, 0, 0, 1/2) (x3 = F3 = 0); "
     "not monotone: F'(0) restricted to {1, 2} is [0 0; 1 0]",
     4, CPK_MCP_NOT_MONOTONE, NULL, NULL, 8, ks_starts, 2, kojshin_solutions, 1e-15, kojshin_f,
     kojshin_j},
    {"josephy", "N. H. Josephy, MRC Tech. Rep. 1965 (1979), example after Kojima; MCPLIB josephy",
     "unique nondegenerate solution (sqrt(6)/2, 0, 0, 1/2); not monotone: F'(0) restricted to "
     "{1, 2} is [0 0; 1 0]",
     4, CPK_MCP_NOT_MONOTONE, NULL, NULL, 8, ks_starts, 1, josephy_solutions, 1e-15, josephy_f,
     josephy_j},
    {"mathiesen", "L. Mathiesen, Math. Programming 37 (1987) 1-18; data of GAMS EMP mopec_mathiesen",
     "solutions (3, 6t, t, 5t), t > 0 (homogeneous prices: F' is singular there); F undefined "
     "at p1 = 0 or p2 = 0; start (1, 1, 1, 1) is ours; not monotone (see mcp_problems.h)",
     4, CPK_MCP_NOT_MONOTONE, NULL, NULL, 1, mathiesen_start, 1, mathiesen_solutions, 1e-15,
     mathiesen_f, mathiesen_j},
    {"mathinum", "Mathiesen's model above with good 2 as numeraire (p2 = 1)",
     "unique solution (3, 6, 5); F undefined at p1 = 0; start (1, 1, 1) is ours; not monotone",
     3, CPK_MCP_NOT_MONOTONE, NULL, NULL, 1, mathinum_start, 1, mathinum_solutions, 1e-15,
     mathinum_f, mathinum_j},
    {"nash", "F. H. Murphy, H. D. Sherali, A. L. Soyster, Math. Programming 24 (1982) 92-106; "
     "P. T. Harker, Math. Programming 41 (1988) 29-59; MCPLIB nash (10 firms, gamma = 1.2)",
     "F undefined for q_i < 0 or Q = 0, F' infinite at q_i = 0 when beta_i > 1; starts all "
     "ones (GAMS model library) and all tens (ours); monotonicity not established here",
     10, CPK_MCP_MONOTONE_UNKNOWN, NULL, NULL, 2, nash_starts, 0, NULL, 0.0, nash_f, nash_j},
    {"cournot5", "F. H. Murphy, H. D. Sherali, A. L. Soyster, Math. Programming 24 (1982) 92-106 "
     "(5 firms, gamma = 1.1, K = 5)",
     "F undefined for q_i < 0 or Q = 0; starts all tens (Harker) and all ones; monotonicity "
     "not established here",
     5, CPK_MCP_MONOTONE_UNKNOWN, NULL, NULL, 2, mss_starts, 0, NULL, 0.0, cournot5_f, cournot5_j},
    {"billups", "S. C. Billups, PhD thesis, U. Wisconsin (1995); MCPLIB billups",
     "unique solution 1 + sqrt(1.01); from x = 0 every merit method is drawn to the local "
     "minimiser near 0 of its merit function, which is not a solution; not monotone",
     1, CPK_MCP_NOT_MONOTONE, NULL, NULL, 2, billups_starts, 1, billups_solutions, 1e-15,
     billups_f, billups_j},
    {"obstacle", "ours: 1-D obstacle problem, second differences plus u^3, obstacles -0.5, 0.6",
     "unique solution (strongly monotone: A SPD plus a nondecreasing diagonal term); both "
     "bounds active somewhere",
     OBS_N, CPK_MCP_STRONGLY_MONOTONE, obstacle_lower, obstacle_upper, 1, obstacle_start, 0, NULL,
     0.0, obstacle_f, obstacle_j},
};

size_t cpk_mcp_count(void) { return sizeof table / sizeof table[0]; }

const cpk_mcp_info *cpk_mcp_at(size_t i) { return i < cpk_mcp_count() ? &table[i] : NULL; }

const cpk_mcp_info *cpk_mcp_find(const char *name)
{
  for (size_t i = 0; name && i < cpk_mcp_count(); i++)
    if (strcmp(table[i].name, name) == 0) return &table[i];
  return NULL;
}

static int table_f(const double *z, double *f, void *params)
{
  const cpk_mcp_info *info = params;
  return info->F(z, f, NULL);
}

/* Dense pattern, column-major: entry (i, j) is x[j n + i]. */
static int table_jacobian(const double *z, cpk_csc *J, void *params)
{
  const cpk_mcp_info *info = params;
  double buf[CPK_MCP_MAX_N * CPK_MCP_MAX_N];
  size_t n = info->n;
  info->jacobian_dense(z, buf);
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < n; i++) J->x[j * n + i] = buf[i * n + j];
  return 0;
}

int cpk_mcp_problem(const cpk_mcp_info *info, cpk_problem **out)
{
  size_t n = info->n, nn = n * n;
  *out = NULL;
  if (n == 0 || n > CPK_MCP_MAX_N) return CPK_EINVAL;
  cpk_csc *pat = NULL;
  int rc = cpk_csc_alloc((cpk_int)n, (cpk_int)n, (cpk_int)nn, &pat);
  if (rc) return rc;
  for (size_t j = 0; j <= n; j++) pat->p[j] = (cpk_int)(j * n);
  for (size_t k = 0; k < nn; k++) pat->i[k] = (cpk_int)(k % n), pat->x[k] = 0.0;
  rc = cpk_problem_alloc_nonlinear_mcp(n, table_f, table_jacobian, pat, (void *)(uintptr_t)info,
                                       info->lower, info->upper, out);
  cpk_csc_free(pat);
  if (!rc) rc = cpk_problem_set_name(*out, info->name);
  if (rc) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  return rc;
}

/* ---- particles on a plane with the quadratic friction cone (seed 004 eq. (9)) ---------- */

/*
 * Unknowns per particle, at 7i + k: k = 0, 1, 2 velocity (x, y, z), 3 p_n,
 * 4 p_t (along x), 5 p_o (along y), 6 sigma. Neighbours i, i+1 are joined by
 * springs of stiffness k (implicit, so the velocity rows carry h^2 k couplings).
 */
struct cpk_mcp_data {
  size_t np;
  double k, h, g;
  double *m, *mu, *v0, *push, *gap; /* np, np, 3 np, 2 np, np */
};

enum { VX, VY, VZ, PN, PT, PO, SG, NVAR };

void cpk_mcp_data_free(cpk_mcp_data *d)
{
  if (!d) return;
  free(d->m), free(d->mu), free(d->v0), free(d->push), free(d->gap);
  free(d);
}

static int data_alloc(size_t np, cpk_mcp_data **out)
{
  cpk_mcp_data *d = calloc(1, sizeof *d);
  size_t n3, n2;
  *out = NULL;
  if (!d) return CPK_ENOMEM;
  if (cpk_size_mul(np, 3, &n3) || cpk_size_mul(np, 2, &n2)) {
    free(d);
    return CPK_EOVERFLOW;
  }
  d->np = np;
  d->m = cpk_calloc_array(np, sizeof *d->m);
  d->mu = cpk_calloc_array(np, sizeof *d->mu);
  d->v0 = cpk_calloc_array(n3, sizeof *d->v0);
  d->push = cpk_calloc_array(n2, sizeof *d->push);
  d->gap = cpk_calloc_array(np, sizeof *d->gap);
  if (!d->m || !d->mu || !d->v0 || !d->push || !d->gap) {
    cpk_mcp_data_free(d);
    return CPK_ENOMEM;
  }
  *out = d;
  return CPK_OK;
}

/* Impulse component acting on velocity component c: x <- p_t, y <- p_o, z <- p_n. */
static int impulse_of(int c) { return c == VX ? PT : (c == VY ? PO : PN); }

static size_t degree(const cpk_mcp_data *d, size_t i) { return (i > 0) + (i + 1 < d->np); }

static int particles_f(const double *z, double *f, void *params)
{
  const cpk_mcp_data *d = params;
  double hk = d->h * d->h * d->k;
  for (size_t i = 0; i < d->np; i++) {
    const double *x = z + NVAR * i;
    double *fi = f + NVAR * i, mu = d->mu[i], m = d->m[i];
    for (int c = VX; c <= VZ; c++) {
      double ext = c == VZ ? -m * d->g : d->push[2 * i + c];
      double spring = (double)degree(d, i) * x[c];
      if (i > 0) spring -= z[NVAR * (i - 1) + c];
      if (i + 1 < d->np) spring -= z[NVAR * (i + 1) + c];
      fi[c] = m * (x[c] - d->v0[3 * i + c]) - d->h * ext - x[impulse_of(c)] + hk * spring;
    }
    fi[PN] = x[VZ] + d->gap[i] / d->h;
    fi[PT] = mu * x[PN] * x[VX] + x[PT] * x[SG];
    fi[PO] = mu * x[PN] * x[VY] + x[PO] * x[SG];
    fi[SG] = mu * mu * x[PN] * x[PN] - x[PT] * x[PT] - x[PO] * x[PO];
  }
  return 0;
}

/* dF_r/dz_c for rows and columns of the same particle i (z = its unknowns). */
static double local_entry(const cpk_mcp_data *d, size_t i, const double *x, int r, int c)
{
  double mu = d->mu[i];
  switch (r) {
  case VX: case VY: case VZ:
    if (c == r) return d->m[i] + d->h * d->h * d->k * (double)degree(d, i);
    return c == impulse_of(r) ? -1.0 : 0.0;
  case PN: return c == VZ ? 1.0 : 0.0;
  case PT: case PO: {
    int v = r == PT ? VX : VY;
    if (c == v) return mu * x[PN];
    if (c == PN) return mu * x[v];
    if (c == r) return x[SG];
    return c == SG ? x[r] : 0.0;
  }
  default:
    if (c == PN) return 2 * mu * mu * x[PN];
    return (c == PT || c == PO) ? -2 * x[c] : 0.0;
  }
}

static int particles_j(const double *z, cpk_csc *J, void *params)
{
  const cpk_mcp_data *d = params;
  double hk = d->h * d->h * d->k;
  for (cpk_int col = 0; col < J->n; col++) {
    size_t ic = (size_t)col / NVAR;
    for (cpk_int k = J->p[col]; k < J->p[col + 1]; k++) {
      size_t ir = (size_t)J->i[k] / NVAR;
      int r = (int)(J->i[k] % NVAR), c = (int)(col % NVAR);
      J->x[k] = ir == ic ? local_entry(d, ir, z + NVAR * ir, r, c) : -hk; /* off-particle: springs */
    }
  }
  return 0;
}

/* Local pattern of one particle: (row, column) pairs. */
static const unsigned char local_pattern[][2] = {
    {VX, VX}, {VX, PT}, {VY, VY}, {VY, PO}, {VZ, VZ}, {VZ, PN}, {PN, VZ}, {PT, VX}, {PT, PN},
    {PT, PT}, {PT, SG}, {PO, VY}, {PO, PN}, {PO, PO}, {PO, SG}, {SG, PN}, {SG, PT}, {SG, PO}};
#define LOCAL_NNZ (sizeof local_pattern / sizeof local_pattern[0])

static int particles_pattern(size_t np, cpk_csc **out)
{
  size_t per = LOCAL_NNZ + 6, cap, n;
  if (cpk_size_mul(np, per, &cap) || cpk_size_mul(np, NVAR, &n) || cap > (size_t)INT64_MAX)
    return CPK_EOVERFLOW;
  cpk_int *ti = cpk_alloc_array(cap, sizeof *ti), *tj = cpk_alloc_array(cap, sizeof *tj);
  double *tx = cpk_calloc_array(cap, sizeof *tx);
  int rc = ti && tj && tx ? CPK_OK : CPK_ENOMEM;
  size_t t = 0;
  for (size_t i = 0; !rc && i < np; i++) {
    for (size_t e = 0; e < LOCAL_NNZ; e++, t++) {
      ti[t] = (cpk_int)(NVAR * i + local_pattern[e][0]);
      tj[t] = (cpk_int)(NVAR * i + local_pattern[e][1]);
    }
    for (int c = VX; c <= VZ && i + 1 < np; c++) { /* spring couplings, both directions */
      ti[t] = (cpk_int)(NVAR * i + (size_t)c), tj[t++] = (cpk_int)(NVAR * (i + 1) + (size_t)c);
      ti[t] = (cpk_int)(NVAR * (i + 1) + (size_t)c), tj[t++] = (cpk_int)(NVAR * i + (size_t)c);
    }
  }
  if (!rc) rc = cpk_csc_from_triplets((cpk_int)n, (cpk_int)n, (cpk_int)t, ti, tj, tx, out);
  free(ti), free(tj), free(tx);
  return rc;
}

/* The NCP for the particles in d: v, p_t, p_o free; p_n, sigma >= 0. */
static int particles_problem(cpk_mcp_data *d, const char *name, cpk_problem **out)
{
  size_t n = NVAR * d->np;
  cpk_csc *pat = NULL;
  double *lo = cpk_alloc_array(n, sizeof *lo), *up = cpk_alloc_array(n, sizeof *up);
  int rc = lo && up ? particles_pattern(d->np, &pat) : CPK_ENOMEM;
  for (size_t k = 0; !rc && k < n; k++) {
    int c = (int)(k % NVAR);
    lo[k] = (c == PN || c == SG) ? 0.0 : -INFINITY;
    up[k] = INFINITY;
  }
  if (!rc) rc = cpk_problem_alloc_nonlinear_mcp(n, particles_f, particles_j, pat, d, lo, up, out);
  if (!rc) rc = cpk_problem_set_name(*out, name);
  for (size_t i = 0; !rc && i < d->np; i++) {
    static const char *const fmt[NVAR] = {"v_x[%zu]", "v_y[%zu]", "v_z[%zu]", "p_n[%zu]",
                                          "p_t[%zu]", "p_o[%zu]", "sigma[%zu]"};
    for (int c = 0; !rc && c < NVAR && d->np <= 100; c++) {
      char buf[32];
      snprintf(buf, sizeof buf, fmt[c], i + 1);
      rc = cpk_problem_set_var_name(*out, NVAR * i + (size_t)c, buf);
    }
  }
  if (rc && *out) {
    cpk_problem_free(*out);
    *out = NULL;
  }
  cpk_csc_free(pat);
  free(lo), free(up);
  return rc;
}

void cpk_mcp_block_default(cpk_mcp_block *b, int sliding)
{
  memset(b, 0, sizeof *b);
  b->mass = CPK_BLOCK_MASS;
  b->mu = CPK_BLOCK_MU;
  b->h = CPK_BLOCK_STEP;
  b->gravity = CPK_BLOCK_GRAVITY;
  if (sliding) {
    b->v0[0] = CPK_BLOCK_SPEED;
  } else {
    b->push[0] = 3.0;
    b->push[1] = 1.0;
  }
}

int cpk_mcp_block_on_plane(const cpk_mcp_block *b, cpk_mcp_data **data, cpk_problem **out)
{
  *out = NULL;
  int rc = data_alloc(1, data);
  if (rc) return rc;
  cpk_mcp_data *d = *data;
  d->k = 0.0, d->h = b->h, d->g = b->gravity;
  d->m[0] = b->mass, d->mu[0] = b->mu, d->gap[0] = b->gap;
  memcpy(d->v0, b->v0, sizeof b->v0);
  memcpy(d->push, b->push, sizeof b->push);
  rc = particles_problem(d, "block-on-plane-ncp", out);
  if (rc) {
    cpk_mcp_data_free(d);
    *data = NULL;
  }
  return rc;
}

int cpk_mcp_block_solution(const cpk_mcp_block *b, double *z, int *sliding)
{
  double m = b->mass, h = b->h, vz = -b->gap / h;
  double pn = m * (vz - b->v0[2]) + m * b->gravity * h;
  double a[2] = {m * b->v0[0] + h * b->push[0], m * b->v0[1] + h * b->push[1]};
  double na = hypot(a[0], a[1]), limit = b->mu * pn;
  if (!(pn > 0.0) || fabs(na - limit) <= 1e-12 * fmax(na, limit)) return CPK_EINVAL;
  *sliding = na > limit;
  double speed = *sliding ? (na - limit) / m : 0.0;
  for (int c = 0; c < 2; c++) {
    z[VX + c] = *sliding ? speed * a[c] / na : 0.0;
    z[PT + c] = *sliding ? -limit * a[c] / na : -a[c];
  }
  z[VZ] = vz;
  z[PN] = pn;
  z[SG] = speed;
  return CPK_OK;
}

void cpk_mcp_block_start(const cpk_mcp_block *b, double *z)
{
  memset(z, 0, NVAR * sizeof *z);
  memcpy(z, b->v0, sizeof b->v0);
  z[PN] = b->mass * b->gravity * b->h;
}

int cpk_mcp_contact_chain(size_t nparticles, unsigned long seed, cpk_mcp_data **data,
                          cpk_problem **out)
{
  *out = NULL;
  *data = NULL;
  if (nparticles == 0 || nparticles > SIZE_MAX / NVAR) return CPK_EINVAL;
  int rc = data_alloc(nparticles, data);
  gsl_rng *r = rc ? NULL : gsl_rng_alloc(gsl_rng_mt19937);
  if (!rc && !r) rc = CPK_ENOMEM;
  if (rc) {
    cpk_mcp_data_free(*data);
    *data = NULL;
    return rc;
  }
  gsl_rng_set(r, seed);
  cpk_mcp_data *d = *data;
  d->k = 1000.0, d->h = 0.01, d->g = 9.81;
  for (size_t i = 0; i < nparticles; i++) {
    d->m[i] = 1.0 + gsl_rng_uniform(r);
    d->mu[i] = 0.2 + 0.4 * gsl_rng_uniform(r);
    d->v0[3 * i] = gsl_ran_gaussian(r, 0.05);
    d->v0[3 * i + 1] = gsl_ran_gaussian(r, 0.05);
    d->push[2 * i] = -5.0 + 10.0 * gsl_rng_uniform(r);
    d->push[2 * i + 1] = -5.0 + 10.0 * gsl_rng_uniform(r);
  }
  gsl_rng_free(r);
  rc = particles_problem(d, "contact-chain-ncp", out);
  if (rc) {
    cpk_mcp_data_free(d);
    *data = NULL;
  }
  return rc;
}

void cpk_mcp_contact_chain_start(const cpk_mcp_data *d, double *z)
{
  for (size_t i = 0; i < d->np; i++) {
    double *x = z + NVAR * i;
    memset(x, 0, NVAR * sizeof *x);
    memcpy(x, d->v0 + 3 * i, 3 * sizeof *x);
    x[PN] = d->m[i] * d->g * d->h;
  }
}

void cpk_mcp_contact_chain_normal(const cpk_mcp_data *d, double *pn)
{
  for (size_t i = 0; i < d->np; i++) pn[i] = d->m[i] * d->g * d->h;
}
