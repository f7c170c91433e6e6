"""KPIs of articulated vehicles (tractor-semitrailer, car with caravan) computed from time series, so that
the linear reference (:mod:`fmu_vehicle.manoeuvres.single_track_trailer`) and later multibody runs use the
same functions. Described in docs/articulated.md §3.

* Single sine steer (ISO 14791, 80 km/h): delta(t) = A sin(2 pi f (t - t0)) for t0 <= t <= t0 + 1/f, 0
  otherwise; ``frequency_hz`` defaults to 0.4 Hz, a value commonly used for heavy vehicles (check the
  edition of the standard in use).
* Rearward amplification: RA = max |s_rear| / max |s_first| over the run, s the lateral acceleration (or the
  yaw rate) of the rearmost unit and of the first unit, each taken about its zero before the steer.
* Yaw damping by the logarithmic decrement of a decaying oscillation x(t) (articulation angle or yaw rate,
  after the steering input has ended, about ``offset``): with the successive extrema x_0, x_1, ..., x_n
  (alternating signs, half a period apart, parabolic refinement of each sampled extremum)

      delta = (2 / n) ln(|x_0| / |x_n|)         (decrement per full period)
      zeta  = delta / sqrt(4 pi^2 + delta^2)    f_d = n / (2 (t_n - t_0))

  For x = X exp(-zeta omega_n t) sin(omega_d t + phi) successive extrema are exactly half a damped period
  apart and their ratio exp(-zeta omega_n pi / omega_d), so the formula returns zeta exactly.
* Critical speed from damping against speed: the first zero crossing of zeta(v) from + to -, linear between
  the two speeds around it.
* Low-speed offtracking of a tractor-semitrailer in steady state on a circle, kinematic (no slip): the
  front axle centre on radius R_f, tractor wheelbase L1, the hitch (fifth wheel) c = h - b behind the drive
  axle (< 0: ahead of it), kingpin to trailer axle l. A point moving without side slip is on the
  perpendicular from the centre of turn, so with the rear axle on the radius line

      R_r = sqrt(R_f^2 - L1^2)       R_h = sqrt(R_r^2 + c^2)       R_t = sqrt(R_h^2 - l^2)
      offtracking = R_f - R_t

  (the hitch is off the rear axle's radius line by c; the trailer axle is on its own radius line).
  :func:`kinematic_tractor_trailer_paths` integrates the no-slip kinematics from straight running, and
  :func:`offtracking_from_paths` measures the offtracking on any two paths (a multibody run's) by fitting
  circles (algebraic least squares) to their steady parts.

Every function checks its input and raises ModelError naming the argument.
"""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.errors import ModelError

SINGLE_SINE_SPEED_M_S = 80.0 / 3.6
"""Test speed of the ISO 14791 single sine steer [m/s]."""
SINGLE_SINE_FREQUENCY_HZ = 0.4
"""Default frequency of the single sine steer [Hz] (module docstring)."""
LOW_SPEED_TURN_RADIUS_M = 12.5
"""Radius of the low-speed offtracking turn [m]. Here it is taken as the path radius of the tractor's front
axle centre; a test that defines the 12.5 m by the outer front wheel or the outer body corner needs its R_f
converted before :func:`offtracking_closed_form`."""


