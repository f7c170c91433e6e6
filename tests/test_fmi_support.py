"""Transitional, holds no tests: the helpers of fmi_support.py under this module's old name, for the test modules
that still import them from here (test_bench_cli.py: ``session_fmus``; test_tire_fmu.py, test_tire_fmu_chrono.py:
``run_child``). Delete it once they import from fmi_support."""
from fmi_support import run_child, session_fmus  # noqa: F401
