"""Contact systems: read, compile with each model, solve, per-contact answers checked by hand."""
import gc
import os

import numpy as np
import pytest

import cpkit

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")


def example(name):
    return os.path.join(EXAMPLES, name)


def check_modes(modes, impulses):
    assert "sliding" in modes
    for mode, p in zip(modes, impulses):
        assert mode in ("sliding", "separating")
        if mode == "separating":
            assert np.allclose(p, 0, atol=1e-10)
        else:
            assert p[0] > 0 and p[1] == pytest.approx(-0.3 * p[0], rel=1e-6)


@pytest.mark.parametrize("model,solver", [("polyhedral", "lemke"), ("point-coulomb", "bdnewton"),
                                          ("point-coulomb", "fbnewton"), ("point-coulomb", "nsn"),
                                          ("point-coulomb", "nsgs"), ("point-coulomb", "fcipm")])
def test_block_sliding_on_four_contacts(model, solver):
    # A 2 kg block sliding at 1 m/s along x, h = 0.01, mu = 0.3, g = 9.81: over the step the
    # normal impulses sum to m g h (no vertical velocity after) and the friction impulses to
    # mu m g h against the motion, so v_x = 1 - mu g h.
    s = cpkit.read_system(example("block-on-plane.json"))
    assert s.nc == 4 and s.nv == 6 and s.form == "body"
    r = cpkit.solve_system(s, model, solver=solver, tol=1e-10)
    assert r.solved, (r.status, r.message)
    cone = solver in ("nsn", "nsgs", "fcipm")  # compiled in the model's cone form
    assert (r.compiled.problem.kind == "friction_cone") == cone
    mgh = 2 * 9.81 * 0.01
    assert r.impulses.shape == (4, 4) and r.contact_velocities.shape == (4, 4)
    assert r.impulses[:, 0].sum() == pytest.approx(mgh, rel=1e-7)
    assert r.impulses[:, 1].sum() == pytest.approx(-0.3 * mgh, rel=1e-6)
    assert r.v[0] == pytest.approx(1 - 0.3 * 9.81 * 0.01, rel=1e-7)
    assert np.allclose(r.v[1:3], 0, atol=1e-9)
    # the four-point support is statically indeterminate: a vertex solution (Lemke) may
    # leave a contact unloaded; every loaded contact slides
    check_modes(r.modes, r.impulses)
    assert np.all(r.impulses[:, 0] >= -1e-12)
    assert np.allclose(r.contact_velocities[:, 0], 0, atol=1e-8)  # resting: no normal speed


def test_cone_form_compiled_and_read_back():
    s = cpkit.read_system(example("block-on-plane.json"))
    c = cpkit.compile(s, "point-coulomb", form="cone")
    p = c.problem
    assert p.kind == "friction_cone" and p.nc == 4 and p.cone_dim == 3
    r = cpkit.solve_cone(p, tol=1e-10)
    assert r.solved
    u = p.M @ r.z + p.q  # the cone problem's velocities, recomputed in NumPy
    assert np.allclose(u, r.w, atol=1e-12)
    back = c.contacts(r)
    assert back["impulses"][:, 0].sum() == pytest.approx(2 * 9.81 * 0.01, rel=1e-7)
    assert back["v"][0] == pytest.approx(1 - 0.3 * 9.81 * 0.01, rel=1e-7)
    with pytest.raises(cpkit.Error, match="unknown form"):
        cpkit.compile(s, "point-coulomb", form="conic")


def test_spinning_sphere_friction_moment():
    # Sphere spinning at 1.962 rad/s about the normal, pressed by its weight over h = 0.07:
    # p_n = m g h; the elliptic-torsional model's moment is mu e_r p_n against the spin.
    s = cpkit.read_system(example("sphere-on-plane.json"))
    r = cpkit.solve_system(s, "elliptic-torsional", solver="bdnewton")
    assert r.solved
    pn = 9.81 * 0.07
    moment = 0.2 * 0.4 * pn
    assert r.impulses[0, 0] == pytest.approx(pn, rel=1e-8)
    assert r.impulses[0, 3] == pytest.approx(-moment, rel=1e-6)
    assert r.v[5] == pytest.approx(1.962 - moment / 0.4, rel=1e-7)
    assert r.modes == ["sliding"]


def test_compiled_problem_outlives_its_wrappers():
    s = cpkit.read_system(example("sphere-on-plane.json"))
    compiled = cpkit.compile(s, "point-coulomb")
    p = compiled.problem
    assert p.kind == "nonlinear_mcp" and p.M is None and compiled.nc == 1
    del compiled, s
    gc.collect()
    r = cpkit.solve(p, solver="bdnewton")  # F reads the map the problem keeps alive
    assert r.solved and r.residual <= r.tolerance


