"""Handling manoeuvres: definitions, analyses and plots of ISO 4138, ISO 7401 and ISO 3888-1 runs, the
suspension kinematics table, and the linear single-track reference model (docs/handling.md); the linear
towing-unit-with-trailer model and the articulated-vehicle KPIs (docs/articulated.md)."""
