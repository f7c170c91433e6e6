"""Patch ``modelDescription.xml`` of a built FMU from the slave's ``Var`` table (lxml).

pythonfmu 0.7.0 writes no units, min/max, UnitDefinitions, TypeDefinitions or InitialUnknowns (FMPy's validator
then reports the missing InitialUnknowns, and importers show unit-less signals), knows no Enumeration (the slave
registers one as an Integer: ``slave_base``), and its ``Outputs`` carry no
``dependencies`` (FMI 2.0: every output depends on every input, so a master sees an algebraic loop in every
feedback).  See docs/fmus.md §1.  ``patch_fmu`` adds them, turns the Integer element of every Enumeration
parameter into ``<Enumeration declaredType=.../>`` with a ``<TypeDefinitions><SimpleType><Enumeration><Item .../>``
type (FMI 2.0 section 2.2.3; item values 1, 2, ... in the order of ``Var.choices``), writes ``ModelStructure`` from the slave's
declaration (``variables.Structure``), sets root attributes, keeps the FMI 2.0 element order and rewrites
the zip atomically (temp file in the same folder + ``os.replace``).  The binary ignores the XML, so start
values and value references are left exactly as pythonfmu wrote them (they come from the code).
"""
from __future__ import annotations

import copy
import io
import os
import zipfile
from pathlib import Path
from typing import Iterable, Mapping

from lxml import etree

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.variables import UNITS, Structure, Var, unit_exponents, var_table
from fmu_vehicle.util import atomic_write

MODEL_DESCRIPTION = "modelDescription.xml"

#: Child order of <fmiModelDescription> in fmi2ModelDescription.xsd.
ROOT_ORDER = ("ModelExchange", "CoSimulation", "UnitDefinitions", "TypeDefinitions", "LogCategories",
              "DefaultExperiment", "VendorAnnotations", "ModelVariables", "ModelStructure")
STRUCTURE_ORDER = ("Outputs", "Derivatives", "InitialUnknowns")


def _number(value: float | int) -> str:
    """Shortest text that round-trips the value (repr of a float, str of an int)."""
    return repr(float(value)) if isinstance(value, float) else str(value)


def set_type_attributes(node: etree._Element, var: Var) -> None:
    """The unit, display unit, min and max of ``var`` on ``node`` (FMI 2.0: the type element of a
    <ScalarVariable>; FMI 3.0: the variable's element), where it has them."""
    if var.unit is not None:
        node.set("unit", var.unit)
    if var.display_unit is not None:
        node.set("displayUnit", var.display_unit)
    if var.min is not None:
        node.set("min", _number(var.min))
    if var.max is not None:
        node.set("max", _number(var.max))


def unit_definitions(units: Iterable[str | None]) -> etree._Element:
    """<UnitDefinitions> with every unit of ``units`` (BaseUnit exponents; None skipped) and all its display units
    (the same element in FMI 2.0 and 3.0)."""
    node = etree.Element("UnitDefinitions")
    for name in sorted({u for u in units if u is not None}):
        unit = etree.SubElement(node, "Unit", name=name)
        etree.SubElement(unit, "BaseUnit", {k: str(e) for k, e in unit_exponents(name).items()})
        for display, factor in UNITS[name].display.items():
            etree.SubElement(unit, "DisplayUnit", name=display, factor=repr(float(factor)))
    return node


def type_definitions(variables: Iterable[Var]) -> etree._Element | None:
    """<TypeDefinitions> with one <SimpleType><Enumeration> per Enumeration type used (None: no Enumeration).
    Two variables of one type name must have the same items."""
    types: dict[str, Var] = {}
    for var in variables:
        if var.type != "Enumeration":
            continue
        other = types.setdefault(var.enumeration_type, var)
        if other.choices != var.choices:
            raise ModelError(f"Enumeration type {var.enumeration_type}: '{other.name}' and '{var.name}' have "
                             f"different items")
    if not types:
        return None
    node = etree.Element("TypeDefinitions")
    for name, var in sorted(types.items()):
        simple = etree.SubElement(node, "SimpleType", name=name, description=f"the options of '{var.name}'")
        items = etree.SubElement(simple, "Enumeration")
        for value, choice in enumerate(var.choices, start=1):
            etree.SubElement(items, "Item", name=choice, value=str(value))
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


def unknown(parent: etree._Element, tag: str, dependencies: list[int], kinds: list[str], **attrs: str):
    """<``tag`` ``attrs`` dependencies [dependenciesKind]> (FMI 2.0: ``Unknown index=...``; FMI 3.0: ``Output`` or
    ``InitialUnknown valueReference=...``; ``dependencies`` sorted, ``kinds`` in that order; dependenciesKind only
    where there are dependencies, as FMPy's validation wants both or neither)."""
    node = etree.SubElement(parent, tag, **attrs, dependencies=" ".join(map(str, dependencies)))
    if dependencies:
        node.set("dependenciesKind", " ".join(kinds))
    return node


