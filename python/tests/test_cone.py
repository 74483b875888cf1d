"""Friction-cone problems through cpkit.solve_cone and FCLIB files, checked per contact in NumPy."""
import os

import numpy as np
import pytest

import cpkit
from conftest import check_coulomb, coulomb_errors

CONE_SOLVERS = ["nsn", "nsgs", "fcipm"]


@pytest.mark.parametrize("solver", CONE_SOLVERS)
def test_one_contact_sticking(solver):
    # W = I, q pushes into the surface: r = (1, 0, 0), u = 0.
    r = cpkit.solve_cone(np.eye(3), [-1.0, 0.0, 0.0], [0.5], solver=solver)
    assert r.solved
    assert np.allclose(r.z, [1, 0, 0], atol=1e-7) and np.allclose(r.w, 0, atol=1e-7)


@pytest.mark.parametrize("solver", CONE_SOLVERS)
def test_one_contact_sliding(solver):
    # W = I, q = (-1, 2, 0), mu = 0.5: u_n = 0 gives r_n = 1; sliding opposes u_t:
    # r = (1, -0.5, 0), u = (0, 1.5, 0).
    r = cpkit.solve_cone(np.eye(3), [-1.0, 2.0, 0.0], 0.5, solver=solver)
    assert r.solved
    assert np.allclose(r.reactions, [[1.0, -0.5, 0.0]], atol=1e-7)
    assert np.allclose(r.velocities, [[0.0, 1.5, 0.0]], atol=1e-7)


@pytest.mark.parametrize("solver", CONE_SOLVERS)
def test_one_contact_separating(solver):
    r = cpkit.solve_cone(np.eye(3), [1.0, 2.0, 0.0], [0.3], solver=solver)
    assert r.solved and np.allclose(r.z, 0, atol=1e-9)


def test_nsgs_handoff_setting():
    # handoff = 0 keeps the sweeps to max_iter; a negative factor is refused by name
    r = cpkit.solve_cone(np.eye(3), [-1.0, 2.0, 0.0], 0.5, solver="nsgs", handoff=0.0)
    assert r.solved and np.allclose(r.reactions, [[1.0, -0.5, 0.0]], atol=1e-7)
    with pytest.raises(cpkit.Error) as e:
        cpkit.solve_cone(np.eye(3), [-1.0, 2.0, 0.0], 0.5, solver="nsgs", handoff=-1.0)
    assert e.value.name == "CPK_EINVAL", str(e.value)


def test_fcprox_settings_by_name():
    # the library's settings table (the CLI's --set reads it too): fcprox's own settings are
    # taken, checked by range, and a solver's unknown name is refused
    r = cpkit.solve_cone(np.eye(3), [-1.0, 2.0, 0.0], 0.5, solver="fcprox", sigma=0.1,
                         inner_max_iter=5)
    assert r.solved and np.allclose(r.reactions, [[1.0, -0.5, 0.0]], atol=1e-7)
    for bad in ({"sigma": -1.0}, {"inner_max_iter": 0}, {"rho": 1}):
        with pytest.raises(cpkit.Error) as e:
            cpkit.solve_cone(np.eye(3), [-1.0, 2.0, 0.0], 0.5, solver="fcprox", **bad)
        assert e.value.name == "CPK_EINVAL", str(e.value)


def test_fcipm_finish_setting():
    # one iteration of fcipm ends short; finish=0 says so, the default finishes with nsn
    q = [-1.0, 2.0, 0.0]
    off = cpkit.solve_cone(np.eye(3), q, 0.5, solver="fcipm", max_iter=1, finish=0)
    assert off.status == "max_iterations" and off.iterations == 1
    r = cpkit.solve_cone(np.eye(3), q, 0.5, solver="fcipm", max_iter=1)
    assert r.solved and np.allclose(r.reactions, [[1.0, -0.5, 0.0]], atol=1e-7)
    with pytest.raises(cpkit.Error) as e:
        cpkit.solve_cone(np.eye(3), q, 0.5, solver="fcipm", finish=2)
    assert e.value.name == "CPK_EINVAL", str(e.value)


