/* step.c: one time step: contacts, compile, warm-started solve, integration; the explicit scheme and the implicit fixed-point sweeps. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpkit/solver.h>
#include <cpkit/util.h>
#include "assemble.h"
#include "step_implicit.h"
#include "rotation.h"

/* What the solves of a step add up to (every sweep's: the next sweep starts from them). */
typedef struct step_counts {
  long iterations;
  int fallbacks;        /* solves finished by the fallback solver */
  int physics_failures; /* solves whose answer fails the physical check */
  int finishes;         /* answers replaced by the finishing phase (physics_finish) */
  int finish_errors;    /* finishing attempts ended by an error (not memory): not finished */
  char finish_message[200]; /* the first of them */
  char physics_message[200];
  double compile_s, solver_s; /* wall time assembling and compiling, and in the solvers */
  int compiles;               /* problems compiled anew (not updated in place) */
} step_counts;

/* What one solve of a step produced. */
typedef struct solve_out {
  double *vplus; /* nv */
  double *P;     /* 4 per contact */
  double *delta; /* 3 per contact */
  int *modes;
  step_counts c; /* the step's so far, this solve's included */
  cpk_status status;
  double residual;
  int kept; /* the arrays are the world's (out_alloc's B): not freed */
} solve_out;

/* Impulses of the contacts of sys predicted by the polyhedral LCP (8 plane
 * directions, Lemke): where a nonlinear model meets a contact with no history,
 * zero impulses are a poor start for Newton methods at a resting contact.
 * NULL when the prediction fails (the caller then starts from zero). */
static double *predict_impulses(const cpk_contact_system *sys)
{
  cpk_problem *p = NULL;
  cpk_varmap *map = NULL;
  cpk_result *r = NULL;
  double *P = cpk_alloc_array(4 * sys->nc + 1, sizeof *P);
  int ok = P && !cpk_compile(sys, "polyhedral", NULL, &p, &map, NULL) &&
           !cpk_result_alloc(p->n, &r) && !cpk_solve(p, "lemke", NULL, r, NULL) &&
           r->status == CPK_STATUS_SOLVED && !cpk_varmap_impulses(map, r->z, P);
  cpk_result_free(r);
  cpk_problem_free(p);
  cpk_varmap_free(map);
  if (!ok) {
    free(P);
    P = NULL;
  }
  return P;
}

/* Most contacts of a step whose new contacts get the polyhedral prediction: Lemke's
 * pivots on a large degenerate system (a pile of spheres settling) take minutes where
 * the step itself takes milliseconds; beyond this, new contacts start from zero. */
#define SIM_PREDICT_MAX_CONTACTS 200

/* Start point z0 (n doubles) from the remembered impulses of the contacts that persist
 * and, for new ones, the polyhedral prediction when the model is nonlinear (else
 * zero): a consistent point (velocities, slip speeds) even on the first step. 0 when
 * it cannot be built. */
static int warm_point(const cpk_world *w, const sim_geom *g, size_t ng,
                      const cpk_contact_system *sys, const cpk_problem *prob,
                      const cpk_varmap *map, double *z0)
{
  double stack[4 * 16] = {0}; /* a few contacts' impulses: no allocation (every step) */
  double *P = ng <= 16 ? stack : cpk_alloc_array(4 * ng, sizeof *P), *pred = NULL;
  int fresh = 0, ok;
  for (size_t c = 0; c < ng; c++) fresh |= sim_memory_find(w, &g[c]) == NULL;
  if (fresh && ng <= SIM_PREDICT_MAX_CONTACTS &&
      (prob->kind == CPK_KIND_NONLINEAR_MCP || prob->kind == CPK_KIND_FRICTION_CONE))
    pred = predict_impulses(sys);
  for (size_t c = 0; P && c < ng; c++) {
    const sim_memory *m = sim_memory_find(w, &g[c]);
    for (int a = 0; a < 4; a++) P[4 * c + a] = m ? m->P[a] : pred ? pred[4 * c + a] : 0;
  }
  ok = P && !cpk_varmap_point(map, P, z0, NULL);
  if (P != stack) free(P);
  free(pred);
  return ok;
}

/* The start point of a solve of prob into z0 (n doubles; NULL: none): the warm point, or
 * for a nonlinear MCP without one the compiled problem's recommended point
 * (cpk_varmap_start), not z = 0. z0, or NULL when there is none. */
static double *start_point(const cpk_world *w, const sim_geom *g, size_t ng,
                           const cpk_contact_system *sys, const cpk_problem *prob,
                           const cpk_varmap *map, double *z0)
{
  if (!z0) return NULL;
  if (w->settings.warm_start && warm_point(w, g, ng, sys, prob, map, z0)) return z0;
  if (prob->kind == CPK_KIND_NONLINEAR_MCP && !cpk_varmap_start(map, z0, NULL)) return z0;
  return NULL;
}

/* The wall clock for the step's timings (cpk_sim_step_info.*_time_s), 0 unless the
 * settings ask for them: the reads cost a few per cent of a small scene's step. */
static double step_clock(const cpk_world *w)
{
  return w->settings.timings ? cpk_wtime() : 0.0;
}

/* cpk_solver_find through the world's look-up (a step asks for its solver by name; the
 * registry scan compared up to 18 names a step). Every call compares the name with the
 * kept one, so a change of name between steps is followed. */
static const cpk_solver_type *step_find(cpk_world *w, const char *name)
{
  sim_lookup *L = &w->lookup;
  if (!name) return NULL;
  if (L->T && !strcmp(L->solver, name)) return L->T;
  const cpk_solver_type *T = cpk_solver_find(name);
  if (T && strlen(name) < sizeof L->solver) {
    strcpy(L->solver, name);
    L->T = T;
  }
  return T;
}

/* cpk_compile_form_for_solver(settings' model, solver, settings' form), kept for the
 * names and form it was asked for (same rule as step_find). */
static cpk_problem_form step_form(cpk_world *w, const char *solver)
{
  const cpk_sim_settings *S = &w->settings;
  sim_lookup *L = &w->lookup;
  const char *sv = solver ? solver : ""; /* both mean "no solver" to the compiler */
  if (L->form_valid && L->form_in == S->compile.form && !strcmp(L->form_solver, sv) &&
      !strcmp(L->form_model, S->model))
    return L->form;
  cpk_problem_form f = cpk_compile_form_for_solver(S->model, solver, S->compile.form);
  L->form_valid = strlen(sv) < sizeof L->form_solver && strlen(S->model) < sizeof L->form_model;
  if (L->form_valid) {
    strcpy(L->form_solver, sv);
    strcpy(L->form_model, S->model);
    L->form_in = S->compile.form;
    L->form = f;
  }
  return f;
}

