"""Reading SSP system structure descriptions: the supported subset, and errors that name file, element and reason."""
import shutil
import zipfile

import numpy as np
import pytest

from cosim_fmus.fixtures import session_fmus
from fmu_vehicle.cosim import Component, Connection, Experiment, System, read_ssp, run_system
from fmu_vehicle.errors import ModelError

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="hand"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations">
"""
PLANT = """
      <ssd:Component name="plant" type="application/x-fmu-sharedlibrary" source="{plant_source}">
        <ssd:Connectors>
          <ssd:Connector name="F" kind="input"><ssc:Real unit="N"/></ssd:Connector>
          <ssd:Connector name="x" kind="output"><ssc:Real unit="m"/></ssd:Connector>
          <ssd:Connector name="v" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="params/plant.ssv" prefix="plant."/>
          <ssd:ParameterBinding><ssd:ParameterValues>
            <ssv:ParameterSet version="1.0" name="override"><ssv:Parameters>
              <ssv:Parameter name="x0"><ssv:Real value="0.25" unit="m"/></ssv:Parameter>
            </ssv:Parameters></ssv:ParameterSet>
          </ssd:ParameterValues></ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>"""
CTRL = """
      <ssd:Component name="ctrl" source="resources/ctrl.fmu">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="v" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="gains"><ssv:Parameters>
            <ssv:Parameter name="Kp"><ssv:Real value="45"/></ssv:Parameter>
            <ssv:Parameter name="Kd"><ssv:Real value="5.5"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>
        <ssd:Annotations><ssc:Annotation type="com.opensimulationplatform">
          <osp:StepSizeHint value="0.004"/>
        </ssc:Annotation></ssd:Annotations>
      </ssd:Component>"""
GAIN = """
      <ssd:Component name="gain" source="resources/faulty.fmu">
        <ssd:Connectors>
          <ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="all_types"><ssv:Parameters>
            <ssv:Parameter name="gain"><ssv:Real value="-2.5"/></ssv:Parameter>
            <ssv:Parameter name="enabled"><ssv:Boolean value="true"/></ssv:Parameter>
            <ssv:Parameter name="fail_mode"><ssv:Integer value="0"/></ssv:Parameter>
            <ssv:Parameter name="fail_message"><ssv:String value="never used"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>
      </ssd:Component>"""
CONNECTIONS = """
      <ssd:Connection startElement="plant" startConnector="x" endElement="ctrl" endConnector="x"/>
      <ssd:Connection startElement="plant" startConnector="v" endElement="ctrl" endConnector="v"/>
      <ssd:Connection startElement="ctrl" startConnector="F" endElement="plant" endConnector="F"/>
      <ssd:Connection startElement="plant" startConnector="x" endElement="gain" endConnector="u">
        <ssc:LinearTransformation factor="2.0" offset="0.5"/>
      </ssd:Connection>"""
TAIL = """
  <ssd:DefaultExperiment startTime="0" stopTime="0.2">
    <ssd:Annotations><ssc:Annotation type="com.opensimulationplatform">
      <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="0.002"/></osp:Algorithm>
    </ssc:Annotation></ssd:Annotations>
  </ssd:DefaultExperiment>
</ssd:SystemStructureDescription>
"""
SSV = """<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet version="1.0" name="plant_file" xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssv:Parameters>
    <ssv:Parameter name="plant.k"><ssv:Real value="20.0"/></ssv:Parameter>
    <ssv:Parameter name="plant.x0"><ssv:Real value="9.0"/></ssv:Parameter>
    <ssv:Parameter name="plant.n_sub"><ssv:Integer value="2"/></ssv:Parameter>
    <ssv:Parameter name="other.k"><ssv:Real value="-1"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
