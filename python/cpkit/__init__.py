"""cpkit: complementarity problems of frictional contact, from Python.

A thin layer over the C library libcpkit (the extension module cpkit._cpkit):

- ``solve(M, q, lower=None, upper=None, solver="lemke", ...)``: an LCP, or an
  affine box-constrained MCP when bounds are given; M a NumPy array or any
  scipy.sparse matrix.
- ``solve_cone(W, q, mu, dim=3, solver="nsn", ...)``: FCLIB's local
  frictional-contact problem (Coulomb cones), with FCLIB's merit in the result.
- ``read_problem(path)``: a problem file (cpkit text format, or FCLIB HDF5).
- ``solvers()``: the registered solvers, the problem kinds and settings each takes.
- ``read_system(path)``, ``System.body``/``System.local`` (from arrays),
  ``compile(system, model)``, ``solve_system(system, model)``: contact systems
  compiled by a contact model, answers per contact as arrays.
- ``solve_nonlinear(F, jacobian, n, ...)`` / ``NonlinearMCP``: nonlinear MCPs from
  Python callables (exceptions raised in them propagate).
- ``Solver(problem, ...)``: a solver bound to a Problem for re-solves after
  ``update_q``, ``update_bounds``, ``update_matrix``, ``update_mu``.
- ``check(...)``: existence and uniqueness verdicts as a CheckReport.
- ``simulate(scene, ...)``: the time-stepper's trajectory as NumPy arrays.

Every failure of a call raises :class:`cpkit.Error` with the library's message
and code; the outcome of a solve (solved, ray_termination, max_iterations, ...)
is ``Result.status``, never an exception. See doc/python.md.
"""
from ._errors import Error
from ._load import load_installed_library

load_installed_library()
from . import _cpkit  # noqa: E402  (after libcpkit is loaded)

_cpkit._register_error(Error)

from ._problem import Problem, read_problem  # noqa: E402  (needs Error registered)
from ._solve import Result, SolverInfo, solve, solve_cone, solvers  # noqa: E402
from ._system import (Compiled, System, compile, read_system, rigid_contact_wrenches,  # noqa: E402
                      solve_system)
from ._nonlinear import NonlinearMCP, solve_nonlinear  # noqa: E402
from ._resolve import Solver  # noqa: E402
from ._check import CheckEntry, CheckReport, check  # noqa: E402
from ._simulate import MODE_SEPARATING, MODE_SLIDING, MODE_STICKING, Trajectory, simulate  # noqa: E402

__version__ = _cpkit.version()

#: Basis entries (Result.basis, the ``basis=`` warm start): variable at its lower bound,
#: at its upper bound, or basic (between its bounds, F_i(z) = 0).
AT_LOWER, AT_UPPER, BASIC = 0, 1, 2

__all__ = ["Error", "Problem", "Result", "SolverInfo", "read_problem", "solve", "solve_cone",
           "solvers", "System", "Compiled", "read_system", "compile", "solve_system", "AT_LOWER", "AT_UPPER", "BASIC", "__version__",
           "NonlinearMCP", "solve_nonlinear", "Solver", "check", "CheckReport", "CheckEntry",
           "simulate", "Trajectory", "rigid_contact_wrenches", "MODE_SEPARATING", "MODE_STICKING", "MODE_SLIDING"]
