"""Multibody manoeuvres of articulated vehicles (a vehicle file with towed units, docs/articulated.md §6): the
steering impulse at increasing speed (trailer yaw damping and the critical speed), the single sine steer
(rearward amplification) and braking in a turn with weak trailer brakes. The KPIs are those of
:mod:`fmu_vehicle.manoeuvres.articulated`; the linear reference is
:class:`~fmu_vehicle.manoeuvres.single_track_trailer.TrailerCombination` built from the vehicle's own data
(:func:`linear_reference`). Axes ISO 8855, units SI, angles in rad. Described in docs/articulated.md §7.

The towed unit analysed is named by ``unit`` (default: the last in the vehicle file, the rearmost); its
articulation angle theta is the output ``<unit>.articulation`` (its heading minus that of the unit towing
it, + counter-clockwise).

* **Speed.** A run starts at its speed in the static equilibrium's attitude; a constant drive torque on the
  towing unit's driven wheels stands for the rolling resistance of the whole combination,
  T = f_r m g r_w (f_r = 0.008, m the total mass, r_w the mean unloaded tire radius),
  shared by the driven wheels (:func:`fmu_vehicle.manoeuvres.runs.rolling_resistance_drive`).
* **Steering impulse** (ISO 9815, passenger car with trailer): a triangular steering-wheel pulse of
  ``duration_s`` (0 -> A -> 0) at ``t_start``; the damping ratio of the articulation angle's free decay after
  the pulse by the logarithmic decrement over up to three periods
  (:func:`~fmu_vehicle.manoeuvres.articulated.yaw_damping`), its first extremum after the pulse left out
  (:data:`FORCED_EXTREMA`: that one still carries the towing unit's response to the pulse; counted, it put the
  critical speeds some 5-10 km/h low), at each speed; the critical (snaking) speed where the damping crosses zero, linear between the speeds
  (:func:`~fmu_vehicle.manoeuvres.articulated.critical_speed_from_damping`).
* **Single sine steer** (ISO 14791): delta_sw = A sin(2 pi f (t - t0)) for one period
  (:func:`~fmu_vehicle.manoeuvres.articulated.single_sine_steer`), A the steering-wheel angle whose
  steady-state lateral acceleration is ``ay_m_s2`` in the towing unit's single-track model,
  A = a_y / (vx (r / delta_sw)); rearward amplification of the lateral acceleration and of the yaw rate
  (:func:`~fmu_vehicle.manoeuvres.articulated.rearward_amplification`) and the peak load transfer ratio of
  each unit's axles (:func:`load_transfer_ratio`).
* **Braking in a turn** (ISO 7975 for passenger cars, ISO 14794 for heavy vehicles, open loop): the speed
  held by a drive torque T = m r_w (v0 - vx) / tau + T_roll (tau = :data:`SPEED_HOLD_TIME_S`) on a steady
  turn of ``ay_m_s2`` (steering as above, ramped in over :data:`TURN_RAMP_S`), then at ``t_brake`` the
  steering is held, the drive torque released and every wheel braked with the torque that decelerates its
  static load at ``decel_m_s2``, T_i = decel Fz_i r_i / g (Fz_i its static load, r_i its unloaded radius:
  every unit would decelerate alike without a hitch force), ramped in over :data:`BRAKE_RAMP_S`; the towed
  units' wheels get ``trailer_brake_factor`` T_i. A trailer that brakes less than its share pushes on the
  hitch, which turns the towing unit further into the turn: the articulation angle grows (a jackknife, at
  the limit).
* **Low-speed offtracking** (the 12.5 m turn of heavy-vehicle performance standards): at walking pace the
  steering is turned until the towing unit's steered axle runs on a circle of ``front_radius_m``, held for
  ``duration_s`` (a few laps: the trailer's axle settles onto its own, smaller circle); the steady
  offtracking R_f - R_t from the two paths' fitted circles
  (:func:`~fmu_vehicle.manoeuvres.articulated.offtracking_from_paths`) against the closed form of the no-slip
  geometry (:func:`~fmu_vehicle.manoeuvres.articulated.offtracking_closed_form`) with the vehicle's own
  wheelbase, fifth-wheel offset and trailer length (:func:`offtracking_geometry`).
"""
from __future__ import annotations

