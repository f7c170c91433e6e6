"""Semi-recursive multibody engine (Dai, Pan et al. 2022 §2-3). Knows nothing of FMI, roads or tires.

The formulation as implemented, step by step with the functions of each step: docs/formulation.md.
"""
from .mechanism import Mechanism, MechanismSystem, choose_partition
from .spec import MechanismSpec, load_mechanism_file, parse_mechanism

__all__ = ["Mechanism", "MechanismSystem", "MechanismSpec", "choose_partition", "load_mechanism_file",
           "parse_mechanism"]
