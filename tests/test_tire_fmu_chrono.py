"""Tire.fmu with ``wheel_interface = chrono`` (Project Chrono's force-element tire interface) and the Python
class under it (``tire.tire3d.TireModel3d``): steady state against direct ``tire_contact_3d`` calls with slip
states computed by hand, signs, exact mirror images of right-hand tires, the moment about the wheel centre,
the FMU equal to the class, FMU state rollback, and bad chrono inputs refused like the others."""
from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from fmpy.validation import validate_fmu

from fmu_vehicle.paths import resource_path
from fmu_vehicle.road import load_road
from fmu_vehicle.tire.contact import (CONTACT_OUT_N, OUT_FORCE, OUT_FX, OUT_FY, OUT_FZ, OUT_MOMENT, OUT_MY, OUT_MZ,
                                      OUT_POINT, tire_contact_3d)
from fmu_vehicle.tire.pacejka import effective_rolling_radius
from fmu_vehicle.tire.signals import SPATIAL_OUTPUTS
from fmu_vehicle.tire.stepper3d import quaternion_spin_axis
from fmu_vehicle.tire.tir import P_R0, read_tir
from fmu_vehicle.tire.tire3d import SIDES, Terrain, TireModel3d, WheelState

from fmi_support import run_child
from fmu_cases import BAD_INPUT_HARNESS, DISCARD, STATE_HARNESS, assert_refused, assert_state_bit_identical

P = read_tir(resource_path("tires", "dai2022_sedan.tir")).to_array()
H = 1e-3


def quaternion(psi: float, phi: float) -> tuple:
    """Unit quaternion (scalar first) of R = Rz(psi) Rx(phi): heading psi, then a tilt phi of the spin axis
    about the wheel's forward axis (q = qz(psi) * qx(phi))."""
    c1, s1, c2, s2 = math.cos(psi / 2), math.sin(psi / 2), math.cos(phi / 2), math.sin(phi / 2)
    return c1 * c2, c1 * s2, s1 * s2, s1 * c2


def spin_axis(psi: float, phi: float) -> np.ndarray:
    """R (0, 1, 0) with the rotation matrices: (-sin psi cos phi, cos psi cos phi, sin phi)."""
    rz = np.array([[math.cos(psi), -math.sin(psi), 0.0], [math.sin(psi), math.cos(psi), 0.0], [0.0, 0.0, 1.0]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(phi), -math.sin(phi)], [0.0, math.sin(phi), math.cos(phi)]])
    return rz @ rx @ np.array([0.0, 1.0, 0.0])


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def test_quaternion_spin_axis_is_the_rotated_y_axis():
    for psi, phi in ((0.0, 0.0), (0.3, 0.0), (0.0, -0.2), (-1.1, 0.25), (2.9, 0.05)):
        q = quaternion(psi, phi)
        np.testing.assert_allclose(quaternion_spin_axis(*q), spin_axis(psi, phi), rtol=0, atol=1e-15)
        np.testing.assert_allclose(quaternion_spin_axis(*(3.7 * e for e in q)), spin_axis(psi, phi), rtol=0,
                                   atol=1e-15)                       # normalized first
        np.testing.assert_allclose(quaternion_spin_axis(*(-e for e in q)), spin_axis(psi, phi), rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="norm"):
        quaternion_spin_axis(0.0, 0.0, 0.0, 0.0)


