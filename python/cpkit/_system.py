"""Contact systems: read, compile with a contact model, solve, and the per-contact answer."""
from . import _cpkit
from ._errors import Error
from ._problem import Problem
from ._solve import _run

_FORMS = {"auto": 0, "mixed": 1, "reduced": 2, "cone": 3}


class System:
    """A contact system at one step (doc/contact-system.md), read by :func:`read_system`.

    Attributes: name, form ("body" or "local"), nc (contacts), nv (generalized
    velocities; 0 in local form), h (step; 0 = acceleration level).
    """

    def __init__(self, handle):
        self._handle = handle
        self.__dict__.update(handle.info())

    def __repr__(self):
        return f"<cpkit.System {self.name!r}: {self.form} form, {self.nc} contacts, nv={self.nv}>"


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
