"""FMI 2.0 Model Exchange of the native vehicle FMUs (``c/fmi2_me.c``; docs/native.md §9): the session's native
VehicleLV (``native_fmus``), integrated by FMPy's CVode at a relative tolerance of 1e-8, follows the project's
adaptive reference integration of the same vehicle over the bumps (the event indicators are the switching
functions RK4E locates) to well within 1e-6 of each output's magnitude, and differs from its own Co-Simulation
RK4 build by no more than that RK4's own error; before the first bump (a smooth run) ME and CS agree to 1e-6; the
steered native Vehicle follows its reference to 1e-6 too. An
origin rebase and a coordinate re-partition are step events whose fmi2NewDiscreteStates says
valuesOfContinuousStatesChanged, the physical state (the outputs) kept."""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from native_probe import with_check

pytestmark = pytest.mark.slow

OUTPUTS = ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.vz", "wheel_front.omega",
           "wheel_rear.omega", "wheel_front.tire_fz"]
DRIVE = 300.0                                   # front drive torque [N m], stepped on at t = 0
DT_OUT = 0.01                                   # output interval [s]


def _fmpy_run(fmu, kind, duration, x0, start=(), **options):
    from fmpy import simulate_fmu
    res = simulate_fmu(str(fmu), fmi_type=kind, stop_time=duration, output_interval=DT_OUT, output=OUTPUTS,
                       start_values={"wheel_front.torque_drive": DRIVE, "x0": x0, **dict(start)},
                       record_events=False, **options)
    return np.column_stack([res[n] for n in OUTPUTS])


def _me(fmu, duration, x0, start=()):
    return _fmpy_run(fmu, "ModelExchange", duration, x0, start, solver="CVode", relative_tolerance=1e-8)


def _reference(duration, x0):
    """The Python VehicleLV (the FMU's vehicle and road, ``vehicle_slave.load_vehicle``) integrated by the
    project's adaptive reference (DOP853, rtol 1e-10) from the same start."""
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import load_vehicle, vehicle_variables
    from fmu_vehicle.integrators import ScipyReference
    from fmu_vehicle.paths import resource_path
    table = parameter_table("VehicleLV", None)
    values = {v.name: v.start for v in vehicle_variables("VehicleLV", table) if v.causality == "parameter"}
    car, road = load_vehicle(table, values, Path(resource_path()))
    res = car.simulate(road, duration, dt=DT_OUT, v0=values["v0"], x0=x0, drive_torque={"front": DRIVE},
                       integrator=ScipyReference(rtol=1e-10, atol=1e-12))
    return np.column_stack([res[n] for n in OUTPUTS])


def _errors(a, b, scale):
    """max |a - b| per output over the run, relative to the output's largest magnitude in ``scale``."""
    return np.abs(a - b).max(axis=0) / np.abs(scale).max(axis=0)


def test_description_declares_model_exchange(native_fmus):
    """Both interfaces, one modelIdentifier; the states y[k] with nominal values and their derivatives appended
    after the Co-Simulation variables (whose value references stay); FMPy's validation is clean."""
    from fmpy import read_model_description
    from fmpy.validation import validate_fmu
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
    for name, wheels in (("VehicleLV", 2), ("Vehicle", 4)):
        fmu = native_fmus[name]
        assert validate_fmu(str(fmu)) == []
        md = read_model_description(str(fmu))
        assert md.modelExchange.modelIdentifier == md.coSimulation.modelIdentifier == name
        assert md.numberOfEventIndicators == 4 * wheels
        cs = vehicle_variables(name, parameter_table(name, None))
        assert [v.name for v in md.modelVariables[:len(cs)]] == [v.name for v in cs]
        assert [v.valueReference for v in md.modelVariables[:len(cs)]] == list(range(len(cs)))
        states = [d.variable.derivative for d in md.derivatives]
        assert [d.variable.name for d in md.derivatives] == [f"der({s.name})" for s in states]
        assert [s.name for s in states] == [f"y[{k + 1}]" for k in range(len(states))]
        assert states[0].valueReference == len(cs)
        assert all(float(s.nominal) > 0 for s in states)


