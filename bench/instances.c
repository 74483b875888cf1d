/* instances.c: building the problem of a benchmark instance from its recipe (family generators, MCPs with their starting points). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "families.h"
#include "harness.h"
#include "mcp_problems.h"
#include "scenes.h"
#include "traces.h"

static const char *const expect_names[] = {"none", "solution"};

const char *cpk_bench_expect_name(int expect)
{
  return expect == CPK_BENCH_EXPECT_NONE || expect == CPK_BENCH_EXPECT_SOLUTION
             ? expect_names[expect]
             : "unknown";
}

int cpk_bench_expect_from_name(const char *name)
{
  if (strcmp(name, "unknown") == 0) return CPK_BENCH_EXPECT_UNKNOWN;
  if (strcmp(name, "none") == 0) return CPK_BENCH_EXPECT_NONE;
  if (strcmp(name, "solution") == 0) return CPK_BENCH_EXPECT_SOLUTION;
  return -2;
}

int cpk_bench_success(int status, int expect)
{
  if (status == CPK_STATUS_SOLVED) return expect != CPK_BENCH_EXPECT_NONE;
  return status == CPK_STATUS_NO_SOLUTION && expect != CPK_BENCH_EXPECT_SOLUTION;
}

void cpk_bench_built_free(cpk_bench_built *b)
{
  if (!b) return;
  cpk_problem_free(b->problem); /* before ctx: the problem's callbacks read it */
  if (b->ctx_free) b->ctx_free(b->ctx);
  free(b->z0);
  memset(b, 0, sizeof *b);
}

static void free_mcp_data(void *ctx) { cpk_mcp_data_free(ctx); }

static int copy_start(cpk_bench_built *out, const double *z, size_t n)
{
  out->z0 = cpk_alloc_array(n, sizeof *out->z0);
  if (!out->z0) return CPK_ENOMEM;
  memcpy(out->z0, z, n * sizeof *z);
  return CPK_OK;
}

static int build_mcplib(const cpk_bench_instance *in, cpk_bench_built *out)
{
  const cpk_mcp_info *info = cpk_mcp_at(in->param / 64);
  size_t start = in->param % 64;
  if (!info || start >= info->nstarts) return CPK_ENOTFOUND;
  int rc = cpk_mcp_problem(info, &out->problem);
  if (!rc) rc = copy_start(out, info->starts + start * info->n, info->n);
  return rc;
}

/* The nonlinear contact problems start hot, as a time-stepper would. */
static int build_contact_ncp(const cpk_bench_instance *in, cpk_bench_built *out)
{
  cpk_mcp_data *data = NULL;
  int rc;
  if (strcmp(in->family, "block-ncp") == 0) {
    cpk_mcp_block b;
    cpk_mcp_block_default(&b, (int)in->param);
    rc = cpk_mcp_block_on_plane(&b, &data, &out->problem);
    if (!rc && !(out->z0 = cpk_alloc_array(out->problem->n, sizeof *out->z0))) rc = CPK_ENOMEM;
    if (!rc) cpk_mcp_block_start(&b, out->z0);
  } else {
    rc = cpk_mcp_contact_chain(in->size, in->seed, &data, &out->problem);
    if (!rc && !(out->z0 = cpk_alloc_array(out->problem->n, sizeof *out->z0))) rc = CPK_ENOMEM;
    if (!rc) cpk_mcp_contact_chain_start(data, out->z0);
  }
  out->ctx = data;
  out->ctx_free = free_mcp_data;
  return rc;
}

static size_t bodies_of(const cpk_bench_instance *in)
{
  size_t per = in->param ? in->param : 4;
  return in->size / per + 1;
}

static int build_lcp_family(const cpk_bench_instance *in, cpk_problem **p)
{
  const char *f = in->family;
  size_t n = in->size;
  if (strcmp(f, "murty") == 0) return cpk_family_murty(n, p);
  if (strcmp(f, "fathi") == 0) return cpk_family_fathi(n, p);
  if (strcmp(f, "random-pd") == 0)
    return cpk_family_random_pd(n, in->seed, CPK_FAMILY_DENSE, p, NULL);
  if (strcmp(f, "random-p") == 0) return cpk_family_random_p(n, in->seed, p, NULL);
  if (strcmp(f, "random-psd") == 0) return cpk_family_random_psd(n, n / 2, in->seed, 1, p, NULL);
  if (strcmp(f, "random-psd-infeasible") == 0)
    return cpk_family_random_psd(n, n / 2, in->seed, 0, p, NULL);
  if (strcmp(f, "degenerate") == 0) return cpk_family_degenerate(n, in->seed, p);
  if (strcmp(f, "known-degenerate") == 0) return cpk_family_known_degenerate(n, in->seed, p, NULL);
  if (strcmp(f, "box-mcp") == 0) return cpk_family_random_box_mcp(n, in->seed, p, NULL);
  if (strcmp(f, "delassus") == 0) return cpk_family_delassus(n, bodies_of(in), in->seed, p);
  if (strcmp(f, "contact-kkt") == 0) return cpk_family_contact_kkt(bodies_of(in), n, in->seed, p);
  if (strcmp(f, "box-friction") == 0)
    return cpk_family_contact_kkt_box(bodies_of(in), n, in->mu, in->seed, p);
  if (strcmp(f, "block-on-plane") == 0) return cpk_family_block_on_plane_lcp(n, p);
  return CPK_ENOTFOUND;
}

int cpk_bench_build(const cpk_bench_instance *in, cpk_bench_built *out, cpk_error *err)
{
  int rc;
  memset(out, 0, sizeof *out);
  cpk_error_clear(err);
  if (in->source != CPK_BENCH_SRC_FAMILY) return cpk_bench_build_file(in, out, err);
  if (cpk_bench_family_is_trace(in->family)) return cpk_bench_build_trace(in, out, err);
  if (strcmp(in->family, "mcplib") == 0)
    rc = build_mcplib(in, out);
  else if (strcmp(in->family, "block-ncp") == 0 || strcmp(in->family, "contact-chain") == 0)
    rc = build_contact_ncp(in, out);
  else if (cpk_bench_family_is_scene(in->family))
    rc = cpk_bench_build_scene(in, out, err);
  else
    rc = build_lcp_family(in, &out->problem);
  if (!rc && !out->problem->name) rc = cpk_problem_set_name(out->problem, in->name);
  if (rc) {
    cpk_bench_built_free(out);
    return cpk_error_set(err, rc, "%s: cannot build the problem: %s", in->name, cpk_strerror(rc));
  }
  return CPK_OK;
}
