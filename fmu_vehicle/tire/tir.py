"""Reader for MF-Tyre/MF-Swift ``.tir`` property files and the flat parameter array the njit kernels take.

File syntax (MF-Tyre 5.2 / PAC2002 / MF 6.1 property files):
    [SECTION]                     section header, case-insensitive
    KEY = value  $ comment        numbers (Fortran ``1.0D-3`` accepted), 'quoted' or "quoted" strings, bare words
    $ ... / ! ...                 comment lines; ``$`` and ``!`` outside quotes also start trailing comments
    {fz  pen}  /  0.0  0.0        table sections (e.g. [DEFLECTION_LOAD_CURVE]): kept as numeric rows, unused

Units: only SI files are accepted (LENGTH meter, FORCE newton, TIME second, ANGLE radian, MASS kg,
PRESSURE pascal). Any other unit in ``[UNITS]`` raises ModelError; convert such files to SI first. A file
without ``[UNITS]`` is taken as SI.

The parameter array holds the pure longitudinal, rolling-resistance and vertical coefficients used by the
vehicle today, and the MF 5.2 lateral, aligning, camber and combined-slip coefficients used by
``pacejka_combined`` (P_PDX3 onwards). Inflation pressure, overturning and turn-slip coefficients are read
into ``sections`` but not modelled. Missing MF 5.2 coefficients default as in MF-Tyre: 0, and 1 for the
scaling factors L*, so a longitudinal-only file gives Fy = Mz = 0 and Gx_alpha = 1.
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
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .interface import N_PARAMS, P_MODEL

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
P_PDX3 = 42      # combined-slip, lateral and aligning coefficients (pacejka_combined.py, MF 5.2)
P_RBX1 = 43
P_RBX2 = 44
P_RCX1 = 45
P_REX1 = 46
P_REX2 = 47
P_RHX1 = 48
P_PCY1 = 49
P_PDY1 = 50
P_PDY2 = 51
P_PDY3 = 52
P_PEY1 = 53
P_PEY2 = 54
P_PEY3 = 55
P_PEY4 = 56
P_PKY1 = 57
P_PKY2 = 58
P_PKY3 = 59
P_PHY1 = 60
P_PHY2 = 61
P_PHY3 = 62
P_PVY1 = 63
P_PVY2 = 64
P_PVY3 = 65
P_PVY4 = 66
P_RBY1 = 67
P_RBY2 = 68
P_RBY3 = 69
P_RCY1 = 70
P_REY1 = 71
P_REY2 = 72
P_RHY1 = 73
P_RHY2 = 74
P_RVY1 = 75
P_RVY2 = 76
P_RVY3 = 77
P_RVY4 = 78
P_RVY5 = 79
P_RVY6 = 80
P_QBZ1 = 81
P_QBZ2 = 82
P_QBZ3 = 83
P_QBZ4 = 84
P_QBZ5 = 85
P_QBZ9 = 86
P_QBZ10 = 87
P_QCZ1 = 88
P_QDZ1 = 89
P_QDZ2 = 90
P_QDZ3 = 91
P_QDZ4 = 92
P_QDZ6 = 93
P_QDZ7 = 94
P_QDZ8 = 95
P_QDZ9 = 96
P_QEZ1 = 97
P_QEZ2 = 98
P_QEZ3 = 99
P_QEZ4 = 100
P_QEZ5 = 101
P_QHZ1 = 102
P_QHZ2 = 103
P_QHZ3 = 104
P_QHZ4 = 105
P_SSZ1 = 106
P_SSZ2 = 107
P_SSZ3 = 108
P_SSZ4 = 109
P_LGAX = 110
P_LGAY = 111
P_LGAZ = 112
P_LCY = 113
P_LMUY = 114
P_LEY = 115
P_LKY = 116
P_LHY = 117
P_LVY = 118
P_LTR = 119
P_LRES = 120
P_LXAL = 121
P_LYKA = 122
P_LVYKA = 123
P_LS = 124
P_PTY1 = 125     # lateral relaxation length: peak of sigma_alpha / R0 [-]
P_PTY2 = 126     # lateral relaxation length: load at the peak / Fz0' [-]
P_LSGAL = 127    # scale factor of the lateral relaxation length [-]
N_COEFFICIENTS = 128
"""Slots 0 .. N_COEFFICIENTS-1 hold the .tir coefficients above."""
# slot P_MODEL (the tire model id, written by tire.models.params, not a .tir coefficient) and the width N_PARAMS
# are the tire interface's (tire.interface); the coefficients fill the slots before P_MODEL

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
    ("PDX3", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_PDX3),
    ("RBX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_RBX1),
    ("RBX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_RBX2),
    ("RCX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_RCX1),
    ("REX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_REX1),
    ("REX2", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_REX2),
    ("RHX1", "LONGITUDINAL_COEFFICIENTS", 0.0, "any", P_RHX1),
    ("PCY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PCY1),
    ("PDY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PDY1),
    ("PDY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_PDY2),
    ("PDY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_PDY3),
    ("PEY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PEY1),
    ("PEY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_PEY2),
    ("PEY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_PEY3),
    ("PEY4", "LATERAL_COEFFICIENTS", 0.0, "any", P_PEY4),
    ("PKY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PKY1),
    ("PKY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_PKY2),
    ("PKY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_PKY3),
    ("PHY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PHY1),
    ("PHY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_PHY2),
    ("PHY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_PHY3),
    ("PVY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_PVY1),
    ("PVY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_PVY2),
    ("PVY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_PVY3),
    ("PVY4", "LATERAL_COEFFICIENTS", 0.0, "any", P_PVY4),
    ("RBY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_RBY1),
    ("RBY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_RBY2),
    ("RBY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_RBY3),
    ("RCY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_RCY1),
    ("REY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_REY1),
    ("REY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_REY2),
    ("RHY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_RHY1),
    ("RHY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_RHY2),
    ("RVY1", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY1),
    ("RVY2", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY2),
    ("RVY3", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY3),
    ("RVY4", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY4),
    ("RVY5", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY5),
    ("RVY6", "LATERAL_COEFFICIENTS", 0.0, "any", P_RVY6),
    ("QBZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ1),
    ("QBZ2", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ2),
    ("QBZ3", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ3),
    ("QBZ4", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ4),
    ("QBZ5", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ5),
    ("QBZ9", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ9),
    ("QBZ10", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QBZ10),
    ("QCZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QCZ1),
    ("QDZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ1),
    ("QDZ2", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ2),
    ("QDZ3", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ3),
    ("QDZ4", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ4),
    ("QDZ6", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ6),
    ("QDZ7", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ7),
    ("QDZ8", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ8),
    ("QDZ9", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QDZ9),
    ("QEZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QEZ1),
    ("QEZ2", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QEZ2),
    ("QEZ3", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QEZ3),
    ("QEZ4", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QEZ4),
    ("QEZ5", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QEZ5),
    ("QHZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QHZ1),
    ("QHZ2", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QHZ2),
    ("QHZ3", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QHZ3),
    ("QHZ4", "ALIGNING_COEFFICIENTS", 0.0, "any", P_QHZ4),
    ("SSZ1", "ALIGNING_COEFFICIENTS", 0.0, "any", P_SSZ1),
    ("SSZ2", "ALIGNING_COEFFICIENTS", 0.0, "any", P_SSZ2),
    ("SSZ3", "ALIGNING_COEFFICIENTS", 0.0, "any", P_SSZ3),
    ("SSZ4", "ALIGNING_COEFFICIENTS", 0.0, "any", P_SSZ4),
    ("LGAX", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LGAX),
    ("LGAY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LGAY),
    ("LGAZ", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LGAZ),
    ("LCY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LCY),
    ("LMUY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LMUY),
    ("LEY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LEY),
    ("LKY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LKY),
    ("LHY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LHY),
    ("LVY", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LVY),
    ("LTR", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LTR),
    ("LRES", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LRES),
    ("LXAL", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LXAL),
    ("LYKA", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LYKA),
    ("LVYKA", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LVYKA),
    ("LS", "SCALING_COEFFICIENTS", 1.0, "nonneg", P_LS),
    ("PTY1", "LATERAL_COEFFICIENTS", 0.0, "nonneg", P_PTY1),
    ("PTY2", "LATERAL_COEFFICIENTS", 0.0, "nonneg", P_PTY2),
    ("LSGAL", "SCALING_COEFFICIENTS", 1.0, "pos", P_LSGAL),
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
        UNLOADED_RADIUS..LS  the coefficients of ``COEFFICIENTS`` (defaults filled in)
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
    PDX3: float
    RBX1: float
    RBX2: float
    RCX1: float
    REX1: float
    REX2: float
    RHX1: float
    PCY1: float
    PDY1: float
    PDY2: float
    PDY3: float
    PEY1: float
    PEY2: float
    PEY3: float
    PEY4: float
    PKY1: float
    PKY2: float
    PKY3: float
    PHY1: float
    PHY2: float
    PHY3: float
    PVY1: float
    PVY2: float
    PVY3: float
    PVY4: float
    RBY1: float
    RBY2: float
    RBY3: float
    RCY1: float
    REY1: float
    REY2: float
    RHY1: float
    RHY2: float
    RVY1: float
    RVY2: float
    RVY3: float
    RVY4: float
    RVY5: float
    RVY6: float
    QBZ1: float
    QBZ2: float
    QBZ3: float
    QBZ4: float
    QBZ5: float
    QBZ9: float
    QBZ10: float
    QCZ1: float
    QDZ1: float
    QDZ2: float
    QDZ3: float
    QDZ4: float
    QDZ6: float
    QDZ7: float
    QDZ8: float
    QDZ9: float
    QEZ1: float
    QEZ2: float
    QEZ3: float
    QEZ4: float
    QEZ5: float
    QHZ1: float
    QHZ2: float
    QHZ3: float
    QHZ4: float
    SSZ1: float
    SSZ2: float
    SSZ3: float
    SSZ4: float
    LGAX: float
    LGAY: float
    LGAZ: float
    LCY: float
    LMUY: float
    LEY: float
    LKY: float
    LHY: float
    LVY: float
    LTR: float
    LRES: float
    LXAL: float
    LYKA: float
    LVYKA: float
    LS: float
    PTY1: float
    PTY2: float
    LSGAL: float
    sections: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    tables: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def to_array(self) -> np.ndarray:
        """The coefficients as float64[N_PARAMS] in the P_* layout (raw values; scaling applied by the kernels);
        the model slot P_MODEL is 0, the mf52 model's id (``tire.models``)."""
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


