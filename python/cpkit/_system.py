"""Contact systems: read or built from arrays, compile with a contact model, solve, and the
per-contact answer."""
import sys

import numpy as np

from . import _cpkit
from ._errors import Error
from ._pattern import pattern_of, values_in_pattern
from ._problem import Problem
from ._solve import _run

_FORMS = {"auto": 0, "mixed": 1, "reduced": 2, "cone": 3}


def _csc(A, what):
    """A square matrix as the extension's CSC tuple (stored entries of a sparse matrix, the
    non-zeros of a dense one)."""
    sparse = sys.modules.get("scipy.sparse")
    shape = A.shape if sparse is not None and sparse.issparse(A) else np.shape(A)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise Error(f"{what}: expected a square matrix, got shape {shape}")
    n = shape[0]
    indptr, indices = pattern_of(A, n, what)
    return (n, n, indptr, indices, values_in_pattern(A, indptr, indices, (n, n), what))


class System:
    """A contact system at one step (doc/contact-system.md): read by :func:`read_system`, or
    built from arrays with :meth:`body` (then :meth:`add_contact` per contact) or
    :meth:`local`.

    Attributes: name, form ("body" or "local"), nc (contacts), nv (generalized
    velocities; 0 in local form), h (step; 0 = acceleration level).
    """

    def __init__(self, handle):
        self._handle = handle
        self.__dict__.update(handle.info())

    @classmethod
    def body(cls, M, v=None, k=None, h=0.01):
        """Body form without contacts: mass matrix M (nv x nv, symmetric positive definite,
        dense or scipy.sparse), velocity v and force k (None: zeros), step h (0: the
        acceleration level). Add contacts with :meth:`add_contact`. The data are copied."""
        Mc = _csc(M, "M")
        return cls(_cpkit.system_body(Mc[0], Mc, v, k, float(h)))

    @classmethod
    def local(cls, W, q, mu=None, dim=3, h=1.0):
        """Local (Delassus) form, FCLIB's: U = W P + q for nc = len(q) / dim contacts of dim
        (3: n, t, o; 4: with the twist r) unknowns; mu one coefficient per contact (a scalar:
        all; None: 0); h the step psi / h uses (FCLIB: 1)."""
        q = np.asarray(q, dtype=np.float64)
        nc = len(q) // int(dim) if q.ndim == 1 else -1
        if mu is not None and np.isscalar(mu):
            mu = np.full(max(nc, 0), float(mu))
        return cls(_cpkit.system_local(nc, int(dim), _csc(W, "W"), q, mu, float(h)))

    def add_contact(self, rows, wn, wt=None, wo=None, wr=None, mu=0.0, psi=0.0, e=(1.0, 1.0, 0.0),
                    drift=None):
        """Add a contact to a body-form system: its wrench columns W_n, W_t, W_o, W_r (the
        generalized force of a unit impulse along n, t, o and of a unit moment about n) on
        the generalized coordinates ``rows`` (0-based), ``wn[k]`` etc. being the entries in
        ``rows[k]`` (None: zero); friction coefficient mu, gap psi at the start of the step,
        ellipsoid semi-axes e = (e_t, e_o, e_r) (e_r = 0: no torsion), drift (4 values added
        to the contact velocity n, t, o, r). See :func:`rigid_contact_wrenches`."""
        e = tuple(float(x) for x in e)
        if len(e) != 3:
            raise Error("e: expected (e_t, e_o, e_r)")
        self._handle.add_contact(rows, wn, wt, wo, wr, (float(psi), float(mu)) + e + (drift,))
        self.__dict__.update(self._handle.info())

    def __repr__(self):
        name = repr(self.name) if self.name else "(unnamed)"
        return f"<cpkit.System {name}: {self.form} form, {self.nc} contacts, nv={self.nv}>"


def rigid_contact_wrenches(r, n, t):
    """Wrench columns of a point contact on one rigid body whose 6 generalized velocities
    are (linear, angular) in the world frame: r the contact point relative to the centre of
    mass, n the unit normal into the body, t a unit tangent (o = n x t). Returns a 4 x 6
    array with rows W_n = (n, r x n), W_t, W_o and W_r = (0, n); use minus these for the
    second body of a pair."""
    return _cpkit.rigid_contact_wrenches(r, n, t)


def read_system(path):
    """Read a contact system: JSON (doc/contact-system.md) or FCLIB HDF5 (local form)."""
    return System(_cpkit.read_system(path))


class Compiled:
    """A system compiled with one model: ``problem`` (an LCP, affine MCP or nonlinear
    MCP, for :func:`cpkit.solve`) and :meth:`contacts` to read a solution back.

    Attributes: problem, model, n (unknowns), nc, nv, mixed (velocities are unknowns).
    """

    def __init__(self, problem_handle, varmap):
        self._map = varmap
        self.problem = Problem(problem_handle)
        self.__dict__.update(varmap.info())

    def contacts(self, z, tol=1e-8):
        """Physics of a solution z (or a Result): a dict with ``impulses`` and
        ``contact_velocities`` (nc x 4 arrays, columns n, t, o, r: impulses, or forces at h = 0,
        and contact velocities at the end of the step), ``modes`` (one of "separating",
        "sticking", "sliding" per contact, judged with tol) and ``v`` (the generalized
        velocity at the end of the step, None in local form)."""
        z = getattr(z, "z", z)
        return self._map.contacts(z, float(tol))

    def __repr__(self):
        return (f"<cpkit.Compiled model={self.model!r}, {self.problem.kind}, n={self.n}, "
                f"nc={self.nc}>")


def compile(system, model, directions=None, form="auto", dense=False):
    """Compile a System with a contact model: "point-coulomb", "elliptic-torsional",
    "polyhedral", "kelvin-voigt" or "distributed" (doc/formulations.md).

    Args:
        directions: polyhedral directions, "D" or "E:C:P" (as ``cpkit compile --directions``).
        form: "auto", "mixed" (velocities kept as unknowns), "reduced" or "cone" (for
            point-coulomb and elliptic-torsional: FCLIB's friction-cone problem, for the
            cone solvers nsn, nsgs, fcipm).
        dense: store an affine problem's matrix dense.
    """
    if not isinstance(system, System):
        raise Error("compile: expected a cpkit.System (see cpkit.read_system)")
    if form not in _FORMS:
        raise Error(f"unknown form '{form}' (valid: {', '.join(_FORMS)})")
    problem, varmap = _cpkit.compile(system._handle, str(model), directions, _FORMS[form],
                                     bool(dense))
    return Compiled(problem, varmap)


def solve_system(system, model, solver="lemke", directions=None, form="auto", tol=None,
                 max_iter=None, time_limit=None, z0=None, mode_tol=1e-8, **solver_settings):
    """Compile and solve a System; the Result also carries ``impulses``,
    ``contact_velocities``, ``modes`` and ``v`` (see :meth:`Compiled.contacts`) and ``compiled``.
    With form "auto" a cone solver (nsn, nsgs, fcipm) gets the model's cone form, as in
    ``cpkit solve-system``."""
    if form == "auto" and isinstance(solver, str) and isinstance(model, str):
        form = {v: k for k, v in _FORMS.items()}.get(_cpkit.form_for_solver(model, solver, 0), form)
    compiled = compile(system, model, directions, form)
    result = _run(compiled.problem, solver, tol, max_iter, time_limit, z0, None, solver_settings)
    result.__dict__.update(compiled.contacts(result.z, mode_tol))
    result.compiled = compiled
    return result
