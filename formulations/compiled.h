/* compiled.h: internal to formulations/: the compiled contact problem (variable map) shared by the four models, the contact-space block operator, and the row interface each model implements. */
#ifndef CPK_FORMULATIONS_COMPILED_H
#define CPK_FORMULATIONS_COMPILED_H
#include <stddef.h>
#include <cpkit/contact.h>
#include <cpkit/linsys.h>

/*
 * Every model is written per contact in terms of the contact's own unknowns
 * z_c and its contact velocity U_c (n, t, o, r). The impulse a contact applies
 * is linear in its unknowns, P_c = T_c z_c, so the generic assembler in
 * compiler.c can build, for any model:
 *   mixed:   F_v = M v - sum_c J_c P_c - rhs,   U_c = J_c^T v + drift_c
 *   reduced: U_c = sum_j A_cj P_j + b_c          (A = J^T M^-1 J by blocks)
 * and the model only supplies the rows F_c(U_c, z_c) with their partial
 * derivatives; the chain rule through J or A is done once, here.
 */

/* Contact-space operator A (4 x 4 blocks, block-row CSR) and free contact velocity b. */
typedef struct cvm_blockop {
  size_t nc;
  size_t *ptr;   /* nc + 1 */
  size_t *col;   /* block column (contact) of each block */
  double *val;   /* 16 per block, [a][b] row-major: row component a, column component b */
  double *b;     /* 4 nc: free contact velocity, drift included */
  double *vstar; /* body form: nv, v + h M^-1 k (h > 0) or M^-1 k (h = 0); NULL for local */
  /* the build's scratch, kept so that the next build over this operator (the stepper's,
   * every step) allocates nothing: the block list (capacity lcap; after a build its first
   * ptr[nc] entries are the blocks in column order, j ascending, val's values: the cone
   * form reads them so), the body form's index
   * block (nscratch entries, zero at the start of a build) and X (4 nv, zero) */
  size_t nv, lcap, nscratch;
  size_t *lbi, *lbj, *scratch;
  double *lval, *X;
} cvm_blockop;

/* The factorization of a body-form M (mass_factor.c): nb > 0 dense LU blocks (rows
 * start[b] .. start[b + 1] - 1, factors at L + off[b], row permutation at perm +
 * start[b]) when M is block diagonal with small blocks, else ls (a sparse LU). */
/* Largest diagonal block of M factored densely; larger coupled groups go to UMFPACK. */
#define CVM_MASS_BLOCK_MAX 64
typedef struct cvm_mass {
  size_t n, nb;
  size_t *start, *off, *block; /* block[r]: the block of row r */
  double *L;
  double *inv; /* blocks of at most 8 rows: their inverses, column-major at inv + off[b] */
  int *perm;   /* LAPACK's pivots */
  cpk_linsys *ls;
} cvm_mass;
int cvm_mass_factor(const cpk_csc *M, cvm_mass **out);
/* The same into *old's arrays when M has old's blocks (*old is NULL after: taken over, or
 * freed and a new factorization made). */
int cvm_mass_factor_reuse(const cpk_csc *M, cvm_mass **old, cvm_mass **out);
void cvm_mass_free(cvm_mass *F);
/* x <- M^-1 x (CPK_ESINGULAR for F NULL: M could not be factored); with blocks, the
 * rows of block b only. */
int cvm_mass_apply(const cvm_mass *F, double *x);
void cvm_mass_solve_block(const cvm_mass *F, size_t b, double *x);

/* The operator of s; F (may be NULL) is s->M's factorization for a body-form system.
 * old (may be NULL): an earlier operator whose arrays B takes over where the sizes agree
 * (old is left empty). */
int cvm_blockop_build(const cpk_contact_system *s, const cvm_mass *F, cvm_blockop *B,
                      cvm_blockop *old, cpk_error *err);
void cvm_blockop_free(cvm_blockop *B);

/* One unknown of a contact. */
typedef struct cvm_var {
  cpk_var_role role;
  size_t index; /* direction j for P_D */
  double lo, hi;
  double T[4]; /* contribution of this unknown to the contact impulse (n, t, o, r) */
} cvm_var;

