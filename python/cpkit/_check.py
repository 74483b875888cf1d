"""check(): the existence and uniqueness report (doc/check.md) as data."""
import os
from collections import namedtuple

import numpy as np

from . import _cpkit
from ._errors import Error
from ._problem import Problem, read_problem
from ._system import System, read_system

#: One line of a report: a stable ``name`` (e.g. "p_matrix"), the ``verdict``
#: ("holds", "fails", "not decided" or "implies") and a one-line ``reason``.
CheckEntry = namedtuple("CheckEntry", "name verdict reason")


class CheckReport:
    """The verdicts of :func:`check`, in the order they were decided.

    Attributes:
        entries: list of :class:`CheckEntry`.
        n: size of the checked matrix or problem.
        solutions: the solutions the count found (one per row), or None.
        time: wall time of the checks (s).

    ``report["p_matrix"]`` is the entry of that name (KeyError when absent),
    ``"p_matrix" in report`` tests for it, ``report.verdicts`` maps names to
    verdicts, ``report.holds(name)`` is True when that entry holds or is implied.
    """

    def __init__(self, data):
        self.entries = [CheckEntry(*e) for e in data["entries"]]
        self.n = data["n"]
        self.solutions = data["solutions"]
        self.time = data["time"]

    @property
    def verdicts(self):
        """{name: verdict} (the first entry of each name)."""
        out = {}
        for e in self.entries:
            out.setdefault(e.name, e.verdict)
        return out

    def __getitem__(self, name):
        for e in self.entries:
            if e.name == name:
                return e
        raise KeyError(name)

    def __contains__(self, name):
        return any(e.name == name for e in self.entries)

    def __iter__(self):
        return iter(self.entries)

    def __len__(self):
        return len(self.entries)

    def holds(self, name):
        """True when entry `name` exists with verdict "holds" or "implies"."""
        return name in self and self[name].verdict in ("holds", "implies")

    def as_dict(self):
        """The report in the shape of ``cpkit check --json``: n, entries, solutions, time_s."""
        sols = [] if self.solutions is None else self.solutions.tolist()
        return {"n": self.n, "entries": [e._asdict() for e in self.entries], "solutions": sols,
                "time_s": self.time}

    def __str__(self):
        return "\n".join(f"{e.verdict:12s} {e.name}: {e.reason}" for e in self.entries)

    def __repr__(self):
        return f"<cpkit.CheckReport n={self.n}, {len(self.entries)} entries>"


def check(subject, q=None, lower=None, upper=None, model=None, max_n=20, rel_tol=1e-10,
          count_solutions=True):
    """Existence and uniqueness checks, decided numerically (doc/check.md).

    Args:
        subject: one of
            - a matrix M (array or scipy.sparse): with ``q`` None, the classes of M
              (P, P0, PD/PSD symmetric part, copositivity, R0, ...) and what they
              imply for LCP(q, M) for every q; with ``q`` (and optionally bounds),
              the problem LCP/MCP(M, q) including the exact solution count;
            - a :class:`Problem` (LCP or affine MCP);
            - a :class:`System` (contact system): Theorem 1 of seed 000 and, for the
              polyhedral model at h > 0, Stewart-Trinkle's condition, then the
              problem compiled with ``model`` (None: the system's conditions only);
            - a path: a contact system when ``model`` is given, else a problem file.
        max_n: size limit of the exponential tests (P, copositivity, enumeration).
        rel_tol: tolerance relative to ||M|| (eigenvalues, pivots, signs).
        count_solutions: count the problem's solutions by enumeration (n <= max_n).

    Returns:
        :class:`CheckReport`. Verdicts are data, never exceptions: cpkit.Error is
        raised only for bad input (e.g. a friction-cone problem).
    """
    args = (int(max_n), float(rel_tol), bool(count_solutions))
    if isinstance(subject, (str, bytes, os.PathLike)):
        subject = read_system(subject) if model is not None else read_problem(subject)
    if isinstance(subject, System):
        if q is not None or lower is not None or upper is not None:
            raise Error("check(system): q and bounds come from the system")
        return CheckReport(_cpkit.check_contact(subject._handle, model, *args))
    if model is not None:
        raise Error("check: model is for contact systems (cpkit.read_system)")
    if isinstance(subject, Problem):
        if q is not None or lower is not None or upper is not None:
            raise Error("check(problem): q and bounds come from the problem")
        return CheckReport(_cpkit.check_problem(subject._handle, False, *args))
    if q is None:
        if lower is not None or upper is not None:
            raise Error("check(M, lower=..., upper=...): q is missing")
        shape = np.shape(subject)
        n = shape[0] if shape else 0
        problem = Problem.lcp(subject, np.zeros(n))
        return CheckReport(_cpkit.check_problem(problem._handle, True, *args))
    if lower is None and upper is None:
        problem = Problem.lcp(subject, q)
    else:
        problem = Problem.mcp(subject, q, lower, upper)
    return CheckReport(_cpkit.check_problem(problem._handle, False, *args))
