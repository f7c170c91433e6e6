"""Reader and writer for SSP 1.0 System Structure Descriptions (``.ssd``, SSP directory, zipped ``.ssp``).

Supported subset (flat systems of FMU components, as OSP libcosim and FMPy use them):

* ``ssd:Component`` with ``source`` relative to the SSD file, ``ssd:Connectors`` (``ssc:Real|Integer|Boolean|String``),
  ``ssd:ParameterBindings`` with an inline ``ssv:ParameterSet`` or an external ``.ssv`` file (``source``, optional
  ``prefix``); later bindings override earlier ones (SSP 1.0, TParameterBindings).
* system-level ``ssd:ParameterBindings`` whose names are ``component.variable``; they override component-level ones.
* ``ssd:Connection`` between two components with an optional ``ssc:LinearTransformation`` (factor, offset).
* ``ssd:DefaultExperiment`` startTime / stopTime.
* Step sizes, which SSP has no field for, use the OSP annotations that libcosim reads (ssp_parser.cpp)::

      <ssd:Annotations><ssc:Annotation type="com.opensimulationplatform">
          <osp:StepSizeHint value="0.01"/>                        (in ssd:Component: its own step, s)
      </ssc:Annotation></ssd:Annotations>
      <ssd:Annotations><ssc:Annotation type="com.opensimulationplatform">
          <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="0.001"/></osp:Algorithm>   (in ssd:DefaultExperiment)
      </ssc:Annotation></ssd:Annotations>

  with ``xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations"``.
* The system's type and master, which OpenModelica's OMSimulator reads from its own vendor annotation at the end
  of ``ssd:System`` (its importer refuses a system without it; written, not read)::

      <ssd:Annotations><ssc:Annotation type="org.openmodelica"><oms:Annotations><oms:SimulationInformation>
          <oms:FixedStepMaster description="oms-ma" stepSize="0.001" absoluteTolerance="0.0001"
                               relativeTolerance="0.0001"/>
      </oms:SimulationInformation></oms:Annotations></ssc:Annotation></ssd:Annotations>

  with ``xmlns:oms`` the namespace OMSimulator writes (``OMS_NS``): a weakly coupled system (co-simulation)
  stepped by its fixed-step master at the master step.

Not supported (clear ModelError): nested systems, connections to system-level connectors (those connectors are
ignored otherwise), signal dictionaries, parameter mappings, map/boolean/integer transformations.

See docs/cosimulation.md §8.
"""
from __future__ import annotations

import atexit
import logging
import math
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from lxml import etree

from fmu_vehicle.cosim.ssp_schema import SSD_FILE_NAME, check_ssd
from fmu_vehicle.cosim.system import (CONNECTOR_TYPES, Component, Connection, Connector, ParameterValue,
                                      System, enumeration_value, parameter_type, split_component_variable)
from fmu_vehicle.errors import ModelError
from fmu_vehicle.util import atomic_write

SSD_NS = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSC_NS = "http://ssp-standard.org/SSP1/SystemStructureCommon"
SSV_NS = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
OSP_NS = "http://opensimulationplatform.com/SSP/OSPAnnotations"
OSP_ANNOTATION_TYPE = "com.opensimulationplatform"
OMS_NS = "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd"
"""The namespace of OMSimulator's annotations, the one it declares in the SSD files it writes. Its importer matches
element names with their prefix (``oms:SimulationInformation``), so the prefix must be ``oms``."""
OMS_ANNOTATION_TYPE = "org.openmodelica"
OMS_FIXED_STEP_MASTER = "oms-ma"
"""OMSimulator's fixed-step master of a weakly coupled (co-simulation) system."""
OMS_TOLERANCE = 1e-4
"""The absolute and relative tolerance written for OMSimulator's master (its own defaults; a fixed-step master of
FMUs without algebraic loops does not use them, but its importer reads absent values as 0)."""
FMU_MIME_TYPE = "application/x-fmu-sharedlibrary"
_PREFIX = {SSD_NS: "ssd", SSC_NS: "ssc", SSV_NS: "ssv", OSP_NS: "osp", OMS_NS: "oms"}
_NSMAP = {"ssd": SSD_NS, "ssc": SSC_NS, "ssv": SSV_NS, "osp": OSP_NS, "oms": OMS_NS}
_START_KINDS = ("output", "calculatedParameter", "inout")
_END_KINDS = ("input", "parameter", "inout")
_extracted_dirs: list[str] = []
log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------------------------- reading

