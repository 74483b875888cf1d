/* broad_phase.c: the body pairs that may be in contact: planes against every body, the other bodies by a uniform grid of cells over their bounding spheres, so finding contacts costs O(n log n) rather than a test of every pair. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/util.h>
#include "rotation.h"
#include "world.h"

/*
 * Every finite shape lies in a sphere about its body's centre (its bounding
 * radius). Two bodies can have a gap <= margin only when their centres are
 * closer than the sum of the radii plus the margin on each side, so each
 * body goes into the grid cell of its centre, with cells as wide as the
 * largest inflated diameter: a partner is then in one of the 27 cells around.
 * A few bodies much larger than the rest (a big sphere among small ones)
 * would make every cell huge: they are tested against every body instead,
 * as planes are. The pairs come out sorted, in the order of the pairwise
 * loop they replace, so the contacts (and the problem's layout) are the same.
 */

/* Bodies whose bound exceeds this many times the median go beside the grid. */
#define BROAD_LARGE_FACTOR 4.0
/* Beyond this many cells from the origin, cell keys lose exactness in a double. */
#define BROAD_KEY_MAX 1e15
/* Up to this many bodies every pair is tested (all_pairs, the grid's own fallback): the
 * grid's three arrays and two sorts cost more than the few tests (the tripod and its
 * plate, two bodies, spent 1.5% of a 17 us step on them). */
#define BROAD_DIRECT_MAX 16

static double bound_radius(const cpk_body *b)
{
  const cpk_shape *s = &b->shape;
  switch (s->kind) {
  case CPK_SHAPE_SPHERE: return s->size[0];
  case CPK_SHAPE_ELLIPSOID: return fmax(s->size[0], fmax(s->size[1], s->size[2]));
  case CPK_SHAPE_ROD: return s->size[0] + s->size[1];
  case CPK_SHAPE_POINTS: {
    double r = 0;
    for (size_t k = 0; k < s->npoints; k++) r = fmax(r, sim_vnorm(s->points[k]));
    return r + s->size[0];
  }
  default: return INFINITY; /* a plane */
  }
}

/* A gridded body: its cell and index. */
typedef struct cell_entry {
  double key[3];
  size_t b;
} cell_entry;

typedef struct grid {
  const cpk_world *w;
  double *r;         /* inflated bounding radius of each body */
  int *large;        /* 1: beside the grid (planes, very large bodies) */
  cell_entry *cells; /* gridded bodies sorted by cell, then index */
  size_t ng;
  sim_pair *pairs;
  size_t np, cap;
} grid;

static int add_pair(grid *G, size_t i, size_t j)
{
  if (sim_grow((void **)&G->pairs, &G->cap, G->np + 1, sizeof *G->pairs)) return CPK_ENOMEM;
  G->pairs[G->np].i = i < j ? i : j;
  G->pairs[G->np++].j = i < j ? j : i;
  return CPK_OK;
}