import math

import numpy as np

from ..driver.profile import SteeringProfile
from ..errors import ModelError
from ..results import Result
from ..tire.models import OUT_FZ, cornering_stiffness, unloaded_radius
from .articulated import (LOW_SPEED_TURN_RADIUS_M, SINGLE_SINE_FREQUENCY_HZ, SINGLE_SINE_SPEED_M_S,
                          critical_speed_from_damping, offtracking_closed_form, offtracking_from_paths,
                          rearward_amplification, single_sine_steer, yaw_damping)
from .runs import rolling_resistance_drive
from .single_track import G
from .single_track_trailer import TrailerCombination, critical_speed
from .vehicle_model import _front, single_track_of, towing_vehicle, yaw_inertia

PULSE_DURATION_S = 0.25
"""Duration of the triangular steering-wheel pulse [s]."""
PULSE_AMPLITUDE_RAD = math.radians(20.0)
"""Peak steering-wheel angle of the pulse [rad] (small enough for the linear range at every test speed)."""
PULSE_START_S = 0.5
"""The pulse (and the single sine) start this long after the run starts [s]."""
DECAY_S = 6.0
"""The impulse run goes on this long after the pulse [s]: about four periods of a 0.7 Hz snaking mode."""
FORCED_EXTREMA = 1
"""Extrema of the articulation angle after the pulse left out of the logarithmic decrement (module docstring):
leaving out one or two gives the same damping to about 0.001 (midsize_caravan at 70-130 km/h), none does not."""
IMPULSE_SPEEDS_KMH = (60.0, 80.0, 100.0, 120.0, 140.0, 160.0)
"""Default speeds of the impulse sweep [km/h]."""
LINEAR_GRID_M_S = np.linspace(2.0, 100.0, 491)
"""Speeds [m/s] at which the linear reference's snaking damping is evaluated for its zero crossing (0.2 m/s
apart: the linear interpolation between them is far finer than the runs')."""
SINE_SETTLE_S = 4.0
"""The single sine steer run goes on this long after the steer [s]."""
TURN_RAMP_S = 1.0
"""The steering of the steady turn is ramped in over this [s]."""
SPEED_HOLD_TIME_S = 2.0
"""Time constant tau [s] of the drive torque that holds the speed in the turn (module docstring)."""
BRAKE_RAMP_S = 0.2
"""The brake torques rise linearly over this [s]."""
STEP_S = 0.01
"""Input period of the braking run [s] (the simulator integrates at its own dt inside)."""
LOW_SPEED_M_S = 3.0
"""Speed of the low-speed turn [m/s] (walking pace: the tires' slip angles are a few tenths of a degree)."""
LOW_SPEED_STEP_S = 0.05
"""Input period of the low-speed turn [s]."""
LOW_SPEED_HOLD_N_M_PER_M_S = 40000.0
"""Gain of the drive torque that holds the low-speed turn's speed [N m per m/s], shared by the driven wheels."""


# ---------------------------------------------------------------------------------------------- the vehicle
def towed_unit(car, unit: str | None = None):
    """The towed unit named ``unit`` (default: the last one) of ``car`` (a ``UnitSpec``). ModelError for a
    vehicle without towed units, or an unknown name (listing the valid ones)."""
    units = car.spec.units
    if not units:
        raise ModelError(f"vehicle '{car.name}' has no towed unit: the articulated-vehicle manoeuvres need a "
                         f"combination (e.g. sedan_caravan)")
    if unit is None:
        return units[-1]
    for u in units:
        if u.name == unit:
            return u
    raise ModelError(f"vehicle '{car.name}' has no towed unit '{unit}'; valid: "
                     f"{', '.join(u.name for u in units)}")


def unit_bodies(car, unit) -> set:
    """Names of the bodies of towed unit ``unit`` (a UnitSpec): its chassis and everything hung from it."""
    m = car.mech
    k = m.body(unit.name)
    return {name for name, i in m.info.body_index.items() if m.model.on_path[i, k]}


