"""python -m fmu_vehicle.cli -> the command line."""
import sys

from . import main

sys.exit(main())