class SteadyWheel:
    """A wheel rolling steadily on the plane h = h0 + sx x + sy y: heading psi, spin-axis tilt phi, centre at the
    loaded radius d above the plane, velocity in the plane (vx, vy along global x, y), spinning about its axis
    with longitudinal slip kappa. The steady slip states by hand: kappa' = (Omega Re - Vx)/|Vx| and
    q = Vcy/|Vx| with t = (a x n)/|a x n|, l = n x t, Vx = t.v, Vcy = l.v."""

    def __init__(self, side="left", psi=0.04, phi=0.03, vx=20.0, vy=1.6, sx=0.02, sy=-0.05, d=0.45, kappa=0.02,
                 y0=0.8, mu=0.9, h0=0.1):
        self.side, self.h0, self.sx, self.sy, self.mu = side, h0, sx, sy, mu
        self.n = unit([-sx, -sy, 1.0])
        self.rot = quaternion(psi, phi)
        self.a = spin_axis(psi, phi)
        self.v = np.array([vx, vy, sx * vx + sy * vy])                       # in the plane: v . n = 0
        self.c0 = np.array([0.0, y0, self.height(0.0, y0) + d / self.n[2]])   # n . (c - p_road) = d
        t = unit(np.cross(self.a, self.n))
        self.vx_t = float(t @ self.v)
        self.kappa_ss = kappa
        self.q_ss = float(np.cross(self.n, t) @ self.v) / abs(self.vx_t)
        re = effective_rolling_radius(P, P[P_R0] - d)
        self.omega = self.vx_t * (1.0 + kappa) / re * self.a                 # kappa = (Omega Re - Vx)/Vx

    def height(self, x, y):
        return self.h0 + self.sx * x + self.sy * y

    def state(self, t):
        c = self.c0 + self.v * t
        return WheelState(tuple(c), self.rot, tuple(self.v), tuple(self.omega))

    def terrain(self, t):
        c = self.c0 + self.v * t
        return Terrain(self.height(c[0], c[1]), tuple(self.n), self.mu)

    def contact(self, c, kappa, q):
        out = np.zeros(CONTACT_OUT_N)
        tire_contact_3d(P, SIDES[self.side], np.asarray(c), self.v.copy(), self.omega.copy(), self.a.copy(),
                        self.height(c[0], c[1]), self.sx, self.sy, self.mu, kappa, q, out)
        return out


