"""Every FMU's ModelStructure checked against what the FMU does when its inputs move (docs/fmus.md §1).

FMI 2.0 reads a missing ``dependencies`` as "depends on every input": a master then finds an algebraic loop in
every feedback (OMSimulator solves one every step). The FMUs declare their true dependencies
(``fmi.variables.Structure``, written by ``post_process`` and the native export); these tests keep that
declaration honest.

Each FMU runs in a fresh process (``model_structure_probe``: ``fmi_support.run_child``, FMPy's ``FMU2Slave``).
For each parameter setting of ``PROBES`` the child

(a) in Initialization Mode sets every input to its base value (its start value or the setting's), reads every
    output, then per input sets two other valid values (base +- 10 % of max(|base|, 1), within min/max), reads
    every output after each, and sets the base value back (read again: the same outputs as at first);
(b) after ``exitInitializationMode`` and two ``doStep`` of 1 ms does the same before the next ``doStep``.

Asserted against the modelDescription the FMU ships:

* soundness, pair by pair: an output that changed in (a) lists that input in its ``InitialUnknowns``
  dependencies; one that changed in (b) lists it in its ``Outputs`` dependencies;
* precision: every pair declared in ``Outputs`` changed in (b) for some setting; in ``InitialUnknowns`` every
  input declared changed one of the outputs that declare it, and every output that declares inputs changed
  for one of them. Not every declared pair is asserted: the Tire's contact outputs and the vehicles' tire
  outputs are declared on groups of inputs, the union over parameter settings (wheel_interface, road_source,
  tire_source) that a modelDescription cannot follow, and some pairs act only in states the probe does not
  reach (a normalized quaternion or normal component alone at the identity rotation or a level road).
* ``InitialUnknowns`` also lists every parameter (the other knowns of Initialization Mode), every non-empty
  ``dependencies`` has a ``dependenciesKind`` of the same length, and FMPy's validation finds no problem.

The native VehicleLV and Vehicle (slow: an export each) write the same declaration and are probed at their
defaults.
"""
from __future__ import annotations

import pytest
from fmpy.validation import validate_fmu

from fmu_lists import MODEL_STRUCTURE_FMUS
from model_structure_probe import check, declared, observe

_CHROND = {"wheel_state.lin_vel.x": 10.0, "wheel_state.ang_vel.y": 20.0, "wheel_state.pos.z": 0.45}
_LOADS_LV = {f"wheel_{w}.{n}": v for w in ("front", "rear") for n, v in (("tire_force_x", 300.0),
                                                                           ("tire_force_z", 5000.0))}
_LOADS = {f"wheel_{w}.{n}": v for w in ("FL", "FR", "RL", "RR")
          for n, v in (("force.x", 300.0), ("force.y", 200.0), ("force.z", 5000.0), ("point.x", 1.0),
                       ("point.y", 0.5), ("point.z", 0.1))}

