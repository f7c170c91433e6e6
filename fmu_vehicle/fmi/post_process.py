"""Patch ``modelDescription.xml`` of a built FMU from the slave's ``Var`` table (lxml).

pythonfmu 0.7.0 writes no units, min/max, UnitDefinitions or InitialUnknowns (FMPy's validator then
reports the missing InitialUnknowns, and importers show unit-less signals).  See docs/fmus.md §1.
``patch_fmu`` adds them, sets root attributes, keeps the FMI 2.0 element order and rewrites the zip
atomically (temp file in the same folder + ``os.replace``).  The binary ignores the XML, so start
values and value references are left exactly as pythonfmu wrote them (they come from the code).
"""
from __future__ import annotations

import copy
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

from lxml import etree

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.variables import UNITS, Var, unit_exponents, var_table
from fmu_vehicle.util import atomic_write

MODEL_DESCRIPTION = "modelDescription.xml"

#: Child order of <fmiModelDescription> in fmi2ModelDescription.xsd.
ROOT_ORDER = ("ModelExchange", "CoSimulation", "UnitDefinitions", "TypeDefinitions", "LogCategories",
              "DefaultExperiment", "VendorAnnotations", "ModelVariables", "ModelStructure")
STRUCTURE_ORDER = ("Outputs", "Derivatives", "InitialUnknowns")


def _number(value: float | int) -> str:
    """Shortest text that round-trips the value (repr of a float, str of an int)."""
    return repr(float(value)) if isinstance(value, float) else str(value)


def _unit_definitions(variables: Iterable[Var]) -> etree._Element:
    """<UnitDefinitions> with every unit used (BaseUnit exponents) and all its display units."""
    node = etree.Element("UnitDefinitions")
    for name in sorted({v.unit for v in variables if v.unit is not None}):
        unit = etree.SubElement(node, "Unit", name=name)
        etree.SubElement(unit, "BaseUnit", {k: str(e) for k, e in unit_exponents(name).items()})
        for display, factor in UNITS[name].display.items():
            etree.SubElement(unit, "DisplayUnit", name=display, factor=repr(float(factor)))
    return node


def _reorder(parent: etree._Element, order: tuple[str, ...]) -> None:
    children = list(parent)
    unknown = [c.tag for c in children if c.tag not in order]
    if unknown:
        raise ModelError(f"{MODEL_DESCRIPTION}: unexpected elements {unknown} under <{parent.tag}>")
    for child in children:
        parent.remove(child)
    for child in sorted(children, key=lambda c: order.index(c.tag)):
        parent.append(child)


def patch_model_description(root: etree._Element, variables: Iterable[Var],
                            root_attrs: Mapping[str, str] | None = None) -> None:
    """Patch a parsed modelDescription in place from ``variables`` (the slave's VARIABLES).

    root       the <fmiModelDescription> element written by pythonfmu
    variables  Var records; names, causality, variability and type must match the XML
    root_attrs attributes to set on the root (version, copyright, generationTool, ...)
    """
    table = var_table(tuple(variables))
    for key, value in (root_attrs or {}).items():
        root.set(key, value)

    old = root.find("UnitDefinitions")
    if old is not None:
        root.remove(old)
    root.append(_unit_definitions(table.values()))

    model_variables = root.find("ModelVariables")
    scalars = list(model_variables) if model_variables is not None else []
    names = [sv.get("name") for sv in scalars]
    if sorted(names) != sorted(table):
        raise ModelError(f"{MODEL_DESCRIPTION}: variables {sorted(set(names) ^ set(table))} differ "
                         f"between the XML and the Var table")
    calculated_outputs = []
    for index, sv in enumerate(scalars, start=1):
        var = table[sv.get("name")]
        type_node = sv[0]
        if (sv.get("causality"), sv.get("variability"), type_node.tag) != (var.causality, var.variability, var.type):
            raise ModelError(f"{MODEL_DESCRIPTION}: variable '{var.name}' was written as "
                             f"{sv.get('causality')}/{sv.get('variability')}/{type_node.tag}, the Var table "
                             f"says {var.causality}/{var.variability}/{var.type}")
        if var.description:
            sv.set("description", var.description)
        if var.unit is not None:
            type_node.set("unit", var.unit)
        if var.display_unit is not None:
            type_node.set("displayUnit", var.display_unit)
        if var.min is not None:
            type_node.set("min", _number(var.min))
        if var.max is not None:
            type_node.set("max", _number(var.max))
        if var.causality == "output" and sv.get("initial") in (None, "calculated", "approx"):
            calculated_outputs.append(index)

    structure = root.find("ModelStructure")
    if structure is None:
        structure = etree.SubElement(root, "ModelStructure")
    old = structure.find("InitialUnknowns")
    if old is not None:
        structure.remove(old)
    if calculated_outputs:
        initial = etree.SubElement(structure, "InitialUnknowns")
        for index in calculated_outputs:
            etree.SubElement(initial, "Unknown", index=str(index))   # no dependencies = all knowns
    _reorder(structure, STRUCTURE_ORDER)
    _reorder(root, ROOT_ORDER)


def patch_fmu(fmu_path: Path, variables: Iterable[Var], root_attrs: Mapping[str, str] | None = None) -> None:
    """Rewrite ``modelDescription.xml`` inside ``fmu_path`` (see ``patch_model_description``), atomically."""
    fmu_path = Path(fmu_path)
    with zipfile.ZipFile(fmu_path) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    parser = etree.XMLParser(remove_blank_text=True)
    xml = dict((i.filename, d) for i, d in entries).get(MODEL_DESCRIPTION)
    if xml is None:
        raise ModelError(f"{fmu_path}: no {MODEL_DESCRIPTION} in the archive")
    root = etree.fromstring(xml, parser)
    patch_model_description(root, variables, root_attrs)
    new_xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)

    def write(stream):
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as zout:
            for info, data in entries:
                payload = new_xml if info.filename == MODEL_DESCRIPTION else data
                info = copy.copy(info)          # keeps name, date and file mode (binaries)
                info.compress_type = zipfile.ZIP_DEFLATED
                zout.writestr(info, payload)

    atomic_write(fmu_path, write, mode="wb")