def _mass_centre(car, bodies: set) -> tuple[float, np.ndarray]:
    """Mass [kg] and centre of mass (design coordinates) [m] of ``bodies`` and the removed rods with both ends
    among them (a rod's mass at its centre)."""
    spec = car.spec.mechanism
    ms, cs = [], []
    for b in spec.bodies:
        if b.name in bodies:
            ms.append(b.mass_kg)
            cs.append(np.asarray(b.com_m, dtype=float))
    for r in spec.rods:
        if r.body_a in bodies and r.body_b in bodies:
            ms.append(r.mass_kg)
            cs.append((1.0 - r.com_fraction) * np.asarray(r.point_a_m) + r.com_fraction * np.asarray(r.point_b_m))
    ms = np.array(ms)
    return float(ms.sum()), (ms @ np.array(cs)) / ms.sum()


def static_tire_loads(car) -> np.ndarray:
    """Vertical tire loads [N] per wheel of ``car`` standing on a flat road (its static equilibrium)."""
    system = car.system("flat")
    car.initial_state(system, v0=0.0)
    return system.data.contact[:, OUT_FZ].copy()


def linear_reference(car, unit: str | None = None) -> TrailerCombination:
    """The linear towing-unit-with-trailer model (:mod:`~fmu_vehicle.manoeuvres.single_track_trailer`) of a
    combination of two units, from the multibody vehicle's data:

    * towing unit: :func:`~fmu_vehicle.manoeuvres.vehicle_model.single_track_of` of the towing unit alone
      (:func:`towing_vehicle`: its mass, yaw inertia, axle positions from its own static loads, axle
      stiffnesses, steering ratio); the hitch h = b + (x_r - x_h) behind its centre of mass, x_r the mean
      design x of its rear wheel centres, x_h the coupling point's;
    * trailer: mass m2, centre of mass e = x_h - x_2 behind the hitch and yaw inertia I2 about it, of its
      bodies and removed rods at the design positions; C_t = sum_i |K_y(Fz_i)| over its tires at their
      static loads in the combination; the axle l = x_h - sum_i C_i x_i / C_t behind the hitch (the single
      axle with the tires' side-force moment about the hitch: for one axle, its position).

    Refused (ModelError) when the trailer is not towed by the towing unit's chassis (a linear model of three
    units or more is not written)."""
    u = towed_unit(car, unit)
    if u.towing != "chassis" or len(car.spec.units) != 1:
        raise ModelError(f"vehicle '{car.name}': the linear reference is a towing unit with one trailer; this "
                         f"vehicle has the units {', '.join(x.name for x in car.spec.units)}")
    alone = towing_vehicle(car)
    st = single_track_of(alone)
    x_h = float(u.coupling_point_m[0])
    x_rear = float(alone.w_center0[~_front(alone), 0].mean())
    bodies = unit_bodies(car, u)
    m2, com = _mass_centre(car, bodies)
    fz = static_tire_loads(car)
    wheels = [car.wheel_index(c) for c in u.corners]
    c = np.array([abs(cornering_stiffness(car.tire_p[w], fz[w], 0.0)) for w in wheels])
    x_axle = float(c @ car.w_center0[wheels, 0] / c.sum())
    return TrailerCombination(
        m1_kg=st.mass_kg, i1_kg_m2=float(st.yaw_inertia_kg_m2), a_m=st.a_m, b_m=st.b_m,
        cf_N_per_rad=st.cf_N_per_rad, cr_N_per_rad=st.cr_N_per_rad, steering_ratio=st.steering_ratio,
        hitch_m=st.b_m + (x_rear - x_h), m2_kg=m2, i2_kg_m2=yaw_inertia(car, float(com[0]), float(com[1]), bodies),
        trailer_com_m=x_h - float(com[0]), trailer_axle_m=x_h - x_axle, ct_N_per_rad=float(c.sum()))


def steering_for_ay(car, speed_m_s: float, ay_m_s2: float) -> float:
    """Steering-wheel angle [rad] whose steady-state lateral acceleration is ``ay_m_s2`` [m/s^2] at
    ``speed_m_s`` [m/s] in the towing unit's single-track model: a_y / (vx (r / delta_sw))."""
    st = single_track_of(towing_vehicle(car))
    return float(ay_m_s2 / (speed_m_s * st.yaw_rate_gain(speed_m_s)))


