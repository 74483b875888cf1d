#!/usr/bin/env python3
# seed004-reference.py: the reference trajectory behind the checks of examples/seed004-rotating-plate*.scene.json (run: python3 examples/seed004-reference.py).
# Reference solution of seed 004 sec. 3.1 (particle sliding on a plate rotating about an axis
# d below it, theta(t) of eq. (16)), in plate coordinates, RK4 on each smooth piece: steps never
# cross a switch of theta'' and slip reversals are located by bisection.
import sys
from math import *
al, T, d, mu, g = 180.0, 0.03, 5.0, 0.3, 980.665
def theta(j, t):
    """theta, theta', theta'' on half period j (polynomial, valid on [jT/2, (j+1)T/2])."""
    s = t - (j // 2) * T
    if j % 2 == 0: return 0.5*al*s*s - 0.25*al*T*s, al*s - 0.25*al*T, al
    return -0.5*al*s*s + 0.75*al*T*s - 0.25*al*T*T, -al*s + 0.75*al*T, -al
def rhs(j, t, y, sgn=0.0):
    # 3D rotation about +y by theta is the planar rotation by phi = -theta
    r, yy, u, w = y
    th, dth, ddth = theta(j, t)
    ph, dph, ddph = -th, -dth, -ddth
    N = g*cos(ph) + 2*u*dph + r*ddph - d*dph*dph      # normal force per unit mass
    at = d*ddph + r*dph*dph - g*sin(ph)               # drive along the plate
    s = hypot(u, w)
    if sgn and w == 0:                                # planar slip: its sign is fixed on a piece
        fu, fw = -mu*N*sgn, 0.0
    else:
        fu, fw = (-mu*N*u/s, -mu*N*w/s) if s > 0 else (0.0, 0.0)
    return [u, w, at + fu, fw], N, at
def step(j, t, y, h):
    sgn = copysign(1.0, y[2]) if y[3] == 0 else 0.0
    f = lambda tt, yy: rhs(j, tt, yy, sgn)[0]
    k1 = f(t, y)
    k2 = f(t+h/2, [y[i]+h/2*k1[i] for i in range(4)])
    k3 = f(t+h/2, [y[i]+h/2*k2[i] for i in range(4)])
    k4 = f(t+h, [y[i]+h*k3[i] for i in range(4)])
    return [y[i]+h/6*(k1[i]+2*k2[i]+2*k3[i]+k4[i]) for i in range(4)]
def run(y0, outs, dt=4e-5):
    t, y, res, Nmin, sticks = 0.0, list(y0), {}, 1e9, 0
    outs = sorted(outs); half = 0.5*T
    while t < outs[-1] - 1e-13:
        j = int(floor(t/half + 1e-9))
        h = min(dt, (j+1)*half - t)
        for o in outs:
            if t + 1e-13 < o < t + h: h = o - t
        yn = step(j, t, y, h)
        if y[3] == 0 and y[2]*yn[2] < 0:          # planar slip reverses inside the step
            lo, hi = 0.0, h
            for _ in range(60):
                m = 0.5*(lo+hi)
                if step(j, t, y, m)[2]*y[2] > 0: lo = m
                else: hi = m
            y = step(j, t, y, hi); t += hi
            _, N, at = rhs(j, t, [y[0], y[1], 0.0, 0.0])
            if abs(at) <= mu*N: sticks += 1          # friction could hold it: not the sliding regime
            y[2] = copysign(1e-300, at)
            continue
        y = yn; t += h
        Nmin = min(Nmin, rhs(j, t, y)[1])
        for o in outs:
            if abs(t - o) < 1e-12: res[o] = list(y)
    return res, Nmin, sticks
def world(t, y):
    j = int(floor(t/(0.5*T) + 1e-9)); th = theta(j, t)[0]
    return (y[0]*cos(th) + d*sin(th), y[1], -d - y[0]*sin(th) + d*cos(th))
if __name__ == "__main__":
    outs = [float(a) for a in sys.argv[1:]] or [0.6, 1.2, 2.0]
    # on the plate at r = 4 with the plate's velocity: the slip starts along the drive
    res, Nmin, sticks = run([4.0, 0.0, copysign(1e-300, rhs(0, 0.0, [4.0, 0, 0, 0])[2]), 0.0], outs)
    for o in outs: print(o, "x = %.9f" % world(o, res[o])[0], "r = %.9f slip = %.6f" % (res[o][0], res[o][2]))
    print("min N/m = %.3f, stick opportunities %d" % (Nmin, sticks))