def read_ssp(path: str | os.PathLike, *, extract_dir: str | os.PathLike | None = None,
             fmu_dir: str | os.PathLike | None = None) -> System:
    """Read a system from an ``.ssp`` archive, an SSP directory or an ``.ssd`` file.

    Parameters:
        path         ``x.ssp`` (zip), a directory holding ``SystemStructure.ssd``, or an ``.ssd`` file
        extract_dir  where to unpack an ``.ssp`` archive; default: a temporary directory that is
                     removed when the interpreter exits
        fmu_dir      a folder of FMUs: a component's relative source found there is taken from there,
                     otherwise (and without fmu_dir) relative to the SSD file, as SSP specifies
                     (system files shipped without FMUs, ``write_ssd``)

    Returns:
        System whose component sources are absolute paths of the FMU files

    Raises ModelError naming the file, the element (with its line) and the reason.
    """
    path = Path(path)
    if not path.exists():
        raise ModelError(f"{path}: SSP file not found")
    if path.is_dir():
        ssd_file = path / SSD_FILE_NAME
    elif zipfile.is_zipfile(path):
        ssd_file = _extract_ssp(path, extract_dir) / SSD_FILE_NAME
    else:
        ssd_file = path
    if not ssd_file.is_file():
        raise ModelError(f"{path}: no {SSD_FILE_NAME} found (expected {ssd_file})")
    return _read_ssd(ssd_file.resolve(), None if fmu_dir is None else Path(fmu_dir))


def _extract_ssp(path: Path, extract_dir: str | os.PathLike | None) -> Path:
    """Unpack an ``.ssp`` archive and return the directory."""
    if extract_dir is None:
        target = Path(tempfile.mkdtemp(prefix="fmu_vehicle_ssp_"))
        if not _extracted_dirs:
            atexit.register(_remove_extracted_dirs)
        _extracted_dirs.append(str(target))
    else:
        target = Path(extract_dir)
        target.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(path) as archive:
            archive.extractall(target)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ModelError(f"{path}: cannot unpack the SSP archive: {exc}") from exc
    return target


def _remove_extracted_dirs() -> None:
    for directory in _extracted_dirs:
        shutil.rmtree(directory, ignore_errors=True)


def _read_ssd(ssd_file: Path, fmu_dir: Path | None = None) -> System:
    """Parse one SSD file into a System."""
    root = _parse_xml(ssd_file)
    if root.tag != _q(SSD_NS, "SystemStructureDescription"):
        raise ModelError(f"{ssd_file}: line {root.sourceline}: root element is <{_name(root)}>, "
                         f"expected <ssd:SystemStructureDescription>")
    system_el = root.find(_q(SSD_NS, "System"))
    if system_el is None:
        raise ModelError(f"{ssd_file}: <ssd:SystemStructureDescription> has no <ssd:System> element")
    system_name = system_el.get("name") or root.get("name") or ssd_file.stem

    components: dict[str, Component] = {}
    elements_el = system_el.find(_q(SSD_NS, "Elements"))
    for el in ([] if elements_el is None else elements_el.iterchildren(etree.Element)):
        if el.tag != _q(SSD_NS, "Component"):
            raise _error(ssd_file, el, "only ssd:Component elements are supported (no nested systems or "
                                       "signal dictionaries)")
        comp = _read_component(ssd_file, el, fmu_dir)
        if comp.name in components:
            raise _error(ssd_file, el, f"duplicate component name '{comp.name}'")
        components[comp.name] = comp

    # system-level bindings name 'component.variable' and take precedence (SSP 1.0, TParameterBindings)
    bindings_el = system_el.find(_q(SSD_NS, "ParameterBindings"))
    for bel in ([] if bindings_el is None else bindings_el.iterchildren(_q(SSD_NS, "ParameterBinding"))):
        for name, value in _read_binding(ssd_file, bel).items():
            target = split_component_variable(components, name)
            if target is None:
                raise _error(ssd_file, bel, f"system-level parameter '{name}' does not start with a component "
                                            f"name (expected 'component.variable')")
            components[target[0]].parameters[target[1]] = value

    connections = []
    connections_el = system_el.find(_q(SSD_NS, "Connections"))
    inputs_seen: dict[tuple[str, str], int] = {}
    for el in ([] if connections_el is None else connections_el.iterchildren(_q(SSD_NS, "Connection"))):
        con = _read_connection(ssd_file, el, components)
        key = (con.end_element, con.end_connector)
        if key in inputs_seen:
            raise _error(ssd_file, el, f"input {con.end_element}.{con.end_connector} is already driven by the "
                                       f"connection on line {inputs_seen[key]}")
        inputs_seen[key] = el.sourceline
        connections.append(con)

    start_time, stop_time, step_size = 0.0, None, None
    experiment_el = root.find(_q(SSD_NS, "DefaultExperiment"))
    if experiment_el is not None:
        start_time = _float_attr(ssd_file, experiment_el, "startTime", 0.0)
        stop_time = _float_attr(ssd_file, experiment_el, "stopTime", None)
        for child in _osp_annotations(experiment_el):
            if child.tag != _q(OSP_NS, "Algorithm"):
                continue
            for alg in child.iterchildren(etree.Element):
                if alg.tag != _q(OSP_NS, "FixedStepAlgorithm"):
                    raise _error(ssd_file, alg, "only osp:FixedStepAlgorithm is supported")
                step_size = _positive(ssd_file, alg, "baseStepSize")
    return System(name=system_name, components=list(components.values()), connections=connections,
                  start_time=start_time,
                  stop_time=stop_time, step_size=step_size)


