"""Reader for MF-Tyre/MF-Swift ``.tir`` property files and the flat parameter array the njit kernels take.

File syntax (MF-Tyre 5.2 / PAC2002 / MF 6.1 property files):
    [SECTION]                     section header, case-insensitive
    KEY = value  $ comment        numbers (Fortran ``1.0D-3`` accepted), 'quoted' or "quoted" strings, bare words
    $ ... / ! ...                 comment lines; ``$`` and ``!`` outside quotes also start trailing comments
    {fz  pen}  /  0.0  0.0        table sections (e.g. [DEFLECTION_LOAD_CURVE]): kept as numeric rows, unused

Units: only SI files are accepted (LENGTH meter, FORCE newton, TIME second, ANGLE radian, MASS kg,
PRESSURE pascal). Any other unit in ``[UNITS]`` raises ModelError; convert such files to SI first. A file
without ``[UNITS]`` is taken as SI.

Only the pure longitudinal, rolling-resistance and vertical parts of the Magic Formula are used (camber,
inflation pressure, lateral and combined-slip coefficients are read into ``sections`` but not modelled).
Required coefficients (ModelError when missing): UNLOADED_RADIUS, FNOMIN, VERTICAL_STIFFNESS,
VERTICAL_DAMPING, PCX1, PDX1, PEX1, PKX1, QSY1. Every other coefficient has the default given in
``COEFFICIENTS`` (scaling factors L*: 1; shift/variation terms: 0). ``PTX1`` defaults to 0.3 m / R0, i.e. a
longitudinal relaxation length of 0.3 m at the nominal load growing in proportion to the load.
``KVLOW0`` ([MODEL], N s/m) is an fmu_vehicle extension key (low-speed longitudinal damping, see
``pacejka.low_speed_damping``); other MF readers ignore it.

See docs/tire.md §8.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from ..errors import ModelError

# ---- layout of TireParams.to_array() (float64, length N_PARAMS) ---------------------------------------
P_R0 = 0          # UNLOADED_RADIUS [m]
P_FNOMIN = 1      # FNOMIN, nominal load Fz0 [N]
P_CZ = 2          # VERTICAL_STIFFNESS [N/m]
P_KZ = 3          # VERTICAL_DAMPING [N s/m]
P_BREFF = 4       # effective rolling radius: low-load stiffness factor [-]
P_DREFF = 5       # effective rolling radius: peak value [-]
P_FREFF = 6       # effective rolling radius: high-load stiffness factor [-]
P_LONGVL = 7      # reference (measurement) speed [m/s]
P_VXLOW = 8       # below |Vx| < VXLOW the low-speed damping fades in [m/s]
P_KVLOW0 = 9      # low-speed longitudinal damping at standstill [N s/m] (fmu_vehicle extension)
P_KPUMIN = 10     # lower limit of the transient slip state [-]
P_KPUMAX = 11     # upper limit of the transient slip state [-]
P_PCX1 = 12
P_PDX1 = 13
P_PDX2 = 14
P_PEX1 = 15
P_PEX2 = 16
P_PEX3 = 17
P_PEX4 = 18
P_PKX1 = 19
P_PKX2 = 20
P_PKX3 = 21
P_PHX1 = 22
P_PHX2 = 23
P_PVX1 = 24
P_PVX2 = 25
P_PTX1 = 26
P_PTX2 = 27
P_PTX3 = 28
P_QSY1 = 29
P_QSY3 = 30
P_QSY4 = 31
P_LFZO = 32
P_LCX = 33
P_LMUX = 34
P_LEX = 35
P_LKX = 36
P_LHX = 37
P_LVX = 38
P_LMY = 39
P_LSGKP = 40
P_LCZ = 41
N_PARAMS = 42

DEFAULT_RELAXATION_LENGTH_M = 0.3
"""Longitudinal relaxation length at FNOMIN used when the file has no PTX1 [m]."""

DEFAULT_KVLOW0_NS_PER_M = 4000.0
"""Low-speed longitudinal damping at standstill when [MODEL] KVLOW0 is absent [N s/m]."""

REQUIRED = None
"""Marker for a coefficient without default."""

# (field/key, section, default or REQUIRED, rule, array index); rule: "pos" > 0, "nonneg" >= 0, "any" finite
COEFFICIENTS = (
    ("UNLOADED_RADIUS", "DIMENSION", REQUIRED, "pos", P_R0),
    ("FNOMIN", "VERTICAL", REQUIRED, "pos", P_FNOMIN),
    ("VERTICAL_STIFFNESS", "VERTICAL", REQUIRED, "pos", P_CZ),
    ("VERTICAL_DAMPING", "VERTICAL", REQUIRED, "nonneg", P_KZ),
    ("BREFF", "VERTICAL", 0.0, "nonneg", P_BREFF),
    ("DREFF", "VERTICAL", 0.0, "nonneg", P_DREFF),
    ("FREFF", "VERTICAL", 1.0 / 3.0, "nonneg", P_FREFF),
    ("LONGVL", "MODEL", 16.7, "pos", P_LONGVL),
    ("VXLOW", "MODEL", 1.0, "pos", P_VXLOW),
    ("KVLOW0", "MODEL", DEFAULT_KVLOW0_NS_PER_M, "nonneg", P_KVLOW0),
    ("KPUMIN", "LONG_SLIP_RANGE", -1.5, "any", P_KPUMIN),
    ("KPUMAX", "LONG_SLIP_RANGE", 1.5, "any", P_KPUMAX),
    ("PCX1", "LONGITUDINAL_COEFFICIENTS", REQUIRED, "pos", P_PCX1),
    ("PDX1", "LONGITUDINAL_COEFFICIENTS", REQUIRED, "pos", P_PDX1),
    ("PDX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PDX2),
    ("PEX1", "LONGITUDINAL_COEFFICIENTS", REQUIRED, "any", P_PEX1),
    ("PEX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PEX2),
    ("PEX3", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PEX3),
    ("PEX4", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PEX4),
    ("PKX1", "LONGITUDINAL_COEFFICIENTS", REQUIRED, "pos", P_PKX1),
    ("PKX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PKX2),
    ("PKX3", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PKX3),
    ("PHX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PHX1),
    ("PHX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PHX2),
    ("PVX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PVX1),
    ("PVX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PVX2),
    ("PTX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "pos", P_PTX1),  # default 0.3 m / R0, set in read_tir
    ("PTX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PTX2),
    ("PTX3", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PTX3),
    ("QSY1", "ROLLING_COEFFICIENTS", REQUIRED, "nonneg", P_QSY1),
    ("QSY3", "ROLLING_COEFFICIENTS", 0.0, "nonneg", P_QSY3),
    ("QSY4", "ROLLING_COEFFICIENTS", 0.0, "nonneg", P_QSY4),
    ("LFZO", "SCALING_COEFFICIENTS", 1.0, "pos", P_LFZO),
    ("LCX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LCX),
    ("LMUX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LMUX),
    ("LEX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LEX),
    ("LKX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LKX),
    ("LHX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LHX),
    ("LVX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LVX),
    ("LMY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LMY),
    ("LSGKP", "SCALING_COEFFICIENTS", 1.0, "pos", P_LSGKP),
    ("LCZ", "SCALING_COEFFICIENTS", 1.0, "pos", P_LCZ),
)

SI_UNITS = {
    "LENGTH": ("meter", {"METER", "METRE", "M"}),
    "FORCE": ("newton", {"NEWTON", "N"}),
    "ANGLE": ("radian", {"RADIAN", "RADIANS", "RAD"}),
    "MASS": ("kg", {"KG", "KILOGRAM"}),
    "TIME": ("second", {"SECOND", "SEC", "S"}),
    "PRESSURE": ("pascal", {"PASCAL", "PA"}),
}
"""Accepted spellings (upper case) of each [UNITS] entry."""

_KEY = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([EeDd][+-]?\d+)?$")


@dataclass(frozen=True)
class TireParams:
    """Magic Formula coefficients read from one .tir file (names as in the MF standard, SI units).

    Fields:
        path                 the file read
        file_format          [MODEL] PROPERTY_FILE_FORMAT or FITTYP as written ('' if absent)
        UNLOADED_RADIUS..LCZ the coefficients of ``COEFFICIENTS`` (defaults filled in)
        sections             every section as {KEY: float | str}, keys upper case (raw file content)
        tables               numeric rows of table sections, {SECTION: [(v0, v1, ...), ...]}
    """

    path: str
    file_format: str
    UNLOADED_RADIUS: float
    FNOMIN: float
    VERTICAL_STIFFNESS: float
    VERTICAL_DAMPING: float
    BREFF: float
    DREFF: float
    FREFF: float
    LONGVL: float
    VXLOW: float
    KVLOW0: float
    KPUMIN: float
    KPUMAX: float
    PCX1: float
    PDX1: float
    PDX2: float
    PEX1: float
    PEX2: float
    PEX3: float
    PEX4: float
    PKX1: float
    PKX2: float
    PKX3: float
    PHX1: float
    PHX2: float
    PVX1: float
    PVX2: float
    PTX1: float
    PTX2: float
    PTX3: float
    QSY1: float
    QSY3: float
    QSY4: float
    LFZO: float
    LCX: float
    LMUX: float
    LEX: float
    LKX: float
    LHX: float
    LVX: float
    LMY: float
    LSGKP: float
    LCZ: float
    sections: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    tables: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def to_array(self) -> np.ndarray:
        """The coefficients as float64[N_PARAMS] in the P_* layout (raw values; scaling applied by the kernels)."""
        out = np.zeros(N_PARAMS, dtype=np.float64)
        for name, _section, _default, _rule, index in COEFFICIENTS:
            out[index] = getattr(self, name)
        return out


def _strip_comment(line: str) -> str:
    """The line without a trailing ``$``/``!`` comment (quotes respected)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "$!":
            return line[:i]
    return line