#: FMU -> parameter settings probed: {"parameters": start values set before initialization, "inputs": base
#: values of inputs}. Chosen so that every declared input acts (road and tire-load inputs under their source,
#: the Controller near its detection, AEB and hold thresholds, a shift threshold of the Powertrain, the Tire's
#: rotation and terrain normal away from the identity and the vertical).
PROBES = {
    "LeadVehicle": [{}],
    "Robot": [{}],
    # braking with a front wheel just short of the release slip (ABS), turning faster than the reference (ESC), a spinning driven wheel (TCS)
    "ChassisControl": [{}, {"inputs": {"driver.pedal_force": 400.0, "chassis.vx": 20.0, "wheel_FL.omega": 37.5,
                                       "wheel_FR.omega": 43.0, "wheel_RL.omega": 43.0, "wheel_RR.omega": 43.0,
                                       "chassis.yaw_rate": 0.5, "chassis.ay": 5.0, "steering_wheel_angle": 0.3}},
                       # braking with the other three wheels just short of the release slip (ABS flips them)
                       {"inputs": {"driver.pedal_force": 400.0, "chassis.vx": 20.0, "wheel_FL.omega": 43.8,
                                   "wheel_FR.omega": 37.5, "wheel_RL.omega": 37.5, "wheel_RR.omega": 37.5}},
                       # turning right at 20 m/s with less yaw than the reference: understeer, inner rear wheel
                       {"inputs": {"chassis.vx": 20.0, "wheel_FL.omega": 43.8, "wheel_FR.omega": 43.8,
                                   "wheel_RL.omega": 43.7, "wheel_RR.omega": 43.7, "steering_wheel_angle": -0.5,
                                   "chassis.yaw_rate": -0.02, "chassis.ay": -1.0}},
                       # a rear-driven car whose rear wheels spin (TCS on the rear wheels)
                       {"parameters": {"vehicle.driven_FL": False, "vehicle.driven_FR": False,
                                       "vehicle.driven_RL": True, "vehicle.driven_RR": True},
                        "inputs": {"driver.drive_torque": 3000.0, "chassis.vx": 5.0, "wheel_FL.omega": 11.0,
                                   "wheel_FR.omega": 11.0, "wheel_RL.omega": 20.0, "wheel_RR.omega": 15.0}},
                       # a spinning front wheel under a small drive demand: TCS stands down when it goes negative
                       {"inputs": {"driver.drive_torque": 0.05, "chassis.vx": 5.0, "wheel_FL.omega": 20.0,
                                   "wheel_FR.omega": 15.0, "wheel_RL.omega": 11.0, "wheel_RR.omega": 11.0}}],
    "Powertrain": [{}, {"inputs": {"throttle": 0.5, "wheel_left.omega": 20.0, "wheel_right.omega": 20.0}},
                   {"inputs": {"throttle": 0.3, "wheel_left.omega": 30.0, "wheel_right.omega": 30.0}}],
    "Controller": [{},
                   {"inputs": {"lead.x": 150.0}},                                         # at the sensor range
                   {"parameters": {"use_accel_input": True},                              # AEB engaged (ttc 1.2 s)
                    "inputs": {"lead.x": 12.0, "ego.vx": 15.0, "lead.vx": 5.0, "ego.ax": -2.0}},
                   {"inputs": {"lead.x": 15.0, "ego.vx": 15.0, "lead.vx": 5.0}},           # ttc at aeb.ttc_on
                   {"inputs": {"lead.x": 5.0, "ego.vx": 0.05, "lead.vx": 0.0}}],           # held at standstill
    "Driver": [{}, {"inputs": {"chassis.x": -50.0, "chassis.y": 0.1, "chassis.vx": 15.0, "target_speed": 20.0}}],
    "Tire": [{},
             {"parameters": {"road_source": "inputs"}, "inputs": {"wheel.vx": 10.0, "wheel.omega": 20.0,
                                                                   "wheel.z": 0.45}},
             {"parameters": {"wheel_interface": "chrono"}, "inputs": _CHROND},
             {"parameters": {"wheel_interface": "chrono", "road_source": "inputs"},
              "inputs": {**_CHROND, "wheel_state.rot.e0": 0.99, "wheel_state.rot.e1": 0.05,
                         "wheel_state.rot.e3": 0.08, "wheel_state.ang_vel.x": 1.0, "wheel_state.ang_vel.z": 1.0,
                         "terrain_normal.x": 0.05, "terrain_normal.y": 0.05}},
             {"parameters": {"wheel_interface": "chrono"},                                # low speed
              "inputs": {"wheel_state.lin_vel.x": 0.5, "wheel_state.lin_vel.y": 0.2, "wheel_state.ang_vel.y": 1.0,
                         "wheel_state.pos.z": 0.45}}],
    "VehicleLV": [{}, {"parameters": {"road_source": "inputs"}},
                  {"parameters": {"tire_source": "external"}, "inputs": _LOADS_LV}],
    "Vehicle": [{}, {"parameters": {"road_source": "inputs"}},
                {"parameters": {"tire_source": "external", "steering_input": "rack_travel"}, "inputs": _LOADS}],
}