def _read_component(ssd_file: Path, el, fmu_dir: Path | None = None) -> Component:
    """One ssd:Component: source, connectors, parameter bindings and the OSP step size hint."""
    name = el.get("name")
    if not name:
        raise _error(ssd_file, el, "missing attribute 'name'")
    comp_type = el.get("type", FMU_MIME_TYPE)
    if comp_type != FMU_MIME_TYPE:
        raise _error(ssd_file, el, f"component type '{comp_type}' is not supported (only {FMU_MIME_TYPE})")
    source_text = el.get("source")
    if not source_text:
        raise _error(ssd_file, el, "missing attribute 'source'")
    source = _resolve(ssd_file, source_text)
    if fmu_dir is not None and not urlparse(source_text).scheme and not Path(unquote(source_text)).is_absolute():
        candidate = (fmu_dir / unquote(source_text)).resolve()
        source = candidate if candidate.exists() else source
    if not source.exists():
        raise _error(ssd_file, el, f"FMU file '{source_text}' not found (looked for {source})")

    connectors = []
    connectors_el = el.find(_q(SSD_NS, "Connectors"))
    for cel in ([] if connectors_el is None else connectors_el.iterchildren(_q(SSD_NS, "Connector"))):
        connectors.append(_read_connector(ssd_file, cel))
    names = [c.name for c in connectors]
    for cname in names:
        if names.count(cname) > 1:
            raise _error(ssd_file, el, f"connector '{cname}' is declared twice")

    parameters: dict[str, ParameterValue] = {}
    bindings_el = el.find(_q(SSD_NS, "ParameterBindings"))
    for bel in ([] if bindings_el is None else bindings_el.iterchildren(_q(SSD_NS, "ParameterBinding"))):
        parameters.update(_read_binding(ssd_file, bel))

    if any(isinstance(v, str) for v in parameters.values()):
        parameters = _enumerations_by_item(ssd_file, name, source, parameters)

    step_size = None
    for hint in _osp_annotations(el):
        if hint.tag == _q(OSP_NS, "StepSizeHint"):
            step_size = _positive(ssd_file, hint, "value")
    return Component(name=name, source=source, parameters=parameters, step_size=step_size,
                     connectors=tuple(connectors))


