"""Bad input raises cpkit.Error with the library's message and code; nothing crashes."""
import os

import numpy as np
import pytest

import cpkit

M2 = np.array([[2.0, 1.0], [1.0, 2.0]])


def raises(code_name, fn, *args, match=None, **kw):
    with pytest.raises(cpkit.Error, match=match) as info:
        fn(*args, **kw)
    assert info.value.name == code_name, str(info.value)
    assert isinstance(info.value, Exception) and info.value.message
    return info.value


def test_error_is_an_exception_with_code():
    e = raises("CPK_EINVAL", cpkit.solve, [[1.0, 2.0, 3.0]], [1.0])
    assert e.code == 1 and "square" in e.message


@pytest.mark.parametrize("M,q", [
    (np.ones((2, 3)), [1.0, 1.0]),            # not square
    (np.ones(4), [1.0] * 4),                   # 1-D
    (M2, [1.0, 2.0, 3.0]),                     # q too long
    (M2, [[1.0], [2.0]]),                      # q 2-D
    (M2, ["a", "b"]),                          # not numbers
    (np.array([[1 + 1j, 0], [0, 1]]), [1.0, 1.0]),  # complex
])
def test_wrong_shapes_and_types(M, q):
    raises("CPK_EINVAL", cpkit.solve, M, q)


def test_nan_and_inf_refused():
    bad = M2.copy()
    bad[0, 1] = np.nan
    raises("CPK_EINVAL", cpkit.solve, bad, [1.0, 1.0])
    raises("CPK_EINVAL", cpkit.solve, M2, [np.nan, 1.0])
    raises("CPK_EINVAL", cpkit.solve, M2, [np.inf, 1.0])
    raises("CPK_EINVAL", cpkit.solve, M2, [1.0, 1.0], lower=[np.nan, 0.0], upper=[1.0, 1.0])


def test_bounds_refused():
    raises("CPK_EINVAL", cpkit.solve, M2, [1.0, 1.0], lower=[2.0, 0.0], upper=[1.0, 1.0])
    raises("CPK_EINVAL", cpkit.solve, M2, [1.0, 1.0], lower=[0.0], upper=[1.0, 1.0])


def test_sparse_nan_refused():
    sp = pytest.importorskip("scipy.sparse")
    raises("CPK_EINVAL", cpkit.solve, sp.csc_matrix(np.array([[1.0, np.nan], [0, 1]])), [1, 1])


def test_unknown_solver_lists_the_valid_names():
    e = raises("CPK_ENOTFOUND", cpkit.solve, M2, [-1.0, -1.0], solver="lemk")
    assert "lemke" in e.message and "did you mean 'lemke'" in e.message
    raises("CPK_ENOTFOUND", cpkit.solve, M2, [-1.0, -1.0], solver=3)


def test_unknown_setting():
    e = raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], pivot_toll=1e-9)
    assert "pivot_tol" in e.message
    # a setting of another solver is unknown to this one
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], solver="lemke", omega=1.2)
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], solver="ipm", method="fastest")


def test_bad_setting_values():
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], tol=-1.0)
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], tol=np.nan)
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], pivot_tol="small")
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], solver="pgs", omega=2.5)
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], max_iter=2 ** 80)
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], linsys="cholesky")


def test_bad_warm_start():
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], z0=[1.0])
    raises("CPK_EINVAL", cpkit.solve, M2, [-1.0, -1.0], basis=[2, 2, 2])


def test_solver_of_the_wrong_kind():
    e = raises("CPK_EUNSUP", cpkit.solve, M2, [-1.0, -1.0], solver="nsn")
    assert e.code == 7
    raises("CPK_EINVAL", cpkit.solve_cone, cpkit.Problem.lcp(M2, [1.0, 1.0]))


def test_cone_input_refused():
    raises("CPK_EINVAL", cpkit.solve_cone, np.eye(4), [0.0] * 4, [0.5], dim=3)  # 4 % 3
    raises("CPK_EINVAL", cpkit.solve_cone, np.eye(3), [0.0] * 3, [0.5], dim=5)
    raises("CPK_EINVAL", cpkit.solve_cone, np.eye(3), [0.0] * 3, [-0.5])
    raises("CPK_EINVAL", cpkit.solve_cone, np.eye(6), [0.0] * 6, [0.5])  # mu: 2 contacts


def test_files(tmp_path, data_dir):
    e = raises("CPK_EIO", cpkit.read_problem, str(tmp_path / "missing.cpk"))
    assert "missing.cpk" in e.message
    bad = tmp_path / "bad.cpk"
    bad.write_text("cpkit-problem 1\ntype lcp\nn 2\nM dense\n1 0\n0 x\n")
    e = raises("CPK_EPARSE", cpkit.read_problem, str(bad))
    assert "bad.cpk:" in e.message
    for f in sorted(os.listdir(os.path.join(data_dir, "bad")))[:20]:
        with pytest.raises(cpkit.Error):
            cpkit.read_problem(os.path.join(data_dir, "bad", f))


def test_problem_arguments():
    p = cpkit.Problem.lcp(M2, [-1.0, -1.0])
    with pytest.raises(cpkit.Error):
        cpkit.solve(p, [1.0, 1.0])
    with pytest.raises(cpkit.Error):
        cpkit.solve(M2)
    with pytest.raises(TypeError):
        cpkit.Problem("not a handle")


def test_file_that_crashes_libhdf5_raises(data_dir):
    """A corrupt FCLIB file on which libhdf5 itself crashes: an exception, the interpreter lives."""
    path = os.path.join(data_dir, "reliab", "fclib-heap-size.hdf5")
    for reader in (cpkit.read_problem, cpkit.read_system):
        e = raises("CPK_EPARSE", reader, path)
        assert "corrupt" in e.message and "fclib-heap-size.hdf5" in e.message