"""


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    return session_fmus(tmp_path_factory)


def make_ssp_dir(fmus, root, *, plant_source="resources/plant.fmu", components=None, connections=CONNECTIONS,
                 ssv=SSV, system_params=None):
    """An SSP directory: SystemStructure.ssd, resources/*.fmu, params/plant.ssv."""
    (root / "resources").mkdir(parents=True)
    (root / "params").mkdir()
    for key, name in (("plant", "plant"), ("ctrl", "ctrl"), ("faulty", "faulty")):
        shutil.copy(fmus[key], root / "resources" / f"{name}.fmu")
    if ssv is not None:
        (root / "params" / "plant.ssv").write_text(ssv)
    comps = (PLANT.format(plant_source=plant_source) + CTRL + GAIN) if components is None else components
    bindings = ""
    if system_params:
        bindings = ('<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues><ssv:ParameterSet '
                    'version="1.0" name="top"><ssv:Parameters>' +
                    "".join(f'<ssv:Parameter name="{k}"><ssv:Real value="{v}"/></ssv:Parameter>'
                            for k, v in system_params.items()) +
                    "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>"
                    "</ssd:ParameterBindings>\n")
    text = (HEAD + '  <ssd:System name="root">\n' + bindings + '    <ssd:Elements>' + comps + "\n    </ssd:Elements>\n"
            "    <ssd:Connections>" + connections + "\n    </ssd:Connections>\n  </ssd:System>" + TAIL)
    (root / "SystemStructure.ssd").write_text(text)
    return root


def test_read_directory_ssd_and_zipped_ssp_alike(fmus, tmp_path):
    root = make_ssp_dir(fmus, tmp_path / "dir")
    archive = tmp_path / "hand.ssp"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in root.rglob("*"):
            zf.write(file, file.relative_to(root).as_posix())
    systems = [read_ssp(root), read_ssp(root / "SystemStructure.ssd"), read_ssp(archive, extract_dir=tmp_path / "x")]
    for system in systems:
        assert system.name == "root"
        assert (system.start_time, system.stop_time, system.step_size) == (0.0, 0.2, 0.002)
        plant, ctrl, gain = system.components
        assert plant.source.is_file() and plant.source.is_absolute()
        # external .ssv with prefix 'plant.' (other.k ignored), then the inline binding overrides x0
        assert plant.parameters == {"k": 20.0, "x0": 0.25, "n_sub": 2}
        assert ctrl.parameters == {"Kp": 45.0, "Kd": 5.5} and ctrl.step_size == 0.004
        assert gain.parameters == {"gain": -2.5, "enabled": True, "fail_mode": 0, "fail_message": "never used"}
        assert [type(v) for v in gain.parameters.values()] == [float, bool, int, str]
        assert plant.connectors[0].unit == "N" and plant.connectors[1].kind == "output"
        assert system.connections[3] == Connection("plant", "x", "gain", "u", factor=2.0, offset=0.5)
    assert systems[2].component("plant").source.parent == tmp_path / "x" / "resources"


def test_run_the_hand_written_ssp_applies_all_bindings(fmus, tmp_path):
    system = read_ssp(make_ssp_dir(fmus, tmp_path / "dir"))
    result = run_system(system, Experiment.from_system(system), progress=False)
    assert len(result) == 101 and result.time[-1] == pytest.approx(0.2)
    assert result["plant.x"][0] == 0.25 and result["ctrl.x"][0] == 0.25        # bound x0, propagated
    assert result["plant.F"][0] == pytest.approx(-45.0 * 0.25)                 # bound Kp
    np.testing.assert_allclose(result["gain.u"], 2.0 * result["plant.x"] + 0.5, rtol=0, atol=1e-15)
    np.testing.assert_allclose(result["gain.y"][1:], -2.5 * result["gain.u"][:-1], rtol=0, atol=1e-14)
    F = result["ctrl.F"][:100].reshape(25, 4)                                  # ctrl at 4 ms on a 2 ms base step
    assert np.all(F[:, :1] == F[:, 1:2])
    assert result.units["plant.x"] == ""                                        # pythonfmu writes no units


def test_system_level_bindings_override_component_ones(fmus, tmp_path):
    from fmpy.ssp.ssd import validate_tree
    from lxml import etree

    root = make_ssp_dir(fmus, tmp_path / "a", system_params={"ctrl.Kp": 50.0, "plant.c": 0.75})
    validate_tree(etree.parse(str(root / "SystemStructure.ssd")).getroot(), "SystemStructureDescription.xsd")
    system = read_ssp(root)
    assert system.component("ctrl").parameters == {"Kp": 50.0, "Kd": 5.5}
    assert system.component("plant").parameters == {"k": 20.0, "x0": 0.25, "n_sub": 2, "c": 0.75}
    root = make_ssp_dir(fmus, tmp_path / "b", system_params={"nobody.k": 1.0})
    with pytest.raises(ModelError, match="system-level parameter 'nobody.k' does not start with a component"):
        read_ssp(root)


def test_disabled_boolean_binding(fmus, tmp_path):
    root = make_ssp_dir(fmus, tmp_path / "dir")
    ssd = root / "SystemStructure.ssd"
    ssd.write_text(ssd.read_text().replace('<ssv:Boolean value="true"/>', '<ssv:Boolean value="false"/>'))
    system = read_ssp(root)
    result = run_system(system, Experiment.from_system(system), progress=False)
    assert np.all(result["gain.y"] == 0.0) and np.any(result["gain.u"] != 0.0)


@pytest.mark.parametrize("connections, expected", [
    ('<ssd:Connection startElement="plnt" startConnector="x" endElement="ctrl" endConnector="x"/>',
     r"line \d+: <ssd:Connection startElement='plnt' .*unknown component 'plnt' in startElement"),
    ('<ssd:Connection startElement="plant" startConnector="x" endElement="ctrl" endConnector="xdot"/>',
     r"line \d+: <ssd:Connection .*endConnector='xdot'>: unknown connector 'xdot' of component 'ctrl'"),
    ('<ssd:Connection startElement="plant" startConnector="x" endConnector="x"/>',
     r"missing attribute 'endElement' \(connections to system-level connectors are not supported\)"),
    ('<ssd:Connection startElement="ctrl" startConnector="x" endElement="plant" endConnector="F"/>',
     r"startConnector 'ctrl.x' has kind 'input'"),
    ('<ssd:Connection startElement="plant" startConnector="x" endElement="ctrl" endConnector="x"/>'
     '<ssd:Connection startElement="plant" startConnector="v" endElement="ctrl" endConnector="x"/>',
     r"input ctrl.x is already driven by the connection on line \d+"),
])
def test_bad_connections_name_the_element(fmus, tmp_path, connections, expected):
    root = make_ssp_dir(fmus, tmp_path / "dir", connections=connections)
    with pytest.raises(ModelError, match=expected) as info:
        read_ssp(root)
    assert str(root / "SystemStructure.ssd") in str(info.value)


def test_missing_fmu_and_parameter_files(fmus, tmp_path):
    root = make_ssp_dir(fmus, tmp_path / "a", plant_source="resources/missing.fmu")
    with pytest.raises(ModelError, match=r"<ssd:Component name='plant' source='resources/missing.fmu'>: "
                                         r"FMU file 'resources/missing.fmu' not found"):
        read_ssp(root)
    root = make_ssp_dir(fmus, tmp_path / "b", ssv=None)
    with pytest.raises(ModelError, match=r"<ssd:ParameterBinding source='params/plant.ssv'>: parameter file "
                                         r"'params/plant.ssv' not found"):
        read_ssp(root)
    root = make_ssp_dir(fmus, tmp_path / "c", ssv=SSV.replace('value="20.0"', 'value="stiff"'))
    with pytest.raises(ModelError, match=r"plant.ssv: line 4: <ssv:Real value='stiff'>: parameter 'plant.k': "
                                         r"bad Real value 'stiff'"):
        read_ssp(root)
    (root / "SystemStructure.ssd").write_text("<ssd:SystemStructureDescription")
    with pytest.raises(ModelError, match="SystemStructure.ssd: cannot parse XML"):
        read_ssp(root)
    with pytest.raises(ModelError, match="SSP file not found"):
        read_ssp(tmp_path / "nothing.ssp")


def test_master_checks_system_against_the_fmus(fmus):
    def system(**plant_params):
        return System("s", [Component("plant", fmus["plant"], plant_params), Component("ctrl", fmus["ctrl"])],
                      [Connection("ctrl", "F", "plant", "F")])

    with pytest.raises(ModelError, match=r"parameter binding: component 'plant' \(CosimTestPlant.fmu\) has no "
                                         r"variable 'kk'"):
        run_system(system(kk=1.0), Experiment(), progress=False)
    with pytest.raises(ModelError, match=r"plant.k is Real, got 'stiff'"):
        run_system(system(k="stiff"), Experiment(), progress=False)
    with pytest.raises(ModelError, match=r"plant.x has causality 'output'.* only inputs and tunable parameters"):
        bad = system()
        bad.connections.append(Connection("ctrl", "F", "plant", "x"))
        run_system(bad, Experiment(), progress=False)
    with pytest.raises(ModelError, match=r"component 'ghost': FMU file .*ghost.fmu not found"):
        run_system(System("s", [Component("ghost", fmus["plant"].parent / "ghost.fmu")]), Experiment(),
                   progress=False)


def test_the_writer_ends_the_system_with_omsimulator_s_annotation(fmus, tmp_path):
    """write_ssd and write_ssp end ssd:System with OMSimulator's vendor annotation: the fixed-step master oms-ma at
    the system's step (no stepSize for a system without one) and OMSimulator's default tolerances. It is written
    only: reading the document back gives the system's own steps, the OSP ones."""
    from lxml import etree

    from cosim_fmus.fixtures import plant_ctrl_system
    from fmu_vehicle.cosim.ssp import OMS_NS, SSD_FILE_NAME, write_ssd, write_ssp
    oms = f"{{{OMS_NS}}}"
    for step, stem in ((2e-3, "stepped"), (None, "no_step")):
        system = plant_ctrl_system(fmus, ctrl_step=4e-3)
        system.step_size = step
        ssd = write_ssd(system, tmp_path / f"{stem}.ssd")
        with zipfile.ZipFile(write_ssp(system, tmp_path / f"{stem}.ssp")) as archive:
            in_archive = archive.read(SSD_FILE_NAME)
        for document in (ssd.read_bytes(), in_archive):
            system_el = etree.fromstring(document).find("{*}System")
            annotations = system_el[-1]
            assert etree.QName(annotations).localname == "Annotations" and len(annotations) == 1
            annotation = annotations[0]
            assert annotation.get("type") == "org.openmodelica"
            master = annotation.find(f"{oms}Annotations/{oms}SimulationInformation/{oms}FixedStepMaster")
            assert master.prefix == "oms"
            assert dict(master.attrib) == {"description": "oms-ma", "absoluteTolerance": "0.0001",
                                           "relativeTolerance": "0.0001",
                                           **({} if step is None else {"stepSize": "0.002"})}
        back = read_ssp(tmp_path / f"{stem}.ssp")
        assert back.step_size == step and [c.step_size for c in back.components] == [None, 4e-3]