def _enumerations_by_item(ssd_file: Path, comp: str, source: Path, parameters: dict) -> dict:
    """``parameters`` with every option name bound (ssv:String) to an Enumeration of the FMU replaced by its item
    value, each logged as a warning saying which ssv:Integer to bind (an SSD written when the parameter was a
    String; hosts that drop String parameters would run another setting)."""
    from fmpy import read_model_description

    try:
        variables = {v.name: v for v in read_model_description(str(source), validate=False).modelVariables}
    except Exception:       # an unreadable FMU is reported by the master with its reason
        return parameters
    out = dict(parameters)
    for pname, value in parameters.items():
        var = variables.get(pname)
        if isinstance(value, str) and var is not None and var.type == "Enumeration":
            out[pname] = enumeration_value(var, value, f"{ssd_file}: component '{comp}' parameter '{pname}'")
            log.warning("%s: component '%s': parameter '%s' is bound as <ssv:String value=\"%s\"/>, but it is an "
                        "Enumeration (type %s): bind <ssv:Integer value=\"%d\"/> (taken as that value)", ssd_file,
                        comp, pname, value, var.declaredType.name, out[pname])
    return out


def _read_connector(ssd_file: Path, el) -> Connector:
    """One ssd:Connector with its optional type element (ssc:Real, ...)."""
    name, kind = el.get("name"), el.get("kind")
    if not name:
        raise _error(ssd_file, el, "missing attribute 'name'")
    if kind is None:
        raise _error(ssd_file, el, "missing attribute 'kind'")
    ctype, unit = None, None
    for child in el.iterchildren(etree.Element):
        if child.tag.startswith("{" + SSC_NS + "}"):
            ctype = etree.QName(child).localname
            unit = child.get("unit")
            if ctype not in CONNECTOR_TYPES:
                raise _error(ssd_file, child, f"connector type '{ctype}' is not supported")
    return Connector(name=name, kind=kind, type=ctype, unit=unit)


def _read_binding(ssd_file: Path, el) -> dict[str, ParameterValue]:
    """Parameters of one ssd:ParameterBinding (inline ssv:ParameterSet or external .ssv file)."""
    btype = el.get("type", "application/x-ssp-parameter-set")
    if btype != "application/x-ssp-parameter-set":
        raise _error(ssd_file, el, f"parameter binding type '{btype}' is not supported")
    if el.find(_q(SSD_NS, "ParameterMapping")) is not None:
        raise _error(ssd_file, el, "ssd:ParameterMapping is not supported")
    source_text = el.get("source")
    if source_text:
        ssv_file = _resolve(ssd_file, source_text)
        if not ssv_file.is_file():
            raise _error(ssd_file, el, f"parameter file '{source_text}' not found (looked for {ssv_file})")
        set_file, set_el = ssv_file, _parse_xml(ssv_file)
    else:
        values_el = el.find(_q(SSD_NS, "ParameterValues"))
        set_el = None if values_el is None else values_el.find(_q(SSV_NS, "ParameterSet"))
        set_file = ssd_file
        if set_el is None:
            raise _error(ssd_file, el, "neither a 'source' attribute nor an inline "
                                       "ssd:ParameterValues/ssv:ParameterSet")
    parameters = _read_parameter_set(set_file, set_el)
    prefix = el.get("prefix")
    if prefix:
        parameters = {k[len(prefix):]: v for k, v in parameters.items() if k.startswith(prefix)}
    return parameters


def _read_parameter_set(file: Path, el) -> dict[str, ParameterValue]:
    """Name -> value of an ssv:ParameterSet (Real -> float, Integer -> int, Boolean -> bool, String -> str)."""
    if el.tag != _q(SSV_NS, "ParameterSet"):
        raise _error(file, el, "expected an ssv:ParameterSet element")
    params_el = el.find(_q(SSV_NS, "Parameters"))
    values: dict[str, ParameterValue] = {}
    for pel in ([] if params_el is None else params_el.iterchildren(_q(SSV_NS, "Parameter"))):
        name = pel.get("name")
        if not name:
            raise _error(file, pel, "missing attribute 'name'")
        value_el = next((c for c in pel.iterchildren(etree.Element)
                         if c.tag.startswith("{" + SSV_NS + "}") and etree.QName(c).localname != "Annotations"),
                        None)
        if value_el is None:
            raise _error(file, pel, f"parameter '{name}' has no value element (ssv:Real, ...)")
        kind, text = etree.QName(value_el).localname, value_el.get("value")
        if text is None:
            raise _error(file, value_el, f"parameter '{name}': missing attribute 'value'")
        try:
            if kind == "Real":
                values[name] = float(text)
            elif kind == "Integer":
                values[name] = int(text)
            elif kind == "Boolean":
                if text.strip() not in ("true", "false", "1", "0"):
                    raise ValueError(f"not an xs:boolean: {text!r}")
                values[name] = text.strip() in ("true", "1")
            elif kind == "String":
                values[name] = text
            else:
                raise _error(file, value_el, f"parameter '{name}': type ssv:{kind} is not supported "
                                             f"(use Real, Integer, Boolean or String)")
        except ValueError as exc:
            raise _error(file, value_el, f"parameter '{name}': bad {kind} value {text!r} ({exc})") from exc
    return values


