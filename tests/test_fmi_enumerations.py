"""Parameters that choose among named options are FMI 2.0 Enumerations, in every FMU and every system file.

* every FMU's modelDescription: each parameter with options (``Var.choices``) is an ``<Enumeration
  declaredType>`` whose ``<TypeDefinitions>`` items are the Python options with values 1, 2, ...; the start value
  is the default option's item; the Strings left are file names or free text; FMPy's validation is clean;
* every Enumeration of every FMU of the registry is append-only: a host stores an item's value (its position,
  1, 2, ...), so today's items (``ITEMS``) keep their values: removing or reordering one fails, appending passes,
  and an Enumeration that is not recorded yet fails until it is;
* through FMPy (fmi2SetInteger), each item value selects its option: the lead drives each shipped speed profile,
  the vehicle models and the Controller modes give their own results; an item value out of range and an unknown
  name set by fmi2SetString are refused with a logged message naming the variable and its items; an option name
  set by fmi2SetString (an older script) is taken with a warning naming the enumeration;
* the demo's system: its SSP binds the enumerations as ssv:Integer and has no String binding left; with every
  String binding removed (what OMSimulator does to String parameters), our master runs the same scenario as the
  system built in Python (same KPIs to 1e-12); an SSD that binds an option name as ssv:String is read with a
  warning and runs the same.
"""
from __future__ import annotations

import logging
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu
from lxml import etree

from fmi_support import run_child
from fmu_lists import HARNESS_FMUS, REGISTERED

#: The String parameters left: a user's file name (with a shipped default) or free text (a user's breakpoints).
STRINGS = {"Powertrain": {"powertrain_file"}, "Controller": set(), "LeadVehicle": {"speed_profile_points"},
           "VehicleLV": {"road_file"}, "Vehicle": {"road_file"}, "Tire": {"tire_file", "road_file"},
           "Driver": {"driver_file", "path_file"}, "ChassisControl": set(),
           "Robot": {"steering_profile", "pedal_force_profile", "drive_torque_profile"},
           "VehicleCombination": {"road_file"}, "TractorSemitrailer": {"road_file"}}


def _slave_variables(name: str):
    from fmu_vehicle.fmi.registry import slave_script
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_enum_{name}", slave_script(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls = next(c for c in vars(module).values() if isinstance(c, type) and getattr(c, "MODEL_NAME", "") == name)
    return cls.VARIABLES


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_every_choice_is_an_enumeration_with_its_type(all_fmus, name):
    md = read_model_description(str(all_fmus[name]))
    assert validate_fmu(str(all_fmus[name])) == []
    by_name = {v.name: v for v in md.modelVariables}
    table = _slave_variables(name)
    enumerations = [v for v in table if v.choices is not None]
    for var in enumerations:
        mv = by_name[var.name]
        assert (mv.type, mv.causality, mv.declaredType.name) == ("Enumeration", "parameter", var.enumeration_type)
        assert [(i.name, int(i.value)) for i in mv.declaredType.items] == \
            [(c, k) for k, c in enumerate(var.choices, start=1)]
        assert int(mv.start) == var.choices.index(var.start) + 1
    assert {t.name for t in md.typeDefinitions} == {v.enumeration_type for v in enumerations}
    strings = {v.name for v in md.modelVariables if v.type == "String"}
    assert strings == STRINGS[name]
    # the options of the list are enumerations where the FMU has them
    wanted = {"model", "road", "road_source", "tire_source", "steering_input", "integrator", "mode",
              "wheel_interface", "side", "speed_profile", "path"}
    assert {n for n in wanted if n in by_name} == {n for n in wanted if n in by_name and by_name[n].type == "Enumeration"}


_ROADS = ("bumpy", "csv_example", "flat", "iso8608_c", "iso8608_c_two_track", "one_sided_bumps", "slope16_5",
          "split_mu", "two_track_example", "low_mu")
_INTEGRATORS = ("rk4", "abm4", "bdf2", "rk4e")
_FULL_VEHICLE = {"integrator": _INTEGRATORS, "road_source": ("internal", "inputs"), "road": _ROADS,
                 "tire_source": ("internal", "external"), "steering_input": ("steering_wheel_angle", "rack_travel")}

