"""check(): verdicts as data, compared with what NumPy decides by brute force on small matrices."""
import itertools
import os

import numpy as np
import pytest

import cpkit
from conftest import natural_residual


def all_minors(M):
    n = len(M)
    return [np.linalg.det(M[np.ix_(s, s)]) for k in range(1, n + 1)
            for s in itertools.combinations(range(n), k)]


@pytest.mark.parametrize("seed", range(12))
def test_matrix_classes_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = 4
    M = rng.standard_normal((n, n)) + (seed % 3) * np.eye(n)
    rep = cpkit.check(M)
    assert isinstance(rep, cpkit.CheckReport) and rep.n == n
    assert "solution_count" not in rep  # the matrix alone: no q to count solutions for
    minors = all_minors(M)
    scale = np.max(np.abs(M))
    if min(minors) > 1e-6 * scale ** 4:
        assert rep["p_matrix"].verdict == "holds"
        assert rep.holds("implies_uniqueness")
    elif min(minors) < -1e-6 * scale ** 4:
        assert rep["p_matrix"].verdict == "fails"
    smallest = np.linalg.eigvalsh((M + M.T) / 2)[0]
    if abs(smallest) > 1e-6 * scale:
        assert rep["sym_pd"].verdict == ("holds" if smallest > 0 else "fails")
    assert set(rep.verdicts.values()) <= {"holds", "fails", "not decided", "implies"}
    assert all(isinstance(e, cpkit.CheckEntry) and e.reason for e in rep)


def test_one_dimensional_counts_by_hand():
    # w = -z + 1: z = 0 (w = 1) and z = 1 (w = 0) are both solutions.
    rep = cpkit.check([[-1.0]], [1.0])
    assert rep["solution_count"].verdict == "holds"
    assert "several (2 solutions" in rep["solution_count"].reason
    assert sorted(rep.solutions[:, 0].tolist()) == [0.0, 1.0]
    # w = -z - 1 < 0 for every z >= 0: no solution.
    rep = cpkit.check([[-1.0]], [-1.0])
    assert "none" in rep["solution_count"].reason and rep.solutions is None
    assert rep["p_matrix"].verdict == "fails"


def test_solutions_found_solve_the_problem():
    rng = np.random.default_rng(11)
    M = rng.standard_normal((6, 6))
    q = rng.standard_normal(6)
    rep = cpkit.check(M, q)
    assert rep.solutions is None or rep.solutions.shape[1] == 6
    for z in ([] if rep.solutions is None else rep.solutions):
        assert natural_residual(M, q, z) <= 1e-8
    d = rep.as_dict()
    assert d["n"] == 6 and len(d["entries"]) == len(rep) and d["entries"][0].keys() == {"name", "verdict", "reason"}


def test_box_mcp_and_problem_input():
    sp = pytest.importorskip("scipy.sparse")
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    rep = cpkit.check(sp.csr_matrix(M), [-1.0, -1.0], lower=[-1.0, -1.0], upper=[1.0, 1.0])
    assert "exactly one" in rep["solution_count"].reason
    (z,) = rep.solutions
    assert np.allclose(z, [1 / 3, 1 / 3])
    again = cpkit.check(cpkit.Problem.mcp(M, [-1.0, -1.0], [-1.0, -1.0], [1.0, 1.0]))
    assert again.verdicts == rep.verdicts


def test_contact_system(data_dir):
    examples = os.path.join(data_dir, "..", "..", "examples")
    path = os.path.join(examples, "sphere-on-plane.json")
    s = cpkit.read_system(path)
    rep = cpkit.check(s, model="polyhedral")
    # one sphere on a plane: J has full column rank, A = J'M^-1 J positive definite
    assert rep["jacobian_rank"].verdict == "holds" and rep["delassus_pd"].verdict == "holds"
    assert "solution_count" in rep
    assert cpkit.check(path, model="polyhedral").verdicts == rep.verdicts
    only_system = cpkit.check(s)
    assert "delassus_pd" in only_system and "solution_count" not in only_system


def test_errors(data_dir):
    with pytest.raises(cpkit.Error) as info:
        cpkit.check(cpkit.Problem.cone(np.eye(3), [1.0, 0.0, 0.0], 0.5))
    assert info.value.name == "CPK_EUNSUP"
    with pytest.raises(cpkit.Error, match="model is for contact systems"):
        cpkit.check(np.eye(2), model="polyhedral")
    with pytest.raises(cpkit.Error, match="max_n"):
        cpkit.check(np.eye(2), max_n=-1)
    with pytest.raises(cpkit.Error) as info:
        cpkit.check(os.path.join(data_dir, "..", "..", "examples", "sphere-on-plane.json"),
                    model="polyhedrall")
    assert info.value.name == "CPK_ENOTFOUND"