def test_bumpy_road_matches_the_reference(native_fmus):
    """Over both wheels crossing two bumps (from x0 = 14 m, 1.25 s with a 300 N m front drive torque) ME with
    CVode (rtol 1e-8) follows the reference to 1e-6 of each output's magnitude (measured: at most 2.2e-7, the
    wheel spins; the chassis x 5.3e-10, pitch 6.7e-8); the Co-Simulation RK4 (1 ms) errs by up to 5e-3 there (a step
    across a bump edge loses RK4's order), and ME differs from it by no more than that."""
    duration, x0 = 1.25, 14.0
    ref = _reference(duration, x0)
    me = _me(native_fmus["VehicleLV"], duration, x0)
    cs = _fmpy_run(native_fmus["VehicleLV"], "CoSimulation", duration, x0)
    assert me.shape == cs.shape == ref.shape
    me_error, cs_error = _errors(me, ref, ref), _errors(cs, ref, ref)
    assert me_error.max() < 1e-6, dict(zip(OUTPUTS, me_error))
    assert cs_error.max() > 1e-4             # the bumps are crossed: RK4's error is of first order there
    assert np.all(_errors(me, cs, ref) <= 1.05 * cs_error + 1e-6), dict(zip(OUTPUTS, _errors(me, cs, ref)))


def test_smooth_run_me_equals_cs(native_fmus):
    """Before the first bump (0.8 s from x0 = 0, the drive torque stepped on) ME and CS agree to 1e-6 of each
    output's magnitude (measured: 2.6e-7, the front wheel's spin right after the torque step)."""
    me = _me(native_fmus["VehicleLV"], 0.8, 0.0)
    cs = _fmpy_run(native_fmus["VehicleLV"], "CoSimulation", 0.8, 0.0)
    assert _errors(me, cs, cs).max() < 1e-6, dict(zip(OUTPUTS, _errors(me, cs, cs)))


def test_road_chosen_at_run_time(native_fmus):
    """``road`` set to 'flat' at run time on the VehicleLV exported on 'bumpy': the instance is made from the
    flat road's image variant, whose blob has another layout (docs/native.md §11), and the evaluation's
    workspace is that variant's (§9). From x0 = 14 m, where the export's road has its bumps (0.9 s), ME and CS
    on the chosen road agree to 1e-6 of each output's magnitude, as on the smooth run (measured: 2.6e-7, the
    front wheel's spin), and CS on the export's road differs from them (measured: the front tire's vertical
    force by 2.2 times its magnitude on the flat road)."""
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
    road = next(v for v in vehicle_variables("VehicleLV", parameter_table("VehicleLV", None)) if v.name == "road")
    assert road.start == "bumpy"
    fmu, duration, x0, flat = native_fmus["VehicleLV"], 0.9, 14.0, {"road": road.item_value("flat")}
    me = _me(fmu, duration, x0, flat)
    cs = _fmpy_run(fmu, "CoSimulation", duration, x0, flat)
    bumpy = _fmpy_run(fmu, "CoSimulation", duration, x0)
    assert _errors(me, cs, cs).max() < 1e-6, dict(zip(OUTPUTS, _errors(me, cs, cs)))
    assert _errors(bumpy, cs, cs).max() > 0.1, dict(zip(OUTPUTS, _errors(bumpy, cs, cs)))


VEHICLE_OUTPUTS = ["chassis.x", "chassis.y", "chassis.yaw", "chassis.vx", "chassis.vy", "chassis.yaw_rate", "chassis.z",
                   "wheel_FL.omega", "wheel_FL.tire_fy", "rack_travel"]


