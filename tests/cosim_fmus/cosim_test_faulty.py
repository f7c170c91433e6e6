"""Test FMU: gain y = gain*u (y = 0 when not enabled) that fails on demand (test fixture only).

Parameters: gain [-], enabled, fail_time [s] (< 0: never fail), fail_mode (0: log an error and return False
from do_step -> fmi2Discard + terminated; 1: raise -> fmi2Fatal), fail_message (logged text).
"""
import traceback

from pythonfmu import Boolean, Fmi2Causality, Fmi2Initial, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status


class CosimTestFaulty(Fmi2Slave):
    author = "fmu_vehicle tests"
    description = "gain block that can be told to fail (co-simulation test fixture)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.gain, self.enabled, self.fail_time, self.fail_mode = 1.0, True, -1.0, 0
        self.fail_message = "injected failure"
        self.u, self.y = 0.0, 0.0
        par, fixed = Fmi2Causality.parameter, Fmi2Variability.fixed
        self.register_variable(Real("gain", causality=par, variability=fixed))
        self.register_variable(Boolean("enabled", causality=par, variability=fixed))
        self.register_variable(Real("fail_time", causality=par, variability=fixed))
        self.register_variable(Integer("fail_mode", causality=par, variability=fixed))
        self.register_variable(String("fail_message", causality=par, variability=fixed))
        self.register_variable(Real("u", causality=Fmi2Causality.input))
        self.register_variable(Real("y", causality=Fmi2Causality.output, initial=Fmi2Initial.exact))

    def do_step(self, current_time, step_size):
        if 0.0 <= self.fail_time <= current_time + 1e-9 * step_size:
            if self.fail_mode == 1:
                raise RuntimeError(self.fail_message)
            self.log(f"{self.fail_message} (t={current_time:.6g} s)", Fmi2Status.error)
            return False
        try:
            self.y = self.gain * self.u if self.enabled else 0.0
            return True
        except Exception:
            self.log(traceback.format_exc(), Fmi2Status.error)
            return False
