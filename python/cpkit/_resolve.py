"""Solver: a solver bound to one Problem, for repeated solves after updates (OSQP's style)."""
from . import _cpkit
from ._errors import Error
from ._problem import Problem
from ._solve import Result, _prepare


class Solver:
    """A solver bound to one :class:`Problem`, kept across solves.

    The library allocates the solver's workspace once (factorizations, pivoting
    basis, ...); change the problem's data in place with the ``update_*`` methods
    (here or on the problem) and call :meth:`solve` again::

        prob = cpkit.Problem.mcp(M, q, lower, upper)
        s = cpkit.Solver(prob, "lemke", tol=1e-10)
        r1 = s.solve()
        s.update(q=q2, lower=l2)   # or prob.update_q(q2); prob.update_bounds(l2)
        r2 = s.solve()

    Args:
        problem: the Problem (kept alive by the Solver; its structure, e.g. its
            friction-index rows, is fixed from now on).
        solver: a name from :func:`cpkit.solvers` (default as in :func:`cpkit.solve`).
        tol, max_iter, time_limit, z0, basis, **solver_settings: as in
            :func:`cpkit.solve`; they hold for every solve of this Solver.

    Raises cpkit.Error when the solver does not take the problem (e.g. a kind it
    does not solve: CPK_EUNSUP) or a setting is wrong.
    """

    def __init__(self, problem, solver=None, tol=None, max_iter=None, time_limit=None, z0=None,
                 basis=None, **solver_settings):
        if not isinstance(problem, Problem):
            raise Error("Solver(problem, ...): expected a cpkit.Problem")
        name, settings, covering = _prepare(problem, solver, tol, max_iter, time_limit,
                                            solver_settings)
        self._handle = _cpkit.bind_solver(problem._handle, name, settings, z0, basis, covering)
        self.problem = problem
        self.solver = name

    def solve(self, z0=None, basis=None):
        """Solve the problem with its current data; z0 / basis (optional) replace the
        warm start first (see :meth:`warm_start`). Returns a :class:`Result` (its
        ``problem`` is the live Problem: copy what a later update would change)."""
        if z0 is not None or basis is not None:
            self.warm_start(z0, basis)
        return Result(self._handle.solve(), self.problem)

    def warm_start(self, z0=None, basis=None):
        """Set the start point and/or basis of the next solves (None: leave out)."""
        self._handle.warm_start(z0, basis)

    def update(self, q=None, lower=None, upper=None, M=None, mu=None, fcoef=None):
        """Change several data of the problem at once (None: unchanged); see
        :meth:`Problem.update_q`, :meth:`Problem.update_bounds`,
        :meth:`Problem.update_matrix`, :meth:`Problem.update_mu`,
        :meth:`Problem.update_fcoef`."""
        p = self.problem
        if q is not None:
            p.update_q(q)
        if lower is not None or upper is not None:
            p.update_bounds(lower, upper)
        if M is not None:
            p.update_matrix(M)
        if mu is not None:
            p.update_mu(mu)
        if fcoef is not None:
            p.update_fcoef(fcoef)

    def update_q(self, q):
        """Same as ``problem.update_q(q)``."""
        self.problem.update_q(q)

    def update_bounds(self, lower=None, upper=None):
        """Same as ``problem.update_bounds(lower, upper)``."""
        self.problem.update_bounds(lower, upper)

    def update_matrix(self, M):
        """Same as ``problem.update_matrix(M)`` (values or a same-pattern matrix)."""
        self.problem.update_matrix(M)

    def __repr__(self):
        return f"<cpkit.Solver {self.solver!r} bound to {self.problem!r}>"
