"""Problem objects: built from NumPy / scipy.sparse data or read from a file."""
import sys

import numpy as np

from . import _cpkit
from ._errors import Error


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
    """A problem owned by the library: LCP, affine box MCP, or friction cone.

    Build one with :meth:`lcp`, :meth:`mcp`, :meth:`cone` or :func:`read_problem`;
    pass it to :func:`cpkit.solve` (or :func:`cpkit.solve_cone`). The data are
    copied in; the attributes below return copies.

    Attributes: kind ("lcp", "affine_mcp", "friction_cone"), n, name, q, lower,
    upper, M (a NumPy array, or a scipy.sparse CSC matrix when stored sparse),
    and for cone problems nc (contacts), cone_dim (unknowns per contact, normal
    first) and mu (one friction coefficient per contact).
    """

    def __init__(self, handle):
        if not isinstance(handle, _cpkit.Problem):
            raise TypeError("build a Problem with Problem.lcp/mcp/cone or cpkit.read_problem")
        self._handle = handle
        self._data = handle.data()

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
        data = self.__dict__.get("_data")
        if data is not None and name in ("kind", "n", "name", "nc", "cone_dim"):
            return data[name]
        if data is not None and name in ("q", "lower", "upper", "mu"):
            value = data[name]
            return None if value is None else value.copy()
        raise AttributeError(name)

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
            raise Error("F: a nonlinear problem's F is evaluated by the library only")
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
