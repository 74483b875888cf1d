"""Problem objects: built from NumPy / scipy.sparse data or read from a file."""
import sys

import numpy as np

from . import _cpkit
from ._errors import Error
from ._pattern import values_in_pattern


def _matrix(M, what="M"):
    """M as the extension takes it: a float64 2-D array, or CSC (m, n, indptr, indices, data)."""
    sparse = sys.modules.get("scipy.sparse")  # a scipy matrix means scipy is already imported
    if sparse is not None and sparse.issparse(M):
        if not np.issubdtype(M.dtype, np.number) or np.issubdtype(M.dtype, np.complexfloating):
            raise Error(f"{what}: expected real numbers, got dtype {M.dtype}")
        csc = sparse.csc_matrix(M, dtype=np.float64, copy=True)
        csc.sum_duplicates()  # sorts the row indices too: the library needs both
        m, n = csc.shape
        return (m, n, csc.indptr.astype(np.int64), csc.indices.astype(np.int64), csc.data)
    a = np.asarray(M)
    if a.dtype == object or np.issubdtype(a.dtype, np.complexfloating):
        raise Error(f"{what}: expected a real 2-D array or a scipy.sparse matrix")
    if a.ndim != 2:
        raise Error(f"{what}: expected a 2-D array, got {a.ndim} dimension(s)")
    return np.ascontiguousarray(a, dtype=np.float64)


