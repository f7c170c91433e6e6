"""The shipped scenario systems as SSP 1.0 files: the ``.ssd`` files and the self-contained ``.ssp`` archives that
``fmu-vehicle ssp`` writes with the real FMUs inside.

* every shipped ``.ssd`` and every archive's ``SystemStructure.ssd`` is valid against the SSP 1.0 schemas (all five
  namespaces, so the inline parameter sets too) and declares every unit its connectors name;
* an archive is the shipped ``.ssd`` with its FMUs: the same document but for the component sources;
* each archive runs in our master exactly as the ``.ssd`` with the built FMUs does (0.2 s, bit for bit);
* OSP libcosim runs each archive as it is and matches our Jacobi run to 1e-9;
* FMPy's SSP reader reads each archive (validating it against its own copy of the schemas) into the same
  components, sources, connections and parameter values as ours. FMPy's ``simulate_ssp`` is not run: it
  applies none of an SSD's own parameter bindings, no connection transformation and no step-size hint,
  records only declared connectors and starts every input at 0 (docs/cosimulation.md §8).
"""
from __future__ import annotations

import contextlib
import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from fmu_vehicle.adas.systems import SYSTEMS, system_file, system_fmu_names
from fmu_vehicle.cli import main
from fmu_vehicle.cosim import Experiment, read_ssp, run_system
from fmu_vehicle.cosim.ssp import SSD_FILE_NAME
from fmu_vehicle.cosim.ssp_schema import SSP1_SCHEMAS, check_ssd, schema_dir, ssd_problems
from fmu_vehicle.errors import ModelError

from libcosim_runner import run_libcosim

RUN_S = 0.2
"""Simulated time of the end-to-end runs [s]."""

SIGNALS = {"ccr": ("vehicle.chassis.x", "vehicle.chassis.vx", "controller.brake_torque_front", "lead.x"),
           "acc": ("vehicle.chassis.x", "vehicle.chassis.vx", "powertrain.engine.speed", "controller.throttle"),
           "platoon3": ("vehicle_1.chassis.vx", "vehicle_3.chassis.x", "controller_2.throttle"),
           "ride": ("vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.z", "vehicle.chassis.pitch"),
           "chassis": ("vehicle.chassis.x", "vehicle.chassis.vx", "chassis_control.brakes.pressure_FL",
                       "robot.steering_wheel_angle"),
           "caravan": ("vehicle.chassis.x", "vehicle.chassis.y", "vehicle.caravan.articulation",
                       "driver.steering_wheel_angle"),
           "combination": ("vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.caravan.coupling_fz",
                           "robot.steering_wheel_angle"),
           "tractor_semitrailer": ("vehicle.chassis.x", "vehicle.chassis.y", "vehicle.semitrailer.articulation",
                                   "vehicle.wheel_RL2.tire_fz", "driver.wheel_torque")}
"""Signals compared per system (outputs of every kind of FMU in it)."""


@pytest.fixture(scope="module")
def fmu_dir(registered_fmus) -> Path:
    names = {name for stem in SYSTEMS for name in system_fmu_names(stem)}
    return Path(next(registered_fmus[name] for name in sorted(names)).parent)


@pytest.fixture(scope="module")
def archives(fmu_dir, tmp_path_factory):
    """``fmu-vehicle ssp --out <tmp> --fmu-dir <the session's FMUs>``: stem -> archive, and what it printed."""
    out = tmp_path_factory.mktemp("ssp")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["ssp", "--out", str(out), "--fmu-dir", str(fmu_dir)]) == 0
    return {p.stem: p for p in sorted(out.glob("*.ssp"))}, printed.getvalue()


def _ssd_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------- schema

def test_the_shipped_schemas_are_ssp_1_0_under_bsd_2_clause():
    for name in SSP1_SCHEMAS:
        text = (schema_dir() / f"{name}.xsd").read_text(encoding="utf-8")
        assert f'targetNamespace="http://ssp-standard.org/SSP1/{name}"' in text
        assert "Version: 1.0" in text and "Redistribution and use in source and binary forms" in text
    readme = (schema_dir() / "README.md").read_text(encoding="utf-8")
    assert "BSD 2-Clause" in readme and "github.com/modelica/ssp-standard" in readme


@pytest.mark.parametrize("stem", list(SYSTEMS))
def test_every_shipped_ssd_is_valid_ssp_1_0(stem):
    check_ssd(system_file(stem))
    root = etree.parse(str(system_file(stem))).getroot()
    assert ssd_problems(root) == []
    units = {u.get("name") for u in root.iter("{*}Unit")}
    assert {"m", "m/s"} <= units                  # every system has positions and speeds among its connectors


