"""``fmu-vehicle info``: the shipped vehicles (coordinates, closure equations, degrees of freedom, bodies,
mass, independent coordinates) and roads."""
from __future__ import annotations


def add_parser(subparsers):
    return subparsers.add_parser("info", help="list the shipped vehicles and roads")


def run(a) -> int:
    from ..road.loader import shipped_roads
    from ..vehicle import Vehicle, vehicle_names
    for name in vehicle_names():
        car = Vehicle.load(name)
        m = car.mech
        driven = f" + {m.model.ndrv} driven (steering rack)" if m.model.ndrv else ""
        print(f"{name}: {m.model.n - m.model.ndrv} relative coordinates{driven}, {m.model.m} closure equations, {m.n_dof} DOF, "
              f"{len(m.spec.bodies)} bodies + {len(m.spec.rods)} removed rods, mass {car.total_mass_kg:.1f} kg; "
              f"independent: {', '.join(m.independent_names)}")
    print("roads: " + ", ".join(shipped_roads()))
    return 0