def dependencies(names: list[str], table: Mapping[str, Var], structure: Structure, refs: Mapping[str, int],
                 initial: Mapping[str, str | None]) -> list[tuple[int, list[tuple[int, str]], list[int] | None]]:
    """The ModelStructure of ``structure`` for the variables ``names`` (in the modelDescription's order), one
    (output, [(known, dependenciesKind)] it follows while stepping, [knowns] of its initial value or None when it
    is no initial unknown) per output, each variable given by ``refs[name]`` (FMI 2.0: its index, position + 1;
    FMI 3.0: its value reference), sorted. ``initial``: name -> its ``initial`` attribute (None: the default).
    The knowns of Initialization Mode besides the inputs are the variables with initial="exact" (the
    parameters)."""
    exact = [refs[n] for n in names if table[n].causality == "parameter" and initial.get(n) in (None, "exact")]
    out = []
    for name in names:
        if table[name].causality != "output":
            continue
        follows = sorted((refs[n], kind) for n, kind in structure.stepping.get(name, {}).items())
        known = None
        if initial.get(name) in (None, "calculated", "approx"):
            known = sorted(set(exact) | {refs[n] for n in structure.initial.get(name, ())})
        out.append((refs[name], follows, known))
    return out


def _model_structure(structure_node: etree._Element, scalars: list, table: dict[str, Var],
                     structure: Structure) -> None:
    """Write ``Outputs`` and ``InitialUnknowns`` (replacing any) from ``structure``; ``scalars`` are the
    <ScalarVariable> elements in index order (index = position + 1)."""
    names = [sv.get("name") for sv in scalars]
    for tag in ("Outputs", "InitialUnknowns"):
        old = structure_node.find(tag)
        if old is not None:
            structure_node.remove(old)
    outputs = etree.SubElement(structure_node, "Outputs")
    initial = etree.SubElement(structure_node, "InitialUnknowns")
    for i, follows, known in dependencies(names, table, structure, {n: i for i, n in enumerate(names, start=1)},
                                          {sv.get("name"): sv.get("initial") for sv in scalars}):
        unknown(outputs, "Unknown", [k for k, _ in follows], [kind for _, kind in follows], index=str(i))
        if known is not None:
            unknown(initial, "Unknown", known, ["dependent"] * len(known), index=str(i))
    for node in (outputs, initial):
        if not len(node):                       # an empty list is not valid FMI 2.0 XML
            structure_node.remove(node)


def patch_model_description(root: etree._Element, variables: Iterable[Var], structure: Structure,
                            root_attrs: Mapping[str, str] | None = None) -> None:
    """Patch a parsed modelDescription in place from ``variables`` (the slave's VARIABLES) and ``structure``
    (its STRUCTURE).

    root       the <fmiModelDescription> element written by pythonfmu
    variables  Var records; names, causality, variability and type must match the XML
    structure  which outputs depend on which inputs, in Initialization Mode and while stepping: written as
               ``ModelStructure/Outputs`` and ``InitialUnknowns`` with their dependencies
    root_attrs attributes to set on the root (version, copyright, generationTool, ...)
    """
    table = var_table(tuple(variables))
    structure.check(table.values())
    for key, value in (root_attrs or {}).items():
        root.set(key, value)

    for tag in ("UnitDefinitions", "TypeDefinitions"):
        old = root.find(tag)
        if old is not None:
            root.remove(old)
    root.append(unit_definitions(v.unit for v in table.values()))
    types = type_definitions(table.values())
    if types is not None:
        root.append(types)

    model_variables = root.find("ModelVariables")
    scalars = list(model_variables) if model_variables is not None else []
    names = [sv.get("name") for sv in scalars]
    if sorted(names) != sorted(table):
        raise ModelError(f"{MODEL_DESCRIPTION}: variables {sorted(set(names) ^ set(table))} differ "
                         f"between the XML and the Var table")
    for sv in scalars:
        var = table[sv.get("name")]
        type_node = sv[0]
        written = var.type
        if var.type == "Enumeration" and type_node.tag in ("Integer", "Enumeration"):   # registered as an Integer
            type_node.tag = "Enumeration"
            type_node.set("declaredType", var.enumeration_type)
            written = type_node.tag
        if (sv.get("causality"), sv.get("variability"), type_node.tag) != (var.causality, var.variability, written):
            raise ModelError(f"{MODEL_DESCRIPTION}: variable '{var.name}' was written as "
                             f"{sv.get('causality')}/{sv.get('variability')}/{type_node.tag}, the Var table "
                             f"says {var.causality}/{var.variability}/{var.type}")
        if var.description:
            sv.set("description", var.description)
        set_type_attributes(type_node, var)

    node = root.find("ModelStructure")
    if node is None:
        node = etree.SubElement(root, "ModelStructure")
    _model_structure(node, scalars, table, structure)
    _reorder(node, STRUCTURE_ORDER)
    _reorder(root, ROOT_ORDER)


