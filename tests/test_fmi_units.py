"""Every variable of every built FMU has the unit written by hand in fmu_cases.UNITS (inputs, outputs and
parameters), and every unit its SI base-unit exponents written here, read from the modelDescription.xml."""
from __future__ import annotations

import zipfile

import pytest
from lxml import etree

from fmu_cases import UNITS

# exponents of kg, m, s, rad of each unit (FMI BaseUnit attributes), from the unit's definition
BASE = {
    "1": {}, "s": {"s": 1}, "m": {"m": 1}, "kg": {"kg": 1}, "rad": {"rad": 1},
    "m/s": {"m": 1, "s": -1}, "m/s2": {"m": 1, "s": -2}, "m/s3": {"m": 1, "s": -3},
    "rad/s": {"rad": 1, "s": -1}, "rad/s2": {"rad": 1, "s": -2},
    "1/s": {"s": -1}, "1/s2": {"s": -2},
    "N": {"kg": 1, "m": 1, "s": -2},                       # kg m / s2
    "N.m": {"kg": 1, "m": 2, "s": -2},
    "N/m": {"kg": 1, "s": -2},                             # kg m s-2 / m
    "N.s/m": {"kg": 1, "s": -1},
    "kg.m2": {"kg": 1, "m": 2},
    "m2": {"m": 2},
    "N/rad": {"kg": 1, "m": 1, "s": -2, "rad": -1},        # N per rad of slip angle
    "Pa": {"kg": 1, "m": -1, "s": -2},                      # N / m2
    "Pa/s": {"kg": 1, "m": -1, "s": -3},
    "N.m/Pa": {"m": 3},                                     # N m / (N m-2)
}


@pytest.mark.parametrize("name", list(UNITS))
def test_every_variable_has_the_expected_unit(registered_fmus, name):
    with zipfile.ZipFile(registered_fmus[name]) as z:
        root = etree.fromstring(z.read("modelDescription.xml"))
    found = {}
    for sv in root.find("ModelVariables"):
        found[sv.get("name")] = sv[0].get("unit") if sv[0].tag == "Real" else None
    assert set(found) == set(UNITS[name]), (set(found) ^ set(UNITS[name]))
    wrong = {v: (found[v], u) for v, u in UNITS[name].items() if found[v] != u}
    assert not wrong, wrong
    defs = {u.get("name"): u for u in root.find("UnitDefinitions")}
    for unit in {u for u in found.values() if u}:
        base = defs[unit].find("BaseUnit")
        got = {k: int(v) for k, v in base.attrib.items() if k not in ("factor", "offset") and int(v)}
        assert got == BASE[unit], unit
