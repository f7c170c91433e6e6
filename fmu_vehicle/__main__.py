"""python -m fmu_vehicle -> the command line."""
import sys

from .cli import main

sys.exit(main())
