"""Transitional, holds no tests: the fixture ``scenario_fmus`` (now in plugins/fmus.py, given to every test module
without an import) under this module's old name, for the test modules that still import it from here
(test_cli.py, test_scenario_acc.py, test_tire_fmu.py, test_tire_fmu_chrono.py). A module that imports it gets
its own copy of the fixture, which costs nothing: the copy reads the session's ``registered_fmus``. Delete this
module once they no longer import it."""
from plugins.fmus import scenario_fmus  # noqa: F401
