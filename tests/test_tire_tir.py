"""Tests for the .tir reader: shipped file round trip, syntax, defaults, SI-only units, error messages."""
from __future__ import annotations

import re

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire import tir
from fmu_vehicle.tire.tir import (COEFFICIENTS, N_PARAMS, P_CZ, P_FNOMIN, P_KZ, P_LMUX, P_PDX1, P_PTX1, P_QSY1, P_R0,
                                  parse_tir_text, read_tir)

SHIPPED = resource_path("tires", "pacejka_light_truck.tir")

MINIMAL = """\
[UNITS]
LENGTH = 'meter'
FORCE = 'newton'
TIME = 'second'
[DIMENSION]
UNLOADED_RADIUS = 0.4
[VERTICAL]
FNOMIN = 5000
VERTICAL_STIFFNESS = 250000
VERTICAL_DAMPING = 300
[LONGITUDINAL_COEFFICIENTS]
PCX1 = 1.6
PDX1 = 1.1
PEX1 = 0.2
PKX1 = 20
[ROLLING_COEFFICIENTS]
QSY1 = 0.01
"""


def raw_values(path) -> dict[str, float]:
    """KEY -> number for every 'KEY = number' line of a file, parsed with a plain regex (independent of tir.py)."""
    values = {}
    for line in path.read_text().splitlines():
        match = re.match(r"^\s*([A-Za-z_0-9]+)\s*=\s*([-+0-9.eE]+)\s*(\$.*)?$", line)
        if match:
            values[match.group(1).upper()] = float(match.group(2))
    return values