SIDE_BY_SIDE_SCALED = ("FNOMIN", "VERTICAL_STIFFNESS", "VERTICAL_DAMPING", "KVLOW0")
"""The coefficients that carry a force scale of their own (N, N/m, N s/m); every other coefficient is
dimensionless or a length, or multiplies Fz or Fz/Fz0."""


def side_by_side(tire: TireParams, n: int) -> TireParams:
    """The data of ``n`` identical tires side by side on one wheel (a dual or twin mounting) acting as one
    tire: ``SIDE_BY_SIDE_SCALED`` multiplied by n. In the Magic Formula every force and moment is Fz times a
    function of the normalised load dFz = (Fz - Fz0)/Fz0 and the slips (Pacejka 2006, sections 4.3.2 and
    4.3.3), the cornering and slip stiffnesses are Fz0 times a function of Fz/Fz0, and the relaxation lengths
    depend on Fz/Fz0 only, so at n Fz the pair gives n times one tire's forces and moments at Fz (exactly in
    the equations; the kernels' divide guards, an absolute 0.1 N, leave about 1e-6 relative).
    What it leaves out: the tires' lateral spacing (a moment about the vertical axis from unequal
    longitudinal forces, the load shift between them when the axle rolls)."""
    if not (isinstance(n, int) and not isinstance(n, bool) and n >= 1):
        raise ModelError(f"tire file '{tire.path}': tires side by side must be a whole number >= 1, got {n!r}")
    return replace(tire, **{k: n * getattr(tire, k) for k in SIDE_BY_SIDE_SCALED})


def coefficient_names() -> tuple[str, ...]:
    """Names of the coefficient fields of TireParams, in ``COEFFICIENTS`` order."""
    return tuple(name for name, *_rest in COEFFICIENTS)


def _check_layout() -> None:
    """Import-time guard: COEFFICIENTS covers every array slot once and every coefficient field."""
    indices = sorted(entry[4] for entry in COEFFICIENTS)
    if indices != list(range(N_COEFFICIENTS)) or P_MODEL != N_COEFFICIENTS or N_PARAMS != P_MODEL + 1:
        raise RuntimeError("tir.COEFFICIENTS does not cover the P_* layout exactly once")
    declared = [f.name for f in fields(TireParams)][2:-2]
    if declared != list(coefficient_names()):
        raise RuntimeError("TireParams fields and tir.COEFFICIENTS are out of order")


_check_layout()
