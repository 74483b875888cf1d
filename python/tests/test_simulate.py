"""simulate(): trajectories as arrays, checked against the stepper's scheme worked by hand."""
import json
import os

import numpy as np
import pytest

import cpkit

G = 9.81


@pytest.fixture
def examples(data_dir):
    return os.path.join(data_dir, "..", "..", "examples")


def falling_scene(h=0.01, duration=0.5):
    return {"cpkit_scene": 1, "name": "fall", "step": h, "duration": duration,
            "bodies": [{"name": "floor", "kind": "fixed", "shape": "plane"},
                       {"name": "ball", "shape": "sphere", "radius": 0.1, "mass": 2.0,
                        "position": [0.0, 0.0, 5.0], "velocity": [1.0, 0.0, 2.0],
                        "angular_velocity": [0.0, 3.0, 0.0]}]}


def test_free_flight_follows_the_scheme_exactly():
    # No contact (z stays above 3.7): v+ = v + h g, x+ = x + h v+, so after k steps
    # v_z = 2 - g h k and z = 5 + h (2 k - g h k (k + 1) / 2); x = h k; w constant.
    h = 0.01
    t = cpkit.simulate(falling_scene(h), contacts=True)
    k = np.arange(t.steps + 1)
    assert t.steps == 50 and t.bodies == ["floor", "ball"] and t.body_kinds == ["fixed", "dynamic"]
    assert t.x.shape == (51, 2, 3) and t.q.shape == (51, 2, 4) and t.time.shape == (51,)
    ball = t.body("ball")
    assert np.allclose(t.time, h * k, atol=1e-12)
    assert np.allclose(ball["v"][:, 2], 2 - G * h * k, atol=1e-12)
    assert np.allclose(ball["x"][:, 2], 5 + h * (2 * k - G * h * k * (k + 1) / 2), atol=1e-12)
    assert np.allclose(ball["x"][:, 0], h * k, atol=1e-12)
    assert np.allclose(ball["w"], [0.0, 3.0, 0.0])
    # a rotation about world y by 3 t: q = (cos(3t/2), 0, sin(3t/2), 0)
    assert np.allclose(ball["q"], np.c_[np.cos(1.5 * t.time), 0 * k, np.sin(1.5 * t.time), 0 * k],
                       atol=1e-12)
    assert np.array_equal(t.ncontacts, np.zeros(51)) and len(t.contacts["row"]) == 0
    assert t.status == ["solved"] * 51 and t.error is None and t.checks == []
    # kinetic + gravitational energy, recomputed from the state
    inertia = 0.4 * 2.0 * 0.1 ** 2
    energy = 0.5 * 2.0 * np.sum(ball["v"] ** 2, axis=1) + 0.5 * inertia * 9.0 + 2.0 * G * ball["x"][:, 2]
    assert np.allclose(t.energy, energy, rtol=1e-12)


def test_spinning_sphere_against_seed000(examples):
    # Seed 000 4.1.1: w_z decreases at mu m g e_r / I = 1.962 rad/s^2 from 1.962 until it stops.
    t = cpkit.simulate(os.path.join(examples, "seed000-spin-polyhedral.scene.json"), contacts=True)
    assert t.checks_passed and len(t.checks) == 7
    wz = t.body("ball")["w"][:, 2]
    spinning = t.time <= 0.98 + 1e-9
    assert np.allclose(wz[spinning], 1.962 * (1 - t.time[spinning]), atol=1e-6)
    assert np.allclose(wz[t.time >= 1.05 - 1e-9], 0.0, atol=1e-6)
    c = t.contacts
    # one contact per step, the ball pressed by m g h, the moment -mu m g e_r h while spinning
    assert np.array_equal(np.bincount(c["row"], minlength=len(t.time)), t.ncontacts)
    assert np.array_equal(t.ncontacts[1:], np.ones(t.steps))
    assert np.allclose(c["impulse"][:, 0], G * t.h, atol=1e-8)
    assert np.allclose(c["impulse"][t.time[c["row"]] <= 0.98 + 1e-9, 3], -0.7848 * t.h, atol=1e-8)
    assert np.allclose(c["normal"], [0.0, 0.0, 1.0]) and np.allclose(c["gap"], 0.0, atol=1e-12)
    assert set(c["bodies"][:, 0]) == {1} and set(c["bodies"][:, 1]) == {0}
    assert set(c["mode"][:5]) == {cpkit.MODE_SLIDING}  # spinning in place: torsional slip


