"""LCPs and box MCPs through cpkit.solve, each answer checked in NumPy."""
import os

import numpy as np
import pytest

import cpkit
from conftest import natural_residual

M2 = np.array([[2.0, 1.0], [1.0, 2.0]])
Q2 = np.array([-1.0, -1.0])


@pytest.mark.parametrize("solver", ["lemke", "enum", "bdnewton", "fbnewton", "pgs", "ipm"])
def test_two_by_two_analytic(solver):
    # Both variables positive: M z = -q gives z = (1/3, 1/3), w = 0.
    r = cpkit.solve(M2, Q2, solver=solver)
    assert r.status == "solved" and r.solved and r.solver == solver
    assert np.allclose(r.z, [1 / 3, 1 / 3], atol=1e-8)
    assert np.allclose(r.w, M2 @ r.z + Q2, atol=1e-12)
    assert natural_residual(M2, Q2, r.z) <= 1e-8
    assert isinstance(r.stats, dict) and r.iterations >= 0 and r.time >= 0


def test_positive_q_gives_zero():
    r = cpkit.solve(np.eye(3), [1.0, 2.0, 3.0])
    assert r.solved and np.array_equal(r.z, np.zeros(3))


def random_pd(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    M = A @ A.T + n * np.eye(n)
    M[np.abs(M) < 1.0] = 0.0  # some structure for the sparse path
    M += n * np.eye(n)
    return M, rng.standard_normal(n) * 5


def test_sparse_and_dense_agree():
    sp = pytest.importorskip("scipy.sparse")
    M, q = random_pd(40, 1)
    dense = cpkit.solve(M, q)
    assert dense.solved and natural_residual(M, q, dense.z) <= 1e-8
    # every scipy format, including COO with duplicate entries that must be summed
    rows, cols = np.nonzero(M)
    vals = M[rows, cols]
    coo = sp.coo_matrix((np.r_[vals / 2, vals / 2], (np.r_[rows, rows], np.r_[cols, cols])),
                        shape=M.shape)
    for S in (sp.csc_matrix(M), sp.csr_matrix(M), coo, sp.lil_matrix(M)):
        r = cpkit.solve(S, q)
        assert r.solved
        assert np.allclose(r.z, dense.z, atol=1e-9)
        assert natural_residual(M, q, r.z) <= 1e-8


def test_unsorted_csc_is_sorted_not_refused():
    sp = pytest.importorskip("scipy.sparse")
    M = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    q = np.array([-1.0, 2.0, -3.0])
    # column 1 stored with its row indices out of order (2, 0, 1)
    S = sp.csc_matrix((np.array([4, 1, 1, 1, 4, 1, 4.0]), np.array([0, 1, 2, 0, 1, 1, 2]),
                       np.array([0, 2, 5, 7])), shape=(3, 3))
    assert not S.has_sorted_indices
    assert np.allclose(S.toarray(), M)
    r = cpkit.solve(S, q)
    assert r.solved and natural_residual(M, q, r.z) <= 1e-8


@pytest.mark.parametrize("solver", ["lemke", "bdnewton", "fbnewton", "pgs", "enum"])
def test_box_mcp_analytic(solver):
    # F(z) = z + q with a diagonal M: z = mid(l, u, -q) exactly.
    q = np.array([-2.0, 1.5, 0.5, -0.25])
    lower = np.array([-1.0, -1.0, -np.inf, 0.0])
    upper = np.array([1.0, 1.0, np.inf, np.inf])
    r = cpkit.solve(np.eye(4), q, lower=lower, upper=upper, solver=solver)
    assert r.solved
    assert np.allclose(r.z, [1.0, -1.0, -0.5, 0.25], atol=1e-8)
    assert natural_residual(np.eye(4), q, r.z, lower, upper) <= 1e-8


def test_box_mcp_random_natural_map():
    M, q = random_pd(25, 7)
    lower = -np.ones(25)
    upper = np.where(np.arange(25) % 3 == 0, np.inf, 0.5)
    for solver in ("lemke", "bdnewton", "ipm"):
        r = cpkit.solve(M, q, lower, upper, solver=solver)
        assert r.solved, (solver, r.status, r.message)
        assert natural_residual(M, q, r.z, lower, upper) <= 1e-7
        assert np.all(r.z >= lower - 1e-12) and np.all(r.z <= upper + 1e-12)


def test_enum_finds_all_solutions():
    # M = [[1, 2], [2, 1]], q = (-1, -1): solutions (1, 0), (0, 1) and (1/3, 1/3).
    M = np.array([[1.0, 2.0], [2.0, 1.0]])
    q = np.array([-1.0, -1.0])
    r = cpkit.solve(M, q, solver="enum")
    assert r.solutions is not None and r.solutions.shape == (3, 2)
    found = sorted(map(tuple, np.round(r.solutions, 12)))
    assert np.allclose(found, sorted([(0.0, 1.0), (1 / 3, 1 / 3), (1.0, 0.0)]))
    for z in r.solutions:
        assert natural_residual(M, q, z) <= 1e-10


def test_infeasible_lcp_is_a_status_not_an_error():
    # w = -z - 1 < 0 for every z >= 0: no solution.
    r = cpkit.solve([[-1.0]], [-1.0])
    assert r.status in ("no_solution", "ray_termination") and not r.solved
    assert r.ray is not None


def test_iteration_limit_is_a_status():
    M, q = random_pd(30, 3)
    r = cpkit.solve(M, q, solver="pgs", max_iter=1)
    assert r.status == "max_iterations"
    assert natural_residual(M, q, r.z) > 1e-8


def test_warm_start_from_basis_and_point():
    M, q = random_pd(30, 5)
    cold = cpkit.solve(M, q)
    assert cold.solved and cold.basis is not None and cold.basis.shape == (30,)
    assert set(np.unique(cold.basis)) <= {cpkit.AT_LOWER, cpkit.AT_UPPER, cpkit.BASIC}
    warm = cpkit.solve(M, q, basis=cold.basis)
    assert warm.solved and warm.iterations < cold.iterations
    assert np.allclose(warm.z, cold.z, atol=1e-10)
    newton = cpkit.solve(M, q, solver="bdnewton", z0=cold.z)
    assert newton.solved and newton.iterations <= 1


def test_solver_settings_reach_the_solver():
    M, q = random_pd(20, 9)
    plain = cpkit.solve(M, q, solver="pgs", tol=1e-10, max_iter=100000)
    sor = cpkit.solve(M, q, solver="pgs", tol=1e-10, max_iter=100000, omega=1.3)
    assert plain.solved and sor.solved
    assert plain.iterations != sor.iterations  # the relaxation changed the iterates
    assert natural_residual(M, q, sor.z) <= 1e-9
    r = cpkit.solve(M, q, solver="ipm", method="path_following", crossover=False)
    assert r.solved and natural_residual(M, q, r.z) <= 1e-7
    r = cpkit.solve(M, q, linsys="umfpack", covering=np.full(20, 2.0), pivot_tol=1e-10)
    assert r.solved and natural_residual(M, q, r.z) <= 1e-8


def test_read_text_problem(data_dir):
    p = cpkit.read_problem(os.path.join(data_dir, "io-mcp.cpk"))
    assert p.kind in ("lcp", "affine_mcp") and p.n == len(p.q)
    r = cpkit.solve(p, solver="lemke")
    M = p.M.toarray() if hasattr(p.M, "toarray") else p.M
    if r.solved:
        assert natural_residual(M, p.q, r.z, p.lower, p.upper) <= 1e-8 * max(1, np.abs(p.q).max())
    assert np.allclose(r.w, p.F(r.z), atol=1e-10)


def test_problem_object_reused():
    p = cpkit.Problem.lcp(M2, Q2)
    assert p.kind == "lcp" and p.n == 2 and np.array_equal(p.M, M2)
    a, b = cpkit.solve(p), cpkit.solve(p, solver="enum")
    assert np.allclose(a.z, b.z, atol=1e-10)