/* The solver of a step before its problem is compiled (it decides the form): the
 * scene's; for a model with a cone form, the cone solver that completes the examples
 * and issue 14's scenes (SIM_CONE_SOLVER, doc/simulate.md); else NULL, to choose by the
 * compiled problem's kind (pick_solver). */
static const char *step_solver(cpk_world *w)
{
  const cpk_sim_settings *S = &w->settings;
  if (S->solver[0]) return S->solver;
  if (step_form(w, SIM_CONE_SOLVER) == CPK_FORM_CONE) return SIM_CONE_SOLVER;
  return NULL;
}

/* The fallback for problem p (NULL: before it is compiled): the scene's; behind the cone
 * default, SIM_CONE_FALLBACK (it completes the scenes where nsgs reaches its iteration
 * limit); behind pick_solver's fbnewton on a nonlinear MCP, SIM_MCP_FALLBACK; else none. */
static const char *step_fallback(cpk_world *w, const cpk_problem *p)
{
  const cpk_sim_settings *S = &w->settings;
  if (S->fallback[0] || S->solver[0]) return S->fallback;
  if (step_solver(w)) return cpk_solver_find(SIM_CONE_FALLBACK) ? SIM_CONE_FALLBACK : "";
  int mcp = p && p->kind == CPK_KIND_NONLINEAR_MCP && cpk_solver_find(SIM_MCP_FALLBACK);
  return mcp ? SIM_MCP_FALLBACK : "";
}

static const char *pick_solver(const char *solver, const cpk_problem *p)
{
  if (solver) return solver;
  return p->kind == CPK_KIND_NONLINEAR_MCP ? "fbnewton" : "lemke";
}

/* Read the physics of solution z back through the map. */
static int read_back(const cpk_varmap *map, const double *z, size_t ng, solve_out *o,
                     cpk_error *err)
{
  int rc = cpk_varmap_velocity(map, z, o->vplus, err);
  if (!rc && ng) rc = cpk_varmap_impulses(map, z, o->P);
  if (!rc && ng) rc = cpk_varmap_modes(map, z, 1e-8, o->modes, err);
  for (size_t c = 0; c < ng && !rc; c++)
    if (cpk_varmap_deflection(map, z, c, &o->delta[3 * c]))
      o->delta[3 * c] = o->delta[3 * c + 1] = o->delta[3 * c + 2] = 0;
  return rc;
}

/* The compile options of the step's form for `solver` (cone solvers take the cone form). */
static cpk_compile_options step_options(cpk_world *w, const char *solver)
{
  cpk_compile_options co = w->settings.compile;
  co.form = step_form(w, solver);
  return co;
}

/* The problem of contacts g (gaps psi) and its start point (with warm starts off, the
 * recommended start of a nonlinear MCP, else NULL): what a solve of the step takes. */
static int compile_step(cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                        const double *psi, const char *solver, cpk_problem **prob,
                        cpk_varmap **map, double **z0, cpk_error *err)
{
  cpk_contact_system *sys = NULL;
  cpk_compile_options co = step_options(w, solver);
  *prob = NULL;
  *map = NULL;
  *z0 = NULL;
  int rc = sim_assemble(w, pose, g, ng, psi, &sys, err);
  if (!rc) rc = cpk_compile(sys, w->settings.model, &co, prob, map, err);
  double *buf = rc ? NULL : cpk_alloc_array(cpk_varmap_n(*map), sizeof *buf); /* the caller's */
  if (!rc) *z0 = start_point(w, g, ng, sys, *prob, *map, buf);
  if (!*z0) free(buf);
  cpk_contact_system_free(sys);
  return rc;
}

/* compile_step into the world's cache: the last step's problem and map are updated in
 * place when the contacts are the same ones and the structure allows it
 * (cpk_compile_update), else compiled anew and kept. They remain the cache's. */
static int cached_compile(cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                          const double *psi, const char *solver, double **z0, cpk_error *err)
{
  sim_cache *k = &w->cache;
  cpk_compile_options co = step_options(w, solver);
  *z0 = NULL;
  int rc = sim_assemble_again(w, &w->buf, pose, g, ng, psi, err);
  cpk_contact_system *sys = w->buf.sys; /* the world's: kept for the next step */
  /* sys was made by sim_assemble_again through the checked calls alone: not validated
   * again. A solver changed between steps may need the other form (cone or not): then
   * the kept problem, which an update keeps in its own form, is compiled anew. */
  int same_form = k->map && (cpk_varmap_form(k->map) == CPK_FORM_CONE) == (co.form == CPK_FORM_CONE);
  if (!rc && same_form && sim_cache_matches(k, g, ng) &&
      !cpk_compile_update_unchecked(sys, k->prob, k->map, NULL)) {
    k->updates++;
  } else if (!rc) {
    sim_cache_drop(k);
    rc = cpk_compile(sys, w->settings.model, &co, &k->prob, &k->map, err);
    if (!rc) rc = cpk_result_alloc(cpk_varmap_n(k->map), &k->res);
    if (!rc && sim_cache_keep(k, g, ng)) rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
    if (rc) sim_cache_drop(k);
    k->compiles++;
  }
  sim_step_buf *B = &w->buf; /* the start point in the world's array: no allocation */
  if (!rc && !sim_grow((void **)&B->z0, &B->capz0, cpk_varmap_n(k->map) + 1, sizeof *B->z0))
    *z0 = start_point(w, g, ng, sys, k->prob, k->map, B->z0);
  return rc;
}

/* The first solve of p with `solver`: the cache's problem through its bound solver
 * (kept across steps when it can be), any other through a one-off cpk_solve. */