ITEMS = {
    "Controller": {"mode": ("acc_aeb", "acc", "cruise", "aeb")},
    "LeadVehicle": {"speed_profile": ("brake_to_8", "stop_and_go", "platoon", "standstill")},
    "VehicleLV": {"model": ("halfcar7", "halfcar7_forkarm"), "integrator": _INTEGRATORS,
                  "road_source": ("internal", "inputs"), "road": _ROADS, "tire_source": ("internal", "external")},
    "Vehicle": {"model": ("fullcar14", "fullcar14_forkarm", "midsize14"), **_FULL_VEHICLE},
    "VehicleCombination": {"model": ("sedan_caravan",), **_FULL_VEHICLE},
    "TractorSemitrailer": {"model": ("tractor_semitrailer",), **_FULL_VEHICLE},
    "Tire": {"road_source": ("internal", "inputs"), "road": _ROADS, "output_time": ("midpoint", "end"),
             "input_extrapolation": ("linear", "none"), "wheel_interface": ("planar", "chrono"),
             "side": ("left", "right")},
    "Driver": {"path": ("iso3888_1_double_lane_change", "lane_shift", "truck_lane_change")},
}
"""The items of every Enumeration of the FMUs, as recorded: FMU -> parameter -> its items in item-value order.
Their sources are dicts and tuples whose order gives the values (``integrators.INTEGRATORS``,
``fmi.vehicle_parameters.KINDS[...].models``, ``fmi.roads.SHIPPED_ROADS``, ``traffic.lead_vehicle.SPEED_PROFILES``,
``control.acc.MODES``, the slaves' own tuples). An item appended there is appended here when convenient; an
Enumeration added to an FMU is recorded here."""


def append_only_violations(recorded: dict[str, tuple], declared: dict[str, tuple]) -> list[str]:
    """What breaks the append-only rule from the ``recorded`` Enumerations (parameter -> items) to the
    ``declared`` ones: a recorded Enumeration gone, a recorded item removed or moved (its value changed), an
    Enumeration not recorded. Items appended after the recorded ones break nothing."""
    problems = [f"'{var}': the Enumeration is gone (recorded items {recorded[var]})"
                for var in recorded if var not in declared]
    for var, items in declared.items():
        if var not in recorded:
            problems.append(f"'{var}': an Enumeration not recorded in ITEMS yet (items {items}): record it")
        elif items[:len(recorded[var])] != recorded[var]:
            problems.append(f"'{var}': items {items} do not begin with the recorded {recorded[var]} (an item "
                            f"removed, inserted or reordered changes the values hosts have stored; append instead)")
    return problems


def test_the_append_only_rule_passes_an_appended_item_only():
    recorded = {"road": ("bumpy", "flat")}
    assert append_only_violations(recorded, {"road": ("bumpy", "flat", "new")}) == []
    for declared in ({"road": ("bumpy", "new", "flat")}, {"road": ("flat", "bumpy")}, {"road": ("bumpy",)},
                     {"road": ("bumpy", "flat"), "mode": ("a", "b")}, {}):
        assert append_only_violations(recorded, declared), declared


@pytest.mark.parametrize("name", REGISTERED)
def test_enumeration_items_are_append_only(name):
    assert set(ITEMS) <= set(REGISTERED)                     # a recorded FMU is still registered
    declared = {v.name: tuple(v.choices) for v in _slave_variables(name) if v.choices is not None}
    problems = append_only_violations(ITEMS.get(name, {}), declared)
    assert not problems, f"{name}: {problems}"


def test_var_refuses_choices_on_a_string():
    from fmu_vehicle.errors import ModelError
    from fmu_vehicle.fmi.variables import Var
    with pytest.raises(ModelError, match="'side'.*an Enumeration"):
        Var("side", "parameter", "fixed", None, "", "left", type="String", choices=("left", "right"))
    side = Var("side", "parameter", "fixed", None, "", "left", type="Enumeration", choices=("left", "right"))
    assert (side.enumeration_type, side.item_value("right"), side.item_name(2), side.item_name(3)) == \
        ("Side", 2, "right", None)