def _read_connection(ssd_file: Path, el, components: dict[str, Component]) -> Connection:
    """One ssd:Connection, checked against the declared components and connectors."""
    attrs = {}
    for key in ("startElement", "startConnector", "endElement", "endConnector"):
        attrs[key] = el.get(key)
        if not attrs[key]:
            reason = (" (connections to system-level connectors are not supported)"
                      if key.endswith("Element") else "")
            raise _error(ssd_file, el, f"missing attribute '{key}'{reason}")
    declared = {}
    for side, kinds in (("start", _START_KINDS), ("end", _END_KINDS)):
        comp_name, conn_name = attrs[side + "Element"], attrs[side + "Connector"]
        comp = components.get(comp_name)
        if comp is None:
            raise _error(ssd_file, el, f"unknown component '{comp_name}' in {side}Element "
                                       f"(known: {', '.join(components) or 'none'})")
        connector = next((c for c in comp.connectors if c.name == conn_name), None)
        if connector is None:
            raise _error(ssd_file, el, f"unknown connector '{conn_name}' of component '{comp_name}' in "
                                       f"{side}Connector (declared: "
                                       f"{', '.join(c.name for c in comp.connectors) or 'none'})")
        if connector.kind not in kinds:
            raise _error(ssd_file, el, f"{side}Connector '{comp_name}.{conn_name}' has kind '{connector.kind}', "
                                       f"expected one of {', '.join(kinds)}")
        declared[side] = connector
    if declared["start"].type and declared["end"].type and declared["start"].type != declared["end"].type:
        raise _error(ssd_file, el, f"type mismatch: {declared['start'].type} -> {declared['end'].type}")
    factor, offset = 1.0, 0.0
    for child in el.iterchildren(etree.Element):
        local = etree.QName(child).localname
        if local == "LinearTransformation":
            factor = _float_attr(ssd_file, child, "factor", 1.0)
            offset = _float_attr(ssd_file, child, "offset", 0.0)
        elif local.endswith("Transformation"):
            raise _error(ssd_file, child, f"ssc:{local} is not supported (only ssc:LinearTransformation)")
    return Connection(attrs["startElement"], attrs["startConnector"], attrs["endElement"], attrs["endConnector"],
                      factor=factor, offset=offset)


def _osp_annotations(el):
    """Children of the OSP annotations (type com.opensimulationplatform) directly below ``el``."""
    found = []
    annotations = el.find(_q(SSD_NS, "Annotations"))
    if annotations is not None:
        for ann in annotations.iterchildren(_q(SSC_NS, "Annotation")):
            if ann.get("type") == OSP_ANNOTATION_TYPE:
                found.extend(ann.iterchildren(etree.Element))
    return found


def _parse_xml(file: Path):
    try:
        return etree.parse(str(file)).getroot()
    except (etree.XMLSyntaxError, OSError) as exc:
        raise ModelError(f"{file}: cannot parse XML: {exc}") from exc


def _resolve(base_file: Path, reference: str) -> Path:
    """A path from a (relative or file:) URI in an SSD, relative to the SSD file's directory."""
    parsed = urlparse(reference)
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme and len(parsed.scheme) > 1:
        raise ModelError(f"{base_file}: URI '{reference}' is not supported (use a relative path)")
    return (base_file.parent / unquote(reference)).resolve()