def random_cone_problem(nc, dim, seed):
    rng = np.random.default_rng(seed)
    n = nc * dim
    J = rng.standard_normal((n, n + 3))
    W = J @ J.T / n + 0.1 * np.eye(n)
    q = rng.standard_normal(n)
    q[::dim] -= 1.0  # mostly approaching contacts
    mu = rng.uniform(0.1, 0.9, nc)
    return W, q, mu


@pytest.mark.parametrize("solver", CONE_SOLVERS)
@pytest.mark.parametrize("dim", [2, 3])
def test_random_problem_satisfies_coulomb(solver, dim):
    W, q, mu = random_cone_problem(6, dim, 11)
    r = cpkit.solve_cone(W, q, mu, dim=dim, solver=solver, tol=1e-10, max_iter=5000)
    assert r.solved, (r.status, r.message)
    assert np.allclose(r.w, W @ r.z + q, atol=1e-10)
    check_coulomb(r.z, r.w, mu, dim, 1e-7)
    errs = coulomb_errors(r.z, r.w, mu, dim)
    assert abs(r.residual - errs.max()) <= 1e-9 + 1e-6 * errs.max()
    merit = np.sqrt(np.sum(errs ** 2)) / (1 + np.sqrt(np.linalg.norm(q)))
    assert r.fc_merit == pytest.approx(merit, rel=1e-6, abs=1e-14)


def test_sparse_and_dense_cone_agree():
    sp = pytest.importorskip("scipy.sparse")
    W, q, mu = random_cone_problem(5, 3, 4)
    W[np.abs(W) < 0.05] = 0.0
    W = (W + W.T) / 2 + np.eye(len(q))
    dense = cpkit.solve_cone(W, q, mu, tol=1e-12)
    sparse = cpkit.solve_cone(sp.csr_matrix(W), q, mu, tol=1e-12)
    assert dense.solved and sparse.solved
    assert np.allclose(dense.z, sparse.z, atol=1e-8)
    check_coulomb(sparse.z, sparse.w, mu, 3, 1e-8)


def read_fclib(path):
    try:
        return cpkit.read_problem(path)
    except cpkit.Error as e:
        if e.name == "CPK_EUNSUP":
            pytest.skip("cpkit built without HDF5")
        raise


@pytest.mark.parametrize("name", ["Rover1040.hdf5", "FrictionContact3D_1c.hdf5",
                                  "LMGC_GlobalFrictionContactProblem00046.hdf5"])
def test_fclib_files(data_dir, name):
    p = read_fclib(os.path.join(data_dir, "fclib", name))
    assert p.kind == "friction_cone" and p.cone_dim == 3 and p.n == 3 * p.nc
    assert len(p.mu) == p.nc
    W = p.M.toarray() if hasattr(p.M, "toarray") else p.M
    r = cpkit.solve(p, tol=1e-10, max_iter=2000)  # default solver for a cone problem: nsn
    assert r.solver == "nsn" and r.solved, (r.status, r.message)
    u = W @ r.z + p.q
    assert np.allclose(r.w, u, atol=1e-9 * max(1, np.abs(u).max()))
    scale = max(1.0, np.abs(p.q).max())
    check_coulomb(r.z, u, p.mu, 3, 1e-7 * scale)
    errs = coulomb_errors(r.z, u, p.mu, 3)
    merit = np.sqrt(np.sum(errs ** 2)) / (1 + np.sqrt(np.linalg.norm(p.q)))
    assert r.fc_merit == pytest.approx(merit, rel=1e-5, abs=1e-15)
    again = cpkit.solve_cone(p, solver="nsgs", tol=1e-8, max_iter=20000)
    if again.solved:
        check_coulomb(again.z, again.w, p.mu, 3, 1e-6 * scale)
