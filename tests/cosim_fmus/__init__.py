"""Test FMUs for the co-simulation master (pythonfmu slaves with unique script names) and their build helper."""
