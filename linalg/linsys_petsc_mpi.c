/* linsys_petsc_mpi.c: MPI and PETSc initialisation for the petsc backends, ranks (cpkit/parallel.h) and the residual reduced over ranks. */
#include <config.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <cpkit/parallel.h>
#ifdef HAVE_PETSC
#include <petscsys.h>
#include "linsys_petsc.h"
#endif

/* The launcher's idea of this process's rank or size, for a process that has not initialised MPI. */
static int launcher_value(const char *const *names, int fallback)
{
  for (; *names; names++) {
    const char *v = getenv(*names);
    if (v && *v) return atoi(v);
  }
  return fallback;
}

static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", NULL};
static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL};

void cpk_mpi_block(size_t n, size_t group, int rank, int size, size_t *lo, size_t *hi)
{
  if (group == 0) group = 1;
  if (size < 1) size = 1;
  size_t groups = n / group + (n % group != 0);
  size_t g0 = (size_t)((double)groups * rank / size), g1 = (size_t)((double)groups * (rank + 1) / size);
  *lo = g0 * group < n ? g0 * group : n;
  *hi = g1 * group < n ? g1 * group : n;
}

/*
 * What the next petsc instance takes as its row group (petsc_row_group, read once at
 * its allocation): each instance keeps its own, so solvers of different problems
 * interleaved in one program each keep their contacts whole.
 */
static size_t next_row_group = 1;

void cpk_mpi_set_row_group(size_t rows) { next_row_group = rows ? rows : 1; }

#ifndef HAVE_PETSC
int cpk_mpi_rank(void) { return launcher_value(rank_vars, 0); }
int cpk_mpi_size(void) { return launcher_value(size_vars, 1); }
int cpk_mpi_all(int flag) { return flag != 0; }
int cpk_mpi_agree(int rc) { return rc; }
int cpk_mpi_agree_stop(int *stop)
{
  (void)stop;
  return CPK_OK;
}
void cpk_mpi_agree_reset(void) {}
void cpk_mpi_agree_end(void) {}
int cpk_mpi_residual(const cpk_problem *p, const double *z, double *w, double *r)
{
  return cpk_problem_residual(p, z, w, r);
}
int cpk_mpi_reduce(double *x, size_t k, cpk_mpi_op op)
{
  (void)x;
  (void)k;
  (void)op;
  return CPK_OK;
}
#else
static int began_mpi; /* petsc_ready called MPI_Init, so petsc_finalize calls MPI_Finalize */

/*
 * Finalise only what petsc_ready initialised, at exit (MPI last: petsc_ready
 * initialises it itself, so PetscFinalize leaves it alone). A program owning
 * MPI may have finalised it already: PETSc cannot be finalised after that.
 */
static void petsc_finalize(void)
{
  PetscBool done = PETSC_TRUE;
  int mpi_done = 1;
  if (MPI_Finalized(&mpi_done) != MPI_SUCCESS || mpi_done) return;
  if (PetscFinalized(&done) == 0 && !done) (void)PetscFinalize();
  if (began_mpi) (void)MPI_Finalize();
}

/*
 * PETSc is initialised on first use unless the caller (or its MPI program) did it:
 * then the caller's options, error handler and finalisation stay theirs. Not thread-safe.
 */
int petsc_ready(void)
{
  PetscBool up = PETSC_FALSE;
  int mpi_up = 0;
  if (PetscInitialized(&up)) return CPK_ELINSYS;
  if (up) return CPK_OK;
  if (MPI_Initialized(&mpi_up) != MPI_SUCCESS) return CPK_ELINSYS;
  if (!mpi_up) {
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return CPK_ELINSYS;
    began_mpi = 1;
  }
  /* cpkit reports errors through return codes: no PETSc signal handler or tracebacks. */
  if (PetscOptionsSetValue(NULL, "-no_signal_handler", NULL)) return CPK_ELINSYS;
  if (PetscInitializeNoArguments()) return CPK_ELINSYS;
  if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return CPK_ELINSYS;
  if (atexit(petsc_finalize)) return CPK_ELINSYS;
  return CPK_OK;
}

size_t petsc_row_group(void) { return next_row_group; }

