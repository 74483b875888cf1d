"""Re-solves: a Solver bound to a Problem, the problem's data changed in place; every answer
checked in NumPy against the data the test itself keeps."""
import numpy as np
import pytest

import cpkit
from conftest import check_coulomb, natural_residual


def random_mcp(rng, n):
    A = rng.standard_normal((n, n))
    M = A @ A.T + n * np.eye(n)
    M[np.abs(M) < 0.5] = 0.0  # a sparse pattern to keep
    M += n * np.eye(n)
    lower = -rng.random(n)
    upper = rng.random(n) + 0.1
    return M, 5 * rng.standard_normal(n), lower, upper


def same_pattern(rng, M):
    """New values on M's pattern (still positive definite by diagonal dominance)."""
    mask = M != 0
    V = np.where(mask, rng.standard_normal(M.shape), 0.0)
    V = (V + V.T) / 2
    return V + np.diag(np.abs(V).sum(axis=1) + 1.0)


AFFINE = ["lemke", "enum", "bdnewton", "fbnewton", "pgs", "ipm"]
# Bound solvers that keep data of the problem from their allocation: at ff1c35d the library
# does not refresh them after an update (issue 15's solver side, branch resolve, does).
CACHING = {("enum", "dense"), ("enum", "csc"), ("pgs", "csc"), ("ipm", "dense")}


def library_has_resolve_side():
    """Whether libcpkit has issue 15's solver side: with it a bound lemke re-solves the same
    problem from its last basis (no pivot); without it every solve starts cold (n pivots)."""
    M, q, lower, upper = random_mcp(np.random.default_rng(1), 12)
    s = cpkit.Solver(cpkit.Problem.mcp(M, q, lower, upper), "lemke")
    return s.solve().iterations > 0 and s.solve().iterations == 0


@pytest.mark.parametrize("fmt", ["dense", "csc"])
@pytest.mark.parametrize("solver", AFFINE)
def test_resolve_after_every_kind_of_update(solver, fmt):
    try:
        resolve_after_every_kind_of_update(solver, fmt)
    except AssertionError:
        if (solver, fmt) in CACHING and not library_has_resolve_side():
            pytest.xfail(f"libcpkit without issue 15's solver side: bound '{solver}' keeps stale "
                         f"data of a {fmt} M after update_matrix")
        raise


def resolve_after_every_kind_of_update(solver, fmt):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    n = 8 if solver == "enum" else 25
    M, q, lower, upper = random_mcp(rng, n)
    store = (lambda A: A) if fmt == "dense" else sp.csc_matrix
    prob = cpkit.Problem.mcp(store(M), q, lower, upper)
    s = cpkit.Solver(prob, solver, tol=1e-10, max_iter=200000)
    assert natural_residual(M, q, s.solve().z, lower, upper) <= 1e-8
    for step in range(3):
        q = 5 * rng.standard_normal(n)
        s.update_q(q)
        r = s.solve()
        assert r.solved and natural_residual(M, q, r.z, lower, upper) <= 1e-8, (step, "q")
        lower, upper = -rng.random(n), rng.random(n) + 0.1
        s.update_bounds(lower, upper)
        r = s.solve()
        assert r.solved and natural_residual(M, q, r.z, lower, upper) <= 1e-8, (step, "bounds")
        M = same_pattern(rng, M)
        s.update_matrix(store(M))
        r = s.solve()
        assert r.solved and natural_residual(M, q, r.z, lower, upper) <= 1e-8, (step, "M")
        fresh = cpkit.solve(store(M), q, lower, upper, solver="lemke", tol=1e-12)
        assert np.allclose(r.z, fresh.z, atol=1e-7)  # positive definite: one solution


def test_update_matrix_forms():
    sp = pytest.importorskip("scipy.sparse")
    M = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    q = np.array([-1.0, 2.0, -3.0])
    prob = cpkit.Problem.lcp(sp.csc_matrix(M), q)
    s = cpkit.Solver(prob, "lemke")
    # 1-D values in the stored CSC order
    M2 = 2 * M
    s.update_matrix(sp.csc_matrix(M2).data)
    assert natural_residual(M2, q, s.solve().z) <= 1e-12
    assert np.array_equal(prob.M.toarray(), M2)
    # a matrix whose pattern is a subset: the entry it leaves out becomes 0
    M3 = M.copy()
    M3[0, 1] = 0.0
    s.update_matrix(sp.coo_matrix(M3))
    assert np.array_equal(prob.M.toarray(), M3)
    assert natural_residual(M3, q, s.solve().z) <= 1e-12
    # dense input for a sparse problem, zeros outside the pattern
    s.update_matrix(M)
    assert np.array_equal(prob.M.toarray(), M)
    with pytest.raises(cpkit.Error, match=r"entry \(0, 2\) = 5 is outside"):
        bad = M.copy()
        bad[0, 2] = 5.0
        s.update_matrix(sp.csr_matrix(bad))
    with pytest.raises(cpkit.Error, match="expected length 7"):
        s.update_matrix(np.ones(5))
    assert np.array_equal(prob.M.toarray(), M)  # refused updates change nothing


