"""The Python API over the engine: a compiled mechanism with its workspace and partition.

    mech = Mechanism.from_file("resources/mechanisms/rssr_fourbar.json")
    y0 = mech.assemble({"crank": 0.3})             # positions by continuation, y = [z^i, zd^i]
    ydot = mech.derivatives(y0)                    # one semi-recursive evaluation
    t, out, y = integrate(MechanismSystem(mech), y0, t_end=1.0, h=1e-3)

``MechanismSystem`` is the integrable system of a mechanism under constant joint forces (its passes are named
on its model type, ``LoadedMechanism``; docs/integrators.md §1). See docs/formulation.md.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
import scipy.linalg
from ..jit import njit

from ..errors import ModelError, SimulationError
from .constraints import eval_constraints, factor_dependent, solve_positions, velocity_transform
from .dynamics import forward_dynamics
from .energy import mechanical_energy
from .kinematics import forward_positions, forward_velocities
from .model import make_data
from .spec import MechanismSpec, load_mechanism_file, parse_mechanism
from .state import (STATUS_MASS_NOT_PD, STATUS_POSITION_FAILED, STATUS_SINGULAR, clear_loads, set_state)
from .topology import compile_mechanism

POSITION_TOL = 1e-12      # max |Phi| after the position problem [m or m^2]
POSITION_MAXIT = 30
PREFERRED_COND_FACTOR = 10.0   # keep the preferred independent coordinates while cond(Phi_z^d) <= this x the QR choice


def choose_partition(phiz: np.ndarray, preferred: list[int] | None = None) -> np.ndarray:
    """Independent coordinate indices for the constraint Jacobian ``phiz`` (m x n).

    Dependent coordinates are the first m pivot columns of a column-pivoted QR factorization
    (docs/formulation.md §8); columns listed in ``preferred`` are kept independent when the remaining
    columns give a Phi_z^d whose condition number is within PREFERRED_COND_FACTOR of the QR choice's
    (near a singular position of the preferred partition, e.g. a rocker at its extreme, it is dropped).
    Raises ModelError for redundant closure equations.
    """
    m, n = phiz.shape
    if m == 0:
        return np.arange(n, dtype=np.int64)
    sv = np.linalg.svd(phiz, compute_uv=False)
    rank = int(np.sum(sv > 1e-9 * max(sv[0], 1e-300)))
    if rank < m:
        raise ModelError(f"the {m} loop-closure equations are redundant (rank {rank}): remove {m - rank} "
                         "constraint(s), e.g. replace a cut spherical joint by a rod")
    _, _, piv = scipy.linalg.qr(phiz, pivoting=True, mode="economic")
    order = list(piv[:m])
    if preferred:
        cand = [j for j in range(n) if j not in set(preferred)]
        if len(cand) >= m:
            _, _, piv = scipy.linalg.qr(phiz[:, cand], pivoting=True, mode="economic")
            dep = [cand[p] for p in piv[:m]]
            if np.linalg.cond(phiz[:, dep]) <= PREFERRED_COND_FACTOR * np.linalg.cond(phiz[:, order]):
                order = dep
    return np.array(sorted(set(range(n)) - set(order)), dtype=np.int64)


class Mechanism:
    """A compiled mechanism (``model``), its workspace (``data``) and coordinate names."""

    def __init__(self, spec: MechanismSpec):
        self.spec = spec
        self.model, self.info = compile_mechanism(spec)
        n = self.model.n
        names = self.info.coordinate_names
        self.preferred = [self.info.coordinate_index[c] for c in (spec.independent or ())]
        if spec.independent is not None and len(self.preferred) != n - self.model.m:
            raise ModelError(f"{spec.source}: coordinates: independent: {len(self.preferred)} coordinates named, "
                             f"the mechanism has {n - self.model.m} degrees of freedom "
                             f"({n} coordinates - {self.model.m} closure equations)")
        # partition at the design configuration (z = 0)
        self.data = make_data(self.model, np.arange(n - self.model.m))
        forward_positions(self.model, self.data)
        eval_constraints(self.model, self.data, False)
        err = float(np.abs(self.data.phi).max()) if self.model.m else 0.0
        if err > 1e-6:
            raise ModelError(f"{spec.source}: the design configuration violates the loop closures by {err:.3g} "
                             "(m or m^2): joint points of cut joints and rod end points must be consistent")
        self._set_partition(choose_partition(self.data.phiz.copy(), self.preferred))
        self.coordinate_names = names

    @classmethod
    def from_file(cls, path) -> "Mechanism":
        return cls(load_mechanism_file(path))

    @classmethod
    def from_dict(cls, data: dict, source: str = "<mechanism>") -> "Mechanism":
        return cls(parse_mechanism(data, source))

    # ---------------------------------------------------------------------------------------
    @property
    def n_dof(self) -> int:
        return self.model.n - self.model.m

    @property
    def independent_names(self) -> tuple:
        return tuple(self.coordinate_names[i] for i in self.data.indep)

    def coordinate(self, name: str) -> int:
        try:
            return self.info.coordinate_index[name]
        except KeyError:
            raise ModelError(f"{self.spec.source}: unknown coordinate '{name}'") from None

    def body(self, name: str) -> int:
        try:
            return self.info.body_index[name]
        except KeyError:
            raise ModelError(f"{self.spec.source}: unknown body '{name}'") from None

    def _set_partition(self, indep: np.ndarray):
        """Use ``indep``; needs Phi_z current. Records the pivot ratio of the new Phi_z^d in
        data.stats[3], the reference of the re-partition trigger in :func:`state.set_state`."""
        n = self.model.n
        self.data.indep[:] = indep
        self.data.dep[:] = np.array(sorted(set(range(n)) - set(indep.tolist())), dtype=np.int64)
        if self.model.m > 0:
            self.data.stats[3] = factor_dependent(self.model, self.data)

    def repartition(self, y: np.ndarray) -> np.ndarray:
        """Choose new independent coordinates at the state y; return y in the new coordinates."""
        st = set_state(self.model, self.data, y, POSITION_TOL, POSITION_MAXIT)
        if st < 0:
            raise SimulationError(f"{self.spec.name}: cannot re-partition, the state is not assemblable")
        self._set_partition(choose_partition(self.data.phiz.copy(), self.preferred))
        return self.state()

    def state(self) -> np.ndarray:
        """y = [z^i, zd^i] from the workspace."""
        return np.concatenate([self.data.z[self.data.indep], self.data.zd[self.data.indep]])

    def assemble(self, positions: dict | None = None, velocities: dict | None = None, steps: int = 20) -> np.ndarray:
        """Move from the current configuration to the given coordinate values by continuation.

        ``positions``/``velocities`` map coordinate names to values [m | rad, m/s | rad/s]; values of
        independent coordinates are imposed, values of dependent ones are used as initial guesses.
        Defaults come from the file's ``coordinates.initial`` / ``initial_velocity``.
        Returns the consistent state y = [z^i, zd^i].
        """
        positions = dict(self.spec.initial if positions is None else positions)
        velocities = dict(self.spec.initial_velocity if velocities is None else velocities)
        d, model = self.data, self.model
        target = d.z.copy()
        for name, v in positions.items():
            target[self.coordinate(name)] = float(v)
        start = d.z.copy()
        indep = d.indep
        guess_dep = {self.coordinate(k) for k in positions} - set(indep.tolist())
        for i in guess_dep:
            d.z[i] = target[i]
        k, nsteps = 0, steps
        while k < nsteps:
            frac = (k + 1) / nsteps
            z_try = d.z.copy()
            d.z[indep] = start[indep] + frac * (target[indep] - start[indep])
            if solve_positions(model, d, POSITION_TOL, POSITION_MAXIT) < 0:
                if nsteps > 64 * steps:
                    raise ModelError(f"{self.spec.source}: cannot assemble the mechanism at {positions} "
                                     f"(position problem diverged at {frac:.0%} of the way)")
                d.z[:] = z_try
                start = d.z.copy()
                nsteps, k = 2 * (nsteps - k), 0
                continue
            k += 1
        for name, v in velocities.items():
            d.zd[self.coordinate(name)] = float(v)
        velocity_transform(model, d)
        forward_velocities(model, d)
        return self.state()

    def derivatives(self, y: np.ndarray, t: float = 0.0) -> np.ndarray:
        """dy/dt for the mechanism with no loads besides gravity and its force elements."""
        ydot = np.zeros_like(y)
        st = mechanism_rhs(t, np.asarray(y, dtype=float), self.loaded(), self.data, ydot)
        if st < 0:
            raise failure(self.spec.name, st, t)
        return ydot

    def energy(self) -> tuple[float, float]:
        """(kinetic, potential) energy [J] at the last evaluated state."""
        return mechanical_energy(self.model, self.data)

    def loaded(self, joint_forces: np.ndarray | None = None) -> "LoadedMechanism":
        """The static description of this mechanism under constant joint forces [N or N m] (per coordinate)."""
        jf = np.zeros(self.model.n) if joint_forces is None else np.asarray(joint_forces, dtype=float)
        return LoadedMechanism(self.model, POSITION_TOL, POSITION_MAXIT, jf)


def failure(name: str, code: int, t: float) -> SimulationError:
    reason = {STATUS_POSITION_FAILED: "the position problem (loop closure) did not converge",
              STATUS_SINGULAR: "the dependent constraint Jacobian is singular (a singular position)",
              STATUS_MASS_NOT_PD: "the reduced mass matrix is not positive definite (massless degree of freedom?)",
              }.get(code, f"status {code}")
    return SimulationError(f"{name}: simulation stopped at t = {t:.6g} s: {reason}")


LoadedMechanism = namedtuple("LoadedMechanism", ["mech", "position_tol", "position_maxit", "joint_forces"])
"""A mechanism model with the tolerance and iteration limit of its position problem and constant joint forces."""


@njit(cache=True)
def mechanism_rhs(t, y, loaded, data, ydot):
    """dy/dt = [zd^i, zdd^i] for a mechanism loaded by constant joint forces ``loaded.joint_forces``."""
    model = loaded.mech
    st = set_state(model, data, y, loaded.position_tol, loaded.position_maxit)
    if st < 0:
        return st
    clear_loads(data)
    for i in range(model.n):
        data.jforce[i] = loaded.joint_forces[i]
    if not forward_dynamics(model, data):
        return STATUS_MASS_NOT_PD
    ni = model.n - model.m
    for k in range(ni):
        ydot[k] = y[ni + k]
        ydot[ni + k] = data.zddi[k]
    return st


@njit(cache=True)
def mechanism_record(t, y, loaded, data, row):
    """Output row: z (n), zd (n), zdd (n), kinetic, potential [J], max|Phi|, max|Phi_z zd|."""
    model = loaded.mech
    n = model.n
    for i in range(n):
        row[i] = data.z[i]
        row[n + i] = data.zd[i]
        row[2 * n + i] = data.zdd[i]
    kin, pot = mechanical_energy(model, data)
    row[3 * n] = kin
    row[3 * n + 1] = pot
    perr = 0.0
    verr = 0.0
    for r in range(model.m):
        perr = max(perr, abs(data.phi[r]))
        s = 0.0
        for j in range(n):
            s += data.phiz[r, j] * data.zd[j]
        verr = max(verr, abs(s))
    row[3 * n + 2] = perr
    row[3 * n + 3] = verr


# A LoadedMechanism names its passes for integrators (resolved from the model's type at compile time).
LoadedMechanism.rhs = staticmethod(mechanism_rhs)
LoadedMechanism.record = staticmethod(mechanism_record)


class MechanismSystem:
    """:class:`~fmu_vehicle.integrators.OdeSystem` of a mechanism under constant joint forces."""

    # staticmethod: read from an instance, a plain class attribute would be bound to it and get the
    # system as an extra first argument in Python-level calls (scipy reference, NUMBA_DISABLE_JIT=1)
    rhs = staticmethod(mechanism_rhs)
    record = staticmethod(mechanism_record)

    def __init__(self, mech: Mechanism, joint_forces: dict | None = None):
        self.mech = mech
        jf = np.zeros(mech.model.n)
        for name, v in (joint_forces or {}).items():
            jf[mech.coordinate(name)] = v
        self.model = mech.loaded(jf)
        self.data = mech.data
        c = mech.coordinate_names
        self.output_names = (tuple(f"z.{x}" for x in c) + tuple(f"zd.{x}" for x in c) + tuple(f"zdd.{x}" for x in c)
                             + ("energy.kinetic", "energy.potential", "residual.position", "residual.velocity"))

    def reparameterize(self, y):
        return self.mech.repartition(y)

    def failure(self, code, t):
        return failure(self.mech.spec.name, code, t)
