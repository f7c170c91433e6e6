"""Drivers: open-loop steering profiles, paths and a closed-loop path follower (docs/handling.md)."""
from .path import Path, Projection
from .path_follower import DriverParams, PathFollower, load_driver_params
from .profile import SteeringProfile

__all__ = ["DriverParams", "Path", "PathFollower", "Projection", "SteeringProfile", "load_driver_params"]
