"""``fmu-vehicle simulate``: a vehicle on a road with constant wheel torques (and a steering profile), its
outputs as CSV and optionally a plot."""
from __future__ import annotations

import math
import sys

from ..errors import ModelError
from ..util import atomic_write_all, fixed
from .arguments import count, finite, output_file, plot_file, positive
from .progress import compile_progress

PROGRESS_MIN_STEPS = 3000   # show a progress bar for runs longer than this many steps


def add_parser(subparsers):
    from ..integrators import INTEGRATORS
    s = subparsers.add_parser("simulate", help="simulate a vehicle on a road with constant wheel torques")
    s.add_argument("--vehicle", default="halfcar7", help="vehicle name (see `fmu-vehicle info`) or .json file")
    s.add_argument("--road", default="flat", help="road name (flat, bumpy, slope16_5, ...), .json or .csv file")
    s.add_argument("--drive-torque", action="append", metavar="WHEEL=N_M", help="drive torque [N m], e.g. front=300")
    s.add_argument("--brake-torque", action="append", metavar="WHEEL=N_M", help="brake torque [N m], e.g. rear=500")
    s.add_argument("--v0", type=finite, default=0.0, help="initial speed [m/s] (default 0)")
    s.add_argument("--x0", type=finite, default=0.0, help="initial position along the road [m] (default 0)")
    s.add_argument("--duration", type=positive, default=5.0, help="simulated time [s] (default 5)")
    s.add_argument("--dt", type=positive, default=1e-3, help="integration step [s] (default 0.001)")
    s.add_argument("--integrator", choices=tuple(INTEGRATORS), default="rk4",
                   help="integration method (default rk4; reference: adaptive DOP853, --dt is then the output spacing)")
    s.add_argument("--record-every", type=count, default=1, help="record every N-th step (default 1)")
    s.add_argument("--output", "-o", default="simulation.csv", help="output CSV (default simulation.csv)")
    s.add_argument("--plot", help="also write a plot of the chassis states (half car: x, vx, z, vz, pitch, pitch "
                                  "rate; full car: x, vx, y, vy, yaw, yaw rate, ay, steering-wheel angle, roll, "
                                  "pitch; format from the suffix, e.g. .png)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    s.add_argument("--steer", metavar="T:DEG,...", help="steering-wheel angle profile of a full vehicle: "
                   "time [s]:angle [deg] pairs, linear between them, held after the last, + = left "
                   "(e.g. 0:0,0.5:0,0.7:40,6:40)")
    return s


def _torques(items: list[str] | None, what: str) -> dict:
    out = {}
    for item in items or []:
        wheel, sep, value = item.partition("=")
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if not sep or not wheel or not math.isfinite(v):
            raise ModelError(f"--{what}: expected WHEEL=N_M (e.g. front=300), got {item!r}")
        if what == "brake-torque" and v < 0:
            raise ModelError(f"--{what}: a brake torque is a magnitude >= 0 N m, got {item!r}")
        out[wheel] = v
    return out


def _fixed_step_duration(duration: float, dt: float, integrator: str) -> None:
    """A fixed-step method runs a whole number of steps: ``duration`` [s] must be a multiple of ``dt`` [s]
    (the check the integrators make, ``integrators.base.fixed_steps``, made before anything is built)."""
    from ..integrators import STEPPING_INTEGRATORS
    from ..integrators.base import fixed_steps
    if integrator not in STEPPING_INTEGRATORS:
        return                                  # adaptive: dt is the output spacing, any duration works
    try:
        fixed_steps(0.0, duration, dt)
    except ValueError:
        n = duration / dt
        raise ModelError(f"--duration: {duration:g} s is not a whole number of --dt steps of {dt:g} s "
                         f"({n:.6g} steps; the {integrator} integrator takes fixed steps): use e.g. "
                         f"--duration {max(1, round(n)) * dt:.10g}") from None


