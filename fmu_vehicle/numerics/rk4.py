"""Classic fourth-order Runge-Kutta (RK4): the stages, the update and the continuous extension, written once.

For y' = f(t, y), a step of size h from (t, y) (rows K1..K4 of ``stages``; row TMP holds each stage's state):

    k1 = f(t, y), k2 = f(t + h/2, y + h/2 k1), k3 = f(t + h/2, y + h/2 k2), k4 = f(t + h, y + h k3)
    y(t + h) = y + h/6 (k1 + 2 k2 + 2 k3 + k4)

and its continuous extension (Hermite, third order), θ in [0, 1]:

    y(t + θ h) = y + h (b1 k1 + b23 (k2 + k3) + b4 k4),
    b1 = θ - 3θ²/2 + 2θ³/3,  b23 = θ² - 2θ³/3,  b4 = -θ²/2 + 2θ³/3.

The derivative is an argument: ``f(t, y, ctx, dy) -> status`` writes dy = f(t, y) for the system ``ctx``
(anything numba can pass: a record of arrays, a tuple) and returns an integer status, negative for a failure
(the step stops there and returns it), else 0 or positive. f is a compiled function (a ``numerics.jit.njit``
dispatcher, inline or not): numba types the argument as that very function and resolves its calls when it
compiles the caller, a direct call as if f were named in the code. The kernels here are ``inline="always"``:
each caller (a ``cache=True`` kernel of a stepper) gets them inlined with its own derivative, and its cache
entry holds the result (a second process loads it without compiling). Every kernel runs unchanged with
NUMBA_DISABLE_JIT=1 (f is then a Python function).

Each state element takes the same floating-point operations in the same order as a loop written out for one
system (``y[i] + 0.5 * h * k1[i]``, ``h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])``): results are
bit-identical to such a loop.

Users: the tire steppers (``tire.stepper``: a wheel on a road, ``tire.stepper3d``: a spatial wheel's slip
states) and the fixed-step integrators' RK4 step. A system whose derivative takes more than one context
argument passes them as a tuple through an adapter; the vehicle integrator's step rest
(``integrators.rk4._rk4_rest(model, data, t, h, y, work)``, work rows 0..4 = K1..K4, TMP, derivative
``system_rhs(t, y, model, data, out)`` returning a status) is

    @njit(inline="always")
    def _system_f(t, y, ctx, dy):
        return system_rhs(t, y, ctx[0], ctx[1], dy)

    rk4_rest(_system_f, t, h, y, (model, data), work)

Only ``numerics.jit`` of the package is imported.
"""
from __future__ import annotations

from .jit import njit

# rows of a stages array float64[N_STAGES, n]
K1, K2, K3, K4, TMP = range(5)
N_STAGES = 5


@njit(inline="always")
def rk4_stages(f, t, h, y, ctx, stages):
    """Stages k2, k3, k4 of an RK4 step of size h [s] from (t, y) into stages[K2:K4+1]; stages[K1] must hold
    f(t, y). y is not changed. Returns the first negative status of f, else 0."""
    k1, k2, k3, k4, tmp = stages[K1], stages[K2], stages[K3], stages[K4], stages[TMP]
    n = y.shape[0]
    for i in range(n):
        tmp[i] = y[i] + 0.5 * h * k1[i]
    st = f(t + 0.5 * h, tmp, ctx, k2)
    if st < 0:
        return st
    for i in range(n):
        tmp[i] = y[i] + 0.5 * h * k2[i]
    st = f(t + 0.5 * h, tmp, ctx, k3)
    if st < 0:
        return st
    for i in range(n):
        tmp[i] = y[i] + h * k3[i]
    st = f(t + h, tmp, ctx, k4)
    if st < 0:
        return st
    return 0


@njit(inline="always")
def rk4_update(h, y, stages):
    """y += h/6 (k1 + 2 k2 + 2 k3 + k4) with the stages of the step of size h [s]: y becomes y(t + h)."""
    k1, k2, k3, k4 = stages[K1], stages[K2], stages[K3], stages[K4]
    for i in range(y.shape[0]):
        y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])


@njit(inline="always")
def rk4_dense(h, y, stages, theta, y_theta):
    """y_theta = y(t + θ h) from the stages of the step of size h [s] from (t, y) (continuous extension)."""
    k1, k2, k3, k4 = stages[K1], stages[K2], stages[K3], stages[K4]
    t2 = theta * theta
    t3 = t2 * theta
    b1 = theta - 1.5 * t2 + 2.0 / 3.0 * t3
    b23 = t2 - 2.0 / 3.0 * t3
    b4 = -0.5 * t2 + 2.0 / 3.0 * t3
    for i in range(y.shape[0]):
        y_theta[i] = y[i] + h * (b1 * k1[i] + b23 * (k2[i] + k3[i]) + b4 * k4[i])


@njit(inline="always")
def rk4_rest(f, t, h, y, ctx, stages):
    """Stages k2..k4 and the update of one RK4 step of size h [s] from (t, y) whose k1 = f(t, y) is in
    stages[K1]: y becomes y(t + h). Returns the first negative status of f (y unchanged then), else 0."""
    st = rk4_stages(f, t, h, y, ctx, stages)
    if st < 0:
        return st
    rk4_update(h, y, stages)
    return 0


@njit(inline="always")
def rk4_step(f, t, h, y, ctx, stages):
    """One RK4 step of size h [s]: y(t) -> y(t + h) in place. Returns the first negative status of f, else 0."""
    st = f(t, y, ctx, stages[K1])
    if st < 0:
        return st
    return rk4_rest(f, t, h, y, ctx, stages)


@njit(inline="always")
def rk4_advance_sampled(f, t, h, n, tau_out, y, ctx, stages, y_out):
    """Advance y over [t, t + h] with n >= 1 equal RK4 steps s = h/n and sample it at t + tau_out into y_out.

    tau_out [s] in (0, h]: y_out is the continuous extension inside the step that contains it, or that step's
    result when tau_out falls on its end (to round-off: 1e-12 h). Ends with the evaluation
    f(t + tau_out, y_out) into stages[TMP] (whatever f leaves in ctx is that evaluation's). Returns the first
    negative status of f (y then holds the state of the last completed step), else 0.
    """
    s = h / n
    pending = True
    for i in range(n):
        a = i * s
        st = f(t + a, y, ctx, stages[K1])
        if st < 0:
            return st
        st = rk4_stages(f, t + a, s, y, ctx, stages)
        if st < 0:
            return st
        if pending and a + s >= tau_out - 1e-12 * h:
            pending = False
            theta = (tau_out - a) / s
            if theta < 1.0 - 1e-12:
                rk4_dense(s, y, stages, theta, y_out)
                rk4_update(s, y, stages)
            else:
                rk4_update(s, y, stages)
                for j in range(y.shape[0]):
                    y_out[j] = y[j]
        else:
            rk4_update(s, y, stages)
    return f(t + tau_out, y_out, ctx, stages[TMP])
