"""The assembled vehicles against the Cartesian reference at random states (no tests here): ``check_vehicle``,
``check_coupling_forces`` and their state sampling, used by test_vehicle_reference.py (which documents the
method), test_vehicle_combination.py, test_tractor_semitrailer.py and test_vehicle_midsize.py."""
from __future__ import annotations

import numpy as np

from fmu_vehicle.road import load_road
from fmu_vehicle.tire.brake import BRAKE_STICK_FREQUENCY
from fmu_vehicle.vehicle.dynamics import IN_BRAKE, IN_DRIVE, IN_FORCE, IN_MOMENT, vehicle_rhs
from reference import cartesian
from reference.vehicle import solve_vehicle

RTOL = 1e-9
ROAD = "bumpy"     # five arc bumps between x = 20 m and 85 m: the tires meet sloped road at some states


def body_errors(mech, sol):
    """Max relative differences (linear, angular) of the engine's body accelerations (the state in
    ``mech.data``, a system's mechanism) vs the reference."""
    eng = cartesian.engine_accelerations(mech)
    lin = max(np.linalg.norm(sol.acc[n][0]) for n in eng)
    ang = max(np.linalg.norm(sol.acc[n][1]) for n in eng)
    return (max(np.linalg.norm(sol.acc[n][0] - eng[n][0]) for n in eng) / lin,
            max(np.linalg.norm(sol.acc[n][1] - eng[n][1]) for n in eng) / ang)


def spring_deflections(car, system):
    """Deflection L_design - L [m] of every spring-damper at the system's last state."""
    d, spec = system.data.mech, car.spec.mechanism
    return {s.name: float(np.linalg.norm(s.point_b_m - s.point_a_m) - d.sd_len[k])
            for k, s in enumerate(spec.spring_dampers)}


def random_states(car, system, rng, n, travels, ranges=None):
    """n random states near the moving equilibrium (20 m/s): y (with slips and brake bristle angles, some
    beyond the sticking range so that the brake torque saturates), inputs per wheel.

    ``travels`` lists suspension travels [m] (from the design position) to cycle through, so that the
    stops are hit in a known set of states; chassis, rates, spins and slips are random. ``ranges``
    {coordinate: half range} adds other coordinates (a combination's coupling angles [rad])."""
    y_eq = car.initial_state(system, v0=20.0, x0=30.0)
    m = system.mech
    d = m.data
    ni = m.n_dof
    eq = {name: float(d.z[m.coordinate(name)]) for name in m.independent_names}
    veq = {name: float(d.zd[m.coordinate(name)]) for name in m.independent_names}
    chassis_ranges = {"chassis.x": 40.0, "chassis.y": 0.3, "chassis.z": 0.02, "chassis.pitch": 0.02,
                      "chassis.roll": 0.02, "chassis.yaw": 0.05, **(ranges or {})}
    for k in range(n):
        pos, vel = dict(eq), dict(veq)
        for name in eq:
            if name.endswith(".travel"):
                pos[name] = travels[k % len(travels)] + rng.uniform(-0.005, 0.005)
                vel[name] = rng.uniform(-1.0, 1.0)
            elif name.endswith(".spin"):
                pos[name] = rng.uniform(-3.0, 3.0)
                vel[name] = veq[name] * rng.uniform(0.8, 1.2)
            else:
                pos[name] = eq[name] + rng.uniform(-1.0, 1.0) * chassis_ranges[name]
                vel[name] = veq[name] + rng.uniform(-0.5, 0.5)
        st = car.spec.steering
        if st is not None:     # the rack somewhere in its travel, moving: vehicle_rhs at t = 0 prescribes it
            rack, rack_rate = rng.uniform(-0.02, 0.02), rng.uniform(-0.1, 0.1)
            pos[st.rack_coordinate], vel[st.rack_coordinate] = rack, rack_rate
            system.data.steer[:3] = (0.0, rack, rack_rate)
        y = m.assemble(pos, vel, steps=10)
        slips = rng.uniform(-0.05, 0.05, car.n_wheels)
        inputs = {w: {"drive": rng.uniform(0.0, 600.0), "brake": rng.uniform(0.0, 400.0)} for w in car.wheel_names}
        # bristle angles up to 1.5 x the sticking range phi_s = Tb / (wb^2 I)
        phi = [rng.uniform(-1.5, 1.5) * inputs[w]["brake"] / (BRAKE_STICK_FREQUENCY ** 2 * car.w_inertia[k])
               for k, w in enumerate(car.wheel_names)]
        lateral = rng.uniform(-0.08, 0.08, car.n_wheels)       # tan(alpha') up to about 4.6 degrees
        yield np.concatenate([y, slips, phi, lateral]), inputs, y_eq[:ni]