static int first_attempt(cpk_world *w, const cpk_problem *p, const cpk_settings *set,
                         const char *solver, cpk_result *r, cpk_error *err)
{
  const cpk_solver_type *T = step_find(w, solver);
  cpk_solver *s;
  if (p != w->cache.prob || !T) return cpk_solve(p, solver, set, r, err);
  int rc = sim_cache_solver(&w->cache, T, set, set->z0, &s, err);
  if (!rc) rc = cpk_solver_solve(s, r, err);
  sim_cache_solved(&w->cache, !rc && r->status == CPK_STATUS_SOLVED);
  return rc;
}

int sim_solve(cpk_world *w, const cpk_problem *p, const double *z0, const char *solver, size_t n,
              const char *what, cpk_result *r, long *iterations, int *fallbacks, cpk_error *err)
{
  cpk_settings set = w->settings.solve;
  const char *fb = step_fallback(w, p);
  set.z0 = z0;
  int rc = first_attempt(w, p, &set, solver, r, err);
  if (!rc && r->status != CPK_STATUS_SOLVED && fb[0] && strcmp(fb, solver) != 0 &&
      cpk_solver_accepts(cpk_solver_find(fb), p)) {
    solver = fb; /* same start point, the other method */
    *iterations += r->iterations;  /* the failed attempt's work counts too */
    rc = cpk_solve(p, solver, &set, r, err);
    *fallbacks += !rc && r->status == CPK_STATUS_SOLVED;
  }
  if (rc) return rc;
  *iterations += r->iterations;
  if (r->status != CPK_STATUS_SOLVED)
    return cpk_error_set(err, CPK_ENOCONV, "t = %g: %s on %zu %s%s%s: %s%s%s", w->time, solver, n,
                         what ? what : "contacts (", what ? "" : w->settings.model,
                         what ? "" : " model)",
                         cpk_status_name(r->status), r->message[0] ? ": " : "", r->message);
  return CPK_OK;
}

/* The model's physical check (cpk_varmap_check, relative tolerance max(1e-3, 100 tol)):
 * a `solved` residual can hide friction where there is no normal impulse (issue 14). */
static int physics_ok(const cpk_world *w, const cpk_varmap *map, const double *z,
                      cpk_physics_check *ck, cpk_error *err)
{
  int rc = cpk_varmap_check(map, z, fmax(1e-3, 100 * w->settings.solve.tol), ck, err);
  return rc ? rc : ck->ok ? CPK_OK : CPK_ENOCONV;
}

/* The contacts of a step as solve_compiled has them: what a finishing compile needs. */
typedef struct step_contacts {
  const cpk_body *pose;
  const sim_geom *g;
  size_t ng;
  const double *psi;
  const char *form_solver; /* the solver whose form was compiled (NULL: the model's) */
} step_contacts;

/* Finishing rounds of physics_finish (the second with a tightened tolerance). */
#define SIM_FINISH_ROUNDS 2

/* The check's worst relative figure over its tolerance c, times 10, in [10, 1000]: what
 * the tolerance of a second finishing round is divided by. */
static double finish_factor(const cpk_physics_check *ck, double c)
{
  double v = fmax(ck->normal, fmax(ck->cone, ck->dissipation));
  return fmin(1e3, fmax(10.0, 10.0 * v / c));
}

/* The step's problem p at a finished answer z: its own residual (into wp, *rp) within the
 * step's tolerance. The answer was solved on the exactly scaled problem, whose rows weigh
 * the same equations differently: p, the problem the step reports on, must be solved too. */
static int step_problem_solved(const cpk_world *w, const cpk_problem *p, const double *z,
                               double *wp, double *rp)
{
  int rc = cpk_problem_residual(p, z, wp, rp);
  if (rc == CPK_ENOMEM) return rc;
  return !rc && *rp <= cpk_problem_tolerance(p, w->settings.solve.tol) ? CPK_OK : CPK_ENOCONV;
}

/*
 * The answer of r (solved) as the step's, in res, whole: status, solver, z, w, residual,
 * tolerance, iterations, time_s, stats, basis and ray with their flags, message (no
 * enumerated solutions: nsolutions 0), so the step's result describes the answer kept and
 * nothing of the solve it replaces. When r solved another problem than the step's p (the
 * finishing's exactly scaled one), wp (not NULL) is F_p(z), rp p's residual there and tp
 * the tolerance it was judged by: they replace r's w, residual and tolerance. The step's
 * status and residual in o follow.
 */
static void take_answer(cpk_result *res, const cpk_result *r, const double *wp, double rp,
                        double tp, solve_out *o)
{
  size_t n = r->n;
  memcpy(res->z, r->z, n * sizeof *res->z);
  memcpy(res->w, wp ? wp : r->w, n * sizeof *res->w);
  if ((res->has_basis = r->has_basis)) memcpy(res->basis, r->basis, n * sizeof *res->basis);
  if ((res->has_ray = r->has_ray)) memcpy(res->ray, r->ray, n * sizeof *res->ray);
  res->residual = o->residual = wp ? rp : r->residual;
  res->tolerance = wp ? tp : r->tolerance;
  res->status = o->status = r->status;
  res->solver = r->solver;
  res->iterations = r->iterations;
  res->time_s = r->time_s;
  res->nsolutions = 0;
  res->nstats = r->nstats;
  memcpy(res->stats, r->stats, sizeof res->stats);
  memcpy(res->message, r->message, sizeof res->message);
}

/* Whether the step's answer res->z is solved on q already (q == p: res->status; else q's
 * residual there, wq its F): a round at the step's tolerance would stop at once (at most
 * one polishing step of a Newton method) and hand back an answer judged the same way, so
 * the rounds start at the tightened one. CPK_OK, CPK_ENOCONV or CPK_ENOMEM. */
static int start_solved(const cpk_world *w, const cpk_problem *p, const cpk_problem *q,
                        const cpk_result *res, double *wq)
{
  double rq;
  if (q == p) return res->status == CPK_STATUS_SOLVED ? CPK_OK : CPK_ENOCONV;
  return step_problem_solved(w, q, res->z, wq, &rq);
}

/*
 * The finishing rounds on problem q (p itself or p compiled with exact scales): `solver`
 * from the step's answer res->z, first at the step's tolerance, then, when the first
 * round is solved but fails the check (or p's residual), from that answer with the
 * tolerance divided by its check's violation (finish_factor). When res->z is solved on q
 * already (start_solved: the first round would stop at once, at most one polishing step,
 * and hand back an answer judged the same way) the rounds start at the second, from
 * res->z, tightened by the step's own check ck. An answer is kept when q
 * is solved there, it passes the check (map: the step's) and p is solved there too;
 * res then holds it with p's residual (CPK_OK). CPK_ENOCONV: res is untouched. Any
 * other code is an error of the solve, the check or memory, with e set. The iterations
 * of every round that ran count in o, kept or not.
 */
