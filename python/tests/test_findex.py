"""Friction-index (boxed) rows, ODE/Bullet style: -c_i z_j <= z_i <= c_i z_j. Until the library's
solvers take them, it refuses them with CPK_EUNSUP: that refusal must come out as cpkit.Error,
and the solving tests skip only on it."""
import numpy as np
import pytest

import cpkit

AFFINE = ["lemke", "enum", "bdnewton", "fbnewton", "pgs", "ipm"]


def findex_residual(M, q, z, lower, upper, findex, fcoef):
    """Natural residual with the bounds of friction-index rows evaluated at z."""
    lo, up = np.array(lower, float), np.array(upper, float)
    rows = np.flatnonzero(np.asarray(findex) >= 0)
    j = np.asarray(findex)[rows]
    lo[rows], up[rows] = -fcoef[rows] * z[j], fcoef[rows] * z[j]
    return np.max(np.abs(z - np.clip(z - (M @ z + q), lo, up)))


def solve_or_skip(*args, **kwargs):
    try:
        return cpkit.solve(*args, **kwargs)
    except cpkit.Error as e:  # the library's refusal must be this exception, nothing else
        assert e.name == "CPK_EUNSUP" and "friction-index" in e.message, e
        pytest.skip(f"libcpkit does not solve friction-index rows yet (CPK_EUNSUP: {e.message})")


def engine_problem(rng, contacts):
    """A Delassus-like M = J J' + eps I for contacts of (normal, two friction rows)."""
    n = 3 * contacts
    J = rng.standard_normal((n, 2 * n))
    M = J @ J.T / n + 1e-3 * np.eye(n)
    q = rng.standard_normal(n)
    q[0::3] -= 1.0  # approaching normals
    findex = np.full(n, -1)
    findex[1::3] = findex[2::3] = np.arange(0, n, 3)
    fcoef = np.zeros(n)
    fcoef[1::3] = fcoef[2::3] = 0.4
    lower = np.where(findex >= 0, -np.inf, 0.0)
    upper = np.full(n, np.inf)
    return M, q, lower, upper, findex, fcoef


def test_rows_are_validated_and_kept():
    p = cpkit.Problem.lcp(np.eye(3), [-1.0, 2.0, 0.0])
    with pytest.raises(cpkit.Error, match="findex"):
        p.set_friction_index([-1, 1, 0], [0.0, 0.5, 0.5])  # row 1 scaled by itself
    with pytest.raises(cpkit.Error, match="findex"):
        p.set_friction_index([-1, 0, 1], [0.0, 0.5, 0.5])  # row 1 is itself a friction row
    with pytest.raises(cpkit.Error, match="fcoef"):
        p.set_friction_index([-1, 0, 0], [0.0, -0.5, 0.5])
    with pytest.raises(cpkit.Error, match="expected 3 integers"):
        p.set_friction_index([-1, 0], [0.0, 0.5])
    assert p.kind == "lcp" and p.findex is None and p.fcoef is None
    p.set_friction_index([-1, 0, 0], [7.0, 0.5, 0.25])
    assert p.kind == "affine_mcp"  # the library makes it an MCP
    assert p.findex.tolist() == [-1, 0, 0] and p.fcoef.tolist() == [0.0, 0.5, 0.25]
    p.update_fcoef([0.0, 0.1, 0.2])
    assert p.fcoef.tolist() == [0.0, 0.1, 0.2]
    p.set_friction_index(None)
    assert p.findex is None
    with pytest.raises(cpkit.Error, match="no friction-index rows"):
        p.update_fcoef([0.0, 0.1, 0.2])
    cone = cpkit.Problem.cone(np.eye(3), [1.0, 0.0, 0.0], 0.5)
    with pytest.raises(cpkit.Error, match="LCP or affine MCP"):
        cone.set_friction_index([-1, 0, 0], [0.0, 0.5, 0.5])
    mcp = cpkit.Problem.mcp(np.eye(2), [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0])
    with pytest.raises(cpkit.Error, match=r"lower\[j\] >= 0"):
        mcp.set_friction_index([-1, 0], [0.0, 0.5])  # the scaling row may go negative


@pytest.mark.parametrize("solver", AFFINE)
def test_hand_solved_contact(solver):
    # M = I, q = (-1, 2, 0): z_0 = 1, so |z_1|, |z_2| <= 0.5; w_1 = z_1 + 2 > 0 puts z_1 at
    # its lower bound -0.5, and z_2 = 0 with w_2 = 0.
    r = solve_or_skip(np.eye(3), [-1.0, 2.0, 0.0], [0.0, -np.inf, -np.inf], [np.inf] * 3,
                      solver=solver, findex=[-1, 0, 0], fcoef=[0.0, 0.5, 0.5], tol=1e-10)
    assert r.solved and np.allclose(r.z, [1.0, -0.5, 0.0], atol=1e-8)


@pytest.mark.parametrize("solver", ["lemke", "bdnewton", "fbnewton", "pgs"])
def test_engine_like_problem(solver):
    rng = np.random.default_rng(2)
    M, q, lower, upper, findex, fcoef = engine_problem(rng, 6)
    r = solve_or_skip(M, q, lower, upper, solver=solver, findex=findex, fcoef=fcoef, tol=1e-9,
                      max_iter=100000)
    assert r.solved, (r.status, r.message)
    assert findex_residual(M, q, r.z, lower, upper, findex, fcoef) <= 1e-7
    # the friction rows stay inside their cones
    assert np.all(np.abs(r.z[1::3]) <= 0.4 * r.z[0::3] + 1e-9)


def test_resolve_with_new_coefficients():
    rng = np.random.default_rng(4)
    M, q, lower, upper, findex, fcoef = engine_problem(rng, 4)
    prob = cpkit.Problem.mcp(M, q, lower, upper)
    prob.set_friction_index(findex, fcoef)
    try:
        s = cpkit.Solver(prob, "lemke", tol=1e-10)
    except cpkit.Error as e:
        assert e.name == "CPK_EUNSUP", e
        pytest.skip(f"libcpkit does not solve friction-index rows yet (CPK_EUNSUP: {e.message})")
    for mu in (0.4, 0.1, 1.0):
        fcoef = np.where(findex >= 0, mu, 0.0)
        s.update(fcoef=fcoef)
        r = s.solve()
        assert r.solved and findex_residual(M, q, r.z, lower, upper, findex, fcoef) <= 1e-8
