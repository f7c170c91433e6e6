"""Every stepping integrator in the native FMU (fmu_vehicle.native.fmu). An export carries RK4 and the
``integrator`` set (the session's default ``native_fmus``: RK4 only, another method refused by name), or the
methods it is asked for: ``native_integrators_fmu`` carries RK4, ABM4, BDF2 and RK4E, and its ``integrator``
parameter stays settable until initialization ends, as in the Python FMU. Per method, it gives the Python
VehicleLV's outputs bit for bit over 2 s of the bumpy road with constant wheel torques; a state saved mid-run
(ABM4's history, BDF2's factored matrices, RK4E's last evaluation in it) and restored into a fresh instance
initialized with RK4 continues bit for bit; a state whose integrator fields are out of range is refused with a
message naming the field."""
from __future__ import annotations

import shutil
import struct

import numpy as np
import pytest

from fmu_vehicle.integrators import STEPPING_INTEGRATORS

from native_probe import with_check

OUTPUTS = ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.az", "wheel_front.tire_fz",
           "wheel_rear.tire_fx", "wheel_front.omega", "wheel_rear.travel"]
TORQUES = {"wheel_front.torque_drive": 150.0, "wheel_rear.torque_brake": 40.0}
"""[N m], constant: a multistep method keeps its history while the inputs are unchanged (inputs that change at every
step restart it, and ABM4 then takes RK4 steps only: RK4's numbers bit for bit)."""
METHODS = ("abm4", "bdf2", "rk4e")
"""The stepping methods besides RK4 (whose native run test_native_fmu.py compares)."""


RUNS = """
import json, sys
from fmu_vehicle.numerics.jit import pin_portable_cpu
pin_portable_cpu()      # the Python FMU runs the portable code it ships, as in a host (fmi.hosts.run_fmpy)
import numpy as np
from fmpy import simulate_fmu
spec = json.loads(sys.argv[1])
out = {}
for fmu in spec["fmus"]:
    for item in spec["items"]:
        r = simulate_fmu(fmu, start_values={"integrator": item, **spec["inputs"]}, stop_time=2.0,
                         output_interval=1e-3, output=spec["outputs"])
        out[f"{fmu} {item}"] = np.array([list(row) for row in r])[::20].tolist()
print("RUNS " + json.dumps(out))
"""
"""Every run of the comparison in one FMPy process (``fmpy.simulate_fmu``: 1 ms communication steps, the
torques as start values of the inputs): each Python FMU instance after the first loads no kernels again."""


@pytest.fixture(scope="module")
def runs(registered_fmus, native_integrators_fmu) -> dict:
    """{(fmu, method): the rows (time and OUTPUTS every 20 ms over 2 s)} of the native VehicleLV carrying every
    method and the Python VehicleLV, per stepping method."""
    import json
    import subprocess
    import sys

    fmus = {"native": str(native_integrators_fmu), "python": str(registered_fmus.subset(("VehicleLV",))["VehicleLV"])}
    items = {m: STEPPING_INTEGRATORS.index(m) + 1 for m in STEPPING_INTEGRATORS}    # the Enumeration's item values
    spec = {"fmus": list(fmus.values()), "items": list(items.values()), "outputs": OUTPUTS,
            "inputs": TORQUES}
    proc = subprocess.run([sys.executable, "-c", RUNS, json.dumps(spec)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(next(line[5:] for line in proc.stdout.splitlines() if line.startswith("RUNS ")))
    return {(kind, m): np.array(out[f"{path} {item}"]) for kind, path in fmus.items() for m, item in items.items()}


@pytest.mark.parametrize("method", METHODS)
def test_each_integrator_gives_the_python_fmus_numbers(runs, method):
    ours, python, rk4 = runs["native", method], runs["python", method], runs["native", "rk4"]
    assert ours.shape == python.shape == (101, 1 + len(OUTPUTS))
    assert np.array_equal(runs["native", "rk4"], runs["python", "rk4"])
    scale = np.maximum(np.abs(python).max(axis=0), 1e-300)
    assert np.max(np.abs(ours - python) / scale) <= 1e-12
    assert np.array_equal(ours, python)             # bit for bit: the same kernels, the same order
    # the method did run: its numbers are not RK4's (the bumpy road makes them differ beyond rounding)
    assert np.max(np.abs(ours - rk4) / scale) > 1e-9


class _Fmu:
    """The native VehicleLV through FMPy's FMU2Slave in this process (the library needs no Python); the C
    layer's messages collected in ``messages``."""

    def __init__(self, path, folder):
        from fmpy import calloc, free, read_model_description
        from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                               fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2StepFinishedTYPE)
        md = read_model_description(str(path))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.messages = []

        def logger(env, name, status, category, message):
            self.messages.append(message.decode())

        self.callbacks = fmi2CallbackFunctions()        # kept alive with the instance
        self.callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self.callbacks.stepFinished = fmi2StepFinishedTYPE()
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier="VehicleLV", instanceName="t")
        self.fmu.instantiate(loggingOn=True, callbacks=self.callbacks)
        self.fmu.setupExperiment(startTime=0.0)

    def steps(self, k0, k1):
        """doStep from k0 ms to k1 ms (the drive torque switching every 0.2 s); the outputs after each."""
        rows = []
        for k in range(k0, k1):
            self.fmu.setReal([self.vr["wheel_front.torque_drive"]], [150.0 + 100.0 * (k % 400 < 200)])
            self.fmu.doStep(k * 1e-3, 1e-3)
            rows.append(self.fmu.getReal([self.vr[n] for n in OUTPUTS]))
        return np.array(rows)

    def refused(self, call, *args, message):
        """``call(*args)`` fails with a message holding ``message``."""
        from fmpy.fmi1 import FMICallException
        with pytest.raises(FMICallException):
            getattr(self.fmu, call)(*args)
        assert any(message in m for m in self.messages), (message, self.messages[-3:])