def _positive(name: str, value) -> float:
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0):
        raise ModelError(f"{name} must be a positive number, got {value!r}")
    return float(value)


def _axle_paths(res: Result, car, unit) -> tuple[tuple, tuple]:
    """Ground paths (x, y) [m] of the towing unit's steered axle and the towed unit's axle(s): the mean of
    their wheel centres (``wheel_<corner>.pos.x/y``)."""
    def mean_path(corners):
        return (np.mean([res[f"wheel_{c}.pos.x"] for c in corners], axis=0),
                np.mean([res[f"wheel_{c}.pos.y"] for c in corners], axis=0))
    return mean_path(car.spec.steering.corners), mean_path(unit.corners)


def load_transfer_ratio(res: Result, car, units=None) -> np.ndarray:
    """Lateral load transfer ratio of the axles of ``units`` (chassis body names: "chassis" for the towing
    unit, a towed unit's name; None: every axle) over time: LTR = sum_a (Fz_L - Fz_R) / sum_a (Fz_L + Fz_R)
    from the outputs ``axle_<a>.load_transfer`` and ``axle_<a>.load`` (+ left wheels more loaded; +-1 when every
    wheel of one side has lifted off, the rollover limit of heavy-vehicle performance standards)."""
    axles = [a for a in car.spec.axles if units is None or car.spec.wheel(a.left).chassis_body in units]
    if not axles:
        raise ModelError(f"vehicle '{car.name}': no axle on {', '.join(units)}")
    diff = sum(res[f"axle_{a.name}.load_transfer"] * res[f"axle_{a.name}.load"] for a in axles)
    load = sum(res[f"axle_{a.name}.load"] for a in axles)
    return np.divide(diff, load, out=np.zeros_like(load), where=load > 0.0)


def _ltr_peaks(res: Result, car) -> dict:
    """Peak |LTR| (:func:`load_transfer_ratio`) per unit ("chassis": the towing unit) and of the whole
    combination ("combination", the units roll-coupled as by a fifth wheel)."""
    peaks = {u: float(np.max(np.abs(load_transfer_ratio(res, car, (u,)))))
             for u in ("chassis", *(u.name for u in car.spec.units))}
    peaks["combination"] = float(np.max(np.abs(load_transfer_ratio(res, car))))
    return peaks


# ---------------------------------------------------------------------------------------------- impulse
def steering_pulse(amplitude_rad: float = PULSE_AMPLITUDE_RAD, *, duration_s: float = PULSE_DURATION_S,
                   t_start: float = PULSE_START_S) -> SteeringProfile:
    """The triangular steering-wheel pulse: 0 until ``t_start``, A at ``t_start + duration_s / 2``, 0 from
    ``t_start + duration_s`` on [rad]."""
    a = amplitude_rad
    if not (isinstance(a, (int, float)) and math.isfinite(a) and a != 0.0):
        raise ModelError(f"amplitude_rad must be a non-zero angle, got {amplitude_rad!r}")
    d = _positive("duration_s", duration_s)
    t0 = _positive("t_start", t_start)
    return SteeringProfile([0.0, t0, t0 + 0.5 * d, t0 + d], [0.0, 0.0, a, 0.0], name="steering pulse")


