"""Compile the kernels most tests share, for the portable CPU the test processes use (no tests here).

Run by ``conftest.pytest_sessionstart`` in a child process before the test workers start, beside the build of
the session's FMUs: each of these kernels is then compiled once per suite run, by one process, instead of by
both workers at the same time. What a test needs beyond this set it compiles itself, as without the warm-up.

    python tests/session_warm_up.py
"""
import sys

VEHICLES = ("halfcar7", "fullcar14", "sedan_caravan", "tractor_semitrailer")
"""The shipped vehicles of each topology (planar, spatial, car with caravan, articulated truck)."""
STEPPING = ("abm4", "bdf2", "rk4e")
"""The integrators besides RK4, compiled for the half car (the integrator tests and the FMUs' enumeration)."""


def main() -> int:
    from fmu_vehicle.vehicle import Vehicle
    for name in VEHICLES:               # a run is the equilibrium, the integrator's loop and the record
        Vehicle.load(name).simulate("bumpy", 0.01, v0=10.0)
    car = Vehicle.load("halfcar7")
    for method in STEPPING:
        car.simulate("bumpy", 0.01, v0=10.0, integrator=method)
    return 0


if __name__ == "__main__":
    sys.exit(main())
