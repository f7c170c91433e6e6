"""Ride comfort: whole-body vibration evaluation by ISO 2631-1."""