def impulse_run(car, speed_m_s: float, *, unit: str | None = None, amplitude_rad: float = PULSE_AMPLITUDE_RAD,
                duration_s: float = PULSE_DURATION_S, decay_s: float = DECAY_S, dt: float = 1e-3,
                record_every: int = 10) -> tuple[Result, dict]:
    """One steering impulse at ``speed_m_s`` (module docstring). Returns (Result, damping) with damping the
    :func:`yaw_damping` of ``<unit>.articulation``'s free decay after the pulse (its first
    :data:`FORCED_EXTREMA` extrema left out; damping_ratio and frequency_hz NaN when it has fewer than two more
    extrema to measure), plus speed_m_s (the mean forward speed over the run) and
    theta_peak_rad."""
    v = _positive("speed_m_s", speed_m_s)
    u = towed_unit(car, unit)
    pulse = steering_pulse(amplitude_rad, duration_s=duration_s)
    t_end = float(pulse.breakpoints[-1])
    duration = math.ceil((t_end + _positive("decay_s", decay_s)) / (dt * record_every)) * dt * record_every
    res = car.simulate("flat", duration, dt=dt, v0=v, steer=pulse, record_every=record_every,
                       drive_torque=rolling_resistance_drive(car))
    theta = res[f"{u.name}.articulation"]
    damping = _or_none(lambda: yaw_damping(res.t, theta, t_from=t_end, skip=FORCED_EXTREMA)) or \
        {"damping_ratio": math.nan, "log_decrement": math.nan, "frequency_hz": math.nan, "n_extrema": 0}
    damping.update(speed_m_s=float(np.mean(res["chassis.vx"])), theta_peak_rad=float(np.max(np.abs(theta))))
    return res, damping


def _or_none(f, *args):
    """f(*args), or None where it raises ModelError (e.g. no zero crossing, too few extrema)."""
    try:
        return f(*args)
    except ModelError:
        return None


def impulse_sweep(car, speeds_m_s, *, unit: str | None = None, progress: bool = False, **options) -> dict:
    """:func:`impulse_run` at each of ``speeds_m_s`` (increasing) [m/s]. Returns unit, speed_m_s,
    damping_ratio and frequency_hz (per run; NaN where the articulation had fewer than two extrema to measure),
    critical_speed_m_s (where the runs' damping crosses zero, :func:`critical_speed_from_damping`; None if it
    stays positive) and "linear": the linear reference (:func:`linear_reference`, None for a vehicle it
    refuses) as model, its :meth:`~TrailerCombination.damping_vs_speed` arrays at the same speeds,
    snaking_speed_m_s (where the snaking mode's damping crosses zero, on a grid of :data:`LINEAR_GRID_M_S`;
    the like of the runs' critical speed) and critical_speed_m_s (:func:`critical_speed`: where any eigenvalue
    crosses into the right half-plane, which may be a non-oscillatory divergence before the snaking; None
    without one below 100 m/s)."""
    v = np.asarray(speeds_m_s, dtype=float).ravel()
    if v.size < 2 or not np.all(np.isfinite(v)) or np.any(v <= 0.0) or np.any(np.diff(v) <= 0.0):
        raise ModelError(f"speeds must be at least two positive, increasing speeds [m/s], got {list(v)}")
    u = towed_unit(car, unit)
    zetas, freqs = np.full(v.size, np.nan), np.full(v.size, np.nan)
    from tqdm import tqdm
    for i, s in enumerate(tqdm(v, desc=f"{car.name}: steering impulse", unit="speed", disable=not progress)):
        d = impulse_run(car, float(s), unit=u.name, **options)[1]
        zetas[i], freqs[i] = d["damping_ratio"], d["frequency_hz"]
    ok = np.isfinite(zetas)
    out = {"unit": u.name, "speed_m_s": v, "damping_ratio": zetas, "frequency_hz": freqs,
           "critical_speed_m_s": _or_none(critical_speed_from_damping, v[ok], zetas[ok]) if ok.sum() >= 2 else None,
           "linear": None}
    lin = _or_none(linear_reference, car, u.name)
    if lin is not None:
        grid = LINEAR_GRID_M_S
        out["linear"] = {"model": lin, **lin.damping_vs_speed(v),
                         "snaking_speed_m_s": _or_none(critical_speed_from_damping, grid,
                                                       lin.damping_vs_speed(grid)["damping_ratio"]),
                         "critical_speed_m_s": _or_none(critical_speed, lin)}
    return out