def _parse_value(text: str):
    """A float, or a string for quoted values and bare words; None if a quote is not closed."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        if len(text) < 2 or text[-1] != text[0]:
            return None
        return text[1:-1].strip()
    if _NUMBER.match(text):
        return float(text.replace("D", "E").replace("d", "e"))
    return text


def parse_tir_text(text: str, source: str) -> tuple[dict, dict]:
    """Sections {NAME: {KEY: value}} and tables {NAME: [row, ...]} of .tir text; errors name ``source``."""
    sections: dict[str, dict] = {}
    tables: dict[str, list] = {}
    current = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in "$!":
            continue
        line = _strip_comment(stripped).strip()
        if not line:
            continue
        where = f"tire file '{source}' line {lineno}"
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise ModelError(f"{where}: bad section header {line!r}")
            current = line[1:-1].strip().upper()
            if current in sections:
                raise ModelError(f"{where}: section [{current}] appears twice")
            sections[current] = {}
            continue
        if current is None:
            raise ModelError(f"{where}: {line!r} before the first [SECTION] header")
        if "=" in line:
            key, _, value_text = line.partition("=")
            key = key.strip().upper()
            if not _KEY.match(key):
                raise ModelError(f"{where}: [{current}] bad key {key!r}")
            if not value_text.strip():
                raise ModelError(f"{where}: [{current}] {key} has no value")
            value = _parse_value(value_text)
            if value is None:
                raise ModelError(f"{where}: [{current}] {key} has an unclosed quote: {value_text.strip()!r}")
            if key in sections[current]:
                raise ModelError(f"{where}: [{current}] {key} given twice")
            sections[current][key] = value
            continue
        if line.startswith("{"):
            continue  # column header of a table section
        tokens = line.split()
        if all(_NUMBER.match(tok) for tok in tokens):
            row = tuple(float(tok.replace("D", "E").replace("d", "e")) for tok in tokens)
            tables.setdefault(current, []).append(row)
            continue
        raise ModelError(f"{where}: [{current}] cannot parse {line!r} (expected KEY = value)")
    return sections, tables


def check_units(sections: dict, source: str) -> None:
    """ModelError unless every [UNITS] entry is SI (see ``SI_UNITS``); no [UNITS] section means SI."""
    for key, value in sections.get("UNITS", {}).items():
        if key not in SI_UNITS:
            continue
        name, accepted = SI_UNITS[key]
        if not isinstance(value, str) or value.strip().upper() not in accepted:
            raise ModelError(f"tire file '{source}': [UNITS] {key} = {value!r} is not supported "
                             f"(only SI, {key} = '{name}'); convert the file to SI units")


def _coefficient(sections: dict, source: str, name: str, section: str, default, rule: str) -> float:
    """One coefficient: value from the file or default; ModelError if missing, not a number or out of range."""
    entries = sections.get(section, {})
    if name not in entries:
        if default is REQUIRED:
            raise ModelError(f"tire file '{source}': [{section}] {name} missing")
        return float(default)
    value = entries[name]
    if isinstance(value, str) or not math.isfinite(value):
        raise ModelError(f"tire file '{source}': [{section}] {name} = {value!r} is not a finite number")
    if rule == "pos" and value <= 0.0:
        raise ModelError(f"tire file '{source}': [{section}] {name} = {value!r} must be > 0")
    if rule == "nonneg" and value < 0.0:
        raise ModelError(f"tire file '{source}': [{section}] {name} = {value!r} must be >= 0")
    return float(value)


def read_tir(path: str | os.PathLike) -> TireParams:
    """Read and validate a .tir file.

    Parameters:
        path     .tir property file (SI units)

    Returns:
        TireParams with defaults filled in (see module docstring)

    Raises ModelError naming the file and the section/key for unreadable files, syntax errors, non-SI
    units, missing required or invalid coefficients, and KPUMIN >= KPUMAX.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ModelError(f"tire file '{source}': cannot read ({exc.strerror or exc})") from None
    sections, tables = parse_tir_text(text, source)
    check_units(sections, source)
    values = {}
    for name, section, default, rule, _index in COEFFICIENTS:
        values[name] = _coefficient(sections, source, name, section, default, rule)
    if "PTX1" not in sections.get("LONGITUDINAL_COEFFICIENTS", {}):
        values["PTX1"] = DEFAULT_RELAXATION_LENGTH_M / values["UNLOADED_RADIUS"]
    if values["KPUMIN"] >= values["KPUMAX"]:
        raise ModelError(f"tire file '{source}': [LONG_SLIP_RANGE] KPUMIN = {values['KPUMIN']!r} "
                         f"must be < KPUMAX = {values['KPUMAX']!r}")
    model = sections.get("MODEL", {})
    file_format = model.get("PROPERTY_FILE_FORMAT", model.get("FITTYP", ""))
    if isinstance(file_format, float) and file_format.is_integer():
        file_format = int(file_format)
    return TireParams(path=source, file_format=str(file_format).strip(), sections=sections, tables=tables,
                      **values)


def coefficient_names() -> tuple[str, ...]:
    """Names of the coefficient fields of TireParams, in ``COEFFICIENTS`` order."""
    return tuple(name for name, *_rest in COEFFICIENTS)


def _check_layout() -> None:
    """Import-time guard: COEFFICIENTS covers every array slot once and every coefficient field."""
    indices = sorted(entry[4] for entry in COEFFICIENTS)
    if indices != list(range(N_PARAMS)):
        raise RuntimeError("tir.COEFFICIENTS does not cover the P_* layout exactly once")
    declared = [f.name for f in fields(TireParams)][2:-2]
    if declared != list(coefficient_names()):
        raise RuntimeError("TireParams fields and tir.COEFFICIENTS are out of order")


_check_layout()