def full_vehicle_panels(units: dict) -> tuple:
    """Plot panels of a full vehicle's run (lateral and vertical chassis quantities, the steering): one panel
    per signal, labelled with its short name and its unit as the signal table gives it (``units``: name ->
    unit, e.g. ``Result.units``)."""
    from ..plotting import Panel
    names = ("chassis.x", "chassis.vx", "chassis.y", "chassis.vy", "chassis.yaw", "chassis.yaw_rate",
             "chassis.ay", "steering_wheel_angle_applied", "chassis.roll", "chassis.pitch")
    panels = []
    for name in names:
        if name in units:
            short = name.split(".", 1)[-1].replace("_applied", "").replace("_", " ")
            panels.append(Panel(f"{short} [{units[name]}]" if units[name] else short, ((short, name),)))
    return tuple(panels)


def run(a) -> int:
    from ..road import load_road
    from ..vehicle import Vehicle
    output = output_file(a.output, "--output")
    plot = plot_file(a.plot, "--plot") if a.plot else None
    if plot is not None and plot.absolute() == output.absolute():
        raise ModelError(f"--plot: {plot} is also the --output file")
    _fixed_step_duration(a.duration, a.dt, a.integrator)
    road = load_road(a.road)
    drive, brake = _torques(a.drive_torque, "drive-torque"), _torques(a.brake_torque, "brake-torque")
    # every argument is checked before the vehicle is loaded: loading may compile its kernels (minutes on a
    # first run), and a typo should be refused in seconds, not after that
    from ..vehicle.loader import load_vehicle_spec
    spec = load_vehicle_spec(a.vehicle)
    steer = None
    if a.steer is not None:
        from ..driver.profile import SteeringProfile
        steer = SteeringProfile.parse(a.steer, name="--steer")
        if spec.steering is None:
            raise ModelError(f"--steer: vehicle '{spec.name}' has no steering (its file has no 'steering' entry); "
                             f"steer a full vehicle, e.g. --vehicle fullcar14")
    wheels = tuple(w.name for w in spec.wheels)
    for w in list(drive) + list(brake):
        if w not in wheels:
            raise ModelError(f"vehicle '{spec.name}': unknown wheel '{w}'; valid: {', '.join(wheels)}")
    car = Vehicle.load(a.vehicle)
    nsteps = a.duration / a.dt
    with compile_progress(quiet=a.quiet):
        res = car.simulate(road, a.duration, dt=a.dt, v0=a.v0, x0=a.x0, drive_torque=drive, brake_torque=brake,
                           integrator=a.integrator, record_every=a.record_every,
                           progress=not a.quiet and nsteps > PROGRESS_MIN_STEPS, steer=steer)
    _warn_past_road_end(road, res)
    write_csv = (output, lambda tmp: res.to_csv(tmp, units="header"))
    if res.meta.get("interrupted"):
        atomic_write_all([write_csv], mode=None)
        print(f"fmu-vehicle: interrupted at t = {res.t[-1]:g} s; {len(res.t)} rows written to {output}",
              file=sys.stderr)
        return 130
    title = f"{car.name} on {road.describe()}"
    panels = full_vehicle_panels(res.units) if "chassis.y" in res.names else None
    atomic_write_all([write_csv] + ([(plot, lambda tmp: res.plot(tmp, title=title, panels=panels))] if plot else []),
                     mode=None)
    lateral = (f"y = {fixed(res.final('chassis.y'), 3)} m, yaw = {fixed(res.final('chassis.yaw'), 4)} rad, "
               if "chassis.y" in res.names else "")
    print(f"{car.name}: {a.duration:g} s on {road.describe()}: x = {fixed(res.final('chassis.x'), 3)} m, {lateral}"
          f"vx = {fixed(res.final('chassis.vx'), 3)} m/s, pitch = {fixed(res.final('chassis.pitch'), 4)} rad "
          f"-> {a.output}" + (f", {a.plot}" if a.plot else ""))
    return 0


def _warn_past_road_end(road, res) -> None:
    """One warning line on stderr if a wheel (or the chassis centre of mass) of the run ``res`` went past the
    last distance of a profile road (``ProfileRoad.past_end_warning``)."""
    check = getattr(road, "past_end_warning", None)
    if check is None:
        return
    import re
    xs = [n for n in res.names if re.fullmatch(r"wheel_[^.]+\.(pos\.)?x", n)] or ["chassis.x"]   # wheel centres
    message = check(max(float(res[n].max()) for n in xs))
    if message:
        print(f"fmu-vehicle: warning: {message}", file=sys.stderr)