static int finish_rounds(cpk_world *w, const cpk_problem *p, const cpk_problem *q,
                         const cpk_varmap *map, const char *solver, cpk_result *res,
                         solve_out *o, const cpk_physics_check *ck, cpk_error *e)
{
  cpk_settings set = w->settings.solve;
  cpk_physics_check last = *ck;
  double c = fmax(1e-3, 100 * set.tol), rp = INFINITY;
  double *wp = cpk_alloc_array(p->n + 1, 2 * sizeof *wp), *z1 = wp ? wp + p->n : NULL;
  cpk_result *r = NULL;
  int rc = wp ? cpk_result_alloc(q->n, &r) : CPK_ENOMEM;
  if (!rc) rc = start_solved(w, p, q, res, z1);
  if (rc != CPK_OK && rc != CPK_ENOCONV) { /* start_solved returns no other, but memory */
    cpk_result_free(r);
    free(wp);
    return cpk_error_set(e, rc, "out of memory");
  }
  int skip = rc == CPK_OK; /* 1: the first round is skipped */
  rc = CPK_ENOCONV;
  set.z0 = res->z;
  for (int k = skip; k < SIM_FINISH_ROUNDS && rc == CPK_ENOCONV; k++) {
    if (k > skip) { /* the last round was solved: go on from its answer */
      memcpy(z1, r->z, p->n * sizeof *z1);
      set.z0 = z1;
    }
    if (k) set.tol = w->settings.solve.tol / finish_factor(&last, c); /* tighter by the violation */
    int rs = cpk_solve(q, solver, &set, r, e);
    if (rs) {
      rc = rs;
      break;
    }
    o->c.iterations += r->iterations; /* the work counts whether or not it finishes */
    if (r->status != CPK_STATUS_SOLVED) break;
    rs = physics_ok(w, map, r->z, &last, e);
    if (!rs) rs = step_problem_solved(w, p, r->z, wp, &rp);
    if (rs == CPK_ENOMEM) rs = cpk_error_set(e, rs, "out of memory");
    if (rs != CPK_ENOCONV) rc = rs;
  }
  if (!rc) {
    take_answer(res, r, wp, rp, cpk_problem_tolerance(p, w->settings.solve.tol), o);
    o->c.finishes++;
  }
  cpk_result_free(r);
  free(wp);
  return rc;
}

/*
 * An answer res->z of p that fails the check (or a solve that stopped short) is finished
 * by `solver`, the solver that produced it, from it. In the mixed form with the default
 * scales (cpk_compile_options.exact_scales = 0: diag(M) for M, off by 71x for seed 003's
 * tilted ellipsoid) the rounds run on the same contacts compiled with exact scales (the
 * unknowns are the same); when p's scales are exact already (the reduced form, or the
 * option set) on p itself. The step's problem keeps the default scales, with which the
 * solvers complete more of the examples (doc/formulations.md "Exact scales"). The check
 * and its tolerances are unchanged: the answer is made accurate enough, in the units the
 * check measures, to be judged. CPK_ENOCONV: not finished (e untouched); other codes are
 * errors, with e set.
 */
static int physics_finish(cpk_world *w, const step_contacts *sc, const cpk_problem *p,
                          const cpk_varmap *map, const char *solver, cpk_result *res,
                          solve_out *o, const cpk_physics_check *ck, cpk_error *e)
{
  cpk_contact_system *sys = NULL;
  cpk_compile_options co = step_options(w, sc->form_solver);
  cpk_problem *q = NULL;
  cpk_varmap *m = NULL;
  if (!w->settings.physics_finish || p->kind != CPK_KIND_NONLINEAR_MCP || !solver)
    return CPK_ENOCONV;
  if (co.exact_scales || !cpk_varmap_is_mixed(map))
    return finish_rounds(w, p, p, map, solver, res, o, ck, e);
  co.exact_scales = 1;
  int rc = sim_assemble(w, sc->pose, sc->g, sc->ng, sc->psi, &sys, e);
  if (!rc) rc = cpk_compile(sys, w->settings.model, &co, &q, &m, e);
  if (!rc) rc = q->n == p->n ? finish_rounds(w, p, q, map, solver, res, o, ck, e) : CPK_ENOCONV;
  cpk_contact_system_free(sys);
  cpk_problem_free(q);
  cpk_varmap_free(m);
  return rc;
}

/*
 * What the outcome rc (error e) of a finishing attempt, or of the check's fallback solve
 * (fallback: its solver's name; NULL for the finishing), means for the step: CPK_OK
 * (finished) and CPK_ENOCONV (not finished) as they are. An error of such an attempt
 * (its solve, its compile, the check) is the attempt's failure, not the step's: the step
 * goes on as if it had not finished (the check's fallback, or the solve's own failure);
 * it is counted and its message kept (cpk_sim_step_info.finish_errors, finish_message; a
 * line in the solve log when verbose) and CPK_ENOCONV returned. When the step then fails
 * all the same, run_step names the first of them in the step's error (note_finish_errors).
 * Only running out of memory ends the step (CPK_ENOMEM, e into err): the step's own paths
 * need memory too.
 */
static int finish_outcome(const cpk_world *w, int rc, const cpk_error *e, const char *fallback,
                          solve_out *o, cpk_error *err)
{
  const cpk_settings *S = &w->settings.solve;
  const char *who = fallback ? fallback : "", *sep = fallback ? " (the check's fallback): " : "";
  if (rc == CPK_OK || rc == CPK_ENOCONV) return rc;
  if (rc == CPK_ENOMEM)
    return cpk_error_set(err, rc, "t = %g: %s%s%s", w->time, who, sep, e->message);
  if (!o->c.finish_errors++)
    snprintf(o->c.finish_message, sizeof o->c.finish_message, "t = %g: %s: %s%s%.150s", w->time,
             cpk_errname(rc), who, sep, e->message);
  if (S->verbose) fprintf(S->log ? S->log : stderr, "%s%s at t = %g failed (%s: %s); the step "
                          "goes on without it\n", fallback ? "the check's fallback " : "finishing",
                          who, w->time, cpk_errname(rc), e->message);
  return CPK_ENOCONV;
}