def test_the_check_finds_what_the_ssp_standard_forbids():
    """Order, inline parameter values and undeclared units are caught, each with its line; an enumeration bound
    as ssv:Integer is as valid as a String."""
    text = _ssd_text(system_file("ccr"))
    # ssd:Units after ssd:DefaultExperiment (the schema's sequence is System, Enumerations, Units, Experiment)
    units = text[text.index("  <ssd:Units>"):text.index("</ssd:Units>") + len("</ssd:Units>\n")]
    moved = text.replace(units, "").replace("</ssd:SystemStructureDescription>",
                                            units + "</ssd:SystemStructureDescription>")
    with pytest.raises(ModelError, match=r"SSD document: not a valid SSP 1\.0.*line \d+: .*Units.*not expected"):
        check_ssd(moved.encode())
    # an inline parameter value that is not a number
    bad_real = text.replace('<ssv:Real value="50.0"/>', '<ssv:Real value="fifty"/>', 1)
    assert '"fifty"' in bad_real
    with pytest.raises(ModelError, match=r"'fifty' is not a valid value of the atomic type 'xs:double'"):
        check_ssd(bad_real.encode())
    # a connector unit that ssd:Units does not declare (SSP 1.0 requires the declaration)
    no_units = text.replace(units, "")
    problems = ssd_problems(etree.fromstring(no_units.encode()))
    assert problems and all("is not declared in the Units of <SystemStructureDescription>" in p for p in problems)
    assert any("unit 'm/s'" in p for p in problems)
    # the shipped files bind choices as enumeration item values (ssv:Integer); an older file's String name is
    # as valid SSP (the master reads it with a warning)
    assert '<ssv:String' not in text and '<ssv:Integer value="' in text
    as_string = re.sub(r'<ssv:Integer value="\d+"/>', '<ssv:String value="aeb"/>', text, count=1)
    assert as_string != text
    check_ssd(as_string.encode())


# ------------------------------------------------------------------------------------------- other hosts

SSV_STRING = "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}String"
SSC_STRING = "{http://ssp-standard.org/SSP1/SystemStructureCommon}String"


def _shipped_documents(archives) -> dict[str, bytes]:
    """'<stem>.ssd' -> the shipped file, '<stem>.ssp' -> its archive's SystemStructure.ssd."""
    paths, _ = archives
    out = {f"{stem}.ssd": system_file(stem).read_bytes() for stem in SYSTEMS}
    for stem, path in paths.items():
        with zipfile.ZipFile(path) as archive:
            out[f"{stem}.ssp"] = archive.read(SSD_FILE_NAME)
    return out


def test_no_shipped_system_binds_a_string(archives):
    """No ssv:String value and no String connector in any shipped .ssd or archive: OMSimulator drops String
    bindings, so every bound choice is an Enumeration bound as ssv:Integer; the tractor-semitrailer's path is the
    Driver's item 3, truck_lane_change."""
    from fmu_vehicle.fmi.driver_parameters import SHIPPED_PATHS
    documents = _shipped_documents(archives)
    assert len(documents) == 2 * len(SYSTEMS)
    for name, data in documents.items():
        root = etree.fromstring(data)
        assert [el.getparent().get("name") for el in root.iter(SSV_STRING)] == [], name
        assert [el.getparent().get("name") for el in root.iter(SSC_STRING)] == [], name
        path = root.find(".//{*}Component[@name='driver']//{*}Parameter[@name='path']/*")
        if name.startswith("tractor_semitrailer."):
            assert (etree.QName(path).localname, path.get("value")) == \
                ("Integer", str(SHIPPED_PATHS.index("truck_lane_change") + 1)) == ("Integer", "3")


def test_every_shipped_system_carries_omsimulator_s_annotation(archives):
    """The system's last child is ``ssd:Annotations`` whose first (only) ``ssc:Annotation`` is OMSimulator's
    (type org.openmodelica): ``oms:Annotations/oms:SimulationInformation/oms:FixedStepMaster`` with the master
    ``oms-ma`` at the system's step and OMSimulator's default tolerances. OMSimulator's importer is not
    namespace-aware: it matches the prefixed names, so the prefixes themselves are checked (and ``oms`` is bound
    to the namespace OMSimulator declares)."""
    from fmu_vehicle.cosim.ssp import OMS_NS
    for name, data in _shipped_documents(archives).items():
        root = etree.fromstring(data)
        assert root.get("version") == "1.0" and root.nsmap["oms"] == OMS_NS, name
        system = root.find("{*}System")
        last = system[-1]
        assert (last.prefix, etree.QName(last).localname) == ("ssd", "Annotations"), name
        assert [c.tag for c in system].count(last.tag) == 1
        annotation = last[0]
        assert (annotation.prefix, etree.QName(annotation).localname, annotation.get("type")) == \
            ("ssc", "Annotation", "org.openmodelica"), name
        assert len(last) == 1
        chain = [annotation[0], annotation[0][0], annotation[0][0][0]]
        assert [f"{el.prefix}:{etree.QName(el).localname}" for el in chain] == \
            ["oms:Annotations", "oms:SimulationInformation", "oms:FixedStepMaster"], name
        master = chain[-1]
        step = float(root.find("{*}DefaultExperiment//{*}FixedStepAlgorithm").get("baseStepSize"))
        assert master.attrib == {"description": "oms-ma", "stepSize": repr(step), "absoluteTolerance": "0.0001",
                                 "relativeTolerance": "0.0001"}, name
        # the system's other children are those OMSimulator's importer knows
        assert {etree.QName(c).localname for c in system} <= {"Elements", "Connections", "Annotations"}


