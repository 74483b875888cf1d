"""Shared test helpers: the test data directory and answer checks written in NumPy only."""
import os

import numpy as np
import pytest

DATA = os.environ.get("CPK_TEST_DATA",
                      os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data"))


@pytest.fixture
def data_dir():
    return DATA


def natural_residual(M, q, z, lower=None, upper=None):
    """||z - clip(z - (Mz + q), l, u)||_inf: 0 exactly at a solution of the box MCP (LCP: min(z, w))."""
    n = len(q)
    lower = np.zeros(n) if lower is None else np.asarray(lower, float)
    upper = np.full(n, np.inf) if upper is None else np.asarray(upper, float)
    w = M @ z + q
    return np.max(np.abs(z - np.clip(z - w, lower, upper)), initial=0.0)


def project_cone(mu, x):
    """Euclidean projection on {|x_T| <= mu x_n} (normal first), by the textbook formula."""
    xn, xt = x[0], x[1:]
    t = np.linalg.norm(xt)
    if t <= mu * xn:
        return x.copy()
    if mu * t <= -xn:
        return np.zeros_like(x)
    a = (xn + mu * t) / (1.0 + mu * mu)
    y = np.empty_like(x)
    y[0] = a
    y[1:] = mu * a * xt / t if t > 0 else 0.0
    return y


def coulomb_errors(r, u, mu, dim):
    """Per contact |r_c - proj_K(r_c - u^_c)|_2 with u^ = u + mu |u_T| e_n (De Saxce)."""
    errs = []
    for c in range(len(r) // dim):
        rc, uc = r[c * dim:(c + 1) * dim], u[c * dim:(c + 1) * dim]
        uhat = uc.copy()
        uhat[0] += mu[c] * np.linalg.norm(uc[1:])
        errs.append(np.linalg.norm(rc - project_cone(mu[c], rc - uhat)))
    return np.array(errs)


def check_coulomb(r, u, mu, dim, tol):
    """The Coulomb law checked directly per contact: r in K, u^ in K*, r . u^ = 0 (within tol)."""
    for c in range(len(r) // dim):
        rc, uc = r[c * dim:(c + 1) * dim], u[c * dim:(c + 1) * dim]
        uhat = uc.copy()
        uhat[0] += mu[c] * np.linalg.norm(uc[1:])
        assert np.linalg.norm(rc[1:]) <= mu[c] * rc[0] + tol, f"contact {c}: r outside the cone"
        # the dual cone of {|x_T| <= mu x_n} is {mu |y_T| <= y_n}
        assert mu[c] * np.linalg.norm(uhat[1:]) <= uhat[0] + tol, f"contact {c}: u^ outside K*"
        scale = 1.0 + np.linalg.norm(rc) + np.linalg.norm(uhat)
        assert abs(rc @ uhat) <= tol * scale, f"contact {c}: r . u^ = {rc @ uhat}"
