"""Scenario catalogues as data: ``resources/scenarios/<name>.json``.

A catalogue file::

    {
      "name": "euroncap-ccrs",                      the file's stem
      "description": "...",
      "system": "ccr.ssd",                          the FMU system: an SSP file (.ssd, .ssp or SSP folder),
                                                    relative to the catalogue file (shipped: see adas.systems)
      "protocol": "ccr",                            the test rule of fmu_vehicle.adas.protocols.PROTOCOLS
      "parameters": {"v_target_kmh": 0, ...},       fixed test parameters (units in the names)
      "cases": [{"case": "stop", ...}, ...],        optional: named parameter sets, one run each per grid point
      "grid": {"v_vut_kmh": [10, 15, ...], ...},    optional: the variations, run as their full product
      "scoring": {"bands_kmh": [[5, 0.75], ...]},   optional: Euro NCAP impact-speed bands (kpis.euroncap_score)
      "kpi": {"following_from_s": 10, ...},         optional: KPI settings (see run_kpis)
      "plot": {"x": "v_vut_kmh", "y": "impact_speed_kmh", "series": "..."}   the summary plot
    }

Runs are numbered in a fixed order (cases outer, then the grid's product in key order, last key fastest);
a run's parameters are parameters < case < grid point (later wins).  A parameter named
``component.variable`` (e.g. ``"controller.aeb.ttc_on": [1.2, 1.5]``) sets that FMU parameter of the system
directly, after the protocol; the others are the protocol's test parameters.
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

from fmu_vehicle.errors import ModelError
from fmu_vehicle.util import read_json
from fmu_vehicle.paths import resource_path

KEYS = {"name", "description", "system", "protocol", "parameters", "cases", "grid", "scoring", "kpi", "plot"}


@dataclass(frozen=True)
class Run:
    """One scenario variant: its index in the catalogue, id and parameters."""

    index: int
    run_id: str
    parameters: dict


@dataclass
class Catalogue:
    name: str
    path: Path
    system: Path
    protocol: str
    description: str = ""
    parameters: dict = field(default_factory=dict)
    cases: list = field(default_factory=lambda: [{}])
    grid: dict = field(default_factory=dict)
    scoring: dict = field(default_factory=dict)
    kpi: dict = field(default_factory=dict)
    plot: dict = field(default_factory=dict)

    def runs(self) -> list[Run]:
        keys = list(self.grid)
        out = []
        for case in self.cases:
            for values in itertools.product(*(self.grid[k] for k in keys)):
                params = {**self.parameters, **case, **dict(zip(keys, values))}
                index = len(out)
                out.append(Run(index, f"{self.name}-{index:04d}", params))
        return out

    def digest(self) -> str:
        """SHA-256 of the runs and the settings that shape a row (to tie a resume journal to its catalogue)."""
        doc = {"system": _file_digest(self.system), "protocol": self.protocol,
               "runs": [r.parameters for r in self.runs()], "scoring": self.scoring, "kpi": self.kpi}
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _file_digest(path: Path) -> str:
    """SHA-256 of a system file, or of an SSP folder's files (names and bytes, in name order)."""
    h = hashlib.sha256()
    for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
        if file.is_file():
            h.update(file.relative_to(path).as_posix().encode() if path.is_dir() else b"")
            h.update(file.read_bytes())
    return h.hexdigest()


def catalogue_names() -> list[str]:
    folder = resource_path("scenarios")
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def load_catalogue(spec: str) -> Catalogue:
    """A catalogue by shipped name (``euroncap-ccrs``) or by path to a .json file; errors name file and field."""
    from fmu_vehicle.adas.protocols import PROTOCOLS

    p = Path(spec)
    if not (p.suffix.lower() == ".json" and p.is_file()):
        candidate = resource_path("scenarios", f"{p.stem if p.suffix.lower() == '.json' else p.name}.json")
        if str(p.parent) not in ("", ".") or not candidate.is_file():
            raise ModelError(f"catalogue {spec!r}: no such file, and no shipped catalogue of that name "
                             f"(shipped: {', '.join(catalogue_names()) or 'none'})")
        p = candidate
    doc = read_json(p, "catalogue")
    if not isinstance(doc, dict):
        raise ModelError(f"catalogue {p}: expected a JSON object at the top")
    unknown = sorted(set(doc) - KEYS)
    if unknown:
        raise ModelError(f"catalogue {p}: unknown field '{unknown[0]}' (valid: {', '.join(sorted(KEYS))})")
    protocol = doc.get("protocol")
    if protocol not in PROTOCOLS:
        raise ModelError(f"catalogue {p}: field 'protocol' = {protocol!r}: must be one of {', '.join(PROTOCOLS)}")
    system = doc.get("system")
    if not isinstance(system, str) or not system:
        raise ModelError(f"catalogue {p}: field 'system' = {system!r}: must name an SSP system file "
                         f"(.ssd, .ssp or an SSP folder) relative to the catalogue")
    system_file = (p.parent / system).resolve()
    if not system_file.exists():
        raise ModelError(f"catalogue {p}: field 'system' = {system!r}: no such file ({system_file})")
    for key, kind in (("parameters", dict), ("grid", dict), ("scoring", dict), ("kpi", dict), ("plot", dict),
                      ("cases", list)):
        if key in doc and not isinstance(doc[key], kind):
            raise ModelError(f"catalogue {p}: field '{key}' must be a JSON {'object' if kind is dict else 'array'}")
    for key, values in doc.get("grid", {}).items():
        if not isinstance(values, list) or not values:
            raise ModelError(f"catalogue {p}: field 'grid.{key}' must be a non-empty array of values")
    cases = doc.get("cases", [{}])
    if not cases or not all(isinstance(c, dict) for c in cases):
        raise ModelError(f"catalogue {p}: field 'cases' must be a non-empty array of objects")
    plot = doc.get("plot", {})
    cat = Catalogue(name=str(doc.get("name", p.stem)), path=p, system=system_file, protocol=protocol,
                    description=str(doc.get("description", "")), parameters=doc.get("parameters", {}),
                    cases=cases, grid=doc.get("grid", {}), scoring=doc.get("scoring", {}), kpi=doc.get("kpi", {}),
                    plot=plot)
    known = set(cat.parameters) | set(cat.grid) | {k for c in cases for k in c}
    if plot and plot.get("x") not in known:
        raise ModelError(f"catalogue {p}: field 'plot.x' = {plot.get('x')!r}: not a parameter of the runs")
    return cat