def patch_fmu(fmu_path: Path, variables: Iterable[Var], structure: Structure,
              root_attrs: Mapping[str, str] | None = None, binaries: Mapping[str, bytes] | None = None) -> None:
    """Rewrite ``modelDescription.xml`` inside ``fmu_path`` (see ``patch_model_description``), atomically.

    binaries  when given, archive name (``binaries/linux64/<id>.so``) -> bytes of the FMU's binaries, in place
              of every file below ``binaries/`` the builder wrote (mode 0755)."""
    fmu_path = Path(fmu_path)
    with zipfile.ZipFile(fmu_path) as zin:
        entries = [(info, zin.read(info)) for info in zin.infolist()]
    if binaries is not None:
        entries = [(info, data) for info, data in entries if not info.filename.startswith("binaries/")]
        for name, data in sorted(binaries.items()):
            info = zipfile.ZipInfo(name, entries[0][0].date_time if entries else (2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o755 << 16
            entries.append((info, data))
    parser = etree.XMLParser(remove_blank_text=True)
    xml = dict((i.filename, d) for i, d in entries).get(MODEL_DESCRIPTION)
    if xml is None:
        raise ModelError(f"{fmu_path}: no {MODEL_DESCRIPTION} in the archive")
    root = etree.fromstring(xml, parser)
    patch_model_description(root, variables, structure, root_attrs)
    new_xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)

    def write(stream):
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as zout:
            for info, data in entries:
                payload = new_xml if info.filename == MODEL_DESCRIPTION else data
                info = copy.copy(info)          # keeps name, date and file mode (binaries)
                info.compress_type = zipfile.ZIP_DEFLATED
                zout.writestr(info, payload)

    atomic_write(fmu_path, write, mode="wb")


def enumerations_as_integers(xml: bytes) -> bytes:
    """``modelDescription.xml`` with every Enumeration variable declared as an Integer with min 1 and max the
    number of items (the same value references and item values; the items' names appended to the description),
    for importers that skip FMI Enumeration variables: libcosim leaves them out of its variable list, so an
    SSP binding on them is dropped. Our FMUs register enumerations as Integers, so such a copy runs unchanged."""
    root = etree.fromstring(xml, etree.XMLParser(remove_blank_text=True))
    items = {simple.get("name"): [i.get("name") for i in simple.iterfind("Enumeration/Item")]
             for simple in root.iterfind("TypeDefinitions/SimpleType")}
    for sv in root.iterfind("ModelVariables/ScalarVariable"):
        node = sv.find("Enumeration")
        if node is None:
            continue
        names = items.get(node.get("declaredType"))
        if not names:
            raise ModelError(f"{MODEL_DESCRIPTION}: '{sv.get('name')}' has no items (declaredType "
                             f"{node.get('declaredType')!r})")
        node.tag = "Integer"
        del node.attrib["declaredType"]
        node.set("min", "1")
        node.set("max", str(len(names)))
        listing = ", ".join(f"{k} = {name}" for k, name in enumerate(names, 1))
        sv.set("description", f"{sv.get('description', '')} [{listing}]".strip())
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def fmu_with_integer_choices(fmu: bytes) -> bytes:
    """The FMU archive ``fmu`` (bytes) with :func:`enumerations_as_integers` applied to its modelDescription."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(fmu)) as zin, zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == MODEL_DESCRIPTION:
                data = enumerations_as_integers(data)
            zout.writestr(copy.copy(info), data)
    return out.getvalue()


def ssp_with_integer_choices(path: str | os.PathLike, out: str | os.PathLike) -> Path:
    """Write to ``out`` a copy of the ``.ssp`` archive ``path`` whose FMUs declare their Enumeration parameters
    as Integers (:func:`enumerations_as_integers`; the SSD and its ``ssv:Integer`` bindings
    unchanged), for hosts that skip FMI enumerations: libcosim (0.10) leaves them out of its variable list and
    drops their bindings, so every choice would stay at its default. Written atomically; returns ``out``."""
    path = Path(path)
    if not zipfile.is_zipfile(path):
        raise ModelError(f"{path}: not an .ssp archive")
    with zipfile.ZipFile(path) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]

    def write(stream):
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as copy_:
            for info, data in entries:
                copy_.writestr(info, fmu_with_integer_choices(data) if info.filename.endswith(".fmu") else data)

    return atomic_write(Path(out), write, mode="wb")
