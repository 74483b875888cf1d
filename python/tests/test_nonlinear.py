"""Nonlinear MCPs from Python callables: answers checked in NumPy, exceptions raised in F or
the Jacobian coming back out of the solve."""
import gc

import numpy as np
import pytest

import cpkit

NONLINEAR_SOLVERS = ["fbnewton", "bdnewton", "ipm"]


def nat_residual(F, z, lower, upper):
    """||z - clip(z - F(z), l, u)||_inf from the user's own F: 0 exactly at a solution."""
    return np.max(np.abs(z - np.clip(z - F(z), lower, upper)), initial=0.0)


# Kojima-Shindo (MCPLIB kojshin): two solutions, checked by hand in the comments below.
def ks_F(x):
    return np.array([
        3 * x[0] ** 2 + 2 * x[0] * x[1] + 2 * x[1] ** 2 + x[2] + 3 * x[3] - 6,
        2 * x[0] ** 2 + x[0] + x[1] ** 2 + 10 * x[2] + 2 * x[3] - 2,
        3 * x[0] ** 2 + x[0] * x[1] + 2 * x[1] ** 2 + 2 * x[2] + 9 * x[3] - 9,
        x[0] ** 2 + 3 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 3])


def ks_J(x):
    return np.array([
        [6 * x[0] + 2 * x[1], 2 * x[0] + 4 * x[1], 1, 3],
        [4 * x[0] + 1, 2 * x[1], 10, 2],
        [6 * x[0] + x[1], x[0] + 4 * x[1], 2, 9],
        [2 * x[0], 6 * x[1], 2, 3]], dtype=float)


# (1, 0, 3, 0): F = (0, 31, 0, 4); (sqrt(6)/2, 0, 0, 1/2): F = (0, 2.22 + sqrt(6)/2, 0, 0).
KS_SOLUTIONS = [np.array([1.0, 0.0, 3.0, 0.0]), np.array([np.sqrt(6) / 2, 0.0, 0.0, 0.5])]


@pytest.mark.parametrize("solver", NONLINEAR_SOLVERS)
def test_kojima_shindo(solver):
    r = cpkit.solve_nonlinear(ks_F, ks_J, 4, solver=solver, z0=np.ones(4), tol=1e-10)
    assert r.solved and r.solver == solver
    lower, upper = np.zeros(4), np.full(4, np.inf)
    assert nat_residual(ks_F, r.z, lower, upper) <= 1e-9
    assert min(np.max(np.abs(r.z - s)) for s in KS_SOLUTIONS) <= 1e-6
    assert np.allclose(r.w, ks_F(r.z), atol=1e-12)  # w is F(z) evaluated by the library


def test_separable_with_bounds_hand_solved():
    # F_i(z) = exp(z_i) - c_i on [-2, 1]: z_i = clip(log c_i, -2, 1), and -2 where c_i <= 0.
    sp = pytest.importorskip("scipy.sparse")
    c = np.array([0.5, 3.0, -1.0, 1e-3, 1.0, 100.0])
    n = len(c)
    lower, upper = np.full(n, -2.0), np.ones(n)
    expected = np.where(c > 0, np.clip(np.log(np.where(c > 0, c, 1.0)), -2, 1), -2.0)
    F = lambda z: np.exp(z) - c  # noqa: E731
    J = lambda z: sp.diags(np.exp(z), format="csr")  # noqa: E731
    for solver in NONLINEAR_SOLVERS:
        r = cpkit.solve_nonlinear(F, J, n, lower, upper, solver=solver,
                                  jac_pattern=sp.identity(n), tol=1e-12)
        assert r.solved, (solver, r.status, r.message)
        assert np.allclose(r.z, expected, atol=1e-9), solver


def tridiagonal(n):
    sp = pytest.importorskip("scipy.sparse")
    return sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csc")


@pytest.mark.parametrize("solver", NONLINEAR_SOLVERS)
def test_sparse_jacobian_large(solver):
    # F(z) = A z + z^3 + q, A = tridiag(-1, 2, -1): monotone, one solution on the box.
    sp = pytest.importorskip("scipy.sparse")
    n = 300
    A = tridiagonal(n)
    q = 2.0 * np.sin(np.arange(n))
    lower, upper = np.full(n, -0.5), np.full(n, 0.4)
    F = lambda z: A @ z + z ** 3 + q  # noqa: E731
    J = lambda z: A + sp.diags(3 * z ** 2)  # noqa: E731
    prob = cpkit.NonlinearMCP(F, J, n, lower, upper, jac_pattern=A)
    assert prob.kind == "nonlinear_mcp" and prob.n == n and prob.M is None
    assert len(prob.jac_pattern[1]) == A.nnz
    r = cpkit.solve(prob, solver=solver, tol=1e-10)
    assert r.solved, (r.status, r.message)
    assert nat_residual(F, r.z, lower, upper) <= 1e-9
    # the same answer with the Jacobian given dense and the default (dense) pattern
    small = cpkit.solve_nonlinear(F, lambda z: J(z).toarray(), n, lower, upper, solver=solver,
                                  tol=1e-10)
    assert np.allclose(small.z, r.z, atol=1e-7)


