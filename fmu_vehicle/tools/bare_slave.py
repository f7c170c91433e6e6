"""A pythonfmu slave with Real inputs and outputs that computes nothing: the cost of pythonfmu's wrapper and of
the host's calls alone (``tools.bench.time_fmu``). ``tools.bench.build_bare_fmu`` builds a copy of this file
with the inputs and outputs of a vehicle FMU and the class named for it (the FMU's model identifier)."""
from pythonfmu import Fmi2Causality, Fmi2Slave, Real

INPUTS: list[str] = []
OUTPUTS: list[str] = []


class BareSlave(Fmi2Slave):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.u = [0.0] * len(INPUTS)
        self.row = [0.0] * len(OUTPUTS)
        for i, name in enumerate(INPUTS):
            self.register_variable(Real(name, causality=Fmi2Causality.input, getter=lambda i=i: self.u[i],
                                        setter=lambda v, i=i: self.u.__setitem__(i, v)))
        for i, name in enumerate(OUTPUTS):
            self.register_variable(Real(name, causality=Fmi2Causality.output, getter=lambda i=i: self.row[i]))
        self.all_outputs = [vr for vr, v in self.vars.items() if v.causality == Fmi2Causality.output]

    def get_real(self, vrs):
        # the least a slave can do: its whole output row as it is (as SlaveBase serves a published row)
        return self.row.copy() if vrs == self.all_outputs else super().get_real(vrs)

    def do_step(self, current_time, step_size):
        return True
