"""Vehicle co-simulation systems built from the package's FMUs (the generic master and SSP I/O are ``cosim``).

* ``half_car``: VehicleLV with Tire, Powertrain, Controller and LeadVehicle FMUs: the bumpy road, ACC stop
  and go, cruise up a slope, a platoon; :func:`half_car.run_scenario` writes, reads back and runs one;
* ``full_car``: Vehicle with four Tire FMUs and the Driver FMU: the ISO 3888-1 double lane change and lane
  changes along a shipped path.

The ADAS catalogues' systems (``adas.systems``) are built from these.
"""
