"""Co-simulation of FMU systems: SSP reading/writing and a fixed-step Jacobi / Gauss-Seidel master over FMPy.

How the master works, the coupling schemes and SSP files: docs/cosimulation.md.
"""
from fmu_vehicle.cosim.master import CosimError, run_system
from fmu_vehicle.results import Result, read_csv
from fmu_vehicle.cosim.ssp import read_ssp, write_ssp
from fmu_vehicle.cosim.ssp_schema import check_ssd
from fmu_vehicle.cosim.system import Component, Connection, Connector, Experiment, System

__all__ = ["Component", "Connection", "Connector", "CosimError", "Experiment", "Result", "System",
           "check_ssd", "read_csv", "read_ssp", "run_system", "write_ssp"]