/* A step that fails after a finishing attempt (or the check's fallback) ended in an error:
 * the step's error names the first of them, since a failed step reaches no step callback
 * (cpk_scene_run) and its info may go unread. The code stays the step's own. */
static void note_finish_errors(const solve_out *o, cpk_error *err)
{
  if (!err || !o->c.finish_errors) return;
  const char *d = strstr(o->c.finish_message, ": "); /* past "t = T", which the step's has */
  size_t len = strlen(err->message);
  snprintf(err->message + len, sizeof err->message - len, "; the finishing failed: %s",
           d ? d + 2 : o->c.finish_message);
}

/* A solve that stopped short of the tolerance (stalled, iteration limit, after the
 * fallback had its turn) is finished the same way from where it stopped, by the solver
 * that stopped (res->solver): bdnewton stalls at t = 0.8947 of seed 003's tilted
 * ellipsoid with elliptic-torsional (residual 5e-7) and finishes on the exact scales.
 * CPK_OK when the finished answer is solved and passes the check (res then holds it);
 * CPK_ENOCONV with err as the solve left it; else the finishing's error. */
static int finish_stopped(cpk_world *w, const step_contacts *sc, const cpk_problem *p,
                          const cpk_varmap *map, cpk_result *res, solve_out *o, cpk_error *err)
{
  cpk_physics_check ck;
  cpk_error e;
  int finite = 1;
  if (!w->settings.physics_finish || p->kind != CPK_KIND_NONLINEAR_MCP) return CPK_ENOCONV;
  for (size_t i = 0; i < p->n; i++) finite &= isfinite(res->z[i]) != 0;
  if (!finite) return CPK_ENOCONV;
  int rc = physics_ok(w, map, res->z, &ck, &e);
  if (rc == CPK_OK || rc == CPK_ENOCONV)
    rc = physics_finish(w, sc, p, map, res->solver, res, o, &ck, &e);
  return finish_outcome(w, rc, &e, NULL, o, err);
}

/* The check's fallback: `fb` solves p again from the step's start z0; its answer is kept
 * (CPK_OK) when it is solved and passes the check, else CPK_ENOCONV (res untouched). Its
 * iterations count either way. An error of its solve other than memory is an answer no
 * better, counted as a finishing attempt's (finish_outcome). */
static int check_fallback(cpk_world *w, const cpk_problem *p, const cpk_varmap *map,
                          const double *z0, const char *fb, cpk_result *res, solve_out *o,
                          cpk_error *err)
{
  cpk_settings set = w->settings.solve;
  cpk_result *r2 = NULL;
  cpk_physics_check ck2;
  cpk_error e = {CPK_OK, ""};
  set.z0 = z0;
  if (cpk_result_alloc(p->n, &r2)) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  int rc = finish_outcome(w, cpk_solve(p, fb, &set, r2, &e), &e, fb, o, err);
  if (!rc) {
    o->c.iterations += r2->iterations; /* the attempt's work counts, kept or not */
    rc = r2->status == CPK_STATUS_SOLVED ? physics_ok(w, map, r2->z, &ck2, err) : CPK_ENOCONV;
  }
  if (!rc) {
    take_answer(res, r2, NULL, 0, 0, o);
    o->c.fallbacks++;
  }
  cpk_result_free(r2);
  return rc;
}

/* A solved step whose answer fails the check is finished (physics_finish) by the solver
 * that produced it; if that fails (an error of the finishing included: finish_outcome),
 * it is solved again from the step's start by the fallback solver unless the answer
 * already is the fallback's; if that fails too, the step fails (CPK_ENOCONV: the run
 * does not go on with wrong physics) unless physics_continue asks to take it and count
 * it. */
static int physics_check(cpk_world *w, const step_contacts *sc, const cpk_problem *p,
                         const cpk_varmap *map, const double *z0, cpk_result *res, solve_out *o,
                         cpk_error *err)
{
  cpk_physics_check ck;
  cpk_error e;
  const char *solver = res->solver ? res->solver : pick_solver(sc->form_solver, p);
  int rc = physics_ok(w, map, res->z, &ck, err);
  if (rc == CPK_ENOCONV)
    rc = finish_outcome(w, physics_finish(w, sc, p, map, solver, res, o, &ck, &e), &e, NULL, o,
                       err);
  const char *fb = step_fallback(w, p);
  if (rc == CPK_ENOCONV && fb[0] && strcmp(fb, solver) != 0 &&
      cpk_solver_accepts(cpk_solver_find(fb), p)) {
    rc = check_fallback(w, p, map, z0, fb, res, o, err);
    if (rc != CPK_ENOCONV) return rc; /* kept, or an error; else the step solver's stands */
  }
  if (rc != CPK_ENOCONV) return rc;
  if (!w->settings.physics_continue)
    return cpk_error_set(err, CPK_ENOCONV, "t = %g: the answer of %s fails the physical check: "
                         "%.120s (a tighter tolerance or another solver may pass; "
                         "physics_continue takes such steps)", w->time, solver, ck.message);
  if (!o->c.physics_failures++)
    snprintf(o->c.physics_message, sizeof o->c.physics_message, "t = %g, %s: %.160s", w->time,
             solver, ck.message);
  return CPK_OK;
}

/* Compile the system of contacts g (gaps psi) in the form of `solver` (NULL: the
 * model's default form and the solver of its kind) and solve it, warm-started. The
 * step's own solver (`primary`) goes through the world's cache. */