def test_pattern_forms_agree():
    sp = pytest.importorskip("scipy.sparse")
    n = 5
    A = tridiagonal(n).toarray()
    mask = A != 0
    q = np.array([1.0, -2.0, 0.5, -1.0, 3.0])
    F = lambda z: A @ z + q  # noqa: E731
    J = lambda z: A  # noqa: E731
    want = cpkit.solve(A, q).z  # the same LCP solved by Lemke
    for pattern in (sp.csr_matrix(A), mask, (sp.csc_matrix(A).indptr, sp.csc_matrix(A).indices), None):
        r = cpkit.solve_nonlinear(F, J, n, jac_pattern=pattern, tol=1e-12)
        assert r.solved and np.allclose(r.z, want, atol=1e-9)


def test_jacobian_entry_outside_pattern_is_an_error():
    sp = pytest.importorskip("scipy.sparse")
    n = 3
    F = lambda z: z - 1.0  # noqa: E731
    full = lambda z: np.ones((n, n))  # noqa: E731
    with pytest.raises(cpkit.Error, match=r"outside the fixed sparsity pattern"):
        cpkit.solve_nonlinear(F, full, n, jac_pattern=sp.identity(n))
    # zeros outside the pattern are fine, stored or not
    explicit = lambda z: sp.csc_matrix((np.r_[1.0, 1.0, 1.0, 0.0], ([0, 1, 2, 0], [0, 1, 2, 2])),  # noqa: E731
                                       shape=(n, n))
    r = cpkit.solve_nonlinear(F, explicit, n, jac_pattern=sp.identity(n))
    assert r.solved and np.allclose(r.z, 1.0)


class Boom(Exception):
    pass


@pytest.mark.parametrize("solver", NONLINEAR_SOLVERS)
def test_exception_in_F_propagates_and_stops_the_solve(solver):
    calls = []

    def F(z):
        calls.append(1)
        if len(calls) == 3:
            raise Boom("F failed on call 3")
        return ks_F(z)

    with pytest.raises(Boom, match="call 3") as info:
        cpkit.solve_nonlinear(F, ks_J, 4, solver=solver, z0=np.ones(4))
    assert len(calls) == 3  # after the exception the library never called F again
    assert any(entry.name == "F" for entry in info.traceback)  # the user's frame is kept


def test_exception_in_jacobian_propagates():
    def J(z):
        raise KeyError("no jacobian today")

    with pytest.raises(KeyError, match="no jacobian today"):
        cpkit.solve_nonlinear(ks_F, J, 4, z0=np.ones(4))


def test_problem_solves_again_after_an_exception():
    state = {"fail": True}

    def F(z):
        if state["fail"]:
            raise RuntimeError("transient")
        return ks_F(z)

    prob = cpkit.NonlinearMCP(F, ks_J, 4)
    with pytest.raises(RuntimeError):
        cpkit.solve(prob, z0=np.ones(4))
    state["fail"] = False
    r = cpkit.solve(prob, z0=np.ones(4), tol=1e-10)
    assert r.solved and nat_residual(ks_F, r.z, np.zeros(4), np.full(4, np.inf)) <= 1e-9


def test_wrong_shape_from_F_is_an_error():
    with pytest.raises(cpkit.Error, match=r"F\(z\) must return 4 values"):
        cpkit.solve_nonlinear(lambda z: np.zeros(3), ks_J, 4)
    with pytest.raises(cpkit.Error, match=r"expected shape \(4, 4\)"):
        cpkit.solve_nonlinear(ks_F, lambda z: np.eye(3), 4)


def test_callbacks_outlive_the_callers_references():
    def make():
        c = np.array([2.0, 0.5])
        return cpkit.NonlinearMCP(lambda z: z - c, lambda z: np.eye(2), 2)

    prob = make()
    gc.collect()
    r = cpkit.solve(prob, tol=1e-12)
    assert r.solved and np.allclose(r.z, [2.0, 0.5])
    assert np.allclose(prob.F([1.0, 1.0]), [-1.0, 0.5])
    assert np.allclose(prob.jacobian([0.0, 0.0]).toarray(), np.eye(2))


def test_bound_solver_follows_bound_updates():
    # F(z) = z^3 - 1 on [l, u]: z = clip(1, l, u); the bounds change between solves.
    F = lambda z: z ** 3 - 1.0  # noqa: E731
    J = lambda z: np.diag(3 * z ** 2)  # noqa: E731
    prob = cpkit.NonlinearMCP(F, J, 3, lower=np.full(3, -2.0), upper=np.full(3, 2.0),
                              jac_pattern=np.eye(3))
    s = cpkit.Solver(prob, "fbnewton", tol=1e-12)
    assert np.allclose(s.solve().z, 1.0, atol=1e-9)
    for lower, upper in ((np.array([-2.0, 1.5, -1.0]), np.array([0.5, 2.0, 3.0])),
                         (np.array([-3.0, -3.0, 1.2]), np.array([-0.5, 3.0, 1.3]))):
        s.update_bounds(lower, upper)
        r = s.solve()
        assert r.solved and np.allclose(r.z, np.clip(1.0, lower, upper), atol=1e-9)
        assert nat_residual(F, r.z, lower, upper) <= 1e-9


def test_update_refused_while_solving():
    # F updates its own problem during the solve: refused (the solve may run in parallel).
    box = {}

    def F(z):
        box["prob"].update_bounds(np.full(2, -1.0), None)
        return z - 0.5

    box["prob"] = cpkit.NonlinearMCP(F, lambda z: np.eye(2), 2)
    with pytest.raises(cpkit.Error, match="being solved"):
        cpkit.solve(box["prob"])
    box["prob"] = None  # break the cycle problem -> F -> box -> problem