def test_the_components_that_omsimulator_s_importer_refuses_are_those_with_their_own_step():
    """OMSimulator's C importer (3.0) takes only ssd:Connectors, ssd:ElementGeometry and ssd:ParameterBindings
    inside an ssd:Component: the OSP step-size hint of a component with its own step (the Controllers at 10 ms,
    the platoon's lead, whose own step is given although it is the master step) is an ssd:Annotations there,
    which it refuses (docs/cosimulation.md §10). These are the only components with anything else."""
    others = {}
    for stem in SYSTEMS:
        root = etree.parse(str(system_file(stem))).getroot()
        for comp in root.iter("{*}Component"):
            extra = {etree.QName(c).localname for c in comp} - {"Connectors", "ElementGeometry", "ParameterBindings"}
            if extra:
                assert extra == {"Annotations"}
                others.setdefault(stem, []).append(comp.get("name"))
    assert others == {"ccr": ["controller"], "acc": ["controller"],
                      "platoon3": ["lead", "controller_1", "controller_2", "controller_3"]}


def test_the_systems_whose_transformations_omsimulator_s_importer_skips():
    """OMSimulator's C importer (3.0) reads no ssc:LinearTransformation of a connection (its Python SSP API does):
    the systems that have one are those docs/cosimulation.md §10 names, the driver's torque split over the driven
    wheels (caravan: 1/2, tractor_semitrailer: 1/4) and platoon3's offsets by a vehicle length."""
    factors = {}
    for stem in SYSTEMS:
        root = etree.parse(str(system_file(stem))).getroot()
        for con in root.iter("{*}Connection"):
            for transformation in con.iter("{*}LinearTransformation"):
                factors.setdefault(stem, set()).add(float(transformation.get("factor")))
    assert factors.keys() == {"caravan", "platoon3", "tractor_semitrailer"}
    assert factors["caravan"] == {0.5} and factors["tractor_semitrailer"] == {0.25}


# ------------------------------------------------------------------------------------------- archives

def test_the_ssp_command_writes_each_shipped_system_with_its_fmus(archives, fmu_dir):
    paths, printed = archives
    assert list(paths) == sorted(SYSTEMS)
    wrote = [line for line in printed.splitlines() if line.startswith("[")]
    assert [line.split(" (", 1)[0] for line in wrote] == \
        [f"[{i}/{len(SYSTEMS)}] wrote {paths[stem]}" for i, stem in enumerate(SYSTEMS, 1)]
    for stem, n in (("chassis", 3), ("caravan", 2), ("tractor_semitrailer", 2)):
        i = list(SYSTEMS).index(stem)
        assert wrote[i].startswith(f"[{i + 1}/{len(SYSTEMS)}] wrote {paths[stem]} ({n} components, ")
    for stem, path in paths.items():
        check_ssd(path)
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            ssd = archive.read(SSD_FILE_NAME).decode()
            fmus = {n: archive.read(n) for n in names if n != SSD_FILE_NAME}
        assert names[0] == SSD_FILE_NAME and all(n.startswith("resources/") and n.endswith(".fmu") for n in fmus)
        # each FMU inside is the built one, and the document is the shipped .ssd but for the sources
        root = etree.fromstring(ssd.encode())
        sources = {}
        for comp in root.iter("{*}Component"):
            assert comp.get("source") in fmus
            sources[comp.get("name")] = comp.get("source")
        shipped = etree.parse(str(system_file(stem))).getroot()
        for comp in shipped.iter("{*}Component"):
            fmu = fmus[sources[comp.get("name")]]
            assert fmu == (fmu_dir / comp.get("source")).read_bytes()
            comp.set("source", sources[comp.get("name")])
        assert etree.tostring(root) == etree.tostring(shipped)
        assert {Path(s).name for s in sources.values()} <= {f"{c}.fmu" for c in sources}