static int solve_compiled(cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                          const double *psi, const char *solver, int primary, solve_out *o,
                          cpk_error *err)
{
  cpk_problem *prob = NULL;
  cpk_varmap *map = NULL;
  cpk_result *res = NULL;
  double *z0 = NULL, t0 = step_clock(w);
  long before = w->cache.compiles;
  primary = primary && w->settings.reuse;
  int rc = primary ? cached_compile(w, pose, g, ng, psi, solver, &z0, err)
                   : compile_step(w, pose, g, ng, psi, solver, &prob, &map, &z0, err);
  o->c.compiles += primary ? (int)(w->cache.compiles - before) : 1;
  if (!rc && primary) {
    prob = w->cache.prob;
    map = w->cache.map;
    res = w->cache.res;
  } else if (!rc) {
    rc = cpk_result_alloc(cpk_varmap_n(map), &res);
  }
  double t1 = step_clock(w);
  o->c.compile_s += t1 - t0;
  if (!rc) {
    rc = sim_solve(w, prob, z0, pick_solver(solver, prob), ng, NULL, res, &o->c.iterations,
                   &o->c.fallbacks, err);
    o->status = res->status;
    o->residual = res->residual;
  }
  step_contacts sc = {pose, g, ng, psi, solver};
  if (rc == CPK_ENOCONV) rc = finish_stopped(w, &sc, prob, map, res, o, err);
  o->c.solver_s += step_clock(w) - t1;
  if (!rc) rc = physics_check(w, &sc, prob, map, z0, res, o, err);
  if (!rc) rc = read_back(map, res->z, ng, o, err);
  if (!primary) { /* else z0 is the world's */
    free(z0);
    cpk_result_free(res);
    cpk_problem_free(prob);
    cpk_varmap_free(map);
  }
  return rc;
}

/* Solve with the step's solver; when it fails and the fallback solver takes another
 * form (a cone solver behind a Newton method, or the reverse), the system is compiled
 * again in the fallback's form and solved from the same impulses. */
static int solve_system(cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                        const double *psi, solve_out *o, cpk_error *err)
{
  const char *solver = step_solver(w), *fb = step_fallback(w, NULL);
  const char *model = w->settings.model;
  cpk_problem_form f = w->settings.compile.form;
  int rc = solve_compiled(w, pose, g, ng, psi, solver, 1, o, err);
  if (rc != CPK_ENOCONV || !fb[0] ||
      cpk_compile_form_for_solver(model, fb, f) == cpk_compile_form_for_solver(model, solver, f))
    return rc;
  rc = solve_compiled(w, pose, g, ng, psi, fb, 0, o, err);
  o->c.fallbacks += rc == CPK_OK;
  return rc;
}

/* Bodies advanced over one step with dynamic velocities vplus (driven bodies
 * follow their motion to t1); vplus NULL keeps the velocities. */
static void advance(const cpk_world *w, const size_t *dof, const double *vplus, double t1,
                    cpk_body *out)
{
  double h = w->settings.h;
  for (size_t b = 0; b < w->nbodies; b++) {
    cpk_body *B = &out[b];
    *B = w->bodies[b];
    if (B->kind == CPK_BODY_DRIVEN) {
      sim_motion_eval(B, w->x0[b], w->q0[b], t1, B->x, B->q, B->v, B->w);
    } else if (B->kind == CPK_BODY_DYNAMIC) {
      if (vplus)
        for (int i = 0; i < 3; i++) {
          B->v[i] = vplus[dof[b] + i];
          B->w[i] = vplus[dof[b] + 3 + i];
        }
      for (int i = 0; i < 3; i++) B->x[i] += h * B->v[i];
      sim_qintegrate(B->q, B->w, h);
    }
  }
}

/* Driven bodies move with their mid-step velocity in the contact drift (so a
 * translation's displacement over the step is exact). */
static void driven_midstep(cpk_world *w)
{
  double x[3], q[4];
  for (size_t b = 0; b < w->nbodies; b++)
    if (w->bodies[b].kind == CPK_BODY_DRIVEN)
      sim_motion_eval(&w->bodies[b], w->x0[b], w->q0[b], w->time + 0.5 * w->settings.h, x, q,
                      w->bodies[b].v, w->bodies[b].w);
}

/* The driven bodies as a step sees them (mid-step velocities), with a copy of
 * the bodies to go back to: midstep_end restores it (a failed step, or a look
 * at a step's problem without taking it). */
static cpk_body *midstep_begin(cpk_world *w)
{
  cpk_body *saved = cpk_alloc_array(w->nbodies + 1, sizeof *saved);
  if (!saved) return NULL;
  memcpy(saved, w->bodies, w->nbodies * sizeof *saved);
  driven_midstep(w);
  return saved;
}

static void midstep_end(cpk_world *w, cpk_body *saved)
{
  memcpy(w->bodies, saved, w->nbodies * sizeof *saved);
  free(saved);
}

/* Normal contact velocity of g with the velocities of the bodies in `state`. */
static double normal_velocity(const cpk_body *state, const sim_geom *g)
{
  double u = 0;
  for (int s = 0; s < 2; s++) {
    const cpk_body *B = &state[g->body[s]];
    double r[3] = {g->point[0] - B->x[0], g->point[1] - B->x[1], g->point[2] - B->x[2]}, wr[3];
    if (B->kind == CPK_BODY_FIXED) continue;
    sim_vcross(B->w, r, wr);
    for (int i = 0; i < 3; i++) u += (s == 0 ? 1.0 : -1.0) * g->normal[i] * (B->v[i] + wr[i]);
  }
  return u;
}

/* Size the arrays of o for nv velocities and ng contacts: one block (vplus, P, delta, then
 * the modes), one allocation a solve, or B's kept block (the step's first solve). */
static int out_alloc(solve_out *o, size_t nv, size_t ng, sim_step_buf *B)
{
  size_t n = ng ? ng : 1, nd, nm;
  memset(o, 0, sizeof *o);
  if (cpk_size_mul(n, 8, &nd) || nv > SIZE_MAX - nd) return CPK_ENOMEM;
  nm = (n * sizeof(int) + sizeof(double) - 1) / sizeof(double); /* doubles that hold n ints */
  nd -= n;                                                       /* 4 n for P, 3 n for delta */
  if (nd + nv > SIZE_MAX - nm) return CPK_ENOMEM;
  double *blk = NULL;
  if (B && !sim_grow((void **)&B->out, &B->capout, nv + nd + nm, sizeof *blk)) blk = B->out;
  if (!B) blk = cpk_alloc_array(nv + nd + nm, sizeof *blk);
  if (!blk) return CPK_ENOMEM;
  o->kept = B != NULL;
  o->vplus = blk;
  o->P = blk + nv;
  o->delta = o->P + 4 * n;
  o->modes = (int *)(o->delta + 3 * n);
  return CPK_OK;
}

static void out_free(solve_out *o)
{
  if (!o->kept) free(o->vplus);
}

/* Contacts of the bodies in `state` (the world's own bodies are swapped out
 * for the call so collision detection needs no second interface). */