def test_polyhedral_lcp_residual_in_numpy():
    s = cpkit.read_system(example("block-on-plane.json"))
    c = cpkit.compile(s, "polyhedral", directions="4")
    p = c.problem
    assert p.kind == "lcp"
    r = cpkit.solve(p)
    M = p.M.toarray() if hasattr(p.M, "toarray") else p.M
    w = M @ r.z + p.q
    assert np.max(np.abs(np.minimum(r.z, w))) <= 1e-8 * max(1, np.abs(p.q).max())
    out = c.contacts(r)
    check_modes(out["modes"], out["impulses"])
    assert out["impulses"][:, 0].sum() == pytest.approx(2 * 9.81 * 0.01, rel=1e-7)


def test_system_errors(tmp_path):
    with pytest.raises(cpkit.Error) as e:
        cpkit.read_system(str(tmp_path / "none.json"))
    assert "none.json" in e.value.message
    bad = tmp_path / "bad.json"
    bad.write_text('{"cpkit_contact_system": 1, "form": "body", "h": -1}')
    with pytest.raises(cpkit.Error):
        cpkit.read_system(str(bad))
    s = cpkit.read_system(example("sphere-on-plane.json"))
    with pytest.raises(cpkit.Error) as e:
        cpkit.compile(s, "coulomb-ish")
    assert e.value.name == "CPK_ENOTFOUND"
    with pytest.raises(cpkit.Error):
        cpkit.compile(s, "polyhedral", directions="zero")
    with pytest.raises(cpkit.Error):
        cpkit.compile(s, "polyhedral", form="sideways")
    with pytest.raises(cpkit.Error):
        cpkit.compile("not a system", "polyhedral")
    c = cpkit.compile(s, "polyhedral")
    with pytest.raises(cpkit.Error):
        c.contacts(np.zeros(c.n + 1))


def test_system_built_from_arrays_equals_the_file():
    # examples/sphere-on-plane.json by hand: unit sphere (m = 1, I = 0.4) spinning on a plane.
    sp = pytest.importorskip("scipy.sparse")
    M = np.diag([1.0, 1.0, 1.0, 0.4, 0.4, 0.4])
    v = np.array([0, 0, 0, 0, 0, 1.962])
    k = np.array([0, 0, -9.81, 0, 0, 0])
    W = cpkit.rigid_contact_wrenches([0, 0, -1], [0, 0, 1], np.array([1, 1, 0]) / np.sqrt(2))
    assert np.allclose(W[0], [0, 0, 1, 0, 0, 0]) and np.allclose(W[3], [0, 0, 0, 0, 0, 1])
    # W_t = (t, r x t) with r = (0, 0, -1): r x t = (1, -1, 0) / sqrt(2)
    assert np.allclose(W[1], np.array([1, 1, 0, 1, -1, 0]) / np.sqrt(2))
    built = cpkit.System.body(sp.csr_matrix(M), v, k, h=0.07)
    assert built.nc == 0 and built.nv == 6 and built.form == "body"
    built.add_contact(range(6), *W, mu=0.2, e=(1, 1, 0.4))
    assert built.nc == 1
    read = cpkit.read_system(example("sphere-on-plane.json"))
    for model in ("polyhedral", "elliptic-torsional"):
        a, b = cpkit.compile(built, model), cpkit.compile(read, model)
        assert a.problem.kind == b.problem.kind and a.n == b.n
        if a.problem.M is not None:
            Ma, Mb = (m.toarray() if hasattr(m, "toarray") else m for m in (a.problem.M, b.problem.M))
            assert np.allclose(Ma, Mb, atol=1e-14) and np.allclose(a.problem.q, b.problem.q)
    r = cpkit.solve_system(built, "polyhedral", solver="lemke", directions="8:1:5")
    assert r.solved
    # seed 000 4.1.1: pressed by m g h, the friction moment -mu m g e_r h while spinning
    assert r.impulses[0, 0] == pytest.approx(9.81 * 0.07, rel=1e-9)


def test_local_system_from_arrays():
    s = cpkit.System.local(np.eye(3), [-1.0, 2.0, 0.0], mu=0.5)
    assert s.form == "local" and s.nc == 1
    r = cpkit.solve_system(s, "point-coulomb", solver="nsn", tol=1e-12)
    # u = r + q: r_n = 1 cancels the approach; u_t = 2 + r_t > 0 slides, r_t = -mu r_n
    assert r.solved and np.allclose(r.impulses[0, :3], [1.0, -0.5, 0.0], atol=1e-9)
    with pytest.raises(cpkit.Error, match="dim 3 or 4"):
        cpkit.System.local(np.eye(4), np.zeros(4), dim=2)
    with pytest.raises(cpkit.Error, match="expected length 3"):
        cpkit.System.local(np.eye(3), np.zeros(4))
    body = cpkit.System.body(np.eye(6))
    with pytest.raises(cpkit.Error, match="orthogonal unit"):
        cpkit.rigid_contact_wrenches([0, 0, 0], [0, 0, 2], [1, 0, 0])
    with pytest.raises(cpkit.Error):
        body.add_contact([0, 7], [1.0, 1.0])  # row 7 is beyond nv = 6
    assert body.nc == 0