@pytest.fixture(scope="module")
def runs(archives, fmu_dir):
    """stem -> (system read from the archive, our run of the archive, our run of the .ssd with the built FMUs)."""
    paths, _ = archives
    out = {}
    for stem, path in paths.items():
        system = read_ssp(path)
        experiment = Experiment.from_system(system, stop_time=RUN_S, outputs=SIGNALS[stem])
        from_ssd = read_ssp(system_file(stem), fmu_dir=fmu_dir)
        out[stem] = (system, run_system(system, experiment, progress=False),
                     run_system(from_ssd, Experiment.from_system(from_ssd, stop_time=RUN_S, outputs=SIGNALS[stem]),
                                progress=False))
    return out


@pytest.mark.parametrize("stem", list(SYSTEMS))
def test_each_archive_runs_in_our_master_as_the_ssd_does(runs, stem):
    system, archive, ssd = runs[stem]
    assert all(str(c.source).endswith(".fmu") and "resources" in c.source.parts for c in system.components)
    assert archive.time[-1] == pytest.approx(RUN_S, abs=1e-12) and len(archive.time) == len(ssd.time)
    for signal in SIGNALS[stem]:
        np.testing.assert_array_equal(archive[signal], ssd[signal], err_msg=f"{stem}: {signal}")
    if stem == "ride":            # the bound v0 = 20 m/s on the flat road: 4 m in 0.2 s
        assert archive.final("vehicle.chassis.vx") == pytest.approx(20.0, abs=0.1)
        x = archive["vehicle.chassis.x"]
        assert x[-1] - x[0] == pytest.approx(4.0, abs=0.02)
    if stem == "ccr":             # the target stands at its bound x0 = 50 m
        assert archive.final("lead.x") == 50.0


@pytest.mark.parametrize("stem", list(SYSTEMS))
def test_libcosim_runs_each_archive_like_our_jacobi_master(runs, archives, stem):
    pytest.importorskip("libcosimpy")
    system, ours, _ = runs[stem]
    step = system.step_size
    n = round(RUN_S / step)
    reals = [s for s in SIGNALS[stem]]
    theirs = run_libcosim(archives[0][stem], n, round(step * 1e9), reals)
    for signal in reals:
        steps, values = theirs[signal]
        assert steps[-1] == n
        np.testing.assert_allclose(values, ours[signal][steps], rtol=1e-9,
                                   atol=1e-9 * max(1.0, float(np.max(np.abs(values)))), err_msg=f"{stem}: {signal}")


@pytest.mark.parametrize("stem", list(SYSTEMS))
def test_fmpy_reads_each_archive_as_we_do(archives, runs, stem):
    from fmpy.ssp.ssd import read_ssd

    ssd = read_ssd(str(archives[0][stem]))          # validates against FMPy's copy of the SSP 1.0 schema
    system = runs[stem][0]
    components = [e for e in ssd.system.elements]
    assert [c.name for c in components] == [c.name for c in system.components]
    for theirs, ours in zip(components, system.components):
        assert Path(theirs.source).name == ours.source.name
        values = {p.name: p.value for b in theirs.parameterBindings for s in b.parameterValues for p in s.parameters}
        assert values.keys() == ours.parameters.keys()
        for name, value in ours.parameters.items():
            expected = (("true" if value else "false") if isinstance(value, bool)
                        else repr(value) if isinstance(value, float) else str(value))
            assert values[name] == expected, f"{stem}: {theirs.name}.{name}"
    assert [(c.startElement, c.startConnector, c.endElement, c.endConnector) for c in ssd.system.connections] == \
        [(c.start_element, c.start_connector, c.end_element, c.end_connector) for c in system.connections]


# ------------------------------------------------------------------------------------------- command errors

def test_an_unknown_name_is_one_error_line_and_builds_nothing(tmp_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["ssp", "ccr", "rocket", "--out", str(tmp_path / "out")]) == 2
    assert err.getvalue() == ("fmu-vehicle: error: unknown scenario system 'rocket' (shipped: "
                              f"{', '.join(SYSTEMS)})\n")
    assert not (tmp_path / "out").exists()


def test_a_failed_write_leaves_no_partial_archive(fmu_dir, tmp_path):
    """The target is taken by a folder: the archive cannot be renamed into place; the error is one line and
    the temporary archive beside it is gone."""
    (tmp_path / "ccr.ssp").mkdir()
    (tmp_path / "ccr.ssp" / "keep").write_text("x")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["ssp", "ccr", "--out", str(tmp_path), "--fmu-dir", str(fmu_dir)]) == 2
    assert err.getvalue().startswith("fmu-vehicle: error: ") and err.getvalue().count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ccr.ssp"]
    assert [p.name for p in (tmp_path / "ccr.ssp").iterdir()] == ["keep"]