def test_shipped_roads_are_the_road_enumeration():
    """Every shipped road file is an item, once; a road added later is appended (earlier item values stay)."""
    from fmu_vehicle.fmi.roads import SHIPPED_ROADS
    from fmu_vehicle.road.loader import shipped_roads
    assert sorted(SHIPPED_ROADS) == shipped_roads()
    assert SHIPPED_ROADS[:9] == ("bumpy", "csv_example", "flat", "iso8608_c", "iso8608_c_two_track",
                                 "one_sided_bumps", "slope16_5", "split_mu", "two_track_example")


def test_shipped_paths_are_the_path_enumeration():
    """The Driver's path items: the built-in ISO 3888-1 path first, then every CSV file of resources/paths by its
    stem, once; a shipped path named by its option or its file name binds the enumeration, any other file
    ``path_file``."""
    from fmu_vehicle.fmi.driver_parameters import LANE_CHANGE, SHIPPED_PATHS, driver_path_parameters
    from fmu_vehicle.paths import resource_path
    assert SHIPPED_PATHS[0] == LANE_CHANGE
    assert sorted(SHIPPED_PATHS[1:]) == sorted(p.stem for p in resource_path("paths").glob("*.csv"))
    assert SHIPPED_PATHS[:3] == ("iso3888_1_double_lane_change", "lane_shift", "truck_lane_change")
    assert [driver_path_parameters(p) for p in ("truck_lane_change.csv", "lane_shift", LANE_CHANGE, "my.csv",
                                                "/tmp/truck_lane_change.csv", f"{LANE_CHANGE}.csv")] == [
        {"path": "truck_lane_change"}, {"path": "lane_shift"}, {"path": LANE_CHANGE}, {"path_file": "my.csv"},
        {"path_file": "/tmp/truck_lane_change.csv"}, {"path_file": f"{LANE_CHANGE}.csv"}]


SELECT_CHILD = r"""
import math
res = {}
# LeadVehicle: each shipped speed profile by its item value
lead = Fmu(INPUTS['LeadVehicle'])
res['profiles'] = {}
for name, value in lead.items['speed_profile'].items():
    f = lead.new('lead', init=False)
    f.setInteger([lead.vr['speed_profile']], [value])
    f.enterInitializationMode(); f.exitInitializationMode()
    rows = []
    for k in range(40):
        f.doStep(k * 0.25, 0.25)
        rows.append(f.getReal([lead.vr['vx']])[0])
    res['profiles'][name] = (f.getInteger([lead.vr['speed_profile']])[0], rows)
    f.terminate(); f.freeInstance()
# Controller: each mode behind a slow close lead
ctl = Fmu(INPUTS['Controller'])
res['modes'] = {}
for name, value in ctl.items['mode'].items():
    f = ctl.new('ctl', init=False)
    f.setInteger([ctl.vr['mode']], [value])
    f.setReal([ctl.vr[n] for n in ('ego.vx', 'lead.x', 'lead.vx')], [20.0, 15.0, 5.0])
    f.enterInitializationMode(); f.exitInitializationMode()
    f.doStep(0.0, 0.01)
    res['modes'][name] = f.getReal([ctl.vr['throttle'], ctl.vr['brake']])
    f.terminate(); f.freeInstance()
# VehicleLV: each model by its item value: its initial state
car = Fmu(INPUTS['VehicleLV'])
res['models'] = {}
outs = ['chassis.z', 'chassis.pitch', 'wheel_front.tire_fz']
for name, value in car.items['model'].items():
    f = car.new('car', init=False)
    f.setInteger([car.vr['model']], [value])
    f.enterInitializationMode(); f.exitInitializationMode()
    res['models'][name] = f.getReal([car.vr[n] for n in outs])
    f.terminate(); f.freeInstance()
# misuse: item values out of range, a name by setString (taken with a warning), an unknown name by setString
res['misuse'] = {}
for label, action in (('zero', lambda f: f.setInteger([car.vr['model']], [0])),
                      ('three', lambda f: f.setInteger([car.vr['model']], [3])),
                      ('name', lambda f: f.setString([car.vr['model']], ['halfcar7_forkarm'])),
                      ('unknown', lambda f: f.setString([car.vr['model']], ['truck']))):
    MESSAGES.clear()
    f = car.new('misuse', init=False)
    action(f)
    f.enterInitializationMode()
    try:
        f.exitInitializationMode()
        exit_status = 0
    except FMICallException as exc:
        exit_status = int(exc.status)
    try:
        f.doStep(0.0, 1e-3)
        status = 0
    except FMICallException as exc:
        status = int(exc.status)
    res['misuse'][label] = (exit_status, status, f.getInteger([car.vr['model']])[0], list(MESSAGES))
    f.terminate(); f.freeInstance()
RESULT = res
"""