def _positive(name: str, value) -> float:
    if not (isinstance(value, (int, float, np.floating)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0.0):
        raise ModelError(f"articulated: {name} must be a positive number, got {value!r}")
    return float(value)


def _finite(name: str, value) -> float:
    if not (isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and math.isfinite(value)):
        raise ModelError(f"articulated: {name} must be a finite number, got {value!r}")
    return float(value)


def _series(name: str, values, n: int | None = None, min_size: int = 2) -> np.ndarray:
    a = np.asarray(values, dtype=float)
    if a.ndim != 1:
        raise ModelError(f"articulated: {name} must be a 1-D series, got shape {a.shape}")
    if n is not None and a.size != n:
        raise ModelError(f"articulated: {name} has {a.size} samples, expected {n}")
    if a.size < min_size:
        raise ModelError(f"articulated: {name} needs at least {min_size} samples, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"articulated: {name} has values that are not finite")
    return a


def _time(t, min_size: int = 2) -> np.ndarray:
    t = _series("t", t, min_size=min_size)
    if np.any(np.diff(t) <= 0.0):
        raise ModelError("articulated: t must increase strictly")
    return t


# ---------------------------------------------------------------------------------------------- input
def single_sine_steer(t, amplitude_rad: float, *, frequency_hz: float = SINGLE_SINE_FREQUENCY_HZ,
                      t_start: float = 0.5):
    """Steering-wheel angle [rad] of the single sine steer at time(s) ``t`` (module docstring)."""
    amplitude = _finite("amplitude_rad", amplitude_rad)
    f = _positive("frequency_hz", frequency_hz)
    t0 = _finite("t_start", t_start)
    tau = np.asarray(t, dtype=float) - t0
    out = np.where((tau >= 0.0) & (tau <= 1.0 / f), amplitude * np.sin(2.0 * math.pi * f * tau), 0.0)
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------------------------- KPIs
def rearward_amplification(t, first_unit, rear_unit, *, zero_before: float | None = None) -> dict:
    """RA = max |rear_unit| / max |first_unit| (module docstring) of two signals sampled at ``t`` (lateral
    accelerations [m/s^2] or yaw rates [rad/s]); ``zero_before`` [s]: the means before it are the zeros.
    Returns ratio, peak_first, peak_rear, t_peak_first, t_peak_rear, delay_s (t_peak_rear - t_peak_first)."""
    t = _time(t)
    s1 = _series("first_unit", first_unit, t.size)
    s2 = _series("rear_unit", rear_unit, t.size)
    if zero_before is not None:
        before = t < _finite("zero_before", zero_before)
        if before.any():
            s1, s2 = s1 - s1[before].mean(), s2 - s2[before].mean()
    k1, k2 = int(np.argmax(np.abs(s1))), int(np.argmax(np.abs(s2)))
    if abs(s1[k1]) == 0.0:
        raise ModelError("articulated: first_unit is zero throughout: no rearward amplification")
    return {"ratio": float(abs(s2[k2]) / abs(s1[k1])), "peak_first": float(abs(s1[k1])),
            "peak_rear": float(abs(s2[k2])), "t_peak_first": float(t[k1]), "t_peak_rear": float(t[k2]),
            "delay_s": float(t[k2] - t[k1])}


def _extrema(t: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Times and values of the local extrema of x (interior samples), refined by the parabola through the
    sample and its neighbours."""
    d = np.diff(x)
    k = np.flatnonzero(((d[:-1] > 0.0) & (d[1:] <= 0.0)) | ((d[:-1] < 0.0) & (d[1:] >= 0.0))) + 1
    times, values = [], []
    for i in k:
        y0, y1, y2 = x[i - 1], x[i], x[i + 1]
        t0, t1, t2 = t[i - 1], t[i], t[i + 1]
        # parabola through the three samples (non-uniform spacing allowed)
        c2, c1, c0 = np.linalg.solve(np.array([[(t0 - t1) ** 2, t0 - t1, 1.0], [0.0, 0.0, 1.0],
                                               [(t2 - t1) ** 2, t2 - t1, 1.0]]), [y0, y1, y2])
        if c2 != 0.0:
            s = -c1 / (2.0 * c2)
            s = min(max(s, t0 - t1), t2 - t1)
            times.append(t1 + s)
            values.append(c0 + c1 * s + c2 * s * s)
        else:
            times.append(t1)
            values.append(y1)
    return np.array(times), np.array(values)


def yaw_damping(t, signal, *, t_from: float | None = None, offset: float = 0.0, max_peaks: int = 6,
                min_fraction: float = 0.02, skip: int = 0) -> dict:
    """Damping ratio of a decaying oscillation (module docstring) of ``signal`` sampled at ``t``, using the
    extrema after ``t_from`` [s] (e.g. the end of the steering input) but the first ``skip`` of them, at most
    ``max_peaks`` and only those above ``min_fraction`` of the first used. ``skip`` = 1 after a pulse: the
    first extremum after the input still carries the response to the input (the towing unit's own fast
    modes), not only the free decay of the mode measured. Returns damping_ratio, log_decrement (per period),
    frequency_hz (damped), n_extrema, t_extrema, extrema."""
    t = _time(t, min_size=5)
    x = _series("signal", signal, t.size) - _finite("offset", offset)
    if int(max_peaks) < 2:
        raise ModelError(f"articulated: max_peaks must be at least 2, got {max_peaks!r}")
    if not (0.0 <= min_fraction < 1.0):
        raise ModelError(f"articulated: min_fraction must be in [0, 1), got {min_fraction!r}")
    te, xe = _extrema(t, x)
    if t_from is not None:
        keep = te >= _finite("t_from", t_from)
        te, xe = te[keep], xe[keep]
    # alternate signs: keep the extrema where the sign changes from the previous kept one
    sel = []
    for i in range(te.size):
        if xe[i] == 0.0:
            continue
        if sel and np.sign(xe[i]) == np.sign(xe[sel[-1]]):
            if abs(xe[i]) > abs(xe[sel[-1]]):
                sel[-1] = i
            continue
        sel.append(i)
    if not (isinstance(skip, int) and skip >= 0):
        raise ModelError(f"articulated: skip must be a whole number >= 0, got {skip!r}")
    te, xe = te[sel][skip:], xe[sel][skip:]
    if te.size:
        big = np.abs(xe) >= min_fraction * abs(xe[0])
        stop = int(np.argmin(big)) if not big.all() else big.size
        te, xe = te[:stop], xe[:stop]
    te, xe = te[:int(max_peaks)], xe[:int(max_peaks)]
    if te.size < 2:
        raise ModelError(f"articulated: signal has {te.size} usable extrema after t_from, at least 2 needed "
                         "for a logarithmic decrement")
    n = te.size - 1
    decrement = 2.0 / n * math.log(abs(xe[0]) / abs(xe[-1]))
    return {"damping_ratio": decrement / math.sqrt(4.0 * math.pi ** 2 + decrement ** 2),
            "log_decrement": decrement, "frequency_hz": float(n / (2.0 * (te[-1] - te[0]))),
            "n_extrema": int(te.size),
            "t_extrema": te, "extrema": xe}


def critical_speed_from_damping(speeds_m_s, damping_ratio) -> float:
    """The speed [m/s] where ``damping_ratio`` against ``speeds_m_s`` first crosses zero from above, linear
    between the two speeds around the crossing (the data are sorted by speed). ModelError if it never does."""
    v = _series("speeds_m_s", speeds_m_s)
    z = _series("damping_ratio", damping_ratio, v.size)
    if np.any(v <= 0.0):
        raise ModelError("articulated: speeds_m_s must be positive")
    order = np.argsort(v, kind="stable")
    v, z = v[order], z[order]
    if np.any(np.diff(v) == 0.0):
        raise ModelError("articulated: speeds_m_s has repeated speeds")
    if z[0] <= 0.0:
        raise ModelError(f"articulated: damping_ratio is not positive at the lowest speed {v[0]:g} m/s")
    k = np.flatnonzero((z[:-1] > 0.0) & (z[1:] <= 0.0))
    if not k.size:
        raise ModelError(f"articulated: damping_ratio stays positive up to {v[-1]:g} m/s: no critical speed")
    i = int(k[0])
    return float(v[i] + z[i] * (v[i + 1] - v[i]) / (z[i] - z[i + 1]))


# ---------------------------------------------------------------------------------------------- offtracking
def offtracking_closed_form(front_radius_m: float, wheelbase_m: float, hitch_behind_rear_axle_m: float,
                            trailer_axle_m: float) -> dict:
    """Steady low-speed offtracking of a tractor-semitrailer (module docstring). ``hitch_behind_rear_axle_m``
    c may be negative (fifth wheel ahead of the drive axle). Returns the radii of the front axle, rear axle,
    hitch and trailer axle [m] and offtracking_m = R_f - R_t."""
    Rf = _positive("front_radius_m", front_radius_m)
    L1 = _positive("wheelbase_m", wheelbase_m)
    c = _finite("hitch_behind_rear_axle_m", hitch_behind_rear_axle_m)
    l = _positive("trailer_axle_m", trailer_axle_m)
    if Rf <= L1:
        raise ModelError(f"articulated: front_radius_m {Rf:g} m must exceed wheelbase_m {L1:g} m")
    Rr = math.sqrt(Rf * Rf - L1 * L1)
    Rh = math.sqrt(Rr * Rr + c * c)
    if Rh <= l:
        raise ModelError(f"articulated: trailer_axle_m {l:g} m is not shorter than the hitch's radius {Rh:g} m: "
                         "no steady turn")
    Rt = math.sqrt(Rh * Rh - l * l)
    return {"front_radius_m": Rf, "rear_radius_m": Rr, "hitch_radius_m": Rh, "trailer_radius_m": Rt,
            "offtracking_m": Rf - Rt}


def kinematic_tractor_trailer_paths(front_radius_m: float, wheelbase_m: float, hitch_behind_rear_axle_m: float,
                                    trailer_axle_m: float, *, distance_m: float | None = None,
                                    speed_m_s: float = 1.0, n_points: int = 4001) -> dict:
    """No-slip (kinematic) tractor-semitrailer whose front axle centre drives onto a left circle of
    ``front_radius_m`` from straight running along +x (all axles at y = 0 at the start, the circle's centre
    at (0, R_f)). Front axle position P_f(s) known, tractor heading psi1 and trailer heading psi2 from

        dpsi1/dt = (v_f . n1) / L1      (the rear axle moves along its heading)
        v_h = v_f - L1 psi1' n1 - c psi1' n1,      dpsi2/dt = (v_h . n2) / l

    n = (-sin psi, cos psi); integrated by ``scipy.integrate.solve_ivp`` (DOP853, rtol 1e-11) over
    ``distance_m`` of the front axle's arc (default 6 laps). Returns arrays t, front_x/y, rear_x/y,
    hitch_x/y, trailer_x/y, psi1, psi2, theta = psi2 - psi1."""
    from scipy.integrate import solve_ivp

    R = _positive("front_radius_m", front_radius_m)
    L1 = _positive("wheelbase_m", wheelbase_m)
    c = _finite("hitch_behind_rear_axle_m", hitch_behind_rear_axle_m)
    l = _positive("trailer_axle_m", trailer_axle_m)
    v = _positive("speed_m_s", speed_m_s)
    dist = 6.0 * 2.0 * math.pi * R if distance_m is None else _positive("distance_m", distance_m)
    if int(n_points) < 2:
        raise ModelError(f"articulated: n_points must be at least 2, got {n_points!r}")

    def front(tt):
        phi = v * tt / R
        return (np.array([R * math.sin(phi), R * (1.0 - math.cos(phi))]),
                np.array([v * math.cos(phi), v * math.sin(phi)]))

    def rhs(tt, y):
        psi1, psi2 = y
        _, vf = front(tt)
        n1 = np.array([-math.sin(psi1), math.cos(psi1)])
        n2 = np.array([-math.sin(psi2), math.cos(psi2)])
        d1 = float(vf @ n1) / L1
        vh = vf - (L1 + c) * d1 * n1
        return [d1, float(vh @ n2) / l]

    t_end = dist / v
    tt = np.linspace(0.0, t_end, int(n_points))
    sol = solve_ivp(rhs, (0.0, t_end), [0.0, 0.0], method="DOP853", t_eval=tt, rtol=1e-11, atol=1e-12)
    psi1, psi2 = sol.y
    pf = np.array([front(x)[0] for x in tt])
    e1 = np.column_stack([np.cos(psi1), np.sin(psi1)])
    e2 = np.column_stack([np.cos(psi2), np.sin(psi2)])
    pr = pf - L1 * e1
    ph = pr - c * e1
    pt = ph - l * e2
    return {"t": tt, "front_x": pf[:, 0], "front_y": pf[:, 1], "rear_x": pr[:, 0], "rear_y": pr[:, 1],
            "hitch_x": ph[:, 0], "hitch_y": ph[:, 1], "trailer_x": pt[:, 0], "trailer_y": pt[:, 1],
            "psi1": psi1, "psi2": psi2, "theta": psi2 - psi1}


def fit_circle(x, y) -> tuple[float, float, float]:
    """Centre (xc, yc) and radius of the circle fitted to the points by algebraic least squares (Kasa):
    x^2 + y^2 = 2 xc x + 2 yc y + k, R = sqrt(k + xc^2 + yc^2)."""
    x = _series("x", x, min_size=3)
    y = _series("y", y, x.size, min_size=3)
    A = np.column_stack([2.0 * x, 2.0 * y, np.ones_like(x)])
    (xc, yc, k), *_ = np.linalg.lstsq(A, x * x + y * y, rcond=None)
    r2 = k + xc * xc + yc * yc
    if not r2 > 0.0:
        raise ModelError("articulated: the points do not lie on a circle")
    return float(xc), float(yc), float(math.sqrt(r2))


def offtracking_from_paths(front_x, front_y, trailer_x, trailer_y, *, steady_fraction: float = 0.25) -> dict:
    """Steady-state offtracking from the paths of the tractor's front axle and the trailer's (rear) axle:
    circles fitted to the last ``steady_fraction`` of each path's samples. Returns front_radius_m,
    trailer_radius_m, offtracking_m (front minus trailer), centre_offset_m (distance of the two fitted
    centres; small when both are in the steady turn) and max_offtracking_m (largest distance of a trailer
    point from the front axle's whole path, a polyline: the swept-path measure of a transient turn)."""
    fx = _series("front_x", front_x, min_size=3)
    fy = _series("front_y", front_y, fx.size, min_size=3)
    tx = _series("trailer_x", trailer_x, min_size=3)
    ty = _series("trailer_y", trailer_y, tx.size, min_size=3)
    if not (0.0 < steady_fraction <= 1.0):
        raise ModelError(f"articulated: steady_fraction must be in (0, 1], got {steady_fraction!r}")
    nf = max(3, int(round(steady_fraction * fx.size)))
    nt = max(3, int(round(steady_fraction * tx.size)))
    xf, yf, Rf = fit_circle(fx[-nf:], fy[-nf:])
    xt, yt, Rt = fit_circle(tx[-nt:], ty[-nt:])
    # distance of each trailer point to the front path polyline
    ax, ay = fx[:-1], fy[:-1]
    dx, dy = np.diff(fx), np.diff(fy)
    len2 = np.maximum(dx * dx + dy * dy, 1e-300)
    u = np.clip(((tx[:, None] - ax) * dx + (ty[:, None] - ay) * dy) / len2, 0.0, 1.0)
    dist = np.hypot(tx[:, None] - (ax + u * dx), ty[:, None] - (ay + u * dy)).min(axis=1)
    return {"front_radius_m": Rf, "trailer_radius_m": Rt, "offtracking_m": Rf - Rt,
            "centre_offset_m": float(math.hypot(xf - xt, yf - yt)), "max_offtracking_m": float(dist.max())}