def _float_attr(file: Path, el, key: str, default: float | None) -> float | None:
    text = el.get(key)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise _error(file, el, f"attribute '{key}' is not a number: {text!r}") from None
    if not math.isfinite(value):
        raise _error(file, el, f"attribute '{key}' must be finite, got {text!r}")
    return value


def _positive(file: Path, el, key: str) -> float:
    value = _float_attr(file, el, key, None)
    if value is None or value <= 0.0:
        raise _error(file, el, f"attribute '{key}' must be a positive time in s, got {el.get(key)!r}")
    return value


def _q(ns: str, local: str) -> str:
    return f"{{{ns}}}{local}"


def _name(el) -> str:
    """``prefix:local`` of an element, with the usual SSP prefixes."""
    qname = etree.QName(el)
    return f"{_PREFIX.get(qname.namespace, qname.namespace or '')}:{qname.localname}".lstrip(":")


def _error(file: Path, el, reason: str) -> ModelError:
    """ModelError '<file>: line N: <ssd:Element name=...>: reason'."""
    shown = " ".join(f"{k}='{v}'" for k, v in el.attrib.items() if k in (
        "name", "startElement", "startConnector", "endElement", "endConnector", "source", "kind", "value"))
    return ModelError(f"{file}: line {el.sourceline}: <{_name(el)}{' ' + shown if shown else ''}>: {reason}")


# ----------------------------------------------------------------------------------------------- writing

def write_ssp(system: System, path: str | os.PathLike) -> Path:
    """Write ``system`` as a zipped ``.ssp``: ``SystemStructure.ssd`` + ``resources/<component>.fmu``.

    Connectors come from ``Component.connectors`` or, when empty, from the FMU's inputs, outputs and
    bound parameters. Parameters are written as one inline ssv:ParameterSet per component (libcosim
    applies only the first binding). Step sizes go into the OSP annotations. Every connection has
    startElement and endElement, which libcosim requires. The archive is written atomically.

    Returns the path written.
    """
    path = Path(path)
    sources: dict[Path, str] = {}
    for comp in system.components:
        sources.setdefault(comp.source.resolve(), f"resources/{comp.name}.fmu")      # component names are unique
    ssd_bytes = _ssd_document(system, {c.name: sources[c.source.resolve()] for c in system.components})

    def write(stream):
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(SSD_FILE_NAME, ssd_bytes)
            for source, arcname in sources.items():
                if source.is_dir():
                    archive.writestr(arcname, _zip_directory(source))
                else:
                    archive.write(source, arcname)

    return atomic_write(path, write, mode="wb")


def write_ssd(system: System, path: str | os.PathLike) -> Path:
    """Write ``system`` as a bare ``.ssd`` file whose components name their FMU by file name only
    (``source="VehicleLV.fmu"``), for ``read_ssp(path, fmu_dir=...)`` to find in a folder of built FMUs.

    Connectors: those of ``Component.connectors`` or, when empty, only the connected variables and the
    bound parameters (a system file stays readable). Written atomically; returns the path.
    """
    sources = {comp.name: comp.source.name if comp.source.suffix == ".fmu" else f"{comp.source.name}.fmu"
               for comp in system.components}
    data = _ssd_document(system, sources, connected_only=True)
    return atomic_write(Path(path), lambda stream: stream.write(data), mode="wb")