def set_inputs(car, system, inputs):
    for w, u in inputs.items():
        system.data.inputs[car.wheel_index(w), IN_DRIVE] = u["drive"]
        system.data.inputs[car.wheel_index(w), IN_BRAKE] = u["brake"]


def check_vehicle(car, travels, n=6, seed=1, external_tires=False, ranges=None):
    """Compare at n random states; return the spring deflections seen (for the stop coverage)."""
    road = load_road(ROAD)
    system = car.system(road)
    data = system.data
    rng = np.random.default_rng(seed)
    seen = []
    for y, inputs, _ in random_states(car, system, rng, n, travels, ranges):
        set_inputs(car, system, inputs)
        ext = None
        if external_tires:
            data.modes[1] = 1
            ext = {w: (rng.uniform(-3e3, 3e3), rng.uniform(-3e3, 3e3), rng.uniform(0.0, 9e3),
                       rng.uniform(-200.0, 200.0), rng.uniform(-100.0, 100.0)) for w in car.wheel_names}
            for w, load in ext.items():
                data.inputs[car.wheel_index(w), [IN_FORCE, IN_FORCE + 1, IN_FORCE + 2, IN_MOMENT + 1, IN_MOMENT + 2]] = load
        ydot = np.zeros_like(y)
        assert vehicle_rhs(0.0, y, system.model, data, ydot) >= 0
        data.modes[1] = 0
        ni = car.mech.n_dof
        sol = solve_vehicle(car, road, y[2 * ni:], inputs, ext, x_origin=data.origin[0], mech=system.mech)
        assert sol.constraint_rank == sol.n_rows
        err_lin, err_ang = body_errors(system.mech, sol)
        assert err_lin < RTOL and err_ang < RTOL, (err_lin, err_ang)
        seen.append(spring_deflections(car, system))
    return seen


def check_coupling_forces(car, n=4, seed=3, ranges=None):
    """At n random states: the coupling force of every towed unit from the engine (``dynamics.coupling_force``
    after ``vehicle_rhs``, and its output rows ``<unit>.coupling_f*`` in the unit's axes) against the
    reference's Newton's law of the unit (``reference.vehicle.coupling_force``: its accelerations and its own
    tire loads), to 1e-9 of the unit's weight. Returns the largest force seen [N]."""
    from fmu_vehicle.vehicle.dynamics import coupling_force, vehicle_record
    from reference.vehicle import coupling_force as reference_coupling_force, loads, unit_members
    road = load_road(ROAD)
    system = car.system(road)
    data = system.data
    rng = np.random.default_rng(seed)
    ni = car.mech.n_dof
    row = np.zeros(len(car.output_names))
    largest = 0.0
    for y, inputs, _ in random_states(car, system, rng, n, (0.0,), ranges):
        set_inputs(car, system, inputs)
        assert vehicle_rhs(0.0, y, system.model, data, np.zeros_like(y)) >= 0
        sol = solve_vehicle(car, road, y[2 * ni:], inputs, x_origin=data.origin[0], mech=system.mech)
        applied = loads(car, road, y[2 * ni:], inputs, x_origin=data.origin[0])(sol.bodies)
        vehicle_record(0.0, y, system.model, data, row)
        for u in car.spec.units:
            ub = car.mech.body(u.name)
            f = np.zeros(3)
            coupling_force(system.model, data, ub, f)
            ref = reference_coupling_force(car, sol, u.name, applied)
            members = unit_members(car, u.name)
            weight = 9.81 * sum(b.mass_kg for b in car.spec.mechanism.bodies if b.name in members)
            assert np.abs(f - ref).max() < 1e-9 * weight, (u.name, f, ref)
            rows = [row[car.output_names.index(f"{u.name}.coupling_f{a}")] for a in "xyz"]
            assert np.allclose(rows, system.mech.data.A[ub].T @ f, rtol=0, atol=1e-9 * weight)
            largest = max(largest, float(np.abs(f).max()))
    return largest


def stop_coverage(car, seen):
    """For every spring: (bump engaged in some state, rebound engaged in some, neither in some)."""
    out = {}
    for s in car.spec.mechanism.spring_dampers:
        x = np.array([d[s.name] for d in seen])
        bump, rebound = x > s.bump_clearance_m, -x > s.rebound_clearance_m
        out[s.name] = (bool(bump.any()), bool(rebound.any()), bool((~bump & ~rebound).any()))
    return out


# suspension travels [m] from the design position; the spring deflection follows the travel at about 1 m/m
# (strut slide in front, coil-over nearly vertical at the rear), so +0.14 m passes the bump clearances
# (0.08 m front, 0.13 m rear), -0.15 m the rebound clearances (0.1 m), 0 and 0.02 m engage neither
TRAVELS = (0.0, 0.14, -0.15, 0.02)