def test_steered_vehicle_matches_the_reference(native_fmus):
    """The native Vehicle (full car) with the steering wheel at 30 deg from t = 0 and 100 N m on each front wheel,
    0.8 s before the first bump: ME (CVode, rtol 1e-8; the rack held at the input) follows the reference of the
    Python vehicle with the same constant steering profile to 1e-6 of each output's magnitude (measured: 2.4e-7,
    the front left wheel's spin; the yaw rate 2.6e-8). Before each evaluation the FMU puts back the workspace of
    the last accepted state: without that, this run was 1.2e-2 off in the yaw rate (a Newton solve started from
    a far trial state's warm start)."""
    import math
    from fmpy import simulate_fmu
    from fmu_vehicle.driver.profile import SteeringProfile
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import load_vehicle, vehicle_variables
    from fmu_vehicle.integrators import ScipyReference
    from fmu_vehicle.paths import resource_path
    angle, torque, duration = math.radians(30.0), 100.0, 0.8
    table = parameter_table("Vehicle", None)
    values = {v.name: v.start for v in vehicle_variables("Vehicle", table) if v.causality == "parameter"}
    car, road = load_vehicle(table, values, Path(resource_path()))
    ref = car.simulate(road, duration, dt=DT_OUT, v0=values["v0"], drive_torque={"FL": torque, "FR": torque},
                       steer=SteeringProfile([0.0], [angle]), integrator=ScipyReference(rtol=1e-10, atol=1e-12))
    res = simulate_fmu(str(native_fmus["Vehicle"]), fmi_type="ModelExchange", solver="CVode",
                       relative_tolerance=1e-8, stop_time=duration, output_interval=DT_OUT, output=VEHICLE_OUTPUTS,
                       record_events=False, start_values={"wheel_FL.torque_drive": torque,
                                                          "wheel_FR.torque_drive": torque,
                                                          "steering_wheel_angle": angle})
    me = np.column_stack([res[n] for n in VEHICLE_OUTPUTS])
    reference = np.column_stack([ref[n] for n in VEHICLE_OUTPUTS])
    assert me.shape == reference.shape
    assert reference[-1, VEHICLE_OUTPUTS.index("chassis.yaw_rate")] > 0.1          # turning left
    error = _errors(me, reference, reference)
    assert error.max() < 1e-6, dict(zip(VEHICLE_OUTPUTS, error))


class _Model:
    """The native FMU in Model Exchange through FMPy's FMU2Model, logging on, its messages kept."""

    def __init__(self, fmu, tmp_path):
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import (FMU2Model, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                               fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)
        from fmpy.fmi2 import calloc, free
        self.md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.messages = []
        self.n = self.md.numberOfContinuousStates
        self.model = FMU2Model(guid=self.md.guid, unzipDirectory=extract(str(fmu), str(tmp_path / "me")),
                               modelIdentifier=self.md.modelExchange.modelIdentifier, instanceName="me")

        def logger(env, name, status, category, message):
            self.messages.append((category.decode(), message.decode()))

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self.model.instantiate(callbacks=callbacks, loggingOn=True)
        self.model.setupExperiment(startTime=0.0)
        self.model.enterInitializationMode()
        self.model.exitInitializationMode()
        self.event()
        self.model.enterContinuousTimeMode()

    def _array(self, getter):
        x = np.zeros(self.n)
        getter(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), self.n)
        return x

    def states(self):
        return self._array(self.model.getContinuousStates)

    def derivatives(self):
        return self._array(self.model.getDerivatives)

    def set_states(self, x):
        x = np.ascontiguousarray(x, dtype=float)
        self.model.setContinuousStates(x.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), self.n)

    def outputs(self):
        return np.array(self.model.getReal([self.vr[n] for n in OUTPUTS]))

    def event(self):
        """fmi2NewDiscreteStates until no more are needed: valuesOfContinuousStatesChanged of any."""
        changed = False
        while True:
            needed, terminate, _nominals, values, _defined, _next = self.model.newDiscreteStates()
            assert not terminate
            changed = changed or values
            if not needed:
                return changed

    def step_event(self):
        """fmi2CompletedIntegratorStep; if it asks for event mode, the event: (asked, values changed)."""
        asked, terminate = self.model.completedIntegratorStep()
        assert not terminate
        if not asked:
            return False, False
        self.model.enterEventMode()
        changed = self.event()
        self.model.enterContinuousTimeMode()
        return True, changed