static int collide_at(cpk_world *w, cpk_body *state, sim_geom **g, size_t *ng, size_t *cap,
                      cpk_error *err)
{
  cpk_body *own = w->bodies;
  w->bodies = state ? state : own;
  int rc = sim_collide(w, g, ng, cap, &w->buf.pairs, &w->buf.cappairs, err);
  w->bodies = own;
  return rc;
}

/* v+ = v + h M^-1 k for a step without contacts (M is block diagonal). */
static void free_velocity(const cpk_world *w, const size_t *dof, double *vplus)
{
  double h = w->settings.h;
  for (size_t b = 0; b < w->nbodies; b++) {
    const cpk_body *B = &w->bodies[b];
    if (dof[b] == (size_t)-1) continue;
    double R[9], wb[3], Lb[3], tb[3], gyro[3], Jw[3];
    sim_qmatrix(B->q, R);
    sim_rotate_t(R, B->w, wb);
    for (int i = 0; i < 3; i++) Lb[i] = B->inertia[i] * wb[i];
    sim_rotate(R, Lb, Jw);
    sim_vcross(B->w, Jw, gyro);
    for (int i = 0; i < 3; i++) gyro[i] = B->torque[i] - gyro[i];
    sim_rotate_t(R, gyro, tb);
    for (int i = 0; i < 3; i++) tb[i] /= B->inertia[i];
    sim_rotate(R, tb, tb);
    for (int i = 0; i < 3; i++) {
      vplus[dof[b] + i] = B->v[i] + h * (w->settings.gravity[i] + B->force[i] / B->mass);
      vplus[dof[b] + 3 + i] = B->w[i] + h * tb[i];
    }
  }
}

/* Work arrays of one step. */
typedef struct step_ws {
  size_t *dof, nv;
  cpk_body *pose; /* end-of-step estimate */
  sim_geom *g;
  size_t ng, capg, cappsi;
  double *psi;
  solve_out o;
  double detect_s; /* wall time finding contacts */
} step_ws;

/* collide_at for a step, timed. */
static int step_collide(cpk_world *w, step_ws *s, cpk_body *state, cpk_error *err)
{
  double t0 = step_clock(w);
  int rc = collide_at(w, state, &s->g, &s->ng, &s->capg, err);
  s->detect_s += step_clock(w) - t0;
  return rc;
}

/* First solve, at the poses of the start of the step. */
static int first_solve(cpk_world *w, step_ws *s, cpk_error *err)
{
  int rc = step_collide(w, s, NULL, err);
  if (!rc && out_alloc(&s->o, s->nv, s->ng, &w->buf)) rc = CPK_ENOMEM;
  if (rc) return rc;
  if (s->ng == 0) {
    free_velocity(w, s->dof, s->o.vplus);
    s->o.status = CPK_STATUS_SOLVED;
    return CPK_OK;
  }
  return solve_system(w, NULL, s->g, s->ng, NULL, &s->o, err);
}

/* One implicit sweep: geometry at the end-of-step estimate, its gap linearised
 * there (psi = gap(q~) - h U_n(v~)). Writes the change of v+ to *change. */
static int implicit_sweep(cpk_world *w, step_ws *s, double *change, cpk_error *err)
{
  double h = w->settings.h;
  solve_out o2;
  advance(w, s->dof, s->o.vplus, w->time + h, s->pose);
  for (size_t b = 0; b < w->nbodies; b++)
    if (w->bodies[b].kind == CPK_BODY_DRIVEN) {
      memcpy(s->pose[b].v, w->bodies[b].v, sizeof s->pose[b].v);
      memcpy(s->pose[b].w, w->bodies[b].w, sizeof s->pose[b].w);
    }
  int rc = step_collide(w, s, s->pose, err);
  if (!rc && sim_grow((void **)&s->psi, &s->cappsi, s->ng + 1, sizeof *s->psi)) rc = CPK_ENOMEM;
  if (!rc && out_alloc(&o2, s->nv, s->ng, NULL)) {
    out_free(&o2);
    rc = CPK_ENOMEM;
  }
  if (rc) return rc == CPK_ENOMEM ? cpk_error_set(err, rc, "out of memory") : rc;
  for (size_t c = 0; c < s->ng; c++) s->psi[c] = s->g[c].gap - h * normal_velocity(s->pose, &s->g[c]);
  o2.c = s->o.c; /* the step's counts go on */
  if (s->ng == 0) {
    free_velocity(w, s->dof, o2.vplus);
    o2.status = CPK_STATUS_SOLVED;
  } else {
    rc = solve_system(w, s->pose, s->g, s->ng, s->psi, &o2, err);
  }
  *change = 0;
  for (size_t i = 0; i < s->nv; i++) *change = fmax(*change, fabs(o2.vplus[i] - s->o.vplus[i]));
  out_free(&s->o);
  s->o = o2;
  return rc;
}

/* Accept the step: contacts and their memory, new poses and velocities, time.
 * Nothing of the world changes unless all of it can. */
static int commit(cpk_world *w, step_ws *s, cpk_error *err)
{
  size_t n = s->ng;
  advance(w, s->dof, s->o.vplus, w->time + w->settings.h, s->pose);
  if (!sim_state_finite(s->pose, w->nbodies))
    return cpk_error_set(err, CPK_EBADFUNC, "t = %g: a body's state is no longer finite "
                         "(check masses, forces and the step)", w->time);
  if (sim_reserve_contacts(w, n)) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t c = 0; c < n; c++) {
    cpk_sim_contact *k = &w->contacts[c];
    sim_memory *m = &w->memory[c];
    const sim_geom *g = &s->g[c];
    k->body[0] = m->body[0] = g->body[0];
    k->body[1] = m->body[1] = g->body[1];
    k->feature = m->feature = g->feature;
    memcpy(k->point, g->point, sizeof k->point);
    memcpy(k->normal, g->normal, sizeof k->normal);
    k->gap = g->gap;
    memcpy(k->P, &s->o.P[4 * c], sizeof k->P);
    memcpy(m->P, k->P, sizeof m->P);
    memcpy(k->delta, &s->o.delta[3 * c], sizeof k->delta);
    memcpy(m->delta, k->delta, sizeof m->delta);
    k->mode = s->o.modes[c];
  }
  w->ncontacts = w->nmemory = n;
  sim_memory_reindex(w);
  memcpy(w->bodies, s->pose, w->nbodies * sizeof *w->bodies);
  w->time += w->settings.h;
  return CPK_OK;
}

