"""The vehicle's signal table drives its interface: an output row added to the table (here in a child process,
before anything reads the table) appears in the simulation result, its CSV and the VehicleLV FMU's model
description with no other code; a kernel output is where the table says; bad table rows are refused."""
import json
import subprocess
import sys

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.signals import LONGITUDINAL_VERTICAL, Signal, SignalTable
from timeouts import HANG_GUARD_S

CHILD = r"""
import json, sys
import xml.etree.ElementTree as ET
from fmu_vehicle.vehicle import signals
from fmu_vehicle.vehicle.signals import Signal, SignalTable
# the fixture: one chassis row and one per-wheel row more, and nothing else
extra = (Signal("test_extra", "m", "a row added by the test", "chassis", "output"),
         Signal("test_wheel_extra", "N", "a per-wheel row added by the test", "wheel", "output"))
base = signals.TABLES["longitudinal_vertical"]
signals.TABLES["longitudinal_vertical"] = SignalTable(base.kind, base.rows + extra)

from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.fmi.registry import slave_script
from fmu_vehicle.fmi.build import _load_slave_class
from fmu_vehicle.paths import resources_dir
car = Vehicle.load("halfcar7")
res = car.simulate("bumpy", 0.05, v0=20.0)
res.to_csv(sys.argv[1], units="header")
import importlib.util
spec = importlib.util.spec_from_file_location("vehicle_lv_slave", slave_script("VehicleLV"))
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
slave = mod.VehicleLV(instance_name="t", resources=str(resources_dir()))
xml = ET.tostring(slave.to_xml()).decode()
names = [sv.get("name") for sv in ET.fromstring(xml).iter("ScalarVariable")]
print(json.dumps({"result": list(res.names), "x": res.final("chassis.x"), "fz": res.final("wheel_rear.tire_fz"),
                  "residual": res.final("constraint_residual"), "xml": names}))
"""


def test_an_added_output_row_reaches_result_csv_and_model_description(tmp_path):
    csv = tmp_path / "run.csv"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(csv)], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    for name in ("chassis.test_extra", "wheel_front.test_wheel_extra", "wheel_rear.test_wheel_extra"):
        assert name in got["result"], name
        assert name in got["xml"], name
    header = csv.read_text().splitlines()[0]
    assert "chassis.test_extra [m]" in header and "wheel_rear.test_wheel_extra [N]" in header
    # the rows the kernel computes are still where the table puts them: the same numbers as without the rows
    ref = Vehicle.load("halfcar7").simulate("bumpy", 0.05, v0=20.0)
    assert got["x"] == ref.final("chassis.x")
    assert got["fz"] == ref.final("wheel_rear.tire_fz")
    assert got["residual"] == ref.final("constraint_residual")


def test_outputs_sit_in_the_columns_the_table_gives():
    """Each recorded output equals the quantity it names, read from the engine independently."""
    car = Vehicle.load("halfcar7")
    sim = car.simulator("bumpy", v0=20.0)
    sim.set_input("front", torque_drive=400.0)
    sim.set_input("rear", torque_brake=150.0)
    sim.advance(0.2)
    out = sim.outputs()
    d = sim.system.data.mech
    # the chassis CoM: its design x plus the chassis joint's x coordinate, plus the engine origin's road x
    assert out["chassis.x"] == (car.chassis_com0[0] + d.z[car.mech.coordinate("chassis.x")]) + sim.system.data.origin[0]
    # the planar chassis turns about y only: its angular velocity about the chassis y axis is d(pitch)/dt
    assert out["chassis.pitch_rate"] == pytest.approx(d.zd[car.mech.coordinate("chassis.pitch")], rel=1e-13, abs=1e-15)
    rear = car.wheel_index("rear")
    assert out["wheel_rear.omega_rel"] == d.zd[car.w_spin[rear]]
    assert out["wheel_front.torque_drive_applied"] == 400.0
    assert out["wheel_rear.torque_brake_applied"] == -sim.system.data.brake[rear] > 0.0   # opposes rolling
    assert out["wheel_front.slip"] == sim.y[2 * car.mech.n_dof + car.wheel_index("front")]
    assert list(out) == [n for n, _, _ in car.outputs]
    assert car.signals.input_names == ("torque_drive", "torque_brake", "road_height", "road_slope", "road_mu",
                                       "tire_force_x", "tire_force_z", "tire_moment_y")


def test_bad_rows_and_names_are_refused():
    with pytest.raises(ModelError, match="scope must be one of"):
        Signal("a", "m", "", "body", "output")
    with pytest.raises(ModelError, match="inputs are per wheel"):
        Signal("a", "m", "", "chassis", "input")
    with pytest.raises(ModelError, match="'x' appears twice"):
        SignalTable("t", LONGITUDINAL_VERTICAL.rows + (Signal("x", "m", "", "chassis", "output"),))
    sim = Vehicle.load("halfcar7").simulator("flat")
    with pytest.raises(ModelError, match="unknown vehicle input 'drive_torque'; valid: torque_drive"):
        sim.set_input("front", drive_torque=1.0)
    assert np.all(sim.inputs[:, LONGITUDINAL_VERTICAL.input_column("torque_drive")] == 0.0)
