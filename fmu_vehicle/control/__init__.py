"""Longitudinal controllers: adaptive cruise control with an emergency-braking stage."""
from fmu_vehicle.control.acc import AccController, AccParameters

__all__ = ["AccController", "AccParameters"]
