"""LeadVehicle.fmu: a lead vehicle driving a piecewise-linear speed profile (exact positions): a shipped one
(the ``speed_profile`` enumeration, ``traffic.lead_vehicle.SPEED_PROFILES``) or a user's breakpoints
(``speed_profile_points``, a String that overrides it when not empty).

Interface and semantics: docs/fmus.md §7. A block FMU (``fmi.block``): the kernels of
``traffic.lead_vehicle`` over its arrays, also built natively (docs/native.md §10).
"""
from fmu_vehicle.fmi.block import Block, BlockSlave
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.traffic.lead_vehicle import (DEFAULT_X0_M, N_STATE, P_X0, SPEED_PROFILES, lead_init, lead_parameters,
                                              lead_step, parse_speed_profile)


def _parameters(values, resources):
    """The kernels' parameter array: the profile of ``speed_profile_points`` if not empty, else the shipped
    ``speed_profile``, and ``x0``."""
    points = values["speed_profile_points"]
    profile = (parse_speed_profile(points, "speed_profile_points") if points.strip() else
               parse_speed_profile(SPEED_PROFILES[values["speed_profile"]], "speed_profile"))
    return lead_parameters(profile, values["x0"])


class LeadVehicle(BlockSlave):
    MODEL_NAME = "LeadVehicle"
    DESCRIPTION = ("Lead vehicle on the x axis following a piecewise-linear speed profile "
                   "'t0:v0,t1:v1,...' [s:m/s] (shipped or a user's); positions integrated exactly")
    VARIABLES = (
        Var("speed_profile", "parameter", "fixed", None, "shipped speed profile: "
            + "; ".join(f"{name} = '{text}'" for name, text in SPEED_PROFILES.items())
            + " (time:speed [s:m/s], linear in between, constant outside)", "brake_to_8",
            type="Enumeration", choices=tuple(SPEED_PROFILES)),
        Var("x0", "parameter", "fixed", "m", "position at the start time", DEFAULT_X0_M),
        Var("x", "output", "continuous", "m", "position along x", DEFAULT_X0_M),
        Var("vx", "output", "continuous", "m/s", "speed along x", 0.0, display_unit="km/h"),
        Var("ax", "output", "continuous", "m/s2", "acceleration along x (right-continuous)", 0.0),
        # after the others: their value references are those of the FMUs where speed_profile was the text
        Var("speed_profile_points", "parameter", "fixed", None,
            "a user's speed breakpoints 'time:speed,...' [s:m/s], linear in between, constant outside; "
            "empty: the shipped speed_profile (a non-empty text overrides it)", "", type="String"),
    )
    STRUCTURE = Structure()     # no inputs: the outputs follow the parameters and time only
    BLOCK = Block(lead_init, lead_step, {"x0": P_X0}, N_STATE, _parameters)