# ---------------------------------------------------------------------------------------------- single sine
def single_sine_run(car, speed_m_s: float = SINGLE_SINE_SPEED_M_S, ay_m_s2: float = 2.0, *,
                    unit: str | None = None, frequency_hz: float = SINGLE_SINE_FREQUENCY_HZ,
                    settle_s: float = SINE_SETTLE_S, dt: float = 1e-3, record_every: int = 10,
                    sample_s: float = 0.01) -> tuple[Result, dict]:
    """ISO 14791 single sine steer (module docstring) at ``speed_m_s``. Returns (Result, kpis): amplitude_rad,
    rearward amplification of the lateral acceleration (``ay``: ``<unit>.ay`` over ``chassis.ay``) and of the
    yaw rate (``yaw_rate``), each the dict of :func:`rearward_amplification`, theta_peak_rad, ltr_peak (the
    peak |load transfer ratio| per unit and of the combination, :func:`load_transfer_ratio`), and the paths
    of the towing unit's steered axle and the towed unit's axle in ``Result.meta`` (front_xy, trailer_xy)."""
    v = _positive("speed_m_s", speed_m_s)
    u = towed_unit(car, unit)
    f = _positive("frequency_hz", frequency_hz)
    amplitude = steering_for_ay(car, v, _positive("ay_m_s2", ay_m_s2))
    t0 = PULSE_START_S
    taus = np.arange(0.0, 1.0 / f + 0.5 * sample_s, sample_s)
    times = np.concatenate([[0.0], t0 + taus])
    profile = SteeringProfile(times, single_sine_steer(times, amplitude, frequency_hz=f, t_start=t0),
                              name="single sine steer")
    duration = math.ceil((t0 + 1.0 / f + _positive("settle_s", settle_s)) / (dt * record_every)) * dt * record_every
    res = car.simulate("flat", duration, dt=dt, v0=v, steer=profile, record_every=record_every,
                       drive_torque=rolling_resistance_drive(car))
    kpis = {"amplitude_rad": amplitude, "speed_m_s": float(np.mean(res["chassis.vx"])),
            "ay": rearward_amplification(res.t, res["chassis.ay"], res[f"{u.name}.ay"], zero_before=t0),
            "yaw_rate": rearward_amplification(res.t, res["chassis.yaw_rate"], res[f"{u.name}.yaw_rate"],
                                               zero_before=t0),
            "theta_peak_rad": float(np.max(np.abs(res[f"{u.name}.articulation"]))),
            "ltr_peak": _ltr_peaks(res, car)}
    res.meta["front_xy"], res.meta["trailer_xy"] = _axle_paths(res, car, u)
    return res, kpis


# ---------------------------------------------------------------------------------------------- braking in a turn
def brake_torques(car, decel_m_s2: float, trailer_brake_factor: float = 1.0) -> dict:
    """Brake torque [N m] per wheel (module docstring): decel Fz_i r_i / g, the towed units' wheels times
    ``trailer_brake_factor``."""
    a = _positive("decel_m_s2", decel_m_s2)
    k = trailer_brake_factor
    if not (isinstance(k, (int, float)) and math.isfinite(k) and k >= 0.0):
        raise ModelError(f"trailer_brake_factor must be a number >= 0, got {trailer_brake_factor!r}")
    fz = static_tire_loads(car)
    return {w.name: a * fz[i] * unloaded_radius(car.tire_p[i]) / G * (k if w.chassis_body != "chassis" else 1.0)
            for i, w in enumerate(car.spec.wheels)}