/* What the compilers know about one contact. Local indices k refer to vars[first + k]. */
typedef struct cvm_contact {
  size_t first, m;
  double psi, mu, e2[3]; /* e2 = (e_t^2, e_o^2, e_r^2) */
  int nonlinear;         /* rows not affine (ellipsoidal friction) */
  int torsion;           /* the friction law includes the moment about n */
  int sliding0;          /* h = 0: slipping at the start; friction follows P_n in T */
  double s[4];           /* h = 0: contact velocity at the start */
  /* local indices of the roles (SIZE_MAX when absent) */
  size_t kpn[2], npn; /* normal impulse unknowns (p_n, or p_ns and p_nr) */
  size_t kf[3], nf;   /* friction unknowns p_t, p_o[, p_r] (NCP models) */
  size_t ksig;        /* sigma */
  size_t kdelta;      /* kelvin-voigt: first of delta_n, delta_t, delta_o */
  /* kelvin-voigt */
  int compliant;
  double S[9];      /* h K + C */
  double Cdprev[3]; /* C delta_prev */
  double delta_max;
  /* polyhedral */
  size_t ndir, dir_off; /* directions (t, o, r) at dirs[3 * dir_off ...] */
  /* cone form: u'_a = rs[a] U_a (S of the change of variables; 0 = a decoupled twist row) */
  double rs[4];
  double cone_mu; /* mu of the cone (0 for a contact sliding at the start at h = 0) */
  /* units of the NCP friction rows (contact_scale.c): compliance w (velocity per
   * impulse, diagonal of A_cc) and reference velocity V (free contact velocity) */
  double scale_w, scale_v;
} cvm_contact;

typedef struct cvm_emitter cvm_emitter;

/* What a model's row function sees for one contact. */
typedef struct cvm_rowctx {
  const struct cpk_varmap *C;
  const cvm_contact *cc;
  size_t c;
  const double *z;      /* all unknowns */
  const size_t *g;      /* global index of each local unknown */
  const double *U;      /* contact velocity (4) */
  double *f;            /* m rows, paired with the local unknowns */
  double *dfdU;         /* m x 4 row-major: partials with respect to U */
  unsigned char *umask; /* m: bit a set when row depends on U_a (structurally) */
  cvm_emitter *em;      /* NULL when only F is wanted */
} cvm_rowctx;

/* Value of local unknown k. */
#define CVM_Z(x, k) ((x)->z[(x)->g[(k)]])

/* Partial of row `row` with respect to local unknown `var` (structural: emit even when 0). */
void cvm_partial(cvm_rowctx *x, size_t row, size_t var, double value);

typedef int (*cvm_rows_fn)(cvm_rowctx *x);
struct cpk_varmap;
/* Model set-up: fill C->cc[c] (except first) and its unknowns for every contact. */
typedef int (*cvm_setup_fn)(struct cpk_varmap *C, const cpk_contact_system *s,
                            const cpk_compile_options *o, cpk_error *err);