def test_sources_and_overrides_agree(examples):
    path = os.path.join(examples, "seed000-spin-polyhedral.scene.json")
    with open(path) as f:
        text = f.read()
    a = cpkit.simulate(path, duration=0.35)
    b = cpkit.simulate(json.loads(text), duration=0.35)
    c = cpkit.simulate(text, duration=0.35)
    assert a.steps == 5 and np.isclose(a.time[-1], 0.35)
    for other in (b, c):
        assert np.array_equal(a.w, other.w) and np.array_equal(a.x, other.x)
    half = cpkit.simulate(path, h=0.035, duration=0.35)
    assert half.steps == 10 and np.allclose(np.diff(half.time), 0.035)
    # the same physics at half the step: still exact at the step ends
    assert np.allclose(half.body("ball")["w"][:, 2], 1.962 * (1 - half.time), atol=1e-6)


def test_failed_step_keeps_the_trajectory(examples):
    path = os.path.join(examples, "seed000-spin-polyhedral.scene.json")
    with pytest.raises(cpkit.Error) as info:
        cpkit.simulate(path, solver="lemke", max_iter=1)
    err = info.value
    assert err.name == "CPK_ENOCONV" and "max_iterations" in err.message
    assert err.trajectory.steps == 0 and err.trajectory.x.shape == (1, 2, 3)
    t = cpkit.simulate(path, solver="lemke", max_iter=1, raise_on_failure=False)
    assert t.error and "lemke" in t.error


def test_finished_answers_are_counted(examples):
    # bdnewton with 5 iterations a solve stops short at t = 0.1763 of the tilted
    # ellipsoid (elliptic-torsional); the stepper's finishing phase completes that solve
    # and the step's row counts it (doc/simulate.md, "compile and solve")
    path = os.path.join(examples, "seed003-ellipsoid-tilted.scene.json")
    t = cpkit.simulate(path, model="elliptic-torsional", solver="bdnewton", max_iter=5,
                       duration=0.2)
    assert t.error is None and t.steps == 2000
    assert t.finishes[1764] == 1 and t.finishes.sum() >= 1  # row 1764: the step ending at 0.1764
    assert t.physics_failures.sum() == 0 and t.fallbacks.sum() == 0
    # no finishing attempt ended in an error; the array has one entry per row
    assert t.finish_errors.shape == t.finishes.shape and t.finish_errors.sum() == 0


def test_errors(examples, tmp_path):
    path = os.path.join(examples, "seed000-spin-polyhedral.scene.json")
    with pytest.raises(cpkit.Error) as info:
        cpkit.simulate(path, model="polyhedrall")
    assert info.value.name == "CPK_ENOTFOUND" and "polyhedral" in info.value.message
    with pytest.raises(cpkit.Error, match="unknown solver 'lemk'"):
        cpkit.simulate(path, solver="lemk")
    with pytest.raises(cpkit.Error) as info:
        cpkit.simulate(str(tmp_path / "missing.scene.json"))
    assert info.value.name == "CPK_EIO"
    bad = falling_scene()
    bad["bodies"][1]["mass"] = -1.0
    with pytest.raises(cpkit.Error, match="mass"):
        cpkit.simulate(bad)
    with pytest.raises(cpkit.Error, match="no body 'rod'"):
        cpkit.simulate(falling_scene(duration=0.02)).body("rod")
    with pytest.raises(cpkit.Error, match="path, a JSON string or a dict"):
        cpkit.simulate(42)


class Alarm(Exception):
    pass


def test_a_signal_stops_the_run(examples):
    # A run of about 43 000 steps (seconds), stopped by a SIGALRM handler's exception
    # after 0.05 s: the run checks Python's signals every 0.2 s without the GIL held.
    signal = pytest.importorskip("signal")
    if not hasattr(signal, "setitimer"):
        pytest.skip("no setitimer")

    def handler(signum, frame):
        raise Alarm()

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(Alarm):
            cpkit.simulate(os.path.join(examples, "seed000-spin-polyhedral.scene.json"),
                           duration=3000.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