def write(tmp_path, text: str, name: str = "t.tir"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_shipped_file_round_trip():
    params = read_tir(SHIPPED)
    raw = raw_values(SHIPPED)
    assert raw["UNLOADED_RADIUS"] == 0.4672 and raw["FNOMIN"] == 6000.0
    for name, *_rest in COEFFICIENTS:
        if name in raw:
            assert getattr(params, name) == raw[name], name
    array = params.to_array()
    assert array.dtype == np.float64 and array.shape == (N_PARAMS,)
    assert array[P_R0] == 0.4672
    assert array[P_FNOMIN] == 6000.0
    assert array[P_CZ] == raw["VERTICAL_STIFFNESS"]
    assert array[P_KZ] == raw["VERTICAL_DAMPING"]
    assert array[P_PDX1] == raw["PDX1"]
    assert array[P_QSY1] == raw["QSY1"]
    assert params.file_format == "61"
    assert params.sections["UNITS"]["LENGTH"] == "meter"
    assert params.sections["MDI_HEADER"]["FILE_TYPE"] == "tir"


def test_shipped_file_is_in_the_requested_ranges():
    p = read_tir(SHIPPED)
    assert 0.9 <= p.PDX1 * p.LMUX <= 1.2 and 15.0 <= p.PKX1 <= 20.0
    assert p.QSY1 == pytest.approx(0.012) and p.VERTICAL_STIFFNESS == pytest.approx(2e5)
    assert p.VERTICAL_DAMPING == pytest.approx(500.0)
    assert 0.2 <= p.PTX1 * p.UNLOADED_RADIUS <= 0.4  # relaxation length at FNOMIN [m]


def test_defaults_for_optional_coefficients(tmp_path):
    p = read_tir(write(tmp_path, MINIMAL))
    assert (p.LFZO, p.LCX, p.LMUX, p.LEX, p.LKX, p.LHX, p.LVX, p.LMY, p.LSGKP, p.LCZ) == (1.0,) * 10
    assert (p.PDX2, p.PEX2, p.PEX3, p.PEX4, p.PKX2, p.PKX3, p.PHX1, p.PHX2, p.PVX1, p.PVX2) == (0.0,) * 10
    assert (p.QSY3, p.QSY4, p.PTX2, p.PTX3) == (0.0,) * 4
    assert p.PTX1 == pytest.approx(tir.DEFAULT_RELAXATION_LENGTH_M / 0.4)
    assert (p.LONGVL, p.VXLOW, p.KPUMIN, p.KPUMAX) == (16.7, 1.0, -1.5, 1.5)
    assert p.KVLOW0 == tir.DEFAULT_KVLOW0_NS_PER_M
    assert (p.BREFF, p.DREFF, p.FREFF) == (0.0, 0.0, pytest.approx(1.0 / 3.0))
    assert p.to_array()[P_PTX1] == p.PTX1 and p.to_array()[P_LMUX] == 1.0


def test_syntax_comments_quotes_case_and_fortran_exponents(tmp_path):
    text = """\
$ header comment
! another comment
[units]
length = "METER"   ! trailing comment
Force='Newton'$ no space before the comment
[Dimension]
unloaded_radius = 4.0D-1        $ Fortran exponent
[VERTICAL]
FNOMIN = 5000
VERTICAL_STIFFNESS = 2.5e5
VERTICAL_DAMPING = 300
[MODEL]
TYRESIDE = 'LEFT $ not a comment'
USE_MODE = 4
[LONGITUDINAL_COEFFICIENTS]
PCX1 = 1.6
pdx1 = +1.1
PEX1 = -.2
PKX1 = 20
[ROLLING_COEFFICIENTS]
QSY1 = 0.01
[DEFLECTION_LOAD_CURVE]
{pen     fz}
0.000    0.0
0.010    2500.0
"""
    p = read_tir(write(tmp_path, text))
    assert p.UNLOADED_RADIUS == 0.4 and p.PDX1 == 1.1 and p.PEX1 == -0.2
    assert p.sections["MODEL"]["TYRESIDE"] == "LEFT $ not a comment"
    assert p.sections["UNITS"]["FORCE"] == "Newton"
    assert p.tables["DEFLECTION_LOAD_CURVE"] == [(0.0, 0.0), (0.01, 2500.0)]


def test_missing_pdx1_names_file_and_coefficient(tmp_path):
    path = write(tmp_path, MINIMAL.replace("PDX1 = 1.1\n", ""), "no_pdx1.tir")
    with pytest.raises(ModelError) as info:
        read_tir(path)
    message = str(info.value)
    assert "no_pdx1.tir" in message and "[LONGITUDINAL_COEFFICIENTS] PDX1 missing" in message


@pytest.mark.parametrize("key, value", [("LENGTH", "'mm'"), ("FORCE", "'kN'"), ("TIME", "'milli'"),
                                        ("ANGLE", "'deg'")])
def test_non_si_units_are_rejected(tmp_path, key, value):
    si_units = "[UNITS]\nLENGTH = 'meter'\nFORCE = 'newton'\nTIME = 'second'\n"
    path = write(tmp_path, MINIMAL.replace(si_units, f"[UNITS]\n{key} = {value}\n"), "mm.tir")
    with pytest.raises(ModelError, match=rf"mm\.tir.*\[UNITS\] {key} = .*not supported"):
        read_tir(path)


@pytest.mark.parametrize("old, new, fragment", [
    ("PKX1 = 20", "PKX1 = 'abc'", "[LONGITUDINAL_COEFFICIENTS] PKX1 = 'abc' is not a finite number"),
    ("UNLOADED_RADIUS = 0.4", "UNLOADED_RADIUS = -0.4", "[DIMENSION] UNLOADED_RADIUS = -0.4 must be > 0"),
    ("QSY1 = 0.01", "QSY1 = -0.01", "[ROLLING_COEFFICIENTS] QSY1 = -0.01 must be >= 0"),
    ("PEX1 = 0.2", "PEX1 = 0.2\nPEX1 = 0.3", "[LONGITUDINAL_COEFFICIENTS] PEX1 given twice"),
    ("PEX1 = 0.2", "PEX1 = 'open", "unclosed quote"),
    ("PEX1 = 0.2", "PEX1 0.2 x", "cannot parse"),
    ("[UNITS]", "LOOSE = 1\n[UNITS]", "before the first [SECTION]"),
])
def test_bad_entries_name_file_and_key(tmp_path, old, new, fragment):
    path = write(tmp_path, MINIMAL.replace(old, new), "bad.tir")
    with pytest.raises(ModelError) as info:
        read_tir(path)
    assert "bad.tir" in str(info.value) and fragment in str(info.value)


def test_missing_file_and_slip_range(tmp_path):
    with pytest.raises(ModelError, match="nowhere.tir.*cannot read"):
        read_tir(tmp_path / "nowhere.tir")
    path = write(tmp_path, MINIMAL + "[LONG_SLIP_RANGE]\nKPUMIN = 1\nKPUMAX = -1\n", "range.tir")
    with pytest.raises(ModelError, match="range.tir.*KPUMIN"):
        read_tir(path)


def test_parse_keeps_every_section_upper_case():
    sections, tables = parse_tir_text("[a_b]\nx = 1\n[C]\nY='z'\n", "mem")
    assert sections == {"A_B": {"X": 1.0}, "C": {"Y": "z"}} and tables == {}
