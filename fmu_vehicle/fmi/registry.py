"""Registry of the FMUs this package builds: FMU name -> slave script in ``fmi/slaves/``, found there.

Every script ``slaves/fmu_vehicle_<name>.py`` is an FMU: its one concrete ``SlaveBase`` subclass
declares the FMU's name as a string in ``MODEL_NAME`` (the class line ``MODEL_NAME = "Controller"``). The
registry reads that line from the script's text, without importing it: listing the FMUs compiles no model. A new FMU is
its script there (and, for a controller, its model module); it needs no line here.

``FMUS`` lists the FMUs in ``LISTED_FIRST``'s order (the companions of the example systems, the vehicles, the
tire, the driver and the chassis functions: the order the build script builds them in and the command line
lists them in), then any other FMU in the order of its script's name.

The registered FMUs are documented in docs/fmus.md.
"""
from __future__ import annotations

import re
from pathlib import Path

from fmu_vehicle.errors import FmuVehicleError

SLAVES_DIR = Path(__file__).resolve().parent / "slaves"
SCRIPT_GLOB = "fmu_vehicle_*.py"
"""The slave scripts' file names (``fmi.build.SCRIPT_PATTERN`` says which characters ``<name>`` may hold)."""

LISTED_FIRST = ("Powertrain", "Controller", "LeadVehicle", "VehicleLV", "Vehicle", "VehicleCombination",
                "TractorSemitrailer", "Tire", "Driver", "ChassisControl", "Robot")
"""The order of the FMUs ``FMUS`` lists first (a name here without its script is no FMU and is skipped)."""


MODEL_NAME_LINE = re.compile(r"""^[ \t]+MODEL_NAME[ \t]*=[ \t]*(["'])([A-Za-z_][A-Za-z0-9_]*)\1[ \t]*(?:#.*)?$""",
                             re.MULTILINE)
"""An indented (class-level) line that assigns the FMU's name to ``MODEL_NAME`` as a string literal."""


def declared_name(script: Path) -> str:
    """The FMU name ``script`` declares: its one class line ``MODEL_NAME = "<name>"`` (``MODEL_NAME_LINE``).

    Raises FmuVehicleError unless the script has exactly one such line."""
    names = [m.group(2) for m in MODEL_NAME_LINE.finditer(Path(script).read_text(encoding="utf-8"))]
    if len(names) != 1:
        raise FmuVehicleError(f"{script}: a slave script declares its FMU in one class line "
                              f"MODEL_NAME = \"<name>\" (found {len(names)})")
    return names[0]


def find_fmus(folder: Path = SLAVES_DIR) -> dict[str, str]:
    """FMU name -> script file name of every slave script in ``folder`` (``declared_name``), in the registry's
    order (module docstring). Raises FmuVehicleError if two scripts declare the same FMU."""
    found: dict[str, str] = {}
    for script in sorted(Path(folder).glob(SCRIPT_GLOB)):
        name = declared_name(script)
        if name in found:
            raise FmuVehicleError(f"{script.name} and {found[name]} both declare the FMU '{name}'")
        found[name] = script.name
    first = [name for name in LISTED_FIRST if name in found]
    return {name: found[name] for name in [*first, *(n for n in found if n not in first)]}


FMUS: dict[str, str] = find_fmus()
"""FMU name -> its slave script's file name in ``SLAVES_DIR``."""


def slave_script(name: str) -> Path:
    """Path of the slave script registered under ``name``."""
    if name not in FMUS:
        raise FmuVehicleError(f"unknown FMU '{name}' (registered: {', '.join(FMUS)})")
    return SLAVES_DIR / FMUS[name]
