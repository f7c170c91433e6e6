"""Test FMU: mass-spring-damper m*x'' + c*x' + k*x = F, integrated with RK4 (test fixture only).

Inputs:  F [N].  Outputs: x [m], v [m/s].  Parameters: m [kg], k [N/m], c [N s/m], x0 [m], v0 [m/s].
Setting x0 / v0 also resets the state, so bound start values show up in the outputs at t=0.
"""
import traceback

from pythonfmu import Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real
from pythonfmu.enums import Fmi2Status


class CosimTestPlant(Fmi2Slave):
    author = "fmu_vehicle tests"
    description = "mass-spring-damper with a force input (co-simulation test fixture)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.m, self.k, self.c = 1.0, 10.0, 0.5
        self.x0, self.v0 = 1.0, 0.0
        self.n_sub = 1
        self.F = 0.0
        self.x, self.v = self.x0, self.v0
        par, fixed = Fmi2Causality.parameter, Fmi2Variability.fixed
        for name in ("m", "k", "c"):
            self.register_variable(Real(name, causality=par, variability=fixed))
        self.register_variable(Real("x0", causality=par, variability=fixed, setter=self._set_x0))
        self.register_variable(Real("v0", causality=par, variability=fixed, setter=self._set_v0))
        self.register_variable(Integer("n_sub", causality=par, variability=fixed))
        self.register_variable(Real("F", causality=Fmi2Causality.input))
        self.register_variable(Real("x", causality=Fmi2Causality.output, initial=Fmi2Initial.exact))
        self.register_variable(Real("v", causality=Fmi2Causality.output, initial=Fmi2Initial.exact))

    def _set_x0(self, value):
        self.x0 = self.x = value

    def _set_v0(self, value):
        self.v0 = self.v = value

    def _rhs(self, x, v):
        return v, (self.F - self.c * v - self.k * x) / self.m

    def do_step(self, current_time, step_size):
        try:
            h = step_size / self.n_sub
            x, v = self.x, self.v
            for _ in range(self.n_sub):
                k1x, k1v = self._rhs(x, v)
                k2x, k2v = self._rhs(x + 0.5 * h * k1x, v + 0.5 * h * k1v)
                k3x, k3v = self._rhs(x + 0.5 * h * k2x, v + 0.5 * h * k2v)
                k4x, k4v = self._rhs(x + h * k3x, v + h * k3v)
                x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
                v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
            self.x, self.v = x, v
            return True
        except Exception:
            self.log(traceback.format_exc(), Fmi2Status.error)
            return False