@pytest.mark.parametrize("side, output_time", [("left", "midpoint"), ("right", "end")])
def test_steady_state_equals_tire_contact_3d_with_the_steady_slip_states(side, output_time):
    """Held at a steady state (constant velocity, spin, heading and camber on a cross-sloped plane), the slip
    states converge to their steady values computed by hand, and the outputs equal tire_contact_3d there."""
    w = SteadyWheel(side)
    model = TireModel3d(P, side)
    n = 1500
    for k in range(n):
        got = model.step(k * H, H, H / 2, w.state(k * H), w.terrain(k * H), output_time=output_time)
    assert model.kappa == pytest.approx(w.kappa_ss, rel=1e-10)
    assert model.q == pytest.approx(w.q_ss, rel=1e-10)
    assert abs(w.q_ss) > 0.02 and got["slip"] == pytest.approx(w.kappa_ss, rel=1e-10)
    tau = H / 2 if output_time == "midpoint" else H
    c_out = w.c0 + w.v * ((n - 1) * H + tau)
    out = w.contact(c_out, w.kappa_ss, w.q_ss)
    for name, k in (("fx", OUT_FX), ("fy", OUT_FY), ("fz", OUT_FZ), ("my", OUT_MY), ("mz", OUT_MZ)):
        assert got[name] == pytest.approx(out[k], rel=1e-9, abs=1e-9), name
    force = out[OUT_FORCE:OUT_FORCE + 3]
    moment = out[OUT_MOMENT:OUT_MOMENT + 3] + np.cross(out[OUT_POINT:OUT_POINT + 3] - c_out, force)
    np.testing.assert_allclose([got[f"wheel_load.force.{a}"] for a in "xyz"], force, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose([got[f"wheel_load.moment.{a}"] for a in "xyz"], moment, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose([got[f"wheel_load.point.{a}"] for a in "xyz"], w.state((n - 1) * H).pos, rtol=0,
                               atol=0)
    assert abs(out[OUT_FY]) > 500.0 and out[OUT_FX] > 300.0 and abs(out[OUT_MZ]) > 5.0


def test_a_wheel_moving_to_its_right_is_pushed_to_the_left():
    """Heading +x, centre velocity with a component to the right (vy < 0): slip angle < 0, Fy > 0 (left),
    Mz < 0 (turns the wheel to the right, toward its direction of travel); on either side of the car."""
    for side in ("left", "right"):
        w = SteadyWheel(side, psi=0.0, phi=0.0, vx=15.0, vy=-0.8, sx=0.0, sy=0.0, kappa=0.0, h0=0.0)
        model = TireModel3d(P, side)
        for k in range(400):
            got = model.step(k * H, H, H, w.state(k * H), w.terrain(k * H))
        assert got["slip_angle"] < -0.04 and got["lateral_slip"] == pytest.approx(-0.8 / 15.0, rel=1e-3)
        assert got["fy"] > 1000.0 and got["wheel_load.force.y"] == pytest.approx(got["fy"], rel=1e-12)
        assert got["mz"] < 0.0 and got["camber"] == 0.0


def mirrored(state: WheelState, terrain: Terrain) -> tuple[WheelState, Terrain]:
    """The mirror image in the x-z plane: positions and velocities y -> -y; the angular velocity (an axial
    vector) (x, y, z) -> (-x, y, -z); the rotation R -> S R S, quaternion (e0, -e1, e2, -e3), so that the
    wheel frame's y axis (the spin axis, to the vehicle's left) stays the spin axis; the normal's y flips."""
    (px, py, pz), (e0, e1, e2, e3) = state.pos, state.rot
    (vx, vy, vz), (wx, wy, wz) = state.lin_vel, state.ang_vel
    nx, ny, nz = terrain.normal
    return (WheelState((px, -py, pz), (e0, -e1, e2, -e3), (vx, -vy, vz), (-wx, wy, -wz)),
            Terrain(terrain.height, (nx, -ny, nz), terrain.mu))


def varying(k: int) -> tuple[WheelState, Terrain]:
    """A left front wheel over a wavy, cross-sloped road: steering, camber, bounce, speed and spin varying."""
    t = k * H
    psi, phi = 0.05 * math.sin(3.0 * t), 0.02 + 0.01 * math.cos(5.0 * t)
    vx, vy = 18.0 + 2.0 * t, 0.5 * math.sin(2.0 * t)
    z = 0.445 + 0.004 * math.sin(25.0 * t)
    a = spin_axis(psi, phi)
    spin = (vx / 0.46) * (1.0 + 0.03 * math.sin(4.0 * t))
    omega = spin * a + np.array([0.02, 0.0, 0.15 * math.cos(3.0 * t)])
    normal = unit([0.01 * math.sin(t), -0.03, 1.0])
    pos = (vx * t, 0.8 + 0.2 * t, z + 0.01 * math.sin(t))
    return (WheelState(pos, quaternion(psi, phi), (vx, vy, 0.1 * math.cos(25.0 * t)), tuple(omega)),
            Terrain(0.01 * math.sin(t), tuple(normal), 0.95))


def test_right_tire_is_the_exact_mirror_image_of_the_left():
    """A right-hand tire driven by the mirror image of a left tire's inputs gives the mirror image of its load:
    force (x, -y, z), moment (an axial vector) (-x, y, -z), Fy, Mz, slip angle and inclination negated, the
    rest (Fx, Fz, My, camber, kappa') equal: bit for bit, at every one of 300 steps of varying inputs."""
    left, right = TireModel3d(P, "left"), TireModel3d(P, "right")
    flips = {"wheel_load.point.y", "wheel_load.force.y", "wheel_load.moment.x", "wheel_load.moment.z",
             "query_point.y", "contact.y", "fy", "mz", "slip_angle", "slip_angle_kinematic", "lateral_slip",
             "inclination", "road.slope_y_used"}
    worst = 0.0
    for k in range(300):
        state, terrain = varying(k)
        a = left.step(k * H, H, H, state, terrain)
        b = right.step(k * H, H, H, *mirrored(state, terrain))
        expected = {name: -value if name in flips else value for name, value in a.items()}
        assert b == expected, k
        worst = max(worst, abs(a["fy"]))
    assert worst > 500.0 and a["camber"] != 0.0


def test_moment_is_the_lever_arm_plus_rolling_resistance_and_aligning_moment():
    """moment = (P - c) x F + My a + Mz n_perp with n_perp = (n - (n.a) a)/|.|, c the centre at the output time
    (a cambered, steered, loaded wheel; at tau = 0 through ``outputs`` and after a step at tau = h/2)."""
    state, terrain = varying(40)
    a = np.array(quaternion_spin_axis(*state.rot))
    n = unit(terrain.normal)
    n_perp = unit(n - (n @ a) * a)
    model = TireModel3d(P, "left")
    first = model.outputs(state, (0.0,) * 6, terrain, 0.0, 0.01, -0.02)
    model.step(0.0, H, H, state, terrain)
    model.kappa, model.q = 0.01, -0.03
    stepped = model.step(H, H, H / 4, state, terrain)        # rates zero: same inputs as the previous step
    for got, c in ((first, np.array(state.pos)), (stepped, np.array(state.pos) + np.array(state.lin_vel) * H / 2)):
        force = np.array([got[f"wheel_load.force.{k}"] for k in "xyz"])
        contact = np.array([got[f"contact.{k}"] for k in "xyz"])
        expected = np.cross(contact - c, force) + got["my"] * a + got["mz"] * n_perp
        np.testing.assert_allclose([got[f"wheel_load.moment.{k}"] for k in "xyz"], expected, rtol=0, atol=1e-9)
        assert abs(got["mz"]) > 1.0 and abs(got["fy"]) > 100.0
        assert got["loaded_radius"] == pytest.approx(np.linalg.norm(contact - c), rel=1e-12)
    out = np.zeros(CONTACT_OUT_N)
    tire_contact_3d(P, 1.0, np.array(state.pos), np.array(state.lin_vel), np.array(state.ang_vel), a,
                    terrain.height, -n[0] / n[2], -n[1] / n[2], terrain.mu, 0.01, -0.02, out)
    np.testing.assert_allclose([first[f"wheel_load.force.{k}"] for k in "xyz"], out[OUT_FORCE:OUT_FORCE + 3],
                               rtol=1e-13, atol=1e-10)


# ------------------------------------------------------------------------------------------ the FMU

INPUT_NAMES = ([f"wheel_state.pos.{a}" for a in "xyz"] + [f"wheel_state.rot.e{i}" for i in range(4)]
               + [f"wheel_state.lin_vel.{a}" for a in "xyz"] + [f"wheel_state.ang_vel.{a}" for a in "xyz"]
               + ["terrain_height"] + [f"terrain_normal.{a}" for a in "xyz"] + ["terrain_mu"])


def input_values(state: WheelState, terrain: Terrain) -> list:
    """The chrono inputs in the order of INPUT_NAMES."""
    return [float(v) for v in (*state.pos, *state.rot, *state.lin_vel, *state.ang_vel, terrain.height,
                               *terrain.normal, terrain.mu)]


class InProcessFmu:
    """The Tire FMU through FMPy's FMU2Slave in this process (the repository's package: compiled once)."""

    def __init__(self, path):
        self.path = str(path)
        self.md = read_model_description(self.path)
        self.dir = extract(self.path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.outputs = [v.name for v in self.md.modelVariables if v.causality == "output"]

    def new(self, start: dict, inputs=None, name="tire"):
        """An initialized instance with parameters ``start`` and initial inputs (state, terrain)."""
        f = FMU2Slave(guid=self.md.guid, unzipDirectory=self.dir, modelIdentifier=self.md.coSimulation.modelIdentifier,
                      instanceName=name)
        f.instantiate()
        f.setupExperiment(startTime=0.0)
        for k, v in start.items():
            (f.setString if isinstance(v, str) else f.setReal)([self.vr[k]], [v])
        if inputs is not None:
            self.set_inputs(f, *inputs)
        f.enterInitializationMode()
        f.exitInitializationMode()
        return f

    def set_inputs(self, f, state: WheelState, terrain: Terrain):
        f.setReal([self.vr[n] for n in INPUT_NAMES], input_values(state, terrain))

    def read(self, f) -> dict:
        return dict(zip(self.outputs, f.getReal([self.vr[n] for n in self.outputs])))


@pytest.fixture(scope="module")
def tire_fmu(scenario_fmus):
    return InProcessFmu(scenario_fmus["Tire"])


def compare(got: dict, expected: dict):
    """Every output of ``expected`` equal in ``got`` to 1e-12 relative to its size (at least 1)."""
    for name, value in expected.items():
        assert abs(got[name] - value) <= 1e-12 * max(1.0, abs(value)), (name, got[name], value)


def test_fmu_validates_and_declares_the_chrono_interface(tire_fmu):
    assert validate_fmu(tire_fmu.path) == []
    by_name = {v.name: v for v in tire_fmu.md.modelVariables}
    for name in INPUT_NAMES:
        assert by_name[name].causality == "input" and by_name[name].variability == "continuous", name
    assert set(SPATIAL_OUTPUTS) <= set(tire_fmu.outputs)
    assert [by_name[f"wheel_state.rot.e{i}"].start for i in range(4)] == ["1", "0", "0", "0"]
    interface = by_name["wheel_interface"]            # an Enumeration: item 1 of (planar, chrono) by default
    assert interface.type == "Enumeration" and interface.start == "1"
    assert [item.name for item in interface.declaredType.items] == ["planar", "chrono"]


def right_inputs(k: int, shift: float = 0.0) -> tuple[WheelState, Terrain]:
    """The mirror image of ``varying`` (a right front wheel), moved forward by ``shift`` [m]."""
    state, terrain = mirrored(*varying(k))
    return state._replace(pos=(state.pos[0] + shift, *state.pos[1:])), terrain


@pytest.mark.parametrize("road_source", ["inputs", "internal"])
def test_fmu_equals_the_python_class(tire_fmu, road_source):
    """Chrono interface, right-hand tire, 300 steps of varying inputs (2 internal sub-steps each): every output
    of the FMU equals TireModel3d to 1e-12, the initial outputs (loads of the initial inputs, zero slip) too;
    query_point follows the wheel centre input at once. On the internal road (bumpy; the wheel starts 0.3 m
    before its first bump at x = 20 m) the road is the one under the moving centre."""
    shift = 19.7 if road_source == "internal" else 0.0
    start = {"wheel_interface": "chrono", "side": "right", "road_source": road_source, "road": "bumpy",
             "dt": 0.5e-3}
    model = TireModel3d(P, "right", load_road("bumpy").to_arrays() if road_source == "internal" else None)
    f = tire_fmu.new(start, right_inputs(0, shift))
    compare(tire_fmu.read(f), model.outputs(*right_inputs(0, shift)[:1], (0.0,) * 6, right_inputs(0, shift)[1],
                                            0.0, 0.0, 0.0))
    heights = []
    for k in range(300):
        state, terrain = right_inputs(k, shift)
        tire_fmu.set_inputs(f, state, terrain)
        assert tire_fmu.read(f)["query_point.y"] == state.pos[1]             # direct feedthrough
        f.doStep(k * H, H)
        got = tire_fmu.read(f)
        compare(got, model.step(k * H, H, 0.5e-3, state, terrain))
        heights.append(got["road.height_used"])
    f.terminate()
    f.freeInstance()
    assert got["fz"] > 1000.0 and got["fy"] < -500.0
    if road_source == "internal":
        assert heights[0] == 0.0 and max(heights) > 0.01                      # climbed onto the bump


def test_fmu_normalizes_the_quaternion_and_keeps_the_planar_outputs_as_vectors(tire_fmu):
    """A quaternion scaled by 3 gives the loads of the unit one (to round-off); the planar interface reports its
    load as the vector outputs too (force (force_x, 0, force_z), moment (0, moment_y, 0), point = the centre)."""
    start = {"wheel_interface": "chrono", "road_source": "inputs"}
    unit_f, scaled_f = tire_fmu.new(start), tire_fmu.new(start, name="scaled")
    for k in range(50):
        state, terrain = varying(k)
        tire_fmu.set_inputs(unit_f, state, terrain)
        tire_fmu.set_inputs(scaled_f, state._replace(rot=tuple(3.0 * e for e in state.rot)), terrain)
        unit_f.doStep(k * H, H)
        scaled_f.doStep(k * H, H)
    a, b = tire_fmu.read(unit_f), tire_fmu.read(scaled_f)
    for name in ("wheel_load.force.x", "wheel_load.force.y", "wheel_load.force.z", "wheel_load.moment.z", "fy", "mz"):
        assert b[name] == pytest.approx(a[name], rel=1e-12, abs=1e-9), name
    planar = tire_fmu.new({"road": "flat"})
    v = tire_fmu.vr
    planar.setReal([v["wheel.x"], v["wheel.z"], v["wheel.vx"], v["wheel.omega"]], [3.0, 0.44, 10.0, 22.0])
    for k in range(5):
        planar.doStep(k * H, H)
    p = tire_fmu.read(planar)
    assert (p["wheel_load.force.x"], p["wheel_load.force.y"], p["wheel_load.force.z"]) == \
        (p["wheel_load.force_x"], 0.0, p["wheel_load.force_z"])
    assert (p["wheel_load.moment.x"], p["wheel_load.moment.y"], p["wheel_load.moment.z"]) == \
        (0.0, p["wheel_load.moment_y"], 0.0)
    assert (p["wheel_load.point.x"], p["wheel_load.point.y"], p["wheel_load.point.z"]) == (3.0, 0.0, 0.44)
    assert p["fz"] > 1000.0 and p["fy"] == p["mz"] == p["slip_angle"] == 0.0
    for f in (unit_f, scaled_f, planar):
        f.terminate()
        f.freeInstance()


#: Child code: FMU state rollback in chrono mode (shared harness), then bad chrono inputs (shared harness).
CHRONO_CHILD = """
tire = Fmu(INPUTS['fmu'])
NAMES = INPUTS['names']
DRIVE = INPUTS['drive']
OTHER = INPUTS['other']
START = {'wheel_interface': 'chrono', 'road_source': 'inputs', 'side': 'right'}
STATE = check_state(tire, lambda k: dict(zip(NAMES, DRIVE[k])), 200, 60, start=START,
                    other_drive=lambda k: dict(zip(NAMES, OTHER[k])), other_start=START, restore_start=START)
ROT = ['wheel_state.rot.e%d' % i for i in range(4)]
case(tire, 'nan_input', start=START, actions=[('step', 0.0, 1e-3), ('set', 'Real', 'wheel_state.lin_vel.y', math.nan),
                                              ('step', 1e-3, 1e-3)])
case(tire, 'zero_quaternion', start=START,
     actions=[('step', 0.0, 1e-3)] + [('set', 'Real', n, 0.0) for n in ROT] + [('step', 1e-3, 1e-3)]
             + [('set', 'Real', 'wheel_state.rot.e0', 1.0), ('step', 1e-3, 1e-3)])
case(tire, 'zero_quaternion_at_start', start=dict(START, **{'wheel_state.rot.e0': 0.0}),
     actions=[('step', 0.0, 1e-3)])
case(tire, 'normal_pointing_down', start=START,
     actions=[('set', 'Real', 'terrain_normal.z', -1.0), ('step', 0.0, 1e-3)])
case(tire, 'huge_angular_velocity', start=START,
     actions=[('set', 'Real', 'wheel_state.ang_vel.z', 1e9), ('step', 0.0, 1e-3)])
RESULT = {'state': STATE, 'bad': BAD}
"""


@pytest.fixture(scope="module")
def chrono_child(scenario_fmus, tmp_path_factory):
    drive = [input_values(*right_inputs(k)) for k in range(200)]
    other = [input_values(*right_inputs(k + 500)) for k in range(200)]
    return run_child(STATE_HARNESS + BAD_INPUT_HARNESS + CHRONO_CHILD, tmp_path_factory.mktemp("tire_chrono"),
                     fmu=str(scenario_fmus["Tire"]), names=INPUT_NAMES, drive=drive, other=other)


def test_fmu_state_rollback_is_bit_identical_in_chrono_mode(chrono_child):
    """get/set FMU state, serialization, reset and interleaved instances continue bit-identically (the slip
    states kappa', q and the previous inputs of the extrapolation are in the state)."""
    r = chrono_child["state"]
    assert_state_bit_identical(r, other_differs=True)
    ref, outs = np.array(r["ref"]), r["outputs"]
    assert np.abs(ref[:, outs.index("fy")]).max() > 500.0 and np.abs(ref[:, outs.index("lateral_slip")]).max() > 1e-3


@pytest.mark.parametrize("case, statuses, words", [
    ("nan_input", [0, DISCARD], ["input 'wheel_state.lin_vel.y'", "nan"]),
    ("zero_quaternion", [0, DISCARD, 0], ["input 'wheel_state.rot'", "norm 0.0"]),
    ("zero_quaternion_at_start", [DISCARD], ["wheel_state.rot", "norm"]),
    ("normal_pointing_down", [DISCARD], ["input 'terrain_normal'", "point up"]),
    ("huge_angular_velocity", [DISCARD], ["input 'wheel_state.ang_vel.z'"]),
])
def test_bad_chrono_inputs_are_refused_with_a_message_naming_the_variable(chrono_child, case, statuses, words):
    """NaN or out-of-range inputs, a zero quaternion and a terrain normal that does not point up: the step is
    refused (fmi2Discard) with a logged error naming the input; a zero quaternion at initialization fails the
    instance like any invalid start value; after a refused step with bad inputs corrected, the next step runs."""
    assert_refused(chrono_child["bad"][case], statuses, words)


def test_query_point_follows_only_valid_positions_set_together():
    """setReal of all inputs at once (the slave's batched path, as a host calls it): query_point takes the
    valid wheel_state.pos components at once, a NaN or out-of-range one is left out (and the next doStep is
    refused naming it); the planar interface leaves query_point to the step."""
    from fmu_vehicle.fmi.slaves.fmu_vehicle_tire import Tire
    from fmu_vehicle.paths import resources_dir

    for interface in ("chrono", "planar"):
        s = Tire(instance_name="q", resources=str(resources_dir()))
        vr = {v.name: v.value_reference for v in s.vars.values()}
        s.setup_experiment(0.0)
        s.set_string([vr["wheel_interface"]], [interface])
        s.enter_initialization_mode()
        s.exit_initialization_mode()
        inputs = [n for n in s.var_by_name if s.var_by_name[n].causality == "input"]
        values = {n: s.values[n] for n in inputs}
        before = s.get_real([vr[f"query_point.{a}"] for a in "xyz"])
        values.update({"wheel_state.pos.x": math.nan, "wheel_state.pos.y": 0.25, "wheel_state.pos.z": 1e9})
        s.set_real([vr[n] for n in inputs], [values[n] for n in inputs])
        query = s.get_real([vr[f"query_point.{a}"] for a in "xyz"])
        if interface == "chrono":
            assert query == [before[0], 0.25, before[2]]
        else:
            assert query == before
        assert not s.do_step(0.0, H)
        assert "input 'wheel_state.pos" in [m.msg for m in s.log_queue][-1]
