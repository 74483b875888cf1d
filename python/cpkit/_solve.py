"""solve(), solve_cone(), the Result object and the solver list."""
import difflib
from collections import namedtuple

import numpy as np

from . import _cpkit
from ._errors import Error
from ._problem import Problem

#: One registered solver: its name, one-line description, the problem kinds it
#: accepts and the names of the settings it takes (keyword arguments of solve()).
SolverInfo = namedtuple("SolverInfo", "name description kinds settings")

# Settings given by name in Python that the library holds as numbers.
_CHOICES = {
    ("ipm", "method"): {"auto": 0, "path_following": 1, "potential": 2},
    ("nsn", "rho"): {"split": 0, "spectral": 1, "unit": 2},
}
# Settings of every solver that are not in the extension's table (arrays, names).
_EXTRA = {"lemke": ["covering"]}


def _settings_of(name):
    return _cpkit.settings_names(name) + ["linsys"] + _EXTRA.get(name, [])


def solvers():
    """The registered solvers, as a list of SolverInfo(name, description, kinds, settings)."""
    return [SolverInfo(name, desc, kinds, _settings_of(name))
            for name, desc, kinds in _cpkit.solvers()]


def _unknown(what, name, valid, where="", code=9, errname="CPK_ENOTFOUND"):
    close = difflib.get_close_matches(str(name), valid, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise Error(f"unknown {what} '{name}'{where} (valid: {', '.join(valid)}){hint}", code, errname)


def _check_names(solver, settings):
    names = [s.name for s in solvers()]
    if not isinstance(solver, str) or solver not in names:
        _unknown("solver", solver, names)
    valid = _settings_of(solver)
    for key in settings:
        if key not in valid:
            _unknown("setting", key, valid, f" for solver '{solver}'", 1, "CPK_EINVAL")


def _translate(solver, settings):
    out = {}
    for key, value in settings.items():
        choices = _CHOICES.get((solver, key))
        if choices is not None and isinstance(value, str):
            if value not in choices:
                _unknown(f"value of '{key}'", value, list(choices), "", 1, "CPK_EINVAL")
            value = choices[value]
        elif isinstance(value, (bool, np.bool_)):
            value = int(value)
        elif isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out


class Result:
    """The outcome of a solve.

    Attributes:
        status: "solved", "no_solution", "ray_termination", "max_iterations",
            "time_limit", "stalled" or "invalid_input" (the library's words).
        solved: status == "solved" (the residual was checked by the library).
        solver: the solver's name.
        z: the solution or last iterate (reactions r for cone problems).
        w: F(z) = M z + q, recomputed by the library (velocities u for cone problems).
        residual: the natural-map residual of (z, w) (the cone's for cone problems).
        tolerance: the absolute tolerance `solved` was judged by.
        iterations: iterations or pivots; time: wall time of the solve (s).
        stats: dict of the solver's statistics.
        basis: final basis for pivoting solvers (ints: AT_LOWER 0, AT_UPPER 1,
            BASIC 2), else None; give it back as ``basis=`` to warm start.
        ray: the terminal ray (ray_termination / no_solution by ray), else None.
        solutions: all solutions found (enum solver; one per row), else None.
        message: one line of detail on the outcome (may be empty).
        fc_merit: FCLIB's merit of the solution (cone problems), else None.
        problem: the Problem that was solved.
    """

    def __init__(self, data, problem):
        self.__dict__.update(data)
        self.problem = problem

    @property
    def solved(self):
        return self.status == "solved"

    @property
    def reactions(self):
        """Cone problems: z as an (nc, cone_dim) array, one row per contact (normal first)."""
        return self._per_contact(self.z)

    @property
    def velocities(self):
        """Cone problems: w = W r + q as an (nc, cone_dim) array."""
        return self._per_contact(self.w)

    def _per_contact(self, x):
        if self.problem.kind != "friction_cone":
            raise Error("per-contact arrays exist for friction-cone problems only")
        return x.reshape(self.problem.nc, self.problem.cone_dim)

    def __repr__(self):
        return (f"<cpkit.Result status={self.status!r}, solver={self.solver!r}, "
                f"residual={self.residual:.3g}, iterations={self.iterations}>")


def _default_solver(problem):
    return {"friction_cone": "nsn", "nonlinear_mcp": "fbnewton"}.get(problem.kind, "lemke")


def _prepare(problem, solver, tol, max_iter, time_limit, settings):
    """(solver name, settings dict for the extension, covering) after checking every name."""
    if solver is None:
        solver = _default_solver(problem)
    _check_names(solver, settings)
    settings = _translate(solver, settings)
    covering = settings.pop("covering", None)
    for key, value in (("tol", tol), ("max_iter", max_iter), ("time_limit", time_limit)):
        if value is not None:
            settings[key] = value.item() if isinstance(value, np.generic) else value
    return solver, settings, covering


def _run(problem, solver, tol, max_iter, time_limit, z0, basis, settings):
    solver, settings, covering = _prepare(problem, solver, tol, max_iter, time_limit, settings)
    data = _cpkit.solve(problem._handle, solver, settings, z0, basis, covering)
    return Result(data, problem)


def solve(M, q=None, lower=None, upper=None, solver=None, tol=None, max_iter=None,
          time_limit=None, z0=None, basis=None, findex=None, fcoef=None, **solver_settings):
    """Solve an LCP or an affine box-constrained MCP (or any Problem).

    Args:
        M: n-by-n NumPy array (anything np.asarray takes) or any scipy.sparse
            matrix; or a :class:`Problem` (then q, lower, upper must be None).
        q: length-n vector.
        lower, upper: bounds (-inf / inf allowed); both None: the LCP
            (z >= 0, w = Mz + q >= 0, z'w = 0).
        solver: a name from :func:`solvers` ("lemke" by default; "nsn" for a
            friction-cone Problem, "fbnewton" for a nonlinear one).
        tol: natural-residual tolerance, scaled by max(1, ||q||_inf) (default 1e-8).
        max_iter: iteration/pivot limit (default: the solver's own).
        time_limit: seconds (default: none).
        z0: warm-start point; basis: warm-start basis (pivoting solvers; see Result.basis).
        findex, fcoef: friction-index (boxed) rows as physics engines pass them
            (ODE/Bullet ``findex``, ``limitDependency``): where ``findex[i] >= 0`` the
            bounds of z_i are ``-fcoef[i] * z[j] <= z_i <= fcoef[i] * z[j]`` with
            ``j = findex[i]`` (0-based; lower[i], upper[i] are then ignored); -1 leaves
            row i as it is. See :meth:`Problem.set_friction_index`.
        **solver_settings: the chosen solver's own settings, by name (see
            ``solvers()``), e.g. ``pivot_tol=1e-10`` for lemke, ``omega=1.2`` for
            pgs, ``method="potential"`` for ipm, ``linsys="dense"`` for any.

    Returns:
        Result. The outcome is Result.status; cpkit.Error is raised only when
        the call fails (bad shapes, NaN, unknown solver or setting, a solver that
        does not take the problem, ...).
    """
    if isinstance(M, Problem):
        if q is not None or lower is not None or upper is not None:
            raise Error("solve(problem): q, lower and upper come from the problem")
        if findex is not None:
            raise Error("solve(problem): set friction-index rows with problem.set_friction_index")
        problem = M
    elif q is None:
        raise Error("solve(M, q): q is missing")
    elif lower is None and upper is None:
        problem = Problem.lcp(M, q)
    else:
        problem = Problem.mcp(M, q, lower, upper)
    if findex is not None:
        problem.set_friction_index(findex, fcoef)
    return _run(problem, solver, tol, max_iter, time_limit, z0, basis, solver_settings)


def solve_cone(W, q=None, mu=None, dim=3, solver="nsn", tol=None, max_iter=None,
               time_limit=None, z0=None, **solver_settings):
    """Solve FCLIB's local frictional-contact problem u = W r + q.

    Per contact c (``dim`` unknowns, normal first): r_c in the Coulomb cone
    |r_T| <= mu_c r_n, u_c + mu_c |u_T| e_n in its dual, the two orthogonal.

    Args:
        W: n-by-n array or scipy.sparse matrix (n = dim * contacts), or a
            friction-cone :class:`Problem` (then q and mu must be None).
        q: free velocity, length n. mu: friction coefficients, one per contact.
        dim: 2 (planar), 3 (Coulomb cone) or 4 (with twist).
        solver: "nsn" (default), "nsgs" or "fcipm" (see ``solvers()``).
        tol, max_iter, time_limit, z0, **solver_settings: as in :func:`solve`.

    Returns:
        Result, with z the reactions r, w the velocities u, residual the cone's
        natural map, fc_merit FCLIB's merit, and ``reactions``/``velocities``
        per contact.
    """
    if isinstance(W, Problem):
        if q is not None or mu is not None:
            raise Error("solve_cone(problem): q and mu come from the problem")
        if W.kind != "friction_cone":
            raise Error(f"solve_cone: a {W.kind} problem is not a friction-cone problem")
        problem = W
    elif q is None or mu is None:
        raise Error("solve_cone(W, q, mu): q and mu are required")
    else:
        problem = Problem.cone(W, q, mu, dim)
    return _run(problem, solver, tol, max_iter, time_limit, z0, None, solver_settings)