class Problem:
    """A problem owned by the library: LCP, affine box MCP, friction cone, or nonlinear MCP.

    Build one with :meth:`lcp`, :meth:`mcp`, :meth:`cone`, :func:`read_problem` or
    :class:`NonlinearMCP`; pass it to :func:`cpkit.solve` (or :func:`cpkit.solve_cone`),
    or bind a :class:`cpkit.Solver` to it for repeated solves. The data are copied in;
    the attributes below return copies of the current data.

    Attributes: kind ("lcp", "affine_mcp", "friction_cone", "nonlinear_mcp"), n, name,
    q, lower, upper, M (a NumPy array, or a scipy.sparse CSC matrix when stored sparse),
    for cone problems nc (contacts), cone_dim (unknowns per contact, normal first) and
    mu (one friction coefficient per contact), findex and fcoef (friction-index rows,
    else None), and rev (the library's change counters: q, bounds, values, mu, params).

    Re-solves: :meth:`update_q`, :meth:`update_bounds`, :meth:`update_matrix`,
    :meth:`update_mu`, :meth:`update_fcoef` change the data in place (no allocation in
    the library); a bound :class:`cpkit.Solver` sees the change at its next solve.
    """

    def __init__(self, handle):
        if not isinstance(handle, _cpkit.Problem):
            raise TypeError("build a Problem with Problem.lcp/mcp/cone or cpkit.read_problem")
        self._handle = handle
        self._cache = None   # copies of the library's data, fetched when read
        self._layout = None  # M's storage and pattern: fixed for the problem's life

    @property
    def _data(self):
        if self._cache is None:
            self._cache = self._handle.data()
        return self._cache

    def _changed(self):
        self._cache = None

    @classmethod
    def lcp(cls, M, q):
        """LCP: find z >= 0 with w = M z + q >= 0 and z'w = 0."""
        return cls(_cpkit.affine_problem(_matrix(M), q, None, None))

    @classmethod
    def mcp(cls, M, q, lower=None, upper=None):
        """Affine box MCP, F(z) = M z + q, lower <= z <= upper (None: 0 and +inf; -inf/inf allowed)."""
        if lower is None and upper is None:
            lower = np.zeros(len(np.atleast_1d(q)))
        return cls(_cpkit.affine_problem(_matrix(M), q, lower, upper))

    @classmethod
    def cone(cls, W, q, mu, dim=3):
        """FCLIB's local frictional-contact problem: u = W r + q, per contact
        r_c in K_mu, u_c + mu |u_T| e_n in K_mu*, orthogonal (dim unknowns per
        contact, normal first; mu holds one coefficient per contact)."""
        Wm = _matrix(W, "W")
        n = Wm.shape[0] if isinstance(Wm, np.ndarray) else Wm[0]
        if np.isscalar(mu) and int(dim) > 0:  # one coefficient for every contact
            mu = np.full(n // int(dim), float(mu))
        return cls(_cpkit.cone_problem(Wm, q, mu, int(dim)))

    def __getattr__(self, name):
        if "_handle" not in self.__dict__:
            raise AttributeError(name)
        if name in ("kind", "n", "name", "nc", "cone_dim", "rev"):
            value = self._data[name]
            return dict(value) if name == "rev" else value
        if name in ("q", "lower", "upper", "mu", "findex", "fcoef"):
            value = self._data[name]
            return None if value is None else value.copy()
        raise AttributeError(name)

    # ---- updates for re-solves -------------------------------------------------------
    def update_q(self, q):
        """Replace q (the free velocity of a cone problem): n finite values."""
        self._handle.update_q(q)
        self._changed()

    def update_bounds(self, lower=None, upper=None):
        """Replace the bounds of an affine or nonlinear MCP; None leaves that side as it is.
        An LCP keeps 0 and +inf (build it with :meth:`mcp` to change them)."""
        self._handle.update_bounds(lower, upper)
        self._changed()

    def _matrix_layout(self):
        if self._layout is None:
            stored = self._data["M"]
            if stored is None:
                raise Error("update_matrix: a nonlinear problem has no matrix")
            self._layout = ("dense",) if stored[0] == "dense" else ("csc", stored[3], stored[4])
        return self._layout

    def update_matrix(self, M):
        """Replace the values of M (W for a cone problem); its sparsity pattern is fixed.

        M is either the new values as a 1-D array in the stored order (for a sparse M the
        CSC data, ``Problem.M.data``; for a dense M the n*n entries row by row), or a
        matrix (NumPy array or scipy.sparse): for a sparse M its entries outside the
        pattern must be zero and pattern entries it does not store become 0.
        """
        layout = self._matrix_layout()
        n = self.n
        sparse = sys.modules.get("scipy.sparse")
        is_sparse = sparse is not None and sparse.issparse(M)
        if not is_sparse and np.ndim(M) == 1:
            values = M
        elif layout[0] == "dense":
            a = M.toarray() if is_sparse else np.asarray(M, dtype=np.float64)
            if a.shape != (n, n):
                raise Error(f"update_matrix: expected shape ({n}, {n}), got {a.shape}")
            values = a.ravel()
        else:
            values = values_in_pattern(M, layout[1], layout[2], (n, n), "update_matrix")
        self._handle.update_values(values)
        self._changed()

    def update_mu(self, mu):
        """Replace the friction coefficients of a cone problem (a scalar: the same for all)."""
        if np.isscalar(mu):
            mu = np.full(self.nc, float(mu))
        self._handle.update_mu(mu)
        self._changed()

    def update_fcoef(self, fcoef):
        """Replace the coefficients of the friction-index rows (same findex)."""
        self._handle.update_fcoef(fcoef)
        self._changed()

    def set_friction_index(self, findex, fcoef=None):
        """Make rows of an LCP or affine MCP friction-index rows: for every i with
        ``findex[i] >= 0``, ``-fcoef[i] * z[j] <= z[i] <= fcoef[i] * z[j]`` with
        ``j = findex[i]`` (0-based); -1 leaves row i as it is (ODE's and Bullet's
        convention). Row j must have lower[j] >= 0 and not be such a row itself. An LCP
        becomes an affine MCP. ``findex=None`` removes the rows. Refused once a
        :class:`cpkit.Solver` is bound to the problem."""
        self._handle.set_friction_index(findex, fcoef)
        self._changed()

    def touch_params(self):
        """Tell bound solvers that what a nonlinear problem's F depends on has changed."""
        self._handle.touch_params()

    @property
    def M(self):
        """The matrix (W for cone problems): dense NumPy array, or scipy CSC matrix if sparse."""
        stored = self._data["M"]
        if stored is None:  # a nonlinear problem: F is a callback
            return None
        if stored[0] == "dense":
            return stored[1].copy()
        _, m, n, indptr, indices, data = stored
        try:
            from scipy.sparse import csc_matrix
        except ImportError:  # no scipy: give it dense
            dense = np.zeros((m, n))
            for j in range(n):
                dense[indices[indptr[j]:indptr[j + 1]], j] = data[indptr[j]:indptr[j + 1]]
            return dense
        return csc_matrix((data.copy(), indices.copy(), indptr.copy()), shape=(m, n))

    def F(self, z):
        """F(z) = M z + q (u = W r + q for cone problems), computed in NumPy (affine kinds)."""
        if self._data["M"] is None:
            raise Error("F: a compiled nonlinear problem's F is evaluated by the library only")
        return self.M @ np.asarray(z, dtype=np.float64) + self._data["q"]

    def __repr__(self):
        extra = f", nc={self.nc}, cone_dim={self.cone_dim}" if self.kind == "friction_cone" else ""
        name = f", name={self.name!r}" if self.name else ""
        return f"<cpkit.Problem kind={self.kind!r}, n={self.n}{extra}{name}>"


def read_problem(path):
    """Read a problem file: cpkit's text format v1 (``.cpk``) or an FCLIB HDF5
    file (recognised by its signature; read as a friction-cone problem).
    Raises cpkit.Error with ``path:line: what is wrong`` for a malformed file."""
    return Problem(_cpkit.read_problem(path))