def _int_fields(state: bytes, n_states: int) -> int:
    """Offset of the ABM4 control integers in a serialized state (``c/fmi2_native.c``): the integer arrays
    (ABM4 control (3), BDF2 pivots (2 n), BDF2 control (5), the image variant (1)) lie just before the blob and its
    check word."""
    nb = int.from_bytes(state[72 + 40:72 + 48], "little")
    return len(state) - 8 - nb - 8 * (3 + 2 * n_states + 5 + 1)


def test_a_restored_state_continues_each_integrator_bit_for_bit(native_integrators_fmu, tmp_path):
    """Per method: 0.3 s run, state saved, 0.3 s more; the state restored into a fresh instance (initialized
    with rk4) gives those 0.3 s again bit for bit. The state holds what the method carries: restarting ABM4's
    history in it changes the numbers. Integrator fields out of range are refused, naming the field."""
    from fmpy import extract

    path = native_integrators_fmu
    folder = extract(str(path), str(tmp_path / "lv"))
    try:
        for method in METHODS:
            item = STEPPING_INTEGRATORS.index(method) + 1           # the Enumeration's item value
            a = _Fmu(path, folder)
            a.refused("setInteger", [a.vr["integrator"]], [9],
                      message="9 is not the item value of an integrator this native FMU carries")
            a.fmu.setInteger([a.vr["integrator"]], [item])
            assert a.fmu.getInteger([a.vr["integrator"]]) == [item]
            a.fmu.enterInitializationMode()
            a.fmu.exitInitializationMode()
            a.fmu.setInteger([a.vr["integrator"]], [item])          # its own value: accepted
            a.refused("setInteger", [a.vr["integrator"]], [1],
                      message="parameter 'integrator' can only be set before initialization ends")
            a.steps(0, 300)
            state = bytes(a.fmu.serializeFMUstate(a.fmu.getFMUstate()))
            assert state[:8] == b"FVSTATE5" and int.from_bytes(state[128:136], "little") == item
            rest = a.steps(300, 600)
            a.fmu.terminate()
            a.fmu.freeInstance()
            b = _Fmu(path, folder)                                  # rk4 until the state says otherwise
            b.fmu.enterInitializationMode()
            b.fmu.exitInitializationMode()
            b.fmu.setFMUstate(b.fmu.deSerializeFMUstate(state))
            assert b.fmu.getInteger([b.vr["integrator"]]) == [item]
            assert np.array_equal(b.steps(300, 600), rest), method
            n_states = int.from_bytes(state[72 + 16:72 + 24], "little")
            at = _int_fields(state, n_states)
            if method == "abm4":
                count, head = struct.unpack_from("<2q", state, at)
                assert count == 4 and 0 <= head <= 3                # a full history, its ring index
                # the history matters: restarting it (count 0) gives other numbers
                b.fmu.setFMUstate(b.fmu.deSerializeFMUstate(with_check(state[:at] + bytes(8) + state[at + 8:])))
                assert not np.array_equal(b.steps(300, 600), rest)
                bad = [(at + 8, 4, "ABM4 control[1] = 4 is outside [0, 3]")]       # the ring index: 4 rows
            elif method == "bdf2":
                bad = [(at + 8 * 3, n_states, f"BDF2 pivots[0] = {n_states} is outside [0, {n_states - 1}]"),
                       (at + 8 * (3 + 2 * n_states), 2, "BDF2 control[0] = 2 is outside [0, 1]")]
            else:
                bad = [(128, 7, "the state's integrator 7 is not one this FMU carries"), (136, 2, "restart flag 2")]
            for offset, value, message in bad:
                crafted = with_check(state[:offset] + struct.pack("<q", value) + state[offset + 8:])
                b.refused("deSerializeFMUstate", crafted, message=message)
            b.fmu.terminate()
            b.fmu.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_default_export_carries_rk4_and_the_integrator_set(native_fmus, tmp_path):
    """The session's native VehicleLV, exported with integrator = rk4, carries RK4 only: setting another
    method is refused naming what it carries and how to export it (the library carries what is asked for:
    each method costs compile time and library size, docs/native.md §8)."""
    from fmpy import extract

    folder = extract(str(native_fmus["VehicleLV"]), str(tmp_path / "lv"))
    try:
        fmu = _Fmu(native_fmus["VehicleLV"], folder)
        fmu.fmu.setInteger([fmu.vr["integrator"]], [1])
        fmu.refused("setInteger", [fmu.vr["integrator"]], [STEPPING_INTEGRATORS.index("bdf2") + 1],
                    message=f"{STEPPING_INTEGRATORS.index('bdf2') + 1} is not the item value of an integrator this "
                            "native FMU carries (1 = rk4): export it "
                            "again with --set integrator=<name>")
        fmu.fmu.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