def test_dense_problem_update_matrix():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    prob = cpkit.Problem.mcp(M, [-1.0, -1.0], [-1.0, -1.0], [1.0, 1.0])
    M2 = np.array([[3.0, -1.0], [0.5, 1.0]])
    prob.update_matrix(M2)
    assert np.array_equal(prob.M, M2)
    prob.update_matrix(M.ravel())  # n*n values, row-major
    assert np.array_equal(prob.M, M)
    with pytest.raises(cpkit.Error, match="must be finite"):
        prob.update_matrix([[1.0, np.nan], [0.0, 1.0]])


def test_refused_updates_leave_the_problem_unchanged():
    q = np.array([-1.0, 2.0])
    lcp = cpkit.Problem.lcp(np.eye(2), q)
    with pytest.raises(cpkit.Error, match="LCP keeps the bounds"):
        lcp.update_bounds([-1.0, -1.0], None)
    with pytest.raises(cpkit.Error, match="finite"):
        lcp.update_q([np.nan, 1.0])
    with pytest.raises(cpkit.Error, match="expected length 2"):
        lcp.update_q([1.0])
    assert np.array_equal(lcp.q, q) and lcp.rev["q"] == 0
    mcp = cpkit.Problem.mcp(np.eye(2), q, [-1.0, -1.0], [1.0, 1.0])
    with pytest.raises(cpkit.Error, match="lower <= upper"):
        mcp.update_bounds([2.0, 0.0], None)
    assert np.array_equal(mcp.lower, [-1.0, -1.0])
    with pytest.raises(cpkit.Error, match="only friction-cone problems"):
        mcp.update_mu([0.5])
    mcp.update_q([1.0, 1.0])
    mcp.update_bounds(None, [2.0, 2.0])
    assert mcp.rev["q"] == 1 and mcp.rev["bounds"] == 1
    assert np.array_equal(mcp.upper, [2.0, 2.0]) and np.array_equal(mcp.lower, [-1.0, -1.0])


def test_cone_problem_resolve_with_new_q_and_mu():
    rng = np.random.default_rng(3)
    nc, dim = 4, 3
    n = nc * dim
    A = rng.standard_normal((n, n))
    W = A @ A.T + np.eye(n)
    mu = np.full(nc, 0.3)
    q = rng.standard_normal(n)
    prob = cpkit.Problem.cone(W, q, mu, dim)
    s = cpkit.Solver(prob, "nsn", tol=1e-10, max_iter=1000)
    for k in range(3):
        r = s.solve()
        assert r.solved
        check_coulomb(r.z, W @ r.z + q, mu, dim, 1e-7)
        q = rng.standard_normal(n)
        mu = rng.random(nc)
        s.update(q=q, mu=mu)
    prob.update_mu(0.0)  # a scalar: every contact frictionless
    r = s.solve()
    assert r.solved and np.allclose(prob.mu, 0.0)
    check_coulomb(r.z, W @ r.z + q, np.zeros(nc), dim, 1e-7)


def test_warm_start_from_a_basis():
    rng = np.random.default_rng(5)
    M, q, lower, upper = random_mcp(rng, 30)
    prob = cpkit.Problem.mcp(M, q, lower, upper)
    cold = cpkit.solve(prob, solver="lemke")
    s = cpkit.Solver(prob, "lemke")
    r = s.solve(basis=cold.basis)
    assert r.solved and r.iterations == 0 and np.allclose(r.z, cold.z)
    with pytest.raises(cpkit.Error, match="basis"):
        s.warm_start(basis=[5] * 30)


def test_solver_errors():
    prob = cpkit.Problem.cone(np.eye(3), [-1.0, 0.0, 0.0], 0.5)
    with pytest.raises(cpkit.Error) as info:
        cpkit.Solver(prob, "lemke")
    assert info.value.name == "CPK_EUNSUP"
    with pytest.raises(cpkit.Error, match="did you mean 'pivot_tol'"):
        cpkit.Solver(cpkit.Problem.lcp(np.eye(2), [1.0, 1.0]), "lemke", pivot_toll=1e-9)
    with pytest.raises(cpkit.Error, match="expected a cpkit.Problem"):
        cpkit.Solver(np.eye(2))


def test_friction_index_rows_fixed_once_bound():
    prob = cpkit.Problem.mcp(np.eye(3), [-1.0, 0.5, 0.2], [0.0, -np.inf, -np.inf], np.full(3, np.inf))
    s = cpkit.Solver(prob, "lemke")
    with pytest.raises(cpkit.Error, match="Solver is bound"):
        prob.set_friction_index([-1, 0, 0], [0.0, 0.5, 0.5])
    del s
    prob.set_friction_index([-1, 0, 0], [0.0, 0.5, 0.5])  # free again once the Solver is gone
    assert prob.findex.tolist() == [-1, 0, 0]