/* Error codes are positive: MAX lets any rank's error win over CPK_OK (0), the same code on every rank. */
int petsc_agree_rc(MPI_Comm comm, int rc)
{
  int all = rc;
  if (MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return CPK_ELINSYS;
  return all;
}

/* MPI is usable (initialised, not finalised): only then are ranks asked or reductions made. */
static int mpi_live(void)
{
  int up = 0, down = 1;
  return MPI_Initialized(&up) == MPI_SUCCESS && up && MPI_Finalized(&down) == MPI_SUCCESS && !down;
}

int cpk_mpi_rank(void)
{
  int r = 0;
  if (!mpi_live()) return launcher_value(rank_vars, 0);
  return MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS ? r : 0;
}

int cpk_mpi_size(void)
{
  int k = 1;
  if (!mpi_live()) return launcher_value(size_vars, 1);
  return MPI_Comm_size(MPI_COMM_WORLD, &k) == MPI_SUCCESS ? k : 1;
}

/*
 * The error of a cpk_mpi_agree where some ranks had an error and some not, kept
 * during a driver run (between cpk_mpi_agree_reset and cpk_mpi_agree_end). The rank
 * that failed makes no collective call after its agreement (it has left its solver);
 * the ranks that learn of it must not make one either, so their later agreements
 * return it without a call. Outside a run (cpk_linsys_* called directly) every rank
 * gets the same error back from the same call and goes on alike: nothing is kept.
 */
static int agreed_error, run_open;

void cpk_mpi_agree_reset(void)
{
  agreed_error = CPK_OK;
  run_open = 1;
}

void cpk_mpi_agree_end(void)
{
  agreed_error = CPK_OK;
  run_open = 0;
}

static int agree_failed(int rc)
{
  if (run_open) agreed_error = rc;
  return rc;
}

/*
 * Every agreement, of a return code or of a stop, is this one MPI_Allreduce of the
 * same shape (the largest code, minus the smallest, the largest stop): a rank that
 * failed and agrees in the driver meets the others wherever they agree next, at a
 * backend's entry or at the monitor's stop decision, and each side learns the other's.
 */
static int agree(int rc, int *stop)
{
  if (run_open && agreed_error) return agreed_error;
  if (!mpi_live() && launcher_value(size_vars, 1) > 1 && petsc_ready()) /* join the ranks that started MPI */
    return agree_failed(CPK_ELINSYS);
  if (!mpi_live() || cpk_mpi_size() <= 1) return rc;
  int mine[3] = {rc, -rc, *stop}, all[3] = {rc, -rc, *stop};
  if (MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    all[0] = all[1] = CPK_ELINSYS;
  *stop = all[2];
  /* the same error everywhere: every rank takes the same branch, nobody has left */
  return all[0] != -all[1] ? agree_failed(all[0]) : all[0];
}

int cpk_mpi_agree(int rc)
{
  int stop = 0;
  return agree(rc, &stop);
}

int cpk_mpi_agree_stop(int *stop) { return agree(CPK_OK, stop); }

int cpk_mpi_all(int flag)
{
  int mine = flag != 0, all = mine;
  if (!mpi_live()) return mine;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
  return all;
}

int cpk_mpi_reduce(double *x, size_t k, cpk_mpi_op op)
{
  if (!mpi_live() && launcher_value(size_vars, 1) > 1 && petsc_ready()) return CPK_ELINSYS;
  if (!mpi_live() || cpk_mpi_size() <= 1 || k == 0) return CPK_OK;
  if (k > (size_t)INT_MAX) return CPK_ELINSYS;
  MPI_Op o = op == CPK_MPI_MAX ? MPI_MAX : MPI_SUM;
  return MPI_Allreduce(MPI_IN_PLACE, x, (int)k, MPI_DOUBLE, o, MPI_COMM_WORLD) == MPI_SUCCESS ? CPK_OK
                                                                                             : CPK_ELINSYS;
}

int cpk_mpi_residual(const cpk_problem *p, const double *z, double *w, double *r)
{
  int k = mpi_live() ? cpk_mpi_size() : 1;
  if (k <= 1) return cpk_problem_residual(p, z, w, r);
  /* F on every rank (the problem is replicated); its failure is every rank's */
  int rc = cpk_mpi_all(cpk_problem_eval(p, z, w) == CPK_OK) ? CPK_OK : CPK_EBADFUNC;
  if (rc) {
    *r = INFINITY;
    return rc;
  }
  size_t lo, hi, group = p->kind == CPK_KIND_FRICTION_CONE ? p->cone_dim : 1;
  cpk_mpi_block(p->n, group, cpk_mpi_rank(), k, &lo, &hi);
  double mine = cpk_natural_residual_rows(p, z, w, lo, hi), worst = mine;
  /* NaN never wins a MAX: the row functions turn it into INFINITY */
  if (MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    worst = INFINITY;
  *r = worst;
  return CPK_OK;
}
#endif
