"""Test-only reference formulations and helpers for the multibody engine tests."""
