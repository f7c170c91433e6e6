"""Linearization of a full vehicle about a steady state on a flat road: a straight run or a steady turn.

The vehicle's state y = [z^i, zd^i, kappa', phi, q] (docs/vehicle.md §6) is not at rest in a steady turn:
the chassis x, y and yaw and the wheels' spin angles keep moving, and the chassis velocity along the global
x and y axes turns with the car. On a flat road of uniform friction the derivative does not depend on where
the car is, which way it heads or how far its wheels have turned (the road, the gravity and the tire are the
same everywhere, the wheels are round), so these are **neutral** coordinates: their columns of df/dy vanish.
The linear model leaves them out and rewrites the chassis velocity in the heading frame (rotated by the yaw
coordinate psi only):

    u = cos(psi) x' + sin(psi) y'          v = -sin(psi) x' + cos(psi) y'
    du/dt = cos(psi) x'' + sin(psi) y'' + psi' v      dv/dt = -sin(psi) x'' + cos(psi) y'' - psi' u

In these states (:class:`ReducedSystem`) a steady turn is an equilibrium. Left out, each with its reason:
chassis.x, chassis.y, chassis.yaw and the wheel spin angles (neutral: zero eigenvalues, checked numerically
by :func:`linearize`, ``neutral_coupling``), and the brake bristle angles phi (with no brake torque each
decays at 1000 1/s on its own and acts on nothing, docs/tire.md §7). Kept: the chassis height, pitch and
roll, the suspension travels, every velocity (u and v for the chassis translation), the transient
longitudinal slips kappa' and the lateral transient slips q = tan(alpha') of the tires.

The coordinate partition (which engine coordinates are independent, docs/formulation.md §8) is that of the
vehicle's design configuration and is held fixed: the states are those coordinates at the operating point,
and a partition that would not keep the chassis and spin coordinates independent is refused.

**Operating point** (:func:`operating_point`): unknowns the reduced state, the steering-wheel angle delta_sw
and the total drive torque T (shared equally by the driven wheels); equations the reduced derivative = 0 and
the outputs chassis.vx = the speed and chassis.ay = the lateral acceleration asked for (0: the straight
run, which then also finds the small steering angle the tires' ply steer asks for). Newton's method with a
central-difference Jacobian, continued in steps of at most :data:`AY_STEP_M_S2` from the straight run.

**Linear model** (:func:`linearize`): with x the reduced state's deviation, u = [delta_sw, T_drive per wheel]
and the steering-wheel rate du_0/dt (the rack is a driven coordinate: its travel and velocity are both
prescribed, docs/vehicle.md §10), central differences of the compiled passes give

    dx/dt = A x + B u + B_rate du_0/dt            y = C x + D u + D_rate du_0/dt

Step per column h_j = :data:`FD_STEP` max(|p_j|, s_j) with s_j a typical size of the variable; the whole
Jacobian is taken again at 10 h_j (``fd_check``: the largest difference relative to its column's largest
entry). The rate term is folded into a proper model with the state x~ = x - B_rate u:

    dx~/dt = A x~ + (B + A B_rate) u              y = C x~ + (D + C B_rate) u + D_rate du_0/dt

:class:`LinearModel` holds A, that B and D, C, and B_rate, D_rate. Outputs y are deviations of rows of the
vehicle's output table (default :data:`DEFAULT_OUTPUTS`). The modes are in :mod:`.modes`; the check of the
linear against the nonlinear step response is :func:`step_check`. Described in docs/linearization.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..driver.profile import SteeringProfile
from ..errors import ModelError, SimulationError
from ..integrators.rk4 import rk4_final_packed
from ..numerics.packing import PackedCall
from ..vehicle.dynamics import IN_DRIVE
from .step_steer import step_steer_profile

DEFAULT_OUTPUTS = ("chassis.yaw_rate", "chassis.ay", "chassis.sideslip", "chassis.roll", "chassis.pitch",
                   "chassis.vx", "chassis.vy")
"""Outputs of the linear model: yaw rate [rad/s], lateral acceleration [m/s^2], sideslip [rad], roll and
pitch [rad], forward and lateral velocity [m/s] (chassis axes, docs/vehicle.md §10)."""
STEERING = "steering_wheel_angle"
"""Name of the steering input [rad, + left]."""
FD_STEP = 1e-4
"""Relative step of the central differences (times the variable's size, :func:`_steps`)."""
FD_CHECK_FACTOR = 10.0
"""The check Jacobian is taken with steps this many times larger."""
AY_STEP_M_S2 = 1.0
"""Largest step of the lateral acceleration [m/s^2] in the continuation from the straight run."""
NEWTON_TOL = 1e-10
"""Newton's method stops when no unknown moves by more than this times its size."""
NEWTON_MAXIT = 30
FLAT = {"type": "flat"}


def _wheel_input(wheel: str) -> str:
    return f"wheel_{wheel}.torque_drive"


class ReducedSystem:
    """The vehicle's derivative and outputs on the reduced state (module docstring) about the full state
    ``y_base`` (whose neutral coordinates and brake states stay as they are), with the inputs u =
    [delta_sw, T_drive per wheel] and the steering-wheel rate. One compiled evaluation per call (the passes of
    ``system`` through a packed call: no per-call unboxing of the model and workspace)."""

    def __init__(self, car, system, y_base, outputs=DEFAULT_OUTPUTS):
        if car.steer_drv < 0:
            raise ModelError(f"vehicle '{car.name}' has no steering: linearization needs a full vehicle")
        mech = car.mech
        self.car, self.system = car, system
        self.base = np.array(y_base, dtype=float)
        ni, nw = mech.n_dof, car.n_wheels
        names = mech.independent_names_of(system.data.mech)
        self.partition = names
        spins = [mech.coordinate_names[s] for s in car.w_spin]
        missing = [c for c in ("chassis.x", "chassis.y", "chassis.yaw", *spins) if c not in names]
        if missing:
            raise ModelError(f"vehicle '{car.name}': linearization needs {', '.join(missing)} among the independent "
                             f"coordinates (the partition is {', '.join(names)})")
        k = {n: names.index(n) for n in ("chassis.x", "chassis.y", "chassis.yaw")}
        self.cx, self.cy, self.cyaw = k["chassis.x"], k["chassis.y"], k["chassis.yaw"]
        neutral = [self.cx, self.cy, self.cyaw] + [names.index(s) for s in spins]
        kept = [i for i in range(ni) if i not in neutral]
        self.neutral = np.array(neutral)
        self.neutral_names = tuple(names[i] for i in neutral)
        wheels = car.wheel_names
        self.keep = np.array(kept + [ni + i for i in range(ni)] + [2 * ni + w for w in range(nw)]
                             + [2 * ni + 2 * nw + w for w in range(nw)])
        vel = {self.cx: "chassis.u", self.cy: "chassis.v"}
        self.state_names = tuple([names[i] for i in kept] + [vel.get(i, f"{names[i]}.rate") for i in range(ni)]
                                 + [f"{w}.kappa" for w in wheels] + [f"{w}.tan_alpha" for w in wheels])
        self.n_pos = len(kept)
        self.iu, self.iv = len(kept) + self.cx, len(kept) + self.cy
        self.ni = ni
        self.input_names = (STEERING, *(_wheel_input(w) for w in wheels))
        unknown = [o for o in outputs if o not in car.output_names]
        if unknown:
            raise ModelError(f"vehicle '{car.name}': unknown output(s) {', '.join(unknown)}")
        self.output_names = tuple(outputs)
        self.rows = np.array([car.output_names.index(o) for o in outputs], dtype=np.int64)
        self.row = np.zeros(len(car.output_names))
        self.ydot = np.zeros_like(self.base)
        self._evaluate = PackedCall(rk4_final_packed)

    @property
    def n(self) -> int:
        return self.keep.size

    def state(self, y) -> np.ndarray:
        """The reduced state of the full state ``y`` (u, v from the global velocities and y's yaw)."""
        y = np.asarray(y, dtype=float)
        x = y[self.keep].copy()
        c, s = math.cos(y[self.cyaw]), math.sin(y[self.cyaw])
        xd, yd = y[self.ni + self.cx], y[self.ni + self.cy]
        x[self.iu], x[self.iv] = c * xd + s * yd, -s * xd + c * yd
        return x

    def full(self, x) -> np.ndarray:
        """The full state of the reduced state ``x``: ``y_base`` with the kept states replaced."""
        y = self.base.copy()
        y[self.keep] = x
        c, s = math.cos(y[self.cyaw]), math.sin(y[self.cyaw])
        y[self.ni + self.cx], y[self.ni + self.cy] = c * x[self.iu] - s * x[self.iv], s * x[self.iu] + c * x[self.iv]
        return y

    def set_inputs(self, u, rate: float = 0.0) -> None:
        """u = [delta_sw [rad], T_drive per wheel [N m]] and the steering-wheel rate [rad/s] into the workspace
        (the rack's ramp at t = 0: travel g delta_sw, velocity g rate, g the rack gain)."""
        data, g = self.system.data, self.car.rack_gain
        data.inputs[:, IN_DRIVE] = u[1:]
        data.steer[:] = (0.0, g * u[0], g * rate, g)

    def evaluate(self, x, u, rate: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """(dx/dt, outputs) at the reduced state ``x`` with inputs ``u`` and steering-wheel ``rate``; the whole
        output row stays in ``row``."""
        self.set_inputs(u, rate)
        y = self.full(x)
        st = self._evaluate(self.system, 0.0, y, self.row, self.ydot)
        if st < 0:
            raise self.system.failure(st, 0.0)
        f = self.ydot
        ni, psi_rate = self.ni, y[self.ni + self.cyaw]
        c, s = math.cos(y[self.cyaw]), math.sin(y[self.cyaw])
        g = f[self.keep].copy()
        xdd, ydd = f[ni + self.cx], f[ni + self.cy]
        g[self.iu] = c * xdd + s * ydd + psi_rate * x[self.iv]
        g[self.iv] = -s * xdd + c * ydd - psi_rate * x[self.iu]
        return g, self.row[self.rows].copy()

    def sizes(self, x) -> np.ndarray:
        """Typical size s_j of each reduced state (the scale of its difference step and of Newton's
        convergence test): 0.01 m or rad for positions, 0.1 m/s or rad/s for velocities, 0.01 for the transient
        slips, and at least the state's own value (the speed for u, the spin rates)."""
        s = np.full(self.n, 0.01)
        s[self.n_pos:self.n_pos + self.ni] = 0.1
        return np.maximum(s, np.abs(x))


def _steps(p, sizes, factor=1.0) -> np.ndarray:
    return FD_STEP * factor * np.maximum(np.abs(p), sizes)


def jacobian(fun, p, steps) -> np.ndarray:
    """Central differences (fun(p + h_j e_j) - fun(p - h_j e_j)) / (2 h_j) of the vector function ``fun``."""
    cols = []
    for j, h in enumerate(steps):
        e = np.zeros_like(p)
        e[j] = h
        cols.append((fun(p + e) - fun(p - e)) / (2.0 * h))
    return np.array(cols).T


@dataclass(frozen=True)
class OperatingPoint:
    """A steady state of a vehicle on a flat road: ``speed_m_s`` (chassis.vx), ``ay_m_s2`` (chassis.ay), the
    steering-wheel angle and the drive torque of each wheel that hold it, the full state ``y`` in the
    independent coordinates ``partition`` (chassis x, y and yaw 0), the outputs there (by name) and the Newton
    iterations it took (all steps of the continuation)."""
    vehicle: str
    speed_m_s: float
    ay_m_s2: float
    steering_wheel_angle_rad: float
    drive_torque_N_m: dict
    y: np.ndarray
    partition: tuple
    outputs: dict
    iterations: int

    @property
    def inputs(self) -> np.ndarray:
        """u = [delta_sw, T_drive per wheel] in the order of the vehicle's wheels."""
        return np.array([self.steering_wheel_angle_rad, *self.drive_torque_N_m.values()])


class NoSteadyState(SimulationError):
    """:func:`operating_point` found no steady state (e.g. a lateral acceleration beyond the tires' grip)."""


def _check_request(car, speed_m_s, ay_m_s2) -> None:
    car.spec.refuse_combination("linearization of")
    if not (isinstance(speed_m_s, (int, float)) and math.isfinite(speed_m_s) and speed_m_s > 0.0):
        raise ModelError(f"linearization: speed must be a positive number of m/s, got {speed_m_s!r}")
    if not (isinstance(ay_m_s2, (int, float)) and math.isfinite(ay_m_s2)):
        raise ModelError(f"linearization: ay must be a finite number of m/s^2, got {ay_m_s2!r}")


def operating_point(car, speed_m_s: float, ay_m_s2: float = 0.0, *, progress=None) -> OperatingPoint:
    """The steady state of ``car`` at ``speed_m_s`` [m/s] with the lateral acceleration ``ay_m_s2`` [m/s^2]
    (+ left; 0 the straight run) on a flat road (module docstring). ``progress(text)`` is told each step of the
    continuation. A state that cannot be held (beyond the tires' grip) is a :class:`NoSteadyState` naming ay."""
    _check_request(car, speed_m_s, ay_m_s2)
    system = car.system(FLAT)
    y0 = car.initial_state(system, v0=speed_m_s)
    red = ReducedSystem(car, system, y0, outputs=("chassis.vx", "chassis.ay"))
    driven = np.array([w.driven for w in car.spec.wheels], dtype=float)
    if not driven.any():
        raise ModelError(f"vehicle '{car.name}' has no driven wheel to hold the speed with")
    share = driven / driven.sum()
    n = red.n

    def inputs(p):
        return np.concatenate([[p[n]], p[n + 1] * share])

    p = np.concatenate([red.state(y0), [0.0, 0.0]])
    sizes = np.concatenate([red.sizes(p[:n]), [0.01, 100.0]])
    steps = math.ceil(abs(ay_m_s2) / AY_STEP_M_S2)
    iterations = 0
    for target in [ay_m_s2 * k / steps for k in range(steps + 1)] if steps else [0.0]:
        def residual(q):
            g, h = red.evaluate(q[:n], inputs(q))
            return np.concatenate([g, [h[0] - speed_m_s, h[1] - target]])

        try:
            p, its = _newton(residual, p, sizes)
        except (SimulationError, np.linalg.LinAlgError) as e:
            raise NoSteadyState(f"vehicle '{car.name}': no steady state at {speed_m_s:g} m/s and ay = {target:.3g} "
                                f"m/s^2 (asked for {ay_m_s2:g} m/s^2): {e}") from None
        iterations += its
        if progress is not None:
            progress(f"steady state at ay = {target:.3f} m/s^2: {its} Newton iterations")
    u = inputs(p)
    red.evaluate(p[:n], u)
    return OperatingPoint(car.name, float(speed_m_s), float(ay_m_s2), float(u[0]),
                          {w: float(t) for w, t in zip(car.wheel_names, u[1:])}, red.full(p[:n]), red.partition,
                          dict(zip(car.output_names, red.row.tolist())), iterations)


def _newton(residual, p, sizes):
    """Newton's method on ``residual`` from ``p`` with a central-difference Jacobian and step halving on the
    residual weighted row by row (each row by its change for a typical move of every unknown). Returns (p,
    iterations)."""
    r = residual(p)
    for it in range(1, NEWTON_MAXIT + 1):
        J = jacobian(residual, p, _steps(p, sizes))
        dp = np.linalg.solve(J, -r)
        if np.max(np.abs(dp) / np.maximum(np.abs(p), sizes)) < NEWTON_TOL:
            return p + dp, it
        w = 1.0 / np.maximum(np.abs(J) @ sizes, 1e-300)
        step, norm = 1.0, np.linalg.norm(w * r)
        while True:
            trial = p + step * dp
            try:
                r_trial = residual(trial)
                better = np.linalg.norm(w * r_trial) < norm
            except SimulationError:
                better = False
            if better or step < 1.0 / 64.0:
                break
            step *= 0.5
        if not better:
            raise SimulationError(f"Newton's method stalled after {it} iterations (weighted residual {norm:.3g})")
        p, r = trial, r_trial
    raise SimulationError(f"Newton's method did not converge in {NEWTON_MAXIT} iterations")


@dataclass(frozen=True)
class LinearModel:
    """The linear model of a vehicle at an operating point (module docstring): dx~/dt = A x~ + B u,
    y = C x~ + D u + D_rate du_0/dt, x~ = x - B_rate u; names of the states, inputs and outputs (SI: m, rad,
    m/s, rad/s, N m, m/s^2), the operating point's reduced state ``x_op``, inputs ``u_op`` and outputs
    ``y_op``, the states left out (``dropped``, with their reason), ``fd_check`` (the largest difference of
    the Jacobians at two step sizes, relative to its column's largest entry) and ``neutral_coupling`` (per
    neutral coordinate: the largest change of a reduced derivative for a 0.01 m or rad move of it, relative to
    that row's change for typical moves of every kept state)."""
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    B_rate: np.ndarray
    D_rate: np.ndarray
    state_names: tuple
    input_names: tuple
    output_names: tuple
    x_op: np.ndarray
    u_op: np.ndarray
    y_op: np.ndarray
    dropped: dict
    fd_check: float
    neutral_coupling: dict
    op: OperatingPoint = field(repr=False)

    def response(self, t, steering_wheel_angle, rate=None) -> np.ndarray:
        """Output deviations (rows: the instants ``t`` [s], increasing, any spacing; columns: outputs) for the
        steering-wheel angle deviation u [rad] at those instants, linear between them, the torques held, from
        x~ = 0: C x~ + D u + D_rate rate, with ``rate`` [rad/s] at the instants (default 0). Exact for such an
        input (first-order hold): per interval h, x~(t + h) = Phi x~ + G0 u + G1 (du/dt), from the matrix
        exponential of [[A, B_0, 0], [0, 0, 1], [0, 0, 0]] h (one per distinct h)."""
        from scipy.linalg import expm

        t = np.asarray(t, dtype=float)
        u = np.asarray(steering_wheel_angle, dtype=float)
        if t.ndim != 1 or t.size < 2 or u.shape != t.shape or np.any(np.diff(t) <= 0.0):
            raise ModelError("linear vehicle model: t must be increasing instants and the angles one per instant")
        n = self.A.shape[0]
        M = np.zeros((n + 2, n + 2))
        M[:n, :n], M[:n, n], M[n, n + 1] = self.A, self.B[:, 0], 1.0
        steps: dict[float, np.ndarray] = {}
        x = np.zeros((t.size, n))
        for k, h in enumerate(np.diff(t)):
            E = steps.get(h)
            if E is None:
                E = steps[h] = expm(M * h)[:n]
            x[k + 1] = E[:, :n] @ x[k] + E[:, n] * u[k] + E[:, n + 1] * (u[k + 1] - u[k]) / h
        y = x @ self.C.T + np.outer(u, self.D[:, 0])
        if rate is not None:
            y += np.outer(np.asarray(rate, dtype=float), self.D_rate[:, 0])
        return y


def linearize(car, op: OperatingPoint, outputs=DEFAULT_OUTPUTS) -> LinearModel:
    """The :class:`LinearModel` of ``car`` at the steady state ``op`` (module docstring) with the ``outputs``
    (names of the vehicle's output table)."""
    if op.vehicle != car.name:
        raise ModelError(f"linearization: the operating point is of vehicle '{op.vehicle}', not '{car.name}'")
    system = car.system(FLAT)
    red = ReducedSystem(car, system, op.y, outputs)
    if red.partition != tuple(op.partition):
        raise ModelError("linearization: the operating point's coordinate partition is not the vehicle's design "
                         "partition")
    x0, u0 = red.state(op.y), op.inputs
    n, m = x0.size, u0.size
    p0 = np.concatenate([x0, u0, [0.0]])
    sizes = np.concatenate([red.sizes(x0), [0.01], np.full(m - 1, 100.0), [0.1]])

    def fun(p):
        g, h = red.evaluate(p[:n], p[n:n + m], p[n + m])
        return np.concatenate([g, h])

    J = jacobian(fun, p0, _steps(p0, sizes))
    J_check = jacobian(fun, p0, _steps(p0, sizes, FD_CHECK_FACTOR))
    col = np.maximum(np.max(np.abs(J), axis=0), 1e-300)
    fd_check = float(np.max(np.abs(J - J_check) / col))
    A, B, E = J[:n, :n], J[:n, n:n + m], J[:n, n + m:]
    C, D, F = J[n:, :n], J[n:, n:n + m], J[n:, n + m:]
    B_prop, D_prop = B.copy(), D.copy()
    B_prop[:, :1] += A @ E
    D_prop[:, :1] += C @ E
    coupling = _neutral_coupling(red, x0, u0, A, red.sizes(x0))
    dropped = {**{name: "neutral: the derivative does not depend on it on a flat road" for name in red.neutral_names},
               **{f"{w}.brake_phi": "brake bristle angle: decays at 1000 1/s on its own with no brake torque"
                  for w in car.wheel_names}}
    _g, y_op = red.evaluate(x0, u0)
    return LinearModel(A, B_prop, C, D_prop, E, F, red.state_names, red.input_names, red.output_names, x0, u0,
                       y_op, dropped, fd_check, coupling, op)


def _neutral_coupling(red: ReducedSystem, x0, u0, A, sizes) -> dict:
    """Per neutral coordinate (module docstring): max_i |dg_i/dy_j| 0.01 / sum_k |A_ik| s_k."""
    typical = np.abs(A) @ sizes
    out = {}
    base = red.base.copy()
    h = FD_STEP * 0.01
    for j, name in zip(red.neutral, red.neutral_names):
        rows = []
        for sign in (1.0, -1.0):
            red.base[:] = base
            red.base[j] += sign * h
            rows.append(red.evaluate(x0, u0)[0])
        dg = (rows[0] - rows[1]) / (2.0 * h)
        out[name] = float(np.max(np.abs(dg) * 0.01 / np.maximum(typical, 1e-300)))
    red.base[:] = base
    return out


STEP_RATE_DEG_S = 400.0
"""Steering-wheel rate of the step's ramp [deg/s] (ISO 7401's default, ``step_steer.step_steer_profile``)."""


def step_check(car, lin: LinearModel, step_rad: float = math.radians(0.5), duration_s: float = 3.0,
               dt: float = 1e-3, integrator: str = "rk4") -> dict:
    """The linear model's response to a steering-wheel step of ``step_rad`` (a ramp at :data:`STEP_RATE_DEG_S`
    from t = 0, then held) against the nonlinear vehicle's from the operating point, both as deviations from
    the operating point, over ``duration_s`` [s] (the nonlinear run with ``integrator`` at the step ``dt``,
    the linear model exactly for the ramp, at the same instants). Returns t, the input, per output the
    two responses (``nonlinear``/``linear``: name -> array) and ``error``: name -> max |linear - nonlinear| /
    max |nonlinear|."""
    op = lin.op
    ramp = step_steer_profile(step_rad, t_start_s=0.0, rate_deg_s=STEP_RATE_DEG_S, hold_s=duration_s)
    profile = SteeringProfile(ramp.breakpoints, ramp.angles + op.steering_wheel_angle_rad, name="step")
    res = car.simulate(FLAT, duration_s, dt=dt, y0=op.y, drive_torque=op.drive_torque_N_m, steer=profile,
                       integrator=integrator)
    t = res.t
    u = ramp.angle(t)
    # the linear model at the rows' instants and the ramp's ends (its input is then exact), with the rate each
    # row was computed with (a row at a breakpoint after t = 0 ends the segment before it)
    t_all = np.union1d(t, ramp.breakpoints[ramp.breakpoints < t[-1]])
    rate = np.where(t_all > 0.0, ramp.rate(np.nextafter(t_all, -np.inf)), ramp.rate(t_all))
    lin_out = lin.response(t_all, ramp.angle(t_all), rate)[np.searchsorted(t_all, t)]
    nonlinear = {name: res[name] - y0 for name, y0 in zip(lin.output_names, lin.y_op)}
    linear = {name: lin_out[:, k] for k, name in enumerate(lin.output_names)}
    error = {name: float(np.max(np.abs(linear[name] - nonlinear[name])) / max(np.max(np.abs(nonlinear[name])), 1e-300))
             for name in lin.output_names}
    return {"t": t, "steering_wheel_angle": u, "nonlinear": nonlinear, "linear": linear, "error": error,
            "step_rad": step_rad, "duration_s": duration_s}
