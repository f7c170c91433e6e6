"""``modelDescription.xml`` of an FMI 3.0 Co-Simulation FMU, written from the same ``Var`` table and ``Structure``
as its FMI 2.0 twin (``post_process``), so that the two cannot drift apart.

What changes from FMI 2.0 (FMI 3.0 sections 2.4.4-2.4.8), and nothing else:

- the root has ``instantiationToken`` (the FMI 2.0 ``guid``) and ``fmiVersion="3.0"``;
- a variable is an element of its type: Real -> ``Float64``, Integer -> ``Int32`` (an FMI 2.0 Integer is 32 bits),
  Boolean, String (its start value in a ``<Start value=...>`` child), Enumeration -> ``Enumeration`` with its
  ``declaredType``, set and read with ``fmi3SetInt64``/``fmi3GetInt64``; the value reference of a variable is
  its position in the table, as in the FMI 2.0 FMU; units, display units, min/max, descriptions and start values
  are those of the FMI 2.0 description (``post_process.unit_definitions``, ``Var.start_text``);
- the Enumeration types are ``<EnumerationType>`` elements (FMI 2.0: ``<SimpleType><Enumeration>``), with the
  same items (``post_process.type_definitions``);
- FMI 3.0 requires one independent variable: ``time`` [s], value reference ``len(table)`` (after every other);
- ``ModelStructure`` lists ``<Output>`` and ``<InitialUnknown>`` elements that name variables and their
  dependencies by value reference (FMI 2.0: by index, position + 1), computed by ``post_process.dependencies``
  from the same declaration: the same meaning, in the other numbering.

The native vehicle FMUs' FMI 3.0 builds use it (docs/native.md §7).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from lxml import etree

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.post_process import (dependencies, set_type_attributes, type_definitions, unit_definitions,
                                          unknown)
from fmu_vehicle.fmi.variables import Structure, Var, var_table

TYPES3 = {"Real": "Float64", "Integer": "Int32", "Boolean": "Boolean", "String": "String",
          "Enumeration": "Enumeration"}
"""The FMI 3.0 element of each ``Var.type``."""

TIME = "time"
"""The name of the independent variable (FMI 3.0 requires one)."""


def time_reference(table: Sequence[Var]) -> int:
    """The value reference of the independent variable ``time``: the one after the table's last."""
    return len(table)


def _enumeration_types(table: Sequence[Var]) -> etree._Element | None:
    """<TypeDefinitions> of FMI 3.0: the FMI 2.0 ones (``type_definitions``) as ``<EnumerationType>`` elements."""
    fmi2 = type_definitions(table)
    if fmi2 is None:
        return None
    node = etree.Element("TypeDefinitions")
    for simple in fmi2:
        enum = etree.SubElement(node, "EnumerationType", name=simple.get("name"), description=simple.get("description"))
        for item in simple.iterfind("Enumeration/Item"):
            etree.SubElement(enum, "Item", name=item.get("name"), value=item.get("value"))
    return node


def _variable(parent: etree._Element, vr: int, v: Var) -> None:
    node = etree.SubElement(parent, TYPES3[v.type], name=v.name, valueReference=str(vr))
    if v.description:
        node.set("description", v.description)
    node.set("causality", v.causality)
    node.set("variability", v.variability)
    if v.type == "Enumeration":
        node.set("declaredType", v.enumeration_type)
    set_type_attributes(node, v)
    if v.causality == "output":
        return                                  # initial="calculated": no start value
    if v.type == "String":
        etree.SubElement(node, "Start", value=v.start_text())
    else:
        node.set("start", v.start_text())


def model_description3(model_id: str, token: str, description: str, table: Sequence[Var], structure: Structure,
                        root_attrs: Mapping[str, str], co_simulation: Mapping[str, str],
                        experiment: Mapping[str, str]) -> bytes:
    """modelDescription.xml (FMI 3.0 Co-Simulation) of the FMU ``model_id`` whose variables are ``table`` (value
    reference = position) and whose ModelStructure is ``structure`` (the FMI 2.0 twin's declaration).

    token          the instantiationToken (the FMI 2.0 twin's GUID)
    root_attrs     further attributes of the root (generationTool, version, ...)
    co_simulation  the attributes of <CoSimulation> besides modelIdentifier (capability flags)
    experiment     the attributes of <DefaultExperiment>
    """
    table = list(table)
    names = var_table(tuple(table))
    structure.check(table)
    if TIME in names:
        raise ModelError(f"FMI 3.0 description of {model_id}: a variable is named '{TIME}', the independent variable's "
                         "name")
    root = etree.Element("fmiModelDescription", fmiVersion="3.0", modelName=model_id, instantiationToken=token,
                         description=description, **root_attrs, variableNamingConvention="structured")
    etree.SubElement(root, "CoSimulation", modelIdentifier=model_id, **co_simulation)
    root.append(unit_definitions([*(v.unit for v in table), "s"]))
    types = _enumeration_types(table)
    if types is not None:
        root.append(types)
    etree.SubElement(root, "DefaultExperiment", **experiment)
    variables = etree.SubElement(root, "ModelVariables")
    etree.SubElement(variables, "Float64", name=TIME, valueReference=str(time_reference(table)),
                     description="simulation time", causality="independent", variability="continuous", unit="s")
    for vr, v in enumerate(table):
        _variable(variables, vr, v)
    node = etree.SubElement(root, "ModelStructure")
    refs = {v.name: vr for vr, v in enumerate(table)}
    unknowns = dependencies([v.name for v in table], names, structure, refs, {})
    for vr, follows, _known in unknowns:
        unknown(node, "Output", [k for k, _ in follows], [kind for _, kind in follows], valueReference=str(vr))
    for vr, _follows, known in unknowns:
        if known is not None:
            unknown(node, "InitialUnknown", known, ["dependent"] * len(known), valueReference=str(vr))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
