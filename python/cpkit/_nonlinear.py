"""Nonlinear MCPs whose F and Jacobian are Python callables."""
import numpy as np

from . import _cpkit
from ._errors import Error
from ._pattern import pattern_of, values_in_pattern
from ._problem import Problem
from ._solve import _run


def _checked_f(F, n):
    def f(z):
        value = np.asarray(F(z), dtype=np.float64)
        if value.shape != (n,):
            raise Error(f"F(z) must return {n} values, got an array of shape {value.shape}")
        return value
    return f


def _checked_jacobian(jacobian, indptr, indices, n):
    def jac(z):
        return values_in_pattern(jacobian(z), indptr, indices, (n, n), "jacobian(z)")
    return jac


class NonlinearMCP(Problem):
    """A box-constrained MCP with a nonlinear F given as Python callables.

    Find ``lower <= z <= upper`` with, for each i, ``F_i(z) >= 0`` where z_i is at
    its lower bound, ``F_i(z) <= 0`` at its upper bound and ``F_i(z) = 0`` in
    between (both bounds None: the NCP z >= 0, F(z) >= 0, z'F(z) = 0).

    Args:
        F: ``F(z) -> array`` of n floats (z is a fresh float64 array each call).
        jacobian: ``jacobian(z) ->`` the n-by-n Jacobian dF/dz as a scipy.sparse
            matrix or a dense array. Its entries outside ``jac_pattern`` must be zero;
            pattern entries it leaves out are 0.
        n: number of unknowns.
        lower, upper: bounds (-inf/inf allowed; None: 0, resp. +inf).
        jac_pattern: the Jacobian's fixed sparsity pattern: a scipy.sparse matrix (its
            stored entries, explicit zeros included), a 2-D array (its non-zeros) or a
            CSC pair (indptr, indices). None: all n*n entries (dense).

    An exception raised inside F or jacobian stops the solve and is re-raised by
    :func:`cpkit.solve` (the library sees a failed callback). Solvers: "fbnewton",
    "bdnewton", "ipm". The solve holds the GIL (F is Python code).

    Attributes (besides :class:`Problem`'s): ``jac_pattern`` as (indptr, indices).
    Methods ``F(z)`` and ``jacobian(z)`` call the callables (the latter gives the
    values in the pattern as a scipy CSC matrix, or dense without scipy).
    """

    def __init__(self, F, jacobian, n, lower=None, upper=None, jac_pattern=None):
        n = int(n)
        if n < 0:
            raise Error("NonlinearMCP: n must be >= 0")
        indptr, indices = pattern_of(jac_pattern, n)
        self._F, self._jacobian = F, jacobian
        self.jac_pattern = (indptr, indices)
        pattern = (n, n, indptr, indices, np.zeros(len(indices)))
        handle = _cpkit.nonlinear_problem(n, _checked_f(F, n),
                                          _checked_jacobian(jacobian, indptr, indices, n),
                                          pattern, lower, upper)
        super().__init__(handle)

    def F(self, z):
        """F(z) from the callable, as a float64 array."""
        return np.asarray(self._F(np.asarray(z, dtype=np.float64)), dtype=np.float64)

    def jacobian(self, z):
        """The Jacobian at z restricted to the pattern: scipy CSC (dense without scipy)."""
        n = self.n
        indptr, indices = self.jac_pattern
        values = values_in_pattern(self._jacobian(np.asarray(z, dtype=np.float64)), indptr,
                                   indices, (n, n), "jacobian(z)")
        try:
            from scipy.sparse import csc_matrix
        except ImportError:
            dense = np.zeros((n, n))
            dense[indices, np.repeat(np.arange(n), np.diff(indptr))] = values
            return dense
        return csc_matrix((values, indices, indptr), shape=(n, n))

    def __repr__(self):
        return f"<cpkit.NonlinearMCP n={self.n}, nnz(J)={len(self.jac_pattern[1])}>"


def solve_nonlinear(F, jacobian, n, lower=None, upper=None, solver="fbnewton", jac_pattern=None,
                    tol=None, max_iter=None, time_limit=None, z0=None, **solver_settings):
    """Solve the nonlinear MCP of F on [lower, upper] (see :class:`NonlinearMCP`).

    Args:
        F, jacobian, n, lower, upper, jac_pattern: as in :class:`NonlinearMCP`.
        solver: "fbnewton" (default), "bdnewton" or "ipm".
        tol: absolute natural-residual tolerance (default 1e-8).
        max_iter, time_limit, z0, **solver_settings: as in :func:`cpkit.solve`.

    Returns:
        Result (``w`` = F(z) evaluated by the library). An exception raised by F or
        jacobian propagates out of this call.
    """
    problem = NonlinearMCP(F, jacobian, n, lower, upper, jac_pattern)
    return _run(problem, solver, tol, max_iter, time_limit, z0, None, solver_settings)

