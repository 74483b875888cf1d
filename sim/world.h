/* world.h: the time-stepper's world object and the contact geometry it finds (internal to sim/). */
#ifndef CPK_SIM_WORLD_H
#define CPK_SIM_WORLD_H
#include <cpkit/sim.h>
#include <cpkit/solver.h>

/* A material set for a body pair (i <= j). */
typedef struct sim_material {
  size_t i, j;
  int ignore;
  cpk_contact_params params;
  double *dirs; /* owned copy of params.directions */
} sim_material;

/* Contact geometry of one pair feature: what collision detection finds. */
typedef struct sim_geom {
  size_t body[2];
  int feature;
  double point[3];  /* on body[0], world frame */
  double normal[3]; /* unit, into body[0] */
  double gap;
} sim_geom;

/* Remembered state of a contact between steps, keyed by (body pair, feature). */
typedef struct sim_memory {
  size_t body[2];
  int feature;
  double P[4];
  double delta[3];
} sim_memory;

/* What the stepper keeps across steps (step_cache.c): the problem and map compiled for the
 * last contact set, with the solver bound to that problem and its result. A step whose
 * contacts are the same ones (bodies and feature, in order) updates them in place
 * (cpk_compile_update) instead of compiling anew. */
typedef struct sim_cache {
  size_t n, cap;
  size_t (*key)[3]; /* body[0], body[1], feature of each contact */
  cpk_problem *prob;
  cpk_varmap *map;
  cpk_solver *solver;           /* bound to prob, or NULL */
  unsigned long solver_bounds;  /* prob->rev.bounds when the solver was bound */
  int own_start;                /* the bound solver re-solves from its own last basis */
  int solved;                   /* its last solve succeeded (sim_cache_solved) */
  cpk_result *res;
  long compiles, updates;       /* full compiles and in-place updates so far */
} sim_cache;

/* Work arrays of cpk_world_step kept across steps (step.c): once grown, a step takes no
 * memory of its own for them. */
typedef struct sim_step_buf {
  size_t *dof;           /* first velocity of each body, or (size_t)-1 */
  cpk_body *pose, *saved; /* the end-of-step estimate; the bodies as the step found them */
  sim_geom *g;           /* the step's contacts */
  size_t capdof, cappose, capsaved, capg, cappsi; /* their room (sim_grow) */
  double *psi;           /* their linearised gaps (implicit sweeps) */
  cpk_contact_system *sys; /* the cached compile's system, refilled every step (sim_assemble_again) */
  double *vk;              /* sim_assemble_again's v and k (2 nv) */
  size_t capvk;
  cpk_csc *M; /* and its M (nv x nv, 2 nv entries), rewritten every step */
  struct sim_pair *pairs; /* the broad phase's pairs (sim_collide) */
  size_t cappairs;
  double *z0;  /* the cached problem's start point (step.c) */
  double *out; /* the first solve's outputs (step.c's out_alloc) */
  size_t capz0, capout;
} sim_step_buf;

/* The step's last look-ups by name (step.c): a solver type, and the form that
 * cpk_compile_form_for_solver chose for a (model, solver, form) triple. Keyed by the names,
 * so a change of the settings' names is followed; 32 bytes hold every name the settings
 * can (cpk_sim_settings' fields are 32 bytes), a longer one is looked up each time. */
typedef struct sim_lookup {
  char solver[32];              /* name of T ("" with T NULL: nothing kept) */
  const cpk_solver_type *T;
  char form_model[32], form_solver[32]; /* the key of form (valid when form_valid) */
  cpk_problem_form form_in, form;
  int form_valid;
} sim_lookup;

struct cpk_world {
  cpk_sim_settings settings;
  double time;
  size_t nbodies, cap_bodies;
  cpk_body *bodies;
  double (*x0)[3], (*q0)[4]; /* initial pose of driven bodies */
  size_t nmaterials, cap_materials;
  sim_material *materials;
  cpk_contact_params default_material;
  double *default_dirs;
  /* last step */
  size_t ncontacts, cap_contacts;
  cpk_sim_contact *contacts;
  size_t nmemory, cap_memory;
  sim_memory *memory;
  sim_cache cache;
  sim_step_buf buf;
  sim_lookup lookup;
  /* hash index of memory (memory_index.c): valid when mem_indexed == nmemory */
  size_t *mem_slots, mem_slots_cap, mem_mask, mem_indexed;
  /* kelvin-voigt-implicit: the last solution and its pairs, the next start point */
  double *iz;
  size_t niz, nikeys;
  size_t (*ikeys)[2];
};