def _ssd_document(system: System, sources: dict[str, str], *, connected_only: bool = False) -> bytes:
    """The SystemStructure.ssd of ``system`` with component ``sources`` (component name -> source URI)."""
    from fmpy import read_model_description

    _check_connections(system)
    root = etree.Element(_q(SSD_NS, "SystemStructureDescription"), nsmap=_NSMAP)
    root.set("version", "1.0")
    root.set("name", system.name)
    system_el = etree.SubElement(root, _q(SSD_NS, "System"), name=system.name)
    elements_el = etree.SubElement(system_el, _q(SSD_NS, "Elements"))
    units_used: dict[str, object] = {}          # unit name -> the FMU's BaseUnit (None: not defined there)
    for comp in system.components:
        source = comp.source.resolve()
        try:
            md = read_model_description(str(source), validate=False)
        except Exception as exc:
            raise ModelError(f"component '{comp.name}': cannot read the FMU {source}: {exc}") from exc
        variables = {v.name: v for v in md.modelVariables}
        fmu_units = {u.name: u.baseUnit for u in md.unitDefinitions}
        comp_el = etree.SubElement(elements_el, _q(SSD_NS, "Component"), name=comp.name,
                                   type=FMU_MIME_TYPE, source=sources[comp.name])
        connectors = comp.connectors or _connectors_from_md(comp, variables)
        if connected_only and not comp.connectors:
            used = {c.start_connector for c in system.connections if c.start_element == comp.name}
            used |= {c.end_connector for c in system.connections if c.end_element == comp.name}
            connectors = [c for c in connectors if c.name in used or c.name in comp.parameters]
        if connectors:
            conns_el = etree.SubElement(comp_el, _q(SSD_NS, "Connectors"))
            for connector in connectors:
                cel = etree.SubElement(conns_el, _q(SSD_NS, "Connector"), name=connector.name, kind=connector.kind)
                ctype = connector.type or _md_type(variables.get(connector.name)) or "Real"
                tel = etree.SubElement(cel, _q(SSC_NS, "Integer" if ctype == "Enumeration" else ctype))
                if connector.unit and ctype == "Real":
                    tel.set("unit", connector.unit)
                    if units_used.get(connector.unit) is None:
                        if connector.unit not in fmu_units and connector.unit not in units_used:
                            raise ModelError(f"component '{comp.name}': connector '{connector.name}': unit "
                                             f"'{connector.unit}' is not defined in the FMU {source} "
                                             f"(its UnitDefinitions: {', '.join(fmu_units) or 'none'})")
                        units_used[connector.unit] = fmu_units.get(connector.unit)
        if comp.parameters:
            bindings = etree.SubElement(comp_el, _q(SSD_NS, "ParameterBindings"))
            binding = etree.SubElement(bindings, _q(SSD_NS, "ParameterBinding"))
            values_el = etree.SubElement(binding, _q(SSD_NS, "ParameterValues"))
            set_el = etree.SubElement(values_el, _q(SSV_NS, "ParameterSet"), version="1.0",
                                      name=f"{comp.name}_parameters")
            params_el = etree.SubElement(set_el, _q(SSV_NS, "Parameters"))
            for name, value in comp.parameters.items():
                ptype = _md_type(variables.get(name)) or parameter_type(value)
                if ptype == "Enumeration":      # bound as its item value, also when the system names the option
                    value = enumeration_value(variables[name], value, f"component '{comp.name}' parameter '{name}'")
                pel = etree.SubElement(params_el, _q(SSV_NS, "Parameter"), name=name)
                etree.SubElement(pel, _q(SSV_NS, "Integer" if ptype == "Enumeration" else ptype),
                                 value=_format_value(ptype, value))
        if comp.step_size is not None:
            ann = _osp_annotation(comp_el)
            etree.SubElement(ann, _q(OSP_NS, "StepSizeHint"), value=repr(float(comp.step_size)))
    if system.connections:
        cons_el = etree.SubElement(system_el, _q(SSD_NS, "Connections"))
        for con in system.connections:
            cel = etree.SubElement(cons_el, _q(SSD_NS, "Connection"), startElement=con.start_element,
                                   startConnector=con.start_connector, endElement=con.end_element,
                                   endConnector=con.end_connector)
            if con.factor != 1.0 or con.offset != 0.0:
                etree.SubElement(cel, _q(SSC_NS, "LinearTransformation"), factor=repr(float(con.factor)),
                                 offset=repr(float(con.offset)))
    _oms_annotation(system_el, system.step_size)
    if units_used:
        _units_element(root, units_used)
    experiment_el = etree.SubElement(root, _q(SSD_NS, "DefaultExperiment"),
                                     startTime=repr(float(system.start_time)))
    if system.stop_time is not None:
        experiment_el.set("stopTime", repr(float(system.stop_time)))
    if system.step_size is not None:
        algorithm = etree.SubElement(_osp_annotation(experiment_el), _q(OSP_NS, "Algorithm"))
        etree.SubElement(algorithm, _q(OSP_NS, "FixedStepAlgorithm"), baseStepSize=repr(float(system.step_size)))
    document = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    check_ssd(document)
    return document


