"""pytest plugins of the test suite: the shared fixtures, named in ``tests/conftest.py``'s ``pytest_plugins``."""
