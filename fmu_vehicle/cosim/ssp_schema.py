"""Check System Structure Descriptions against the SSP 1.0 standard: its XML schemas and the unit rule.

The schemas are the five normative XML Schema 1.0 files of SSP 1.0 (``resources/schemas/ssp1.0``, their source
and license in the README there). ``SystemStructureDescription.xsd`` admits the inline ``ssv:ParameterSet`` of a
parameter binding (and any annotation content) through ``xs:any processContents="lax"``: lax content is checked
against the declaration of its element where the schema set has one, so the SSD is validated against one schema
set that imports all five namespaces. The inline parameter sets are then checked as strictly as ``.ssv`` files;
annotations in other namespaces (the OSP step sizes) have no declaration and are only required to sit where the
schema admits ``ssc:Annotations``.

One rule of the standard is not expressible in XML Schema 1.0 and is checked here besides: the ``unit``
attribute of a connector type (``ssc:Real``) or of an ``ssv:Real`` value MUST name an ``ssc:Unit`` declared in
the ``Units`` element of the file's top-level element (SSP 1.0 §4.5.1.1 and §6.2.1: ``ssd:Units`` of the SSD,
``ssv:Units`` of an inline parameter set; a unit is declared by its SI base-unit exponents, §4.4.2).

See docs/cosimulation.md §8.
"""
from __future__ import annotations

import os
import zipfile
from functools import lru_cache
from pathlib import Path

from lxml import etree

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path

SSD_FILE_NAME = "SystemStructure.ssd"
"""The system structure file at the root of an SSP archive (SSP 1.0 §4)."""

SSP1_SCHEMAS = ("SystemStructureCommon", "SystemStructureDescription", "SystemStructureParameterValues",
                "SystemStructureParameterMapping", "SystemStructureSignalDictionary")
"""The SSP 1.0 schema files (``<name>.xsd``); each defines the namespace ``http://ssp-standard.org/SSP1/<name>``."""

_SSD_ROOT = "{http://ssp-standard.org/SSP1/SystemStructureDescription}SystemStructureDescription"
_SSV_SET = "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}ParameterSet"
_UNITS = {_SSD_ROOT: "{http://ssp-standard.org/SSP1/SystemStructureDescription}Units",
          _SSV_SET: "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}Units"}
_UNIT = "{http://ssp-standard.org/SSP1/SystemStructureCommon}Unit"
_UNIT_USERS = ("{http://ssp-standard.org/SSP1/SystemStructureCommon}Real",
               "{http://ssp-standard.org/SSP1/SystemStructureParameterValues}Real")


def schema_dir() -> Path:
    """Folder of the shipped SSP 1.0 schema files."""
    return resource_path("schemas", "ssp1.0")


@lru_cache(maxsize=1)
def _schema() -> etree.XMLSchema:
    """One schema set importing the five SSP 1.0 namespaces (so that lax content is validated too)."""
    imports = "".join(f'<xs:import namespace="http://ssp-standard.org/SSP1/{name}" '
                      f'schemaLocation="{(schema_dir() / f"{name}.xsd").resolve().as_uri()}"/>'
                      for name in SSP1_SCHEMAS)
    return etree.XMLSchema(etree.XML(f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">{imports}'
                                     f'</xs:schema>'))


def ssd_problems(root) -> list[str]:
    """Every SSP 1.0 violation of the SSD document ``root`` (an lxml element): ``line N: message`` each,
    empty when it is valid (schema, then the unit rule of the module docstring)."""
    schema = _schema()
    problems = [] if schema.validate(root) else [f"line {e.line}: {e.message}" for e in schema.error_log]
    if root.tag != _SSD_ROOT:
        problems.append(f"line {root.sourceline}: root element is {root.tag}, expected {_SSD_ROOT}")
    for el in root.iter(*_UNIT_USERS):
        unit = el.get("unit")
        if unit is None:
            continue
        top = next((a for a in el.iterancestors() if a.tag in _UNITS), root)
        units = top.find(_UNITS.get(top.tag, _UNITS[_SSD_ROOT]))
        declared = set() if units is None else {u.get("name") for u in units.iterchildren(_UNIT)}
        if unit not in declared:
            problems.append(f"line {el.sourceline}: unit '{unit}' is not declared in the Units of "
                            f"<{etree.QName(top).localname}> (declared: {', '.join(sorted(declared)) or 'none'})")
    return problems


def check_ssd(source: str | os.PathLike | bytes) -> None:
    """Raise ModelError naming the file and every violation unless ``source`` is a valid SSP 1.0 SSD.

    ``source``: an ``.ssd`` file, an ``.ssp`` archive or SSP folder (its ``SystemStructure.ssd``), or the
    bytes of an SSD document."""
    if isinstance(source, bytes):
        name, data = "SSD document", source
    else:
        path = Path(source)
        try:
            if path.is_dir():
                name, data = str(path / SSD_FILE_NAME), (path / SSD_FILE_NAME).read_bytes()
            elif zipfile.is_zipfile(path):
                with zipfile.ZipFile(path) as archive:
                    name, data = f"{path}!{SSD_FILE_NAME}", archive.read(SSD_FILE_NAME)
            else:
                name, data = str(path), path.read_bytes()
        except (OSError, KeyError, zipfile.BadZipFile) as exc:
            raise ModelError(f"{path}: cannot read the SSD: {exc}") from exc
    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError as exc:
        raise ModelError(f"{name}: cannot parse XML: {exc}") from exc
    problems = ssd_problems(root)
    if problems:
        raise ModelError(f"{name}: not a valid SSP 1.0 system structure description: {'; '.join(problems)}")