/* Grow *arr (elements of `size` bytes, contents kept) to hold at least `need`,
 * doubling. CPK_ENOMEM or CPK_EOVERFLOW with *arr unchanged. */
int sim_grow(void **arr, size_t *cap, size_t need, size_t size);
/* Solve p from z0 with `solver`, then with the settings' fallback solver (if it
 * takes p) when that fails; adds the iterations and the fallbacks used.
 * CPK_ENOCONV naming the time, the solver, n and `what` (NULL: "contacts (MODEL model)",
 * composed only then: a step's solve formats nothing) unless solved. */
int sim_solve(cpk_world *w, const cpk_problem *p, const double *z0, const char *solver, size_t n,
              const char *what, cpk_result *r, long *iterations, int *fallbacks, cpk_error *err);
/* The cache (step_cache.c): 1 when it holds a problem compiled for contacts g[0..ng-1];
 * remember g as the keys of a new compile (CPK_ENOMEM); forget everything; free it. */
int sim_cache_matches(const sim_cache *k, const sim_geom *g, size_t ng);
int sim_cache_keep(sim_cache *k, const sim_geom *g, size_t ng);
void sim_cache_drop(sim_cache *k);
/* The cache's solver of type T, bound to its problem with settings s and start z0:
 * the one kept from the last step when it may be re-solved, else bound anew. */
int sim_cache_solver(sim_cache *k, const cpk_solver_type *T, const cpk_settings *s,
                     const double *z0, cpk_solver **out, cpk_error *err);
/* Whether the cache solver's last solve succeeded (its own start is then good). */
void sim_cache_solved(sim_cache *k, int solved);
/* Room for n contacts of a step and their memory; on failure the world keeps
 * its arrays (and what they hold) unchanged. */
int sim_reserve_contacts(cpk_world *w, size_t n);
/* 1 when every pose and velocity of bodies[0..nb-1] is finite. */
int sim_state_finite(const cpk_body *bodies, size_t nb);

/* The stepper's own model name: seed 003's geometrically implicit compliant step. */
#define SIM_MODEL_KV_IMPLICIT "kelvin-voigt-implicit"
/* Default solver of point-coulomb and elliptic-torsional (their cone form), and the
 * fallback behind it when the scene names neither. */
#define SIM_CONE_SOLVER "nsgs"
#define SIM_CONE_FALLBACK "fcipm"
/* Behind the default fbnewton on a nonlinear MCP (kelvin-voigt): the interior point
 * method, which finishes the thrown rod's touch-down where fbnewton reaches its limit. */
#define SIM_MCP_FALLBACK "ipm"

/* A pair of bodies, i < j. */
typedef struct sim_pair {
  size_t i, j;
} sim_pair;
/* The body pairs of the world that may be within the margin at the current poses
 * (broad_phase.c), sorted, each once; *pairs is reallocated by the callee. */
int sim_broad_phase(const cpk_world *w, sim_pair **pairs, size_t *np, size_t *cap);

/* Find the contacts of the world at its current poses (gap <= margin).
 * *geoms is reallocated by the callee; *n receives the count. *pairs (room *pcap) holds
 * the broad phase's pairs, reallocated by the callee and kept by the caller. */
int sim_collide(const cpk_world *w, sim_geom **geoms, size_t *n, size_t *cap,
                struct sim_pair **pairs, size_t *pcap, cpk_error *err);
/* Index the contacts' memory after it was written (a failure leaves it unindexed). */
void sim_memory_reindex(cpk_world *w);
/* Pose and velocity of driven body b at time t (from its initial pose). */
void sim_motion_eval(const cpk_body *b, const double x0[3], const double q0[4], double t,
                     double x[3], double q[4], double v[3], double om[3]);
/* The material for pair (i, j) (never NULL: falls back to the default). */
const cpk_contact_params *sim_material_of(const cpk_world *w, size_t i, size_t j, int *ignore);

#endif
