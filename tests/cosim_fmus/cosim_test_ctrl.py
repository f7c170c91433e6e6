"""Test FMU: PD controller F = Kp*(x_ref - x) - Kd*v (test fixture only).

Inputs: x [m], v [m/s].  Output: F [N], a direct feedthrough evaluated on every get from the inputs last
set, so it is already right in initialization mode once the master has propagated the start values; the
master samples it at the step start and holds it (zero-order hold).  Parameters: Kp [N/m], Kd [N s/m], x_ref [m].
Output n_steps counts do_step calls.
"""
import traceback

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real
from pythonfmu.enums import Fmi2Status


class CosimTestCtrl(Fmi2Slave):
    author = "fmu_vehicle tests"
    description = "sampled PD controller (co-simulation test fixture)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Kp, self.Kd, self.x_ref = 30.0, 4.0, 0.0
        self.x, self.v = 0.0, 0.0
        self.n_steps = 0
        par, tunable = Fmi2Causality.parameter, Fmi2Variability.tunable
        for name in ("Kp", "Kd", "x_ref"):
            self.register_variable(Real(name, causality=par, variability=tunable))
        self.register_variable(Real("x", causality=Fmi2Causality.input))
        self.register_variable(Real("v", causality=Fmi2Causality.input))
        self.register_variable(Real("F", causality=Fmi2Causality.output, initial=Fmi2Initial.exact,
                                    getter=self._force))
        self.register_variable(Integer("n_steps", causality=Fmi2Causality.output,
                                       variability=Fmi2Variability.discrete, initial=Fmi2Initial.exact))

    def _force(self):
        return self.Kp * (self.x_ref - self.x) - self.Kd * self.v

    def do_step(self, current_time, step_size):
        try:
            self.n_steps += 1
            return True
        except Exception:
            self.log(traceback.format_exc(), Fmi2Status.error)
            return False
