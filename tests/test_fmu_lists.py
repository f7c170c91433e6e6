"""Every FMU of the registry is covered by each FMU study or excluded from it with a reason (fmu_lists.py).

A study's list is the registry minus its exclusions; the unit table ``fmu_cases.UNITS`` is written by hand, so
it is compared with the registry here: an FMU added to the registry without its units fails, naming it.
"""
from __future__ import annotations

import pytest

import fmu_lists
from fmu_cases import UNITS
from fmu_vehicle.fmi.registry import FMUS

EXCLUSIONS = {"cross-check": (fmu_lists.CROSSCHECK_FMUS, fmu_lists.CROSSCHECK_EXCLUDED),
              "model structure": (fmu_lists.MODEL_STRUCTURE_FMUS, fmu_lists.MODEL_STRUCTURE_EXCLUDED),
              "hostile, ranges, memory, enumerations": (fmu_lists.HARNESS_FMUS, fmu_lists.HARNESS_EXCLUDED)}


@pytest.mark.parametrize("study", list(EXCLUSIONS))
def test_each_study_covers_every_registered_fmu_but_its_documented_exclusions(study):
    fmus, excluded = EXCLUSIONS[study]
    assert set(excluded) <= set(FMUS), f"{study}: excludes FMUs the registry does not have"
    assert all(reason.strip() for reason in excluded.values()), f"{study}: an exclusion without its reason"
    assert fmus == tuple(n for n in FMUS if n not in excluded)


def test_the_unit_table_has_every_registered_fmu_but_its_documented_exclusions():
    assert set(fmu_lists.UNITS_EXCLUDED) <= set(FMUS)
    missing = set(FMUS) - set(fmu_lists.UNITS_EXCLUDED) - set(UNITS)
    assert not missing, f"fmu_cases.UNITS has no units for {sorted(missing)}: write them, or exclude the FMU " \
                        f"in fmu_lists.UNITS_EXCLUDED with the reason"
    assert set(UNITS) == set(FMUS) - set(fmu_lists.UNITS_EXCLUDED)


def test_the_cross_check_has_a_case_for_each_fmu_of_its_study():
    from fmu_vehicle.fmi.crosscheck import CASES
    assert sorted(CASES) == sorted(fmu_lists.CROSSCHECK_FMUS)


def test_the_named_fmu_groups_are_registered():
    from fmu_vehicle.scenarios.half_car import FMU_NAMES
    assert set(fmu_lists.COMPANION_FMUS) <= set(FMUS)
    assert set(FMU_NAMES) <= set(FMUS)