@pytest.fixture(scope="module")
def selected(all_fmus, tmp_path_factory):
    return run_child(SELECT_CHILD, tmp_path_factory.mktemp("enum"),
                     **{n: str(all_fmus[n]) for n in ("LeadVehicle", "Controller", "VehicleLV")})


def test_each_speed_profile_item_drives_its_profile(selected):
    from fmu_vehicle.traffic.lead_vehicle import SPEED_PROFILES, parse_speed_profile
    profiles = selected["profiles"]
    assert list(profiles) == list(SPEED_PROFILES)
    for k, (name, (value, vx)) in enumerate(profiles.items(), start=1):
        assert value == k
        expected = [parse_speed_profile(SPEED_PROFILES[name]).evaluate(0.25 * (i + 1))[1] for i in range(40)]
        np.testing.assert_allclose(vx, expected, rtol=0, atol=1e-12)


def test_each_controller_mode_item_selects_its_mode(selected):
    modes = selected["modes"]
    assert list(modes) == ["acc_aeb", "acc", "cruise", "aeb"]
    # 10 m behind a lead 15 m/s slower (TTC 0.67 s): the braking modes brake, cruise (lead ignored) accelerates
    # towards its set speed; acc_aeb and aeb engage the emergency stage (full brake)
    assert modes["cruise"][1] == 0.0 and modes["cruise"][0] > 0.0
    assert modes["acc_aeb"][1] == modes["aeb"][1] == 1.0
    assert 0.0 < modes["acc"][1] < 1.0


def test_each_model_item_builds_its_vehicle(selected):
    """The FMU's initial state for each model item equals the Python API's for that model name."""
    from fmu_vehicle.vehicle import Vehicle
    models = selected["models"]
    assert list(models) == ["halfcar7", "halfcar7_forkarm"]
    for name, values in models.items():
        sim = Vehicle.load(name).simulator("bumpy", v0=20.0)
        row = dict(zip(sim.vehicle.output_names, sim.row))
        np.testing.assert_allclose(values, [row["chassis.z"], row["chassis.pitch"], row["wheel_front.tire_fz"]],
                                   rtol=1e-12, atol=1e-15)
    assert models["halfcar7"] != models["halfcar7_forkarm"]


def test_item_out_of_range_and_string_hosts_get_a_message_naming_the_enumeration(selected):
    misuse = selected["misuse"]
    for label in ("zero", "three"):
        exit_status, status, value, messages = misuse[label]
        # ignored (the default stays); exitInitializationMode Error, then doStep Discard
        assert (exit_status, status, value) == (3, 2, 1)
        text = " ".join(m for s, m in messages if s >= 3)
        assert "parameter 'model' (Enumeration of type Model)" in text
        assert "1 = halfcar7, 2 = halfcar7_forkarm" in text
    exit_status, status, value, messages = misuse["name"]   # an older script: the name is taken, with a warning
    assert (exit_status, status, value) == (0, 0, 2)
    assert any(s == 1 and "it is an Enumeration (type Model), set it with fmi2SetInteger to 2" in m
               for s, m in messages), messages
    exit_status, status, value, messages = misuse["unknown"]
    assert (exit_status, status, value) == (3, 2, 1)
    assert any(s >= 3 and "parameter 'model' set by fmi2SetString to 'truck'" in m and "1 = halfcar7" in m
               for s, m in messages), messages


