"""Traffic participants of the scenarios: a lead vehicle driving a piecewise-linear speed profile."""
from fmu_vehicle.traffic.lead_vehicle import LeadVehicle, SpeedProfile, parse_speed_profile

__all__ = ["LeadVehicle", "SpeedProfile", "parse_speed_profile"]