/* Bounding spheres within reach (always for a plane: its radius is infinite). */
static int close_enough(const grid *G, size_t i, size_t j)
{
  const double *a = G->w->bodies[i].x, *b = G->w->bodies[j].x;
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sim_vnorm(d) <= G->r[i] + G->r[j];
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int cmp_key(const double *a, const double *b)
{
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int cmp_cell(const void *pa, const void *pb)
{
  const cell_entry *a = pa, *b = pb;
  int c = cmp_key(a->key, b->key);
  return c ? c : (a->b > b->b) - (a->b < b->b);
}

static int cmp_pair(const void *pa, const void *pb)
{
  const sim_pair *a = pa, *b = pb;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  return (a->j > b->j) - (a->j < b->j);
}

/* Inflated radii, which bodies go beside the grid, and the cell width. */
static int classify(grid *G, double *width)
{
  const cpk_world *w = G->w;
  size_t n = w->nbodies, nf = 0;
  double *tmp = cpk_alloc_array(n + 1, sizeof *tmp), rmax = 0;
  if (!tmp) return CPK_ENOMEM;
  for (size_t b = 0; b < n; b++) {
    G->r[b] = bound_radius(&w->bodies[b]) + w->settings.margin;
    if (isfinite(G->r[b])) tmp[nf++] = G->r[b];
  }
  qsort(tmp, nf, sizeof *tmp, cmp_double);
  double limit = nf ? BROAD_LARGE_FACTOR * tmp[nf / 2] : 0;
  free(tmp);
  for (size_t b = 0; b < n; b++) {
    G->large[b] = !isfinite(G->r[b]) || G->r[b] > limit;
    if (!G->large[b]) rmax = fmax(rmax, G->r[b]);
  }
  *width = rmax > 0 ? 2 * rmax : 1; /* points with no margin: any width separates them */
  return CPK_OK;
}

/* Cells of the gridded bodies, sorted; 0 when a centre is too far out for exact keys. */
static int fill_cells(grid *G, double width)
{
  G->ng = 0;
  for (size_t b = 0; b < G->w->nbodies; b++) {
    if (G->large[b]) continue;
    cell_entry *e = &G->cells[G->ng++];
    e->b = b;
    for (int k = 0; k < 3; k++) {
      e->key[k] = floor(G->w->bodies[b].x[k] / width);
      if (!(fabs(e->key[k]) < BROAD_KEY_MAX)) return 0;
    }
  }
  qsort(G->cells, G->ng, sizeof *G->cells, cmp_cell);
  return 1;
}

/* First position in the sorted grid whose cell is not below `cell`. */
static size_t lower_bound(const grid *G, const double cell[3])
{
  size_t lo = 0, hi = G->ng;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_key(G->cells[mid].key, cell) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Pairs of gridded bodies in neighbouring cells (each pair once: from its lower index).
 * Cells sort by x, then y, then z: the three cells of a neighbouring (x, y) column
 * (z - 1 .. z + 1) are one run of the grid, found by one search rather than three (the
 * searches were most of the broad phase of a 10 000-body pile). */
static int grid_pairs(grid *G)
{
  for (size_t s = 0; s < G->ng; s++) {
    const cell_entry *a = &G->cells[s];
    for (int d = 0; d < 9; d++) {
      double lo[3] = {a->key[0] + d % 3 - 1, a->key[1] + d / 3 - 1, a->key[2] - 1};
      double hi[3] = {lo[0], lo[1], a->key[2] + 1};
      for (size_t t = lower_bound(G, lo); t < G->ng && cmp_key(G->cells[t].key, hi) <= 0; t++) {
        size_t b = G->cells[t].b;
        if (b > a->b && close_enough(G, a->b, b) && add_pair(G, a->b, b)) return CPK_ENOMEM;
      }
    }
  }
  return CPK_OK;
}

/* Bodies beside the grid against every other body, each pair once. */
static int large_pairs(grid *G)
{
  size_t n = G->w->nbodies;
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; G->large[a] && b < n; b++)
      if (b != a && !(G->large[b] && b < a) && close_enough(G, a, b) && add_pair(G, a, b))
        return CPK_ENOMEM;
  return CPK_OK;
}

/* Without a usable grid: every pair within reach. */
static int all_pairs(grid *G)
{
  for (size_t a = 0; a < G->w->nbodies; a++)
    for (size_t b = a + 1; b < G->w->nbodies; b++)
      if (close_enough(G, a, b) && add_pair(G, a, b)) return CPK_ENOMEM;
  return CPK_OK;
}

/* A world of at most BROAD_DIRECT_MAX bodies: every pair within reach, no arrays taken. */
static int direct_pairs(grid *G)
{
  double r[BROAD_DIRECT_MAX];
  G->r = r;
  for (size_t b = 0; b < G->w->nbodies; b++)
    r[b] = bound_radius(&G->w->bodies[b]) + G->w->settings.margin;
  int rc = all_pairs(G);
  G->r = NULL;
  return rc;
}

int sim_broad_phase(const cpk_world *w, sim_pair **pairs, size_t *np, size_t *cap)
{
  size_t n = w->nbodies;
  double width = 0;
  grid G = {0};
  G.w = w;
  G.pairs = *pairs;
  G.cap = *cap;
  if (n <= BROAD_DIRECT_MAX) {
    int rc = direct_pairs(&G);
    *pairs = G.pairs;
    *cap = G.cap;
    *np = rc ? 0 : G.np;
    return rc;
  }
  G.r = cpk_alloc_array(n + 1, sizeof *G.r);
  G.large = cpk_alloc_array(n + 1, sizeof *G.large);
  G.cells = cpk_alloc_array(n + 1, sizeof *G.cells);
  int rc = G.r && G.large && G.cells ? classify(&G, &width) : CPK_ENOMEM;
  if (!rc && isfinite(width) && fill_cells(&G, width))
    rc = grid_pairs(&G) ? CPK_ENOMEM : large_pairs(&G);
  else if (!rc)
    rc = all_pairs(&G);
  if (!rc && G.np) { /* qsort takes no NULL array, even empty */
    qsort(G.pairs, G.np, sizeof *G.pairs, cmp_pair);
    size_t u = 0;
    for (size_t k = 0; k < G.np; k++)
      if (!u || cmp_pair(&G.pairs[u - 1], &G.pairs[k])) G.pairs[u++] = G.pairs[k];
    G.np = u;
  }
  free(G.r);
  free(G.large);
  free(G.cells);
  *pairs = G.pairs;
  *cap = G.cap;
  *np = rc ? 0 : G.np;
  return rc;
}