def braking_in_turn(car, trailer_brake_factor: float = 1.0, *, speed_m_s: float = 80 / 3.6,
                    ay_m_s2: float = 3.0, decel_m_s2: float = 4.0, t_brake: float = 5.0, brake_s: float = 3.0,
                    stop_speed_m_s: float = 2.0, unit: str | None = None, dt: float = 1e-3) -> tuple[Result, dict]:
    """Braking in a steady turn (module docstring) with the towed units' brakes at ``trailer_brake_factor``
    (1: intact, 0.1: weak). Braking starts at ``t_brake`` [s] and lasts ``brake_s`` [s] or until the towing
    unit is slower than ``stop_speed_m_s``. Returns (Result sampled every :data:`STEP_S`, kpis):
    theta_turn_rad (the articulation angle just before braking), theta_peak_rad (the largest |theta| while
    braking, signed), theta_change_rad (theta_peak - theta_turn), t_peak_s, decel_mean_m_s2 (the towing unit's
    mean deceleration while braking), speed_brake_m_s, trailer_brake_factor."""
    v0 = _positive("speed_m_s", speed_m_s)
    u = towed_unit(car, unit)
    t_brake, brake_s = _positive("t_brake", t_brake), _positive("brake_s", brake_s)
    if t_brake <= TURN_RAMP_S:
        raise ModelError(f"t_brake must come after the steering ramp ({TURN_RAMP_S:g} s), got {t_brake:g} s")
    torques = brake_torques(car, decel_m_s2, trailer_brake_factor)
    sw = steering_for_ay(car, v0, _positive("ay_m_s2", ay_m_s2))
    roll = rolling_resistance_drive(car)
    radius = float(np.mean([unloaded_radius(p) for p in car.tire_p]))
    hold = car.total_mass_kg * radius / SPEED_HOLD_TIME_S      # [N m per m/s] over the driven wheels
    sim = car.simulator("flat", v0=v0, x0=-float(car.chassis_com0[0]), dt=dt)
    rows, times = [sim.row.copy()], [0.0]
    n = int(round((t_brake + brake_s) / STEP_S))
    for k in range(n):
        t = (k + 1) * STEP_S
        sim.set_steering(sw * min(1.0, t / TURN_RAMP_S))
        if t <= t_brake:
            extra = hold * (v0 - sim.outputs()["chassis.vx"]) / len(roll)
            for w, tr in roll.items():
                sim.set_input(w, torque_drive=tr + extra)
        else:
            ramp = min(1.0, (t - t_brake) / BRAKE_RAMP_S)
            for w, tb in torques.items():
                sim.set_input(w, torque_drive=0.0, torque_brake=ramp * tb)
        sim.advance(STEP_S)
        rows.append(sim.row.copy())
        times.append(sim.t)
        if t > t_brake and sim.outputs()["chassis.vx"] < stop_speed_m_s:
            break
    res = Result.from_columns(times, car.output_names, [x for _, x, _ in car.outputs], np.array(rows),
                              {"vehicle": car.name, "t_brake": t_brake, "trailer_brake_factor": trailer_brake_factor})
    return res, braking_kpis(res, u.name, t_brake, trailer_brake_factor)


def braking_kpis(res: Result, unit: str, t_brake: float, trailer_brake_factor: float) -> dict:
    """The KPIs of :func:`braking_in_turn` from its Result (its docstring)."""
    theta = res[f"{unit}.articulation"]
    before, during = res.t <= t_brake, res.t > t_brake
    k = int(np.flatnonzero(during)[np.argmax(np.abs(theta[during]))])
    vx = res["chassis.vx"]
    j0 = int(np.flatnonzero(before)[-1])
    dv, dt = vx[j0] - vx[-1], res.t[-1] - res.t[j0]
    return {"trailer_brake_factor": float(trailer_brake_factor), "theta_turn_rad": float(theta[j0]),
            "theta_peak_rad": float(theta[k]), "theta_change_rad": float(theta[k] - theta[j0]),
            "t_peak_s": float(res.t[k]), "speed_brake_m_s": float(vx[j0]),
            "decel_mean_m_s2": float(dv / dt) if dt > 0 else math.nan}


# ---------------------------------------------------------------------------------------------- offtracking
def offtracking_geometry(car, unit: str | None = None) -> dict:
    """The no-slip geometry of a tractor and the towed ``unit`` hitched to it [m], from the design positions:
    wheelbase_m from the steered axle to the middle of the towing unit's other axles (a tandem's middle),
    hitch_behind_rear_axle_m from that middle back to the coupling point (negative: the fifth wheel ahead of
    it), trailer_axle_m from the coupling point back to the middle of the unit's axles. ModelError for a
    unit not towed by the towing unit itself (a second trailer) or a vehicle without steering."""
    u = towed_unit(car, unit)
    if u.towing != "chassis" or car.spec.steering is None:
        raise ModelError(f"vehicle '{car.name}': offtracking needs a steered towing unit that tows '{u.name}' "
                         f"itself (it is towed by '{u.towing}')")
    steered = set(car.spec.steering.corners)
    towed = {c for v in car.spec.units for c in v.corners}
    x = {w.name: w.center_m[0] for w in car.spec.wheels}
    front = float(np.mean([x[c] for c in steered]))
    rear = float(np.mean([x[w] for w in x if w not in steered and w not in towed]))
    hitch = float(u.coupling_point_m[0])
    return {"wheelbase_m": front - rear, "hitch_behind_rear_axle_m": rear - hitch,
            "trailer_axle_m": hitch - float(np.mean([x[c] for c in u.corners]))}