/* The compiled problem (the public cpk_varmap). */
struct cpk_varmap {
  cpk_contact_model model;
  cpk_system_form sysform;
  int mixed, affine;
  int cone;         /* the cone form (cone_form.c): unknowns contact by contact, dim each */
  size_t cone_dim;
  double h;
  size_t nv, nc, n; /* n = unknowns; the first nv are v when mixed */
  cvm_contact *cc;
  cvm_var *vars;
  size_t nvars, cap_vars;
  size_t *gidx;       /* nvars: global index of each local unknown */
  cpk_var_info *info; /* n */
  double *dirs;       /* polyhedral directions */
  size_t ndirs, cap_dirs;
  cvm_rows_fn rows;
  cvm_setup_fn setup;          /* the model's (compile_update.c compiles again with it) */
  cpk_compile_options options; /* as compiled (the distributed model's form resolved) */
  /* kinematics (body form) */
  cpk_csc *M;
  cvm_mass *mass; /* M factored (NULL when singular) */
  size_t *wptr;
  cpk_int *wrow;
  double *wval;
  double *rhs;   /* M v + h k, or k at h = 0 */
  double *drift; /* 4 nc */
  /* reduced form */
  cvm_blockop B;
  int has_B;
  /* Jacobian pattern and the position of every emitted entry in it */
  cpk_csc *pattern;
  size_t ntrip;
  size_t *pos;
  /* workspace of the callbacks; check: cpk_varmap_check's (P, U, U0, zero: 4 nc each, v:
   * nv), in P's block (the stepper checks every step: no allocation there) */
  double *P, *U, *fwork, *floc, *dfdU, *check;
  /* cpk_compile_update's arrays (the cone form's W' values, q', mu), kept by the compiled
   * map across updates so that the stepper's path allocates them once */
  double *upd;
  size_t upd_cap;
  unsigned char *umask;
  size_t mmax;
  /* distributed compliance (distributed.c); NULL for the other models */
  struct cvm_influence *influence;
  /* cpk_compile_update's map of the layout it replaced, laid out again at the next update
   * in its own arrays (layout_reuse.c); NULL until then */
  struct cpk_varmap *spare;
};

/* Append an unknown to the contact being set up (the last one in C->cc with m counted). */
int cvm_add_var(struct cpk_varmap *C, size_t c, cpk_var_role role, size_t index, double lo,
                double hi, const double T[4]);

/* 1 when the unknown applies an impulse (T not identically zero): the structural test
 * of the chain rule's entries, which never looks at the wrenches' or blocks' values. */
int cvm_var_acts(const cvm_var *v);

/* The generic compile driver used by every model. */
int cvm_compile(const cpk_contact_system *s, cpk_contact_model model, const cpk_compile_options *o,
                cvm_setup_fn setup, cvm_rows_fn rows, cpk_problem **problem, cpk_varmap **map,
                cpk_error *err);

/* A map with nothing compiled yet (NULL when out of memory), the layout of system s in
 * it (everything but the pattern and the problem), and for an emitted pattern: q = F(0)
 * (affine models) and the Jacobian's values at 0 on C->pattern (x; z: n doubles of work
 * for the point 0), CPK_EUNSUP when
 * there are not as many entries as recorded or (`checked`) one is not where the pattern
 * puts it; unchecked, the caller has made sure the structure is the recorded one
 * (compile_update.c). */
struct cpk_varmap *cvm_varmap_new(cpk_contact_model model, const cpk_compile_options *o,
                                  cvm_setup_fn setup, cvm_rows_fn rows);
int cvm_compile_layout(struct cpk_varmap *C, const cpk_contact_system *s,
                       struct cpk_varmap *old, cpk_error *err);
/* Layout reuse (layout_reuse.c). cvm_reuse: *old (an array of n_old elements of `size`
 * bytes, or NULL) when n_old == n, zeroed if asked, else a new array (*old freed); *old
 * is NULL after. cvm_compile_layout's old (may be NULL) is a map whose arrays the layout
 * takes over where the sizes agree; the caller releases what is left
 * (cvm_varmap_release). cvm_varmap_recycle moves C's contents into old and leaves C as
 * cvm_varmap_new left it (same model, options, set-up and rows). */
void *cvm_reuse(void **old, size_t n_old, size_t n, size_t size, int zero);
void cvm_varmap_recycle(struct cpk_varmap *C, struct cpk_varmap *old);
/* Everything a map holds (its spare included), the map itself excepted. */
void cvm_varmap_release(struct cpk_varmap *C);
int cvm_pattern_values(struct cpk_varmap *C, double *q, double *x, double *z, int checked);
/* The bounds of the unknowns (allocated), or into lo and hi (n each). */
int cvm_bounds(const struct cpk_varmap *C, double **lo, double **hi);
void cvm_bounds_into(const struct cpk_varmap *C, double *lo, double *hi);

/* The cone form (cone_form.c): the unknowns of every contact, and the emitted
 * friction-cone problem (after the layout and the block operator are built). */
