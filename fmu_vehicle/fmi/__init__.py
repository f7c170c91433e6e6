"""FMI 2.0 Co-Simulation adapters: variable tables, the slave base class, build and post-processing.

Modules: ``variables`` (Var, UNITS), ``slave_base`` (VehicleSlaveBase), ``post_process``
(modelDescription patching), ``build`` (build_fmu), ``registry`` (FMUS: name -> slave script).
Slave scripts live in ``slaves/`` with unique file names ``fmu_vehicle_<name>.py``.

The FMUs and the rules they share: docs/fmus.md; hosts: docs/fmu_hosts.md; misuse and states:
docs/fmu_robustness.md.
"""