def test_rebase_and_repartition_are_step_events(native_fmus, tmp_path):
    """An origin rebase (the chassis x state moved past 100 m) and a coordinate re-partition (the partition's
    reference pivot ratio zeroed in a restored FMU state, as test_native_step forces one) each make
    fmi2CompletedIntegratorStep ask for event mode; fmi2NewDiscreteStates then rewrites the states and says
    valuesOfContinuousStatesChanged, and the outputs (the physical state) stay."""
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
    from fmu_vehicle.native import fmu as native
    m = _Model(native_fmus["VehicleLV"], tmp_path)
    assert m.step_event() == (False, False)           # at the start: nothing due
    x, dx = m.states(), m.derivatives()
    ni = (m.n - 3 * 2) // 2
    k = int(np.argmin(np.abs(dx[:ni] - 20.0)))          # the chassis x slot: dx/dt = v0
    x[k] += 100.5
    m.set_states(x)
    before = m.outputs()
    assert m.step_event() == (True, True)
    after_x = m.states()
    assert after_x[k] == pytest.approx(x[k] - 100.0, abs=1e-12)
    assert np.array_equal(np.delete(after_x, k), np.delete(x, k))
    np.testing.assert_allclose(m.outputs(), before, rtol=1e-12, atol=1e-9)
    assert any(c == "logEvents" and "rebased" in text for c, text in m.messages)
    assert m.step_event() == (False, False)

    # a re-partition: the state's data.mech.stats[3] (the pivot ratio the partition was chosen with) zeroed;
    # the blob's layout differs between processes (its segments follow the arrays' addresses), so the entry is
    # found by its value, the exported image's (a partition's reference changes only at a re-partition)
    values = native.parameter_values(vehicle_variables("VehicleLV", parameter_table("VehicleLV", None)), None)
    image = native._image("VehicleLV", values)[3]
    reference = image.field("data.mech.stats").array[3]
    assert reference > 1.0
    state = m.model.serializeFMUstate(m.model.getFMUstate())
    blob_at = len(state) - 8 - len(image.blob)
    words = np.frombuffer(state[blob_at:len(state) - 8], "<f8")
    found = np.flatnonzero(words == reference)
    assert found.size == 1, found
    at = blob_at + 8 * int(found[0])
    edited = bytearray(state)
    edited[at:at + 8] = np.float64(0.0).tobytes()
    m.model.setFMUstate(m.model.deSerializeFMUstate(with_check(bytes(edited))))
    before, x = m.outputs(), m.states()
    m.messages.clear()
    assert m.step_event() == (True, True)
    assert any(c == "logEvents" and "partition" in text for c, text in m.messages)
    np.testing.assert_allclose(m.outputs(), before, rtol=1e-12, atol=1e-9)
    assert m.step_event() == (False, False)             # the new partition's own pivot ratio is the reference
    m.model.terminate()
    m.model.freeInstance()


def test_model_exchange_calls_are_checked(native_fmus, tmp_path):
    """A wrong number of states or indicators, a call in the wrong mode and fmi2DoStep on a Model Exchange
    instance are refused with fmi2Error and a message naming the function; the instance then goes on."""
    from fmpy.fmi2 import fmi2Error, fmi2EventInfo
    m = _Model(native_fmus["VehicleLV"], tmp_path)
    lib, comp = m.model.dll, m.model.component
    x = np.zeros(m.n + 1)
    ptr = x.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    assert lib.fmi2GetDerivatives(comp, ptr, ctypes.c_size_t(m.n - 1)) == fmi2Error
    assert lib.fmi2GetEventIndicators(comp, ptr, ctypes.c_size_t(3)) == fmi2Error
    assert lib.fmi2NewDiscreteStates(comp, ctypes.byref(fmi2EventInfo())) == fmi2Error    # continuous-time mode
    do_step = lib.fmi2DoStep                 # (FMPy declares it for Co-Simulation only)
    do_step.argtypes, do_step.restype = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int], ctypes.c_int
    assert do_step(comp, 0.0, 1e-3, 1) == fmi2Error
    text = " | ".join(message for _c, message in m.messages)
    for expected in ("fmi2GetDerivatives: 19 values, this FMU has 20",
                     "fmi2GetEventIndicators: 3 values, this FMU has 8",
                     "fmi2NewDiscreteStates: not allowed in continuous-time mode",
                     "fmi2DoStep: the instance is Model Exchange"):
        assert expected in text, text
    assert np.all(np.isfinite(m.derivatives()))
    m.model.terminate()
    m.model.freeInstance()
