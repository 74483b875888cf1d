"""simulate(): a scene run by the time-stepper (doc/simulate.md), the trajectory as NumPy arrays."""
import json
import os

import numpy as np

from . import _cpkit
from ._errors import Error

#: Contact modes in Trajectory.contacts["mode"] (CPK_MODE_*; bit 4: kelvin-voigt core reached).
MODE_SEPARATING, MODE_STICKING, MODE_SLIDING = 0, 1, 2


class Trajectory:
    """The run of a scene: row 0 is the initial state, row k the state after step k.

    Attributes:
        name: the scene's name. bodies: body names; body_kinds: "dynamic", "fixed"
            or "driven" per body. h, duration: step and duration used. steps: steps done.
        time: (rows,) times.
        x, q, v, w: (rows, bodies, 3 or 4) positions of the centres of mass,
            orientations (w, x, y, z), linear and angular velocities (world frame).
        energy: (rows,) kinetic + gravitational energy.
        ncontacts, iterations, fallbacks, physics_failures, finishes, finish_errors,
            sweeps: (rows,) ints per step (0 in row 0; finishes: answers replaced by the
            stepper's finishing phase; finish_errors: finishing attempts that ended in
            an error and were set aside, doc/simulate.md); residual, solve_time: (rows,) floats; status: list of
            the status word of each step's last solve.
        checks: the scene's checks, a list of dicts (label, quantity, expected, tol,
            measured (bool: the run reached the measurement), value, passed, why).
        contacts: with ``contacts=True``, every contact of every step as arrays of
            one entry per contact: row (index into time of the step's end), bodies
            (k, 2; the first receives +impulse), feature, point (k, 3), normal (k, 3),
            gap, impulse (k, 4: n, t, o, r in the contact frame; forces are impulse/h),
            mode (MODE_*); else None.
        error: None, or the message of the step that failed (the arrays hold the run
            up to it).
    """

    def __init__(self, data):
        self.name = data["name"]
        self.bodies = [b[0] for b in data["bodies"]]
        self.body_kinds = [b[1] for b in data["bodies"]]
        self.h, self.duration, self.steps = data["h"], data["duration"], data["steps"]
        state = data["state"]
        self.x, self.q = state[:, :, 0:3], state[:, :, 3:7]
        self.v, self.w = state[:, :, 7:10], state[:, :, 10:13]
        self.__dict__.update(data["steps_data"])
        self.checks = data["checks"]
        self.contacts = data["contacts"]
        self.error = data["error"] or None

    def body(self, name):
        """The arrays of one body by name: dict with x, q, v, w (rows, 3 or 4)."""
        try:
            b = self.bodies.index(name)
        except ValueError:
            raise Error(f"no body '{name}' (bodies: {', '.join(self.bodies)})", 9,
                        "CPK_ENOTFOUND") from None
        return {"x": self.x[:, b], "q": self.q[:, b], "v": self.v[:, b], "w": self.w[:, b]}

    @property
    def checks_passed(self):
        """True when every check of the scene passed (True without checks)."""
        return all(c["passed"] for c in self.checks)

    def __repr__(self):
        return (f"<cpkit.Trajectory {self.name!r}: {len(self.bodies)} bodies, {self.steps} steps "
                f"of h={self.h:g}>")


def _source(scene):
    """(text or path, is_text) for the extension."""
    if isinstance(scene, dict):
        return json.dumps(scene), True
    if isinstance(scene, str) and scene.lstrip().startswith("{"):
        return scene, True
    if isinstance(scene, (str, bytes, os.PathLike)):
        return scene, False
    raise Error("simulate: scene must be a path, a JSON string or a dict")


def simulate(scene, duration=None, h=None, model=None, solver=None, fallback=None,
             directions=None, implicit=None, tol=None, max_iter=None, contacts=False,
             raise_on_failure=True):
    """Run a scene (doc/simulate.md) and return its :class:`Trajectory`.

    Args:
        scene: a scene file's path, its JSON text, or the same as a dict.
        duration, h: override the scene's duration and step (s).
        model, directions: contact model and polyhedral directions ("D" or "E:C:P").
        solver, fallback: solver names (see :func:`cpkit.solvers`).
        implicit: number of implicit-geometry sweeps (0: explicit).
        tol, max_iter: settings of every solve.
        contacts: also record every contact of every step (Trajectory.contacts).
        raise_on_failure: when a step's solve fails, raise cpkit.Error (its
            ``trajectory`` attribute holds the run up to the failure); False returns
            the Trajectory with ``error`` set instead.

    The run holds no GIL (Ctrl-C still stops it, within 0.2 s).
    """
    source, is_text = _source(scene)
    data = _cpkit.simulate(source, is_text, model, solver, fallback, directions,
                           -1.0 if h is None else float(h),
                           -1.0 if duration is None else float(duration),
                           -1.0 if tol is None else float(tol),
                           -1 if implicit is None else int(implicit),
                           -1 if max_iter is None else int(max_iter), bool(contacts))
    traj = Trajectory(data)
    if traj.error and raise_on_failure:
        err = Error(traj.error, data["error_code"], data["error_name"])
        err.trajectory = traj
        raise err
    return traj