def _low_speed_run(car, sw: float, v: float, duration_s: float) -> Result:
    """The low-speed turn at the steering-wheel angle ``sw`` [rad] (ramped in over :data:`TURN_RAMP_S` x 3),
    speed ``v`` [m/s] held by a proportional drive torque, sampled every :data:`LOW_SPEED_STEP_S`."""
    sim = car.simulator("flat", v0=v, x0=-float(car.chassis_com0[0]))
    roll = rolling_resistance_drive(car)
    rows, times = [sim.row.copy()], [0.0]
    for k in range(int(round(duration_s / LOW_SPEED_STEP_S))):
        t = (k + 1) * LOW_SPEED_STEP_S
        sim.set_steering(sw * min(1.0, t / (3.0 * TURN_RAMP_S)))
        extra = LOW_SPEED_HOLD_N_M_PER_M_S * (v - sim.outputs()["chassis.vx"]) / len(roll)
        for w, tr in roll.items():
            sim.set_input(w, torque_drive=tr + extra)
        sim.advance(LOW_SPEED_STEP_S)
        rows.append(sim.row.copy())
        times.append(sim.t)
    return Result.from_columns(times, car.output_names, [x for _, x, _ in car.outputs], np.array(rows),
                               {"vehicle": car.name, "steering_wheel_angle": sw})


def low_speed_turn(car, front_radius_m: float = LOW_SPEED_TURN_RADIUS_M, *, speed_m_s: float = LOW_SPEED_M_S,
                   duration_s: float = 90.0, unit: str | None = None) -> tuple[Result, dict]:
    """Low-speed offtracking (module docstring). The steering-wheel angle for ``front_radius_m`` is found by one
    secant step: a first guess from the single-track model's steady state (a_y = v^2 / R), a 20 s run, then
    the angle scaled by R_measured / R_target (R of a kinematic turn is about L / sin(delta)). Returns (Result,
    kpis): steering_wheel_angle_rad, front_radius_m and trailer_radius_m (the fitted circles),
    offtracking_m, centre_offset_m (distance of the two circles' centres: small when steady),
    max_offtracking_m (the swept path's), closed_form_offtracking_m and ratio (multibody / closed form), the
    geometry of :func:`offtracking_geometry`; the two paths in ``Result.meta`` (front_xy, trailer_xy)."""
    u = towed_unit(car, unit)
    geometry = offtracking_geometry(car, u.name)
    r_target, v = _positive("front_radius_m", front_radius_m), _positive("speed_m_s", speed_m_s)
    duration = _positive("duration_s", duration_s)
    sw = steering_for_ay(car, v, v * v / r_target)
    probe = _low_speed_run(car, sw, v, 20.0)
    front, _ = _axle_paths(probe, car, u)
    n = probe.t.size // 4
    sw *= offtracking_from_paths(front[0][-n:], front[1][-n:], front[0][-n:], front[1][-n:])["front_radius_m"] / r_target
    res = _low_speed_run(car, sw, v, duration)
    res.meta["front_xy"], res.meta["trailer_xy"] = _axle_paths(res, car, u)
    got = offtracking_from_paths(*res.meta["front_xy"], *res.meta["trailer_xy"])
    ref = offtracking_closed_form(got["front_radius_m"], geometry["wheelbase_m"],
                                  geometry["hitch_behind_rear_axle_m"], geometry["trailer_axle_m"])
    kpis = {"steering_wheel_angle_rad": float(sw), "speed_m_s": float(np.mean(res["chassis.vx"])), **got,
            "closed_form_offtracking_m": ref["offtracking_m"], "ratio": got["offtracking_m"] / ref["offtracking_m"],
            **geometry}
    return res, kpis