int cvm_cone_setup(struct cpk_varmap *C, const cpk_contact_system *s, const cpk_compile_options *o,
                   cpk_error *err);
int cvm_cone_emit(const struct cpk_varmap *C, const cpk_compile_options *o, cpk_problem **p);
/* For an update in place: W' of C on the CSC pattern P into x (P's order, zeros where
 * W' has no entry; CPK_EUNSUP when an entry falls outside P), and q', mu. */
int cvm_cone_scatter(const struct cpk_varmap *C, const cpk_csc *P, double *x);
void cvm_cone_vector(const struct cpk_varmap *C, double *q, double *mu);
/* Slip speed of contact c at h = 0 from its start velocity (0 when mu = 0 or rolling),
 * and the impulse of a unit normal impulse of such a sliding contact (seed 000 eq. (2)). */
double cvm_start_slip(const cvm_contact *cc, double rolling_tol);
void cvm_sliding0_impulse(const cvm_contact *cc, double slip, double T[4]);

/* Shared pieces of the models. */
/* Unknowns and rows of the NCP friction law (ellipsoid, seed 003 eq. (5)) for contact c. */
int cvm_setup_ellipsoid(struct cpk_varmap *C, const cpk_contact_system *s, size_t c,
                        const double e[3], int torsion, double rolling_tol, cpk_error *err);
int cvm_rows_ellipsoid(cvm_rowctx *x);
/* The friction rows alone (p_t, p_o[, p_r], sigma), normal impulse = sum of kpn unknowns;
 * gap = the contact's normal row in velocity units (U_n + ...), which depends on U_n and,
 * when kgap is not SIZE_MAX, on local unknown kgap with coefficient dgap. */
void cvm_friction_rows(cvm_rowctx *x, double gap, size_t kgap, double dgap);
/* 1 when the rows are the scaled ones (nonlinear problems; affine ones keep the seeds' rows). */
int cvm_rows_scaled(const cvm_rowctx *x);
/* Per-contact scale_w and scale_v of every contact (after the contact operator is built). */
int cvm_contact_scales(struct cpk_varmap *C); /* CPK_ENOMEM only */
/* The size of each row of the scaled nonlinear rows (n values, the problem's row_scale). */
void cvm_row_scales(const struct cpk_varmap *C, double *scale);
/* Normal row of unknown k: U_n + (psi + extra) / h, or U_n at h = 0. */
double cvm_normal_gap(const cvm_rowctx *x, double extra);

/* Impulses P (4 nc) of z, and the contact velocities U (4 nc) given z and P. */
void cvm_impulses(const struct cpk_varmap *C, const double *z, double *P);
void cvm_contact_velocity(const struct cpk_varmap *C, const double *z, const double *P, double *U);
/* v+ (nv, body form) and the contact velocities U (4 nc) that impulses P give (warm_point.c). */
int cvm_motion(const struct cpk_varmap *m, const double *P, double *v, double *U, cpk_error *err);
/* 1 if contact c of s has a non-zero twist column (body) or 4 unknowns (local). */
int cvm_has_twist(const cpk_contact_system *s, size_t c);

/* Distributed compliance (distributed.c): the elastic term (G P / h - u0) / h added to U,
 * its chain rule for the rows of contact c, and freeing. cvm_partial_global is the
 * partial of a local row with respect to any unknown (global index). */
void cvm_partial_global(cvm_rowctx *x, size_t row, size_t gcol, double value);
void cvm_influence_velocity(const struct cpk_varmap *C, const double *P, double *U);
void cvm_influence_expand(const struct cpk_varmap *C, size_t c, cvm_rowctx *x);
void cvm_influence_free(struct cvm_influence *G);

/* polyhedral.c, shared with the distributed model: append a direction (t, o, r),
 * n directions on the ellipse (a, b) at height r from angle offset, and the
 * Stewart-Trinkle rows of one contact. */
int cvm_push_dir(cpk_varmap *C, double t, double o, double r);
int cvm_push_circle(cpk_varmap *C, size_t n, double a, double b, double r, double offset);
int cvm_rows_polyhedral(cvm_rowctx *x);

#endif
