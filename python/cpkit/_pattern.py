"""Fixed sparsity patterns (CSC indptr, indices): a pattern from what the user gives, and a
matrix's values in a pattern's order (Jacobian callbacks, update_matrix)."""
import sys

import numpy as np

from ._errors import Error


def _sparse():
    return sys.modules.get("scipy.sparse")  # a scipy matrix means scipy is already imported


def _columns(indptr, ncols):
    """Column index of every stored entry of a CSC pattern."""
    return np.repeat(np.arange(ncols, dtype=np.int64), np.diff(indptr))


def dense_pattern(m, n):
    """Every entry of an m-by-n matrix, as CSC (indptr, indices)."""
    indptr = np.arange(n + 1, dtype=np.int64) * m
    return indptr, np.tile(np.arange(m, dtype=np.int64), n)


def pattern_of(obj, n, what="jac_pattern"):
    """(indptr, indices) of an n-by-n pattern: None (dense), any scipy.sparse matrix (its
    stored entries, explicit zeros included), a 2-D array (its non-zero entries) or a
    CSC pair (indptr, indices)."""
    if obj is None:
        return dense_pattern(n, n)
    sparse = _sparse()
    if sparse is not None and sparse.issparse(obj):
        if obj.shape != (n, n):
            raise Error(f"{what}: expected shape ({n}, {n}), got {obj.shape}")
        csc = sparse.csc_matrix(obj, copy=True)
        csc.sum_duplicates()  # sorted, unique row indices
        return csc.indptr.astype(np.int64), csc.indices.astype(np.int64)
    if isinstance(obj, tuple) and len(obj) == 2:
        indptr, indices = (np.asarray(a, dtype=np.int64) for a in obj)
        return indptr, indices
    a = np.asarray(obj)
    if a.shape != (n, n):
        raise Error(f"{what}: expected a ({n}, {n}) array or a scipy.sparse matrix, got shape {a.shape}")
    rows, cols = np.nonzero(a.T)  # column-major order: CSC
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols.astype(np.int64)


def _outside(what, row, col, value):
    raise Error(f"{what}: entry ({row}, {col}) = {value:g} is outside the fixed sparsity pattern "
                "(declare it in the pattern, as an explicit zero where it vanishes)")


def _sparse_values(C, indptr, indices, shape, what):
    m, n = shape
    nnz = len(indices)
    if len(C.indices) == nnz and np.array_equal(C.indptr, indptr) and np.array_equal(C.indices, indices):
        return np.ascontiguousarray(C.data, dtype=np.float64)
    keys = _columns(indptr, n) * m + indices  # increasing: CSC with sorted rows
    ckeys = _columns(C.indptr, n) * m + C.indices
    pos = np.searchsorted(keys, ckeys)
    found = pos < nnz
    found[found] = keys[pos[found]] == ckeys[found]
    bad = np.flatnonzero(~found & (C.data != 0))
    if bad.size:
        k = bad[0]
        _outside(what, int(C.indices[k]), int(ckeys[k] // m), C.data[k])
    values = np.zeros(nnz)
    values[pos[found]] = C.data[found]
    return values


def values_in_pattern(A, indptr, indices, shape, what):
    """The values of A (scipy.sparse or dense) at the pattern's entries, in CSC order. An
    entry of A outside the pattern must be zero (cpkit.Error otherwise); a pattern entry
    that A does not store is 0."""
    sparse = _sparse()
    if sparse is not None and sparse.issparse(A):
        if A.shape != tuple(shape):
            raise Error(f"{what}: expected shape {tuple(shape)}, got {A.shape}")
        C = sparse.csc_matrix(A, dtype=np.float64, copy=True)
        C.sum_duplicates()
        return _sparse_values(C, indptr, indices, shape, what)
    a = np.asarray(A, dtype=np.float64)
    if a.shape != tuple(shape):
        raise Error(f"{what}: expected shape {tuple(shape)}, got {a.shape}")
    cols = _columns(indptr, shape[1])
    values = a[indices, cols]
    if len(indices) < a.size:
        rest = a.copy()
        rest[indices, cols] = 0.0
        bad = np.argwhere(rest != 0)
        if len(bad):
            _outside(what, int(bad[0][0]), int(bad[0][1]), rest[tuple(bad[0])])
    return values
