"""Which FMUs each FMU study covers: the registry's FMUs (``fmu_vehicle.fmi.registry.FMUS``) minus the study's
documented exclusions, each with its reason (no tests here; test_fmu_lists.py checks that every FMU of the
registry is covered or excluded, and that an exclusion names a registered FMU).

A new FMU of the registry joins every study at once; one that a study cannot cover yet is excluded here, with
the reason, never left out silently.
"""
from __future__ import annotations

from fmu_vehicle.fmi.registry import FMUS

REGISTERED = tuple(FMUS)
"""Every FMU of the registry, in its order."""


def covered(excluded: dict[str, str]) -> tuple[str, ...]:
    """The registry's FMUs minus ``excluded`` (name -> reason), in the registry's order."""
    return tuple(name for name in REGISTERED if name not in excluded)


COMPANION_FMUS = ("Powertrain", "Controller", "LeadVehicle")
"""The companions of the vehicle in the example systems: small FMUs (no compiled model) that the build, boundary
and state tests use as quick examples of every FMU (``companion_fmus``)."""

CROSSCHECK_EXCLUDED = {
    "VehicleCombination": "the cross-check (fmi.crosscheck.CASES) has no case for it",
    "TractorSemitrailer": "the cross-check (fmi.crosscheck.CASES) has no case for it",
}
CROSSCHECK_FMUS = covered(CROSSCHECK_EXCLUDED)
"""The FMUs of the cross-check and of the runs with default values (test_crosscheck.py): those of
``fmi.crosscheck.CASES``."""

MODEL_STRUCTURE_EXCLUDED = {
    "VehicleCombination": "its ModelStructure is probed in test_fmu_combination.py (its own loads and probes)",
    "TractorSemitrailer": "its ModelStructure is probed in test_fmu_tractor_semitrailer.py (its own loads and "
                          "probes)",
}
MODEL_STRUCTURE_FMUS = covered(MODEL_STRUCTURE_EXCLUDED)
"""The FMUs whose ModelStructure test_fmu_model_structure.py probes (its ``PROBES``)."""

HARNESS_EXCLUDED: dict[str, str] = {}
"""No FMU is left out of the hostile-input, parameter-range, memory and enumeration studies."""

HARNESS_FMUS = covered(HARNESS_EXCLUDED)
"""The FMUs of the hostile-input, parameter-range, memory and enumeration studies (``all_fmus``)."""

UNITS_EXCLUDED: dict[str, str] = {}
"""No FMU is left out of the unit table ``fmu_cases.UNITS`` (test_fmi_units.py)."""