def test_a_declaration_that_names_no_such_variable_or_skips_initialization_is_refused():
    from lxml import etree
    from fmu_vehicle.errors import ModelError
    from fmu_vehicle.fmi.post_process import patch_model_description
    from fmu_vehicle.fmi.variables import Structure, Var
    table = (Var("k", "parameter", "fixed", "1", "gain", 2.0), Var("u", "input", "continuous", "m", "in", 0.0),
             Var("y", "output", "continuous", "m", "out", 0.0))
    with pytest.raises(ModelError, match="'u' is not an output"):
        Structure(initial={"u": ("y",)}).check(table)
    with pytest.raises(ModelError, match="'y' follows 'u' while stepping but does not depend on it in Init"):
        Structure(stepping={"y": {"u": "constant"}}).check(table)
    with pytest.raises(ModelError, match="dependenciesKind 'linear'"):
        Structure(initial={"y": ("u",)}, stepping={"y": {"u": "linear"}}).check(table)
    root = etree.fromstring(
        '<fmiModelDescription fmiVersion="2.0" modelName="m" guid="g"><ModelVariables>'
        '<ScalarVariable name="k" valueReference="0" causality="parameter" variability="fixed"><Real start="2"/>'
        '</ScalarVariable><ScalarVariable name="u" valueReference="1" causality="input" variability="continuous">'
        '<Real start="0"/></ScalarVariable><ScalarVariable name="y" valueReference="2" causality="output" '
        'variability="continuous"><Real/></ScalarVariable></ModelVariables></fmiModelDescription>')
    patch_model_description(root, table, Structure(initial={"y": ("u",)}, stepping={"y": {"u": "constant"}}))
    outputs, initial = root.find("ModelStructure")
    assert (outputs.tag, dict(outputs[0].attrib)) == ("Outputs", {"index": "3", "dependencies": "2",
                                                                  "dependenciesKind": "constant"})
    assert (initial.tag, dict(initial[0].attrib)) == ("InitialUnknowns", {"index": "3", "dependencies": "1 2",
                                                                          "dependenciesKind": "dependent dependent"})
    patch_model_description(root, table, Structure())           # again, with no dependence: replaced, not added
    outputs, initial = root.find("ModelStructure")
    assert dict(outputs[0].attrib) == {"index": "3", "dependencies": ""}
    assert dict(initial[0].attrib) == {"index": "3", "dependencies": "1", "dependenciesKind": "dependent"}


@pytest.mark.parametrize("name", MODEL_STRUCTURE_FMUS)
def test_declared_dependencies_are_what_the_fmu_does(all_fmus, name, tmp_path):
    path = all_fmus[name]
    assert validate_fmu(str(path)) == []
    structure = declared(path)
    check(structure, observe(path, PROBES[name], tmp_path))
    # while stepping no output follows an input, except the Tire's query point (chrono interface)
    expected = {f"query_point.{a}": {f"wheel_state.pos.{a}": "fixed"} for a in "xyz"} if name == "Tire" else {}
    assert {o: d for o, d in structure["stepping"].items() if d} == expected


def test_vehicle_declaration_in_numbers(all_fmus):
    """The vehicles' initial dependencies as documented (docs/fmus.md §1): accelerations on every wheel input,
    tire outputs on their own wheel's, positions and speeds on none."""
    lv_structure, full_structure = declared(all_fmus["VehicleLV"]), declared(all_fmus["Vehicle"])
    lv = lv_structure["initial"]
    inputs = lambda deps: sorted(d for d in deps if d in lv_structure["inputs"] | full_structure["inputs"])
    assert len(inputs(lv["chassis.ax"])) == 16                      # 2 wheels x 8 inputs
    assert inputs(lv["wheel_front.tire_fz"]) == sorted(
        f"wheel_front.{n}" for n in ("road_height", "road_slope", "road_mu", "tire_force_x", "tire_force_z",
                                     "tire_moment_y"))
    assert inputs(lv["wheel_rear.torque_brake_applied"]) == ["wheel_rear.torque_brake"]
    for output in ("chassis.x", "chassis.vx", "chassis.pitch", "wheel_front.omega", "wheel_rear.slip"):
        assert inputs(lv[output]) == [], output
    full = full_structure["initial"]
    assert len(inputs(full["chassis.yaw_acc"])) == len(inputs(full["rack_force"])) == 60     # 4 wheels x 15
    assert inputs(full["wheel_FL.camber"]) == ["wheel_FL.road_slope", "wheel_FL.road_slope_y"]
    assert not [o for o, deps in full.items() if "steering_wheel_angle" in deps or "rack_travel_command" in deps]


@pytest.mark.slow
@pytest.mark.parametrize("name, wheel", [("VehicleLV", "front"), ("Vehicle", "FL")])
def test_native_vehicle_declares_and_does_the_same(all_fmus, native_fmus, name, wheel, tmp_path):
    """The native vehicle FMU (the session's, exported with the default parameters) writes the Python FMU's
    declaration and does what it says (fmi2GetReal in initialization mode runs the same initial evaluation)."""
    path = native_fmus[name]
    assert validate_fmu(str(path)) == []
    structure = declared(path)
    python = declared(all_fmus[name])
    for mode in ("initial", "stepping"):
        assert {o: sorted(d) for o, d in structure[mode].items()} == {o: sorted(d) for o, d in python[mode].items()}
    seen = observe(path, [{}], tmp_path / "probe")
    assert ("chassis.ax", f"wheel_{wheel}.torque_drive") in seen["initial"]
    for mode in ("initial", "stepping"):
        pairs = {(o, i) for o, deps in structure[mode].items() for i in deps if i in structure["inputs"]}
        assert seen[mode] <= pairs, sorted(seen[mode] - pairs)[:8]