static int run_step(cpk_world *w, step_ws *s, cpk_sim_step_info *info, cpk_error *err)
{
  int rc = first_solve(w, s, err);
  double change = INFINITY, scale = 1;
  info->sweeps = 1;
  for (int k = 0; !rc && k < w->settings.implicit_iterations; k++) {
    for (size_t i = 0; i < s->nv; i++) scale = fmax(scale, fabs(s->o.vplus[i]));
    rc = implicit_sweep(w, s, &change, err);
    info->sweeps++;
    if (!rc && change <= w->settings.implicit_tol * scale) break;
  }
  info->implicit_converged = w->settings.implicit_iterations == 0 ||
                             change <= w->settings.implicit_tol * scale;
  info->status = s->o.status;
  info->residual = s->o.residual;
  info->iterations = s->o.c.iterations;
  info->fallbacks = s->o.c.fallbacks;
  info->physics_failures = s->o.c.physics_failures;
  info->finishes = s->o.c.finishes;
  info->finish_errors = s->o.c.finish_errors;
  memcpy(info->finish_message, s->o.c.finish_message, sizeof info->finish_message);
  info->detect_time_s = s->detect_s;
  info->compile_time_s = s->o.c.compile_s;
  info->solver_time_s = s->o.c.solver_s;
  info->compiles = s->o.c.compiles;
  memcpy(info->physics_message, s->o.c.physics_message, sizeof info->physics_message);
  if (!rc) rc = commit(w, s, err);
  if (rc) note_finish_errors(&s->o, err);
  return rc;
}

/* Room in w->buf for the bodies of w (grown, never shrunk; CPK_ENOMEM keeps what it holds). */
static int step_buffers(cpk_world *w)
{
  sim_step_buf *B = &w->buf;
  size_t n = w->nbodies + 1;
  int rc = sim_grow((void **)&B->dof, &B->capdof, n, sizeof *B->dof);
  if (!rc) rc = sim_grow((void **)&B->pose, &B->cappose, n, sizeof *B->pose);
  if (!rc) rc = sim_grow((void **)&B->saved, &B->capsaved, n, sizeof *B->saved);
  return rc;
}

int cpk_world_step(cpk_world *w, cpk_sim_step_info *info, cpk_error *err)
{
  step_ws s;
  cpk_sim_step_info local;
  sim_step_buf *B = &w->buf;
  double t0 = step_clock(w);
  if (!info) info = &local;
  memset(info, 0, sizeof *info);
  memset(&s, 0, sizeof s);
  if (step_buffers(w)) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  s.dof = B->dof;
  s.pose = B->pose;
  s.g = B->g;
  s.capg = B->capg;
  s.psi = B->psi;
  s.cappsi = B->cappsi;
  int rc = sim_dofs(w, s.dof, &s.nv) ? CPK_OK
                                      : cpk_error_set(err, CPK_EINVAL, "the world has no dynamic body");
  if (!rc) { /* the driven bodies at mid-step, as midstep_begin, into the kept copy */
    memcpy(B->saved, w->bodies, w->nbodies * sizeof *B->saved);
    driven_midstep(w);
    rc = strcmp(w->settings.model, SIM_MODEL_KV_IMPLICIT) ? run_step(w, &s, info, err)
                                                          : sim_implicit_step(w, info, err);
    if (rc) memcpy(w->bodies, B->saved, w->nbodies * sizeof *w->bodies); /* failed: not moved */
  }
  info->time = w->time;
  info->ncontacts = rc ? 0 : w->ncontacts;
  info->contacts = w->contacts;
  info->solve_time_s = step_clock(w) - t0;
  B->g = s.g; /* the arrays the step grew stay the world's */
  B->capg = s.capg;
  B->psi = s.psi;
  B->cappsi = s.cappsi;
  out_free(&s.o);
  return rc;
}

int cpk_world_contact_system(cpk_world *w, cpk_contact_system **out, cpk_error *err)
{
  sim_geom *g = NULL;
  size_t ng = 0, cap = 0;
  *out = NULL;
  cpk_body *saved = midstep_begin(w);
  if (!saved) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  int rc = collide_at(w, NULL, &g, &ng, &cap, err);
  if (!rc) rc = sim_assemble(w, NULL, g, ng, NULL, out, err);
  midstep_end(w, saved);
  free(g);
  return rc;
}

int cpk_world_find_contacts(cpk_world *w, cpk_sim_contact **contacts, size_t *n, cpk_error *err)
{
  sim_geom *g = NULL;
  size_t ng = 0, cap = 0;
  *contacts = NULL;
  *n = 0;
  int rc = collide_at(w, NULL, &g, &ng, &cap, err);
  cpk_sim_contact *c = rc || !ng ? NULL : cpk_calloc_array(ng, sizeof *c);
  if (!rc && ng && !c) rc = cpk_error_set(err, CPK_ENOMEM, "out of memory");
  for (size_t k = 0; c && k < ng; k++) {
    memcpy(c[k].body, g[k].body, sizeof c[k].body);
    c[k].feature = g[k].feature;
    memcpy(c[k].point, g[k].point, sizeof c[k].point);
    memcpy(c[k].normal, g[k].normal, sizeof c[k].normal);
    c[k].gap = g[k].gap;
  }
  free(g);
  *contacts = c;
  *n = rc ? 0 : ng;
  return rc;
}

int cpk_world_next_problem(cpk_world *w, cpk_problem **problem, cpk_varmap **map, double **z0,
                           size_t *ncontacts, cpk_error *err)
{
  sim_geom *g = NULL;
  size_t ng = 0, cap = 0;
  *problem = NULL;
  *map = NULL;
  *z0 = NULL;
  cpk_body *saved = midstep_begin(w);
  if (!saved) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  int rc = collide_at(w, NULL, &g, &ng, &cap, err);
  if (!rc && ng == 0) rc = cpk_error_set(err, CPK_ENOTFOUND, "t = %g: no contact", w->time);
  if (!rc) rc = compile_step(w, NULL, g, ng, NULL, step_solver(w), problem, map, z0, err);
  midstep_end(w, saved);
  if (ncontacts) *ncontacts = ng;
  free(g);
  return rc;
}