# ------------------------------------------------------------------------------------------------- systems

SSV = {"ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues"}


def _bindings(ssd: str) -> dict[str, tuple[str, str]]:
    """'component.parameter' -> (ssv type, value text) of every parameter binding of an SSD."""
    root = etree.fromstring(ssd.encode())
    out = {}
    for comp in root.iter("{http://ssp-standard.org/SSP1/SystemStructureDescription}Component"):
        for parameter in comp.iter(f"{{{SSV['ssv']}}}Parameter"):
            value = parameter[0]
            out[f"{comp.get('name')}.{parameter.get('name')}"] = (etree.QName(value).localname, value.get("value"))
    return out


def _strip_string_bindings(ssp: Path, out: Path) -> tuple[Path, list[str]]:
    """A copy of ``ssp`` without any ssv:String parameter (what a host that drops Strings runs); the names
    removed."""
    ns = {"ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues"}
    with zipfile.ZipFile(ssp) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    root = etree.fromstring(entries["SystemStructure.ssd"])
    removed = []
    for value in root.findall(".//ssv:Parameter/ssv:String", ns):
        parameter = value.getparent()
        removed.append(parameter.get("name"))
        parameter.getparent().remove(parameter)
    entries["SystemStructure.ssd"] = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    with zipfile.ZipFile(out, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
    return out, removed


def _kpis(scenario, result) -> dict:
    from fmu_vehicle.scenarios.half_car import following_metrics, stop_check
    result = result.with_columns(scenario.derive(result))
    return {**following_metrics(result), **{k: v for k, v in stop_check(result).items()
                                            if isinstance(v, (float, int, bool, np.floating, np.bool_))}}


def test_demo_system_binds_enumerations_as_integers_and_runs_the_same_without_strings(scenario_fmus, tmp_path,
                                                                                       caplog):
    from fmu_vehicle.cosim import read_ssp, run_system, write_ssp
    from fmu_vehicle.scenarios.half_car import FMU_NAMES, acc_stop_and_go
    fmus = {n: scenario_fmus[n] for n in FMU_NAMES}
    scenario = acc_stop_and_go(fmus)
    ssp = write_ssp(scenario.system, tmp_path / "demo.ssp")
    with zipfile.ZipFile(ssp) as z:
        ssd = z.read("SystemStructure.ssd").decode()
    bindings = _bindings(ssd)
    assert not [k for k, (kind, _) in bindings.items() if kind == "String"]   # every choice is an enumeration
    assert {k: bindings[k] for k in ("vehicle.model", "vehicle.tire_source", "vehicle.road", "tire_front.road",
                                     "controller.mode", "lead.speed_profile")} == {
        "vehicle.model": ("Integer", "1"), "vehicle.tire_source": ("Integer", "2"), "vehicle.road": ("Integer", "1"),
        "tire_front.road": ("Integer", "1"), "controller.mode": ("Integer", "1"),
        "lead.speed_profile": ("Integer", "2")}
    stripped, removed = _strip_string_bindings(ssp, tmp_path / "demo_no_strings.ssp")
    assert removed == []
    # before: the system as the Python API builds it (option names); after: the SSP without String bindings
    before = run_system(scenario.system, scenario.experiment(scenario.system), progress=False)
    after_system = read_ssp(stripped)
    after = run_system(after_system, scenario.experiment(after_system), progress=False)
    kb, ka = _kpis(scenario, before), _kpis(scenario, after)
    assert kb.keys() == ka.keys() and kb["stopped_behind"]          # the demo's pass criterion, both runs
    for key in kb:
        assert ka[key] == pytest.approx(kb[key], rel=1e-12, abs=1e-12), key
    np.testing.assert_array_equal(after["vehicle.chassis.x"], before["vehicle.chassis.x"])

    # an SSD written when these parameters were Strings: the names are read with a warning naming the enumeration
    root = etree.fromstring(ssd.encode())
    value = root.find(".//ssv:Parameter[@name='speed_profile']/ssv:Integer", SSV)
    value.tag = f"{{{SSV['ssv']}}}String"
    value.set("value", "stop_and_go")
    old = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    old_ssp = tmp_path / "demo_old.ssp"
    with zipfile.ZipFile(ssp) as zin, zipfile.ZipFile(old_ssp, "w") as zout:
        for n in zin.namelist():
            zout.writestr(n, old if n == "SystemStructure.ssd" else zin.read(n))
    with caplog.at_level(logging.WARNING, logger="fmu_vehicle.cosim.ssp"):
        system = read_ssp(old_ssp)
    assert system.component("lead").parameters["speed_profile"] == 2
    assert any("parameter 'speed_profile' is bound as <ssv:String value=\"stop_and_go\"/>, but it is an Enumeration "
               "(type SpeedProfile): bind <ssv:Integer value=\"2\"/>" in r.getMessage() for r in caplog.records)


def test_master_refuses_an_unknown_option_naming_the_enumeration(scenario_fmus, tmp_path):
    from fmu_vehicle.cosim import Component, Experiment, System, run_system
    from fmu_vehicle.errors import ModelError
    system = System("one", [Component("lead", scenario_fmus["LeadVehicle"], {"speed_profile": "0:20,5:20"})])
    with pytest.raises(ModelError, match=r"lead.speed_profile: '0:20,5:20' is not an option of the Enumeration "
                                         r"'speed_profile' \(type SpeedProfile: 1 = brake_to_8, 2 = stop_and_go"):
        run_system(system, Experiment(stop_time=0.01, step_size=1e-3), progress=False)


def test_the_libcosim_copy_declares_choices_as_integers_and_libcosim_then_sets_them(all_fmus, tmp_path):
    """libcosim skips Enumeration variables (a binding on them is dropped); the copy written by
    ``ssp_with_integer_choices`` declares them as Integer (min 1, max items, names in the description), and
    libcosim then lists them and applies an ``ssv:Integer`` binding: the LeadVehicle's speed profile chosen by
    item value changes its speed, as in our master."""
    pytest.importorskip("libcosimpy")
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    from fmu_vehicle.cosim import Component, Experiment, System, read_ssp, run_system, write_ssp
    from fmu_vehicle.fmi.post_process import ssp_with_integer_choices
    from fmu_vehicle.fmi.slaves.fmu_vehicle_lead_vehicle import LeadVehicle
    choices = next(v for v in LeadVehicle.VARIABLES if v.name == "speed_profile").choices
    other = next(c for c in choices if c != next(v for v in LeadVehicle.VARIABLES if v.name == "speed_profile").start)
    item = choices.index(other) + 1
    system = System("lead", [Component("lead", Path(all_fmus["LeadVehicle"]),
                                       parameters={"speed_profile": item})], [], step_size=1e-2)
    path = write_ssp(system, tmp_path / "lead.ssp")
    copy = ssp_with_integer_choices(path, tmp_path / "lead_libcosim.ssp")
    import zipfile
    with zipfile.ZipFile(copy) as outer, zipfile.ZipFile(__import__("io").BytesIO(outer.read("resources/lead.fmu"))) as fmu:
        md = fmu.read("modelDescription.xml").decode()
    assert 'declaredType' not in md.split('name="speed_profile"')[1].split("</ScalarVariable>")[0]
    ours = run_system(read_ssp(path), Experiment.from_system(system, stop_time=3.0), progress=False)
    log_output_level(CosimLogLevel.WARNING)
    results = {}
    for name, p in (("as written", path), ("integer copy", copy)):
        ex = CosimExecution.from_ssp_file(str(p), step_size=10_000_000)
        refs = {v.name.decode(): v.reference for v in ex.slave_variables(0)}
        results[name] = "speed_profile" in refs
        if results[name]:
            last = CosimObserver.create_last_value()
            ex.add_observer(last)
            assert ex.simulate_until(target_time=3_000_000_000)
            results["vx"] = last.last_real_values(0, [refs["vx"]])[0]
    assert results == {"as written": False, "integer copy": True, "vx": pytest.approx(ours["lead.vx"][-1], rel=1e-12)}