def _units_element(root, units: dict) -> None:
    """``ssd:Units``: every unit a connector names, with the SI base-unit exponents, factor and offset of the
    FMU's UnitDefinitions (SSP 1.0 requires each referenced unit to be declared there)."""
    units_el = etree.SubElement(root, _q(SSD_NS, "Units"))
    for name in sorted(units):
        unit_el = etree.SubElement(units_el, _q(SSC_NS, "Unit"), name=name)
        base_el = etree.SubElement(unit_el, _q(SSC_NS, "BaseUnit"))
        base = units[name]
        if base is None:
            continue
        for key in ("kg", "m", "s", "A", "K", "mol", "cd", "rad"):
            if getattr(base, key, 0):
                base_el.set(key, str(int(getattr(base, key))))
        if getattr(base, "factor", 1.0) != 1.0:
            base_el.set("factor", repr(float(base.factor)))
        if getattr(base, "offset", 0.0) != 0.0:
            base_el.set("offset", repr(float(base.offset)))


def _check_connections(system: System) -> None:
    """Every connection names two existing components (the SSD must always have endElement)."""
    names = {c.name for c in system.components}
    if len(names) != len(system.components):
        dupes = sorted({c.name for c in system.components if [d.name for d in system.components].count(c.name) > 1})
        raise ModelError(f"system '{system.name}': duplicate component names {', '.join(dupes)}")
    for con in system.connections:
        for element in (con.start_element, con.end_element):
            if element not in names:
                raise ModelError(f"system '{system.name}': connection {con}: unknown component '{element}'")


def _connectors_from_md(comp: Component, variables: dict) -> list[Connector]:
    """Connectors for every input and output of the FMU plus the bound parameters."""
    connectors = []
    for var in variables.values():
        ctype = _md_type(var)
        if ctype is None:
            continue
        if var.causality in ("input", "output"):
            connectors.append(Connector(var.name, var.causality, ctype, getattr(var, "unit", None)))
        elif var.name in comp.parameters and var.causality == "parameter":
            connectors.append(Connector(var.name, "parameter", ctype, getattr(var, "unit", None)))
    return connectors


def _md_type(var) -> str | None:
    if var is None:
        return None
    return var.type if var.type in CONNECTOR_TYPES else None


def _format_value(ptype: str, value: ParameterValue) -> str:
    if ptype == "Real":
        return repr(float(value))
    if ptype in ("Integer", "Enumeration"):
        return str(int(value))
    if ptype == "Boolean":
        return "true" if value else "false"
    return str(value)


def _osp_annotation(el):
    annotations = etree.SubElement(el, _q(SSD_NS, "Annotations"))
    return etree.SubElement(annotations, _q(SSC_NS, "Annotation"), type=OSP_ANNOTATION_TYPE)


def _oms_annotation(system_el, step_size: float | None) -> None:
    """OMSimulator's vendor annotation as the last child of ``system_el``: the system is weakly coupled, stepped by
    the fixed-step master ``oms-ma`` at ``step_size`` [s] (no stepSize when the system has none). OMSimulator takes
    the system's type from the first ``ssc:Annotation`` of the system's ``ssd:Annotations``, so it is the only one
    there."""
    annotations = etree.SubElement(system_el, _q(SSD_NS, "Annotations"))
    annotation = etree.SubElement(annotations, _q(SSC_NS, "Annotation"), type=OMS_ANNOTATION_TYPE)
    information = etree.SubElement(etree.SubElement(annotation, _q(OMS_NS, "Annotations")),
                                   _q(OMS_NS, "SimulationInformation"))
    master = etree.SubElement(information, _q(OMS_NS, "FixedStepMaster"), description=OMS_FIXED_STEP_MASTER)
    if step_size is not None:
        master.set("stepSize", repr(float(step_size)))
    master.set("absoluteTolerance", repr(OMS_TOLERANCE))
    master.set("relativeTolerance", repr(OMS_TOLERANCE))


def _zip_directory(directory: Path) -> bytes:
    """An extracted FMU directory zipped back into FMU bytes."""
    import io
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(directory.rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts:
                archive.write(file, file.relative_to(directory).as_posix())
    return buffer.getvalue()
