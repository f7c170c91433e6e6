"""The Python API over the engine: a compiled mechanism with its workspace and partition.

    mech = Mechanism.from_file("resources/mechanisms/rssr_fourbar.json")
    y0 = mech.assemble({"crank": 0.3})             # positions by continuation, y = [z^i, zd^i]
    ydot = mech.derivatives(y0)                    # one semi-recursive evaluation
    t, out, y = integrate(MechanismSystem(mech), y0, t_end=1.0, h=1e-3)

``MechanismSystem`` is the integrable system of a mechanism under constant joint forces (its passes are named
on its model type, ``LoadedMechanism``; docs/integrators.md §1). See docs/formulation.md.

Driven (prescribed) coordinates (docs/formulation.md §13) follow a motion given per coordinate as a
polynomial in t plus sines, exact in s, s' and s'' (evaluated inside the compiled passes)::

    mech = Mechanism.from_file("resources/mechanisms/macpherson_rack.json")
    motion = {"rack.travel": {"sine": [[0.02, 6.0, 0.0]]}}          # s(t) = 0.02 sin(6 t) [m]
    y0 = mech.assemble({"rack.travel": 0.0}, {"rack.travel": 0.12})  # s(0), s'(0)
    t, out, y = integrate(MechanismSystem(mech, driven=motion), y0, t_end=1.0, h=1e-3)
"""
from __future__ import annotations

import copy
from collections import namedtuple

import numpy as np

from ..numerics import elementary as em
from ..errors import ModelError, SimulationError
from ..numerics.jit import njit
from .constraints import factor_dependent, velocity_transform
from .dynamics import drive_forces, forward_dynamics
from .energy import drive_power, mechanical_energy, nonconservative_power
from .kinematics import forward_velocities
from ..numerics.linalg import max_abs
from .model import ROLE_DRIVEN, ROLE_FREE, ROLE_PREFERRED, make_data
from .partition import PARTITION_LOCKED, PARTITION_REDUNDANT, choose_dependent, repartition
from .spec import MechanismSpec, load_mechanism_file, parse_mechanism
from .state import (STATUS_MASS_NOT_PD, STATUS_POSITION_FAILED, STATUS_SINGULAR, assemble_positions, clear_loads,
                    positions_and_residual, rest_at_design, set_state)
from .topology import compile_mechanism

POSITION_TOL = 1e-12      # max |Phi| after the position problem [m or m^2]
POSITION_MAXIT = 30


def choose_partition(phiz: np.ndarray, preferred: list[int] | None = None, driven=()) -> np.ndarray:
    """Independent coordinate indices (increasing) for the constraint Jacobian ``phiz`` (m x n), the
    ``preferred`` independent ones and the ``driven`` ones (neither dependent nor independent):
    :func:`partition_for_roles` with those roles."""
    roles = np.full(np.shape(phiz)[1], ROLE_FREE, dtype=np.int64)
    roles[list(preferred or ())] = ROLE_PREFERRED
    roles[[int(j) for j in driven]] = ROLE_DRIVEN
    return partition_for_roles(phiz, roles)


def partition_for_roles(phiz: np.ndarray, roles: np.ndarray) -> np.ndarray:
    """Independent coordinate indices (increasing) for the constraint Jacobian ``phiz`` (m x n) and the
    coordinates' roles (``model.coord_role``): the compiled choice of :func:`partition.choose_dependent` (a
    column-pivoted QR, the preferred coordinates kept while their block is within ``PREFERRED_COND_FACTOR`` of
    the QR choice's condition number; docs/formulation.md §8). Raises ModelError for redundant closure
    equations or driven coordinates that lock the loops."""
    phiz = np.ascontiguousarray(phiz, dtype=float)
    m, n = phiz.shape
    ndrv = int(np.count_nonzero(roles == ROLE_DRIVEN))
    indep, dep = np.zeros(n - m - ndrv, dtype=np.int64), np.zeros(m, dtype=np.int64)
    status, rank = choose_dependent(phiz, roles, np.zeros((m, n)), np.zeros((n, m)), np.zeros(m),
                                    np.zeros((2, n), dtype=np.int64), indep, dep)
    if status == PARTITION_LOCKED:
        raise ModelError(f"coordinates: driven: the driven coordinates lock the loops: the {m} closure equations do "
                         "not determine the dependent coordinates from the other ones; prescribe fewer coordinates")
    if status == PARTITION_REDUNDANT:
        raise ModelError(f"the {m} loop-closure equations are redundant (rank {rank}): remove {m - rank} "
                         "constraint(s), e.g. replace a cut spherical joint by a rod")
    return indep


class Mechanism:
    """A compiled mechanism (``model``), its own workspace (``data``) and coordinate names.

    ``model`` is never written after construction. Every method that moves the mechanism works on a
    workspace: ``data`` by default, or the one passed as ``data=`` (e.g. a simulation's own workspace from
    :meth:`new_data`, so that runs of one mechanism do not share state, like MuJoCo's mjData per simulation)."""

    def __init__(self, spec: MechanismSpec):
        self.spec = spec
        self.model, self.info = compile_mechanism(spec)
        n = self.model.n
        names = self.info.coordinate_names
        self.preferred = [self.info.coordinate_index[c] for c in (spec.independent or ())]
        drv = self.model.drv.tolist()
        if spec.independent is not None and len(self.preferred) != self.model.ni:
            driven = f" - {self.model.ndrv} driven" if self.model.ndrv else ""
            raise ModelError(f"{spec.source}: coordinates: independent: {len(self.preferred)} coordinates named, "
                             f"the mechanism has {self.model.ni} degrees of freedom "
                             f"({n} coordinates - {self.model.m} closure equations{driven})")
        # partition at the design configuration (z = 0)
        self.data = make_data(self.model, [j for j in range(n) if j not in drv][:self.model.ni])
        positions_and_residual(self.model, self.data)
        err = float(np.abs(self.data.phi).max()) if self.model.m else 0.0
        if err > 1e-6:
            raise ModelError(f"{spec.source}: the design configuration violates the loop closures by {err:.3g} "
                             "(m or m^2): joint points of cut joints and rod end points must be consistent")
        self._design_partition = self._choose(spec.source)
        self._set_partition(self._design_partition)
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
        """Degrees of freedom = independent coordinates, n - m - ndrv."""
        return self.model.ni

    @property
    def driven_names(self) -> tuple:
        """Names of the driven (prescribed) coordinates, in the order of data.drv_z and data.drv_force."""
        return tuple(self.coordinate_names[i] for i in self.model.drv)

    def independent_names_of(self, data=None) -> tuple:
        """Names of the independent coordinates of workspace ``data`` (default: the mechanism's own)."""
        return tuple(self.coordinate_names[i] for i in (self.data if data is None else data).indep)

    @property
    def independent_names(self) -> tuple:
        return self.independent_names_of()

    def with_data(self, data) -> "Mechanism":
        """This mechanism (the same model, spec and names, nothing copied) over the workspace ``data``: its
        methods and ``data`` read and move that workspace (e.g. a simulation's, :meth:`new_data`)."""
        other = copy.copy(self)
        other.data = data
        return other

    def new_data(self):
        """A fresh workspace of this mechanism, as :meth:`reset` leaves one (design configuration, at rest,
        the design partition); shares no array with ``data`` or any other workspace."""
        d = make_data(self.model, self._design_partition)
        self.reset(d)
        return d

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

    def _choose(self, where: str) -> np.ndarray:
        """The partition at the current Phi_z of ``self.data`` for the model's coordinate roles
        (:func:`partition_for_roles`), its errors naming ``where``."""
        try:
            return partition_for_roles(self.data.phiz, self.model.coord_role)
        except ModelError as e:
            if not self.model.ndrv:
                raise
            raise ModelError(f"{where}: {e}") from None

    def _set_partition(self, indep: np.ndarray, data=None):
        """Use ``indep`` in ``data`` (default: ``self.data``); needs its Phi_z current. Records the pivot ratio
        of the new Phi_z^d in data.stats[3], the reference of the re-partition trigger in :func:`state.set_state`."""
        d = self.data if data is None else data
        self._set_indices(indep, d)
        if self.model.m > 0:
            d.stats[3] = factor_dependent(self.model, d)

    def _set_indices(self, indep: np.ndarray, d):
        """Write ``indep`` and the dependent coordinates it leaves (all but it and the driven ones) into ``d``."""
        d.indep[:] = indep
        d.dep[:] = np.array(sorted(set(range(self.model.n)) - set(indep.tolist()) - set(self.model.drv.tolist())),
                            dtype=np.int64)

    def reset(self, data=None) -> None:
        """Put the workspace ``data`` (default: ``self.data``) back where construction left it: every coordinate
        at its design value (z = 0), at rest, with the partition chosen there, whatever a previous run left (a
        run that diverged leaves NaN or a configuration the position problem cannot start from; a run that
        re-partitioned leaves other independent coordinates). :meth:`assemble` continues from the
        configuration it finds."""
        d = self.data if data is None else data
        self._set_indices(self._design_partition, d)
        rest_at_design(self.model, d)

    def repartition(self, y: np.ndarray, data=None) -> np.ndarray:
        """Choose new independent coordinates at the state y in workspace ``data`` (default: ``self.data``);
        return y in the new coordinates (the compiled :func:`partition.repartition`, as a native FMU's step)."""
        d = self.data if data is None else data
        y = np.array(y, dtype=float)
        st = repartition(self.model, d, y, POSITION_TOL, POSITION_MAXIT)
        if st < 0:
            raise repartition_failure(self.spec.name, st)
        return y

    def state(self, data=None) -> np.ndarray:
        """y = [z^i, zd^i] from the workspace ``data`` (default: ``self.data``)."""
        d = self.data if data is None else data
        return np.concatenate([d.z[d.indep], d.zd[d.indep]])

    def assemble(self, positions: dict | None = None, velocities: dict | None = None, steps: int = 20,
                 data=None) -> np.ndarray:
        """Move from the current configuration to the given coordinate values by continuation.

        ``positions``/``velocities`` map coordinate names to values [m | rad, m/s | rad/s]; values of
        independent and driven coordinates are imposed (the driven ones also become data.drv_z, drv_zd),
        values of dependent ones are used as initial guesses.
        Defaults come from the file's ``coordinates.initial`` / ``initial_velocity``.
        Works on the workspace ``data`` (default: ``self.data``).
        Returns the consistent state y = [z^i, zd^i].
        """
        positions = dict(self.spec.initial if positions is None else positions)
        velocities = dict(self.spec.initial_velocity if velocities is None else velocities)
        d, model = (self.data if data is None else data), self.model
        target = d.z.copy()
        for name, v in positions.items():
            target[self.coordinate(name)] = float(v)
        imposed = set(d.indep.tolist()) | set(model.drv.tolist())
        for i in {self.coordinate(k) for k in positions} - imposed:   # dependent: a first guess
            d.z[i] = target[i]
        if assemble_positions(model, d, target, np.empty((2, model.n)), steps, POSITION_TOL, POSITION_MAXIT) < 0:
            raise ModelError(f"{self.spec.source}: cannot assemble the mechanism at {positions} "
                             f"(the position problem diverged even in {64 * steps} continuation steps)")
        for name, v in velocities.items():
            d.zd[self.coordinate(name)] = float(v)
        d.drv_zd[:] = d.zd[model.drv]
        velocity_transform(model, d)
        forward_velocities(model, d)
        return self.state(d)

    def derivatives(self, y: np.ndarray, t: float = 0.0, driven: dict | None = None) -> np.ndarray:
        """dy/dt for the mechanism with no loads besides gravity and its force elements.

        Driven coordinates follow ``driven`` (see :meth:`loaded`) at time t [s]; without it they take the
        values the caller wrote into data.drv_z, drv_zd, drv_zdd.
        """
        ydot = np.zeros_like(y)
        st = mechanism_rhs(t, np.asarray(y, dtype=float), self.loaded(driven=driven), self.data, ydot)
        if st < 0:
            raise failure(self.spec.name, st, t)
        return ydot

    def energy(self) -> tuple[float, float]:
        """(kinetic, potential) energy [J] at the last evaluated state."""
        return mechanical_energy(self.model, self.data)

    def loaded(self, joint_forces: np.ndarray | None = None, driven: dict | None = None) -> "LoadedMechanism":
        """The static description of this mechanism under constant joint forces [N or N m] (per coordinate)
        and the motion of its driven coordinates.

        ``driven`` maps every driven coordinate's name to its motion s(t) [m | rad, t in s]: a number (held
        constant) or ``{"polynomial": [c0, c1, ...], "sine": [[amplitude, omega_rad_per_s, phase_rad], ...]}``,
        s(t) = sum_p c_p t^p + sum_h A_h sin(omega_h t + phase_h) (either key optional), evaluated with its
        exact derivatives at every evaluation. ``None``: the passes leave data.drv_z, drv_zd, drv_zdd as the
        caller set them.
        """
        jf = np.zeros(self.model.n) if joint_forces is None else np.asarray(joint_forces, dtype=float)
        poly, sine = self._motion(driven)
        return LoadedMechanism(self.model, POSITION_TOL, POSITION_MAXIT, jf, driven is not None, poly, sine)

    def _motion(self, driven: dict | None):
        """Coefficient arrays (ndrv, P) and (ndrv, H, 3) of the driven motion (see :meth:`loaded`)."""
        ndrv, src = self.model.ndrv, self.spec.source
        if driven is None:
            return np.zeros((ndrv, 1)), np.zeros((ndrv, 0, 3))
        if not isinstance(driven, dict):
            raise ModelError(f"{src}: driven: must map driven coordinate names to motions, got {driven!r}")
        names = self.driven_names
        for name in driven:
            if name not in names:
                raise ModelError(f"{src}: driven: '{name}' is not a driven coordinate (driven: {list(names)})")
        missing = [c for c in names if c not in driven]
        if missing:
            raise ModelError(f"{src}: driven: no motion given for the driven coordinate(s) {missing}")
        polys, sines = [], []
        for name in names:
            mo = driven[name]
            if isinstance(mo, (int, float)) and not isinstance(mo, bool):
                mo = {"polynomial": [mo]}
            if not isinstance(mo, dict) or set(mo) - {"polynomial", "sine"}:
                raise ModelError(f"{src}: driven: '{name}': a motion is a number or "
                                 "{'polynomial': [c0, c1, ...], 'sine': [[amplitude, omega, phase], ...]}")
            try:
                p = np.array(mo.get("polynomial", [0.0]), dtype=float).reshape(-1)
                h = np.array(mo.get("sine", []), dtype=float).reshape(-1, 3)
            except (TypeError, ValueError):
                raise ModelError(f"{src}: driven: '{name}': 'polynomial' must list numbers and 'sine' "
                                 "triples [amplitude, omega_rad_per_s, phase_rad]") from None
            if not (np.all(np.isfinite(p)) and np.all(np.isfinite(h))):
                raise ModelError(f"{src}: driven: '{name}': motion coefficients must be finite")
            polys.append(p if p.size else np.zeros(1))
            sines.append(h)
        P = max(p.size for p in polys)
        H = max(h.shape[0] for h in sines)
        poly, sine = np.zeros((ndrv, P)), np.zeros((ndrv, H, 3))
        for k in range(ndrv):
            poly[k, :polys[k].size] = polys[k]
            sine[k, :sines[k].shape[0]] = sines[k]
        return poly, sine


def failure(name: str, code: int, t: float) -> SimulationError:
    reason = {STATUS_POSITION_FAILED: "the position problem (loop closure) did not converge",
              STATUS_SINGULAR: "the dependent constraint Jacobian is singular (a singular position)",
              STATUS_MASS_NOT_PD: "the reduced mass matrix is not positive definite (massless degree of freedom?)",
              }.get(code, f"status {code}")
    return SimulationError(f"{name}: simulation stopped at t = {t:.6g} s: {reason}")


def repartition_failure(name: str, code: int) -> SimulationError:
    """The error of a :func:`partition.repartition` that returned ``code`` < 0."""
    reason = {STATUS_POSITION_FAILED: "the state is not assemblable (the position problem did not converge)",
              STATUS_SINGULAR: "the constraint Jacobian is singular there"}.get(code, f"status {code}")
    return SimulationError(f"{name}: cannot re-partition: {reason}")


LoadedMechanism = namedtuple("LoadedMechanism", ["mech", "position_tol", "position_maxit", "joint_forces",
                                                 "drive_set", "drive_poly", "drive_sine"])
"""A mechanism model with the tolerance and iteration limit of its position problem, constant joint forces and
the motion of its driven coordinates (``drive_set``: the passes write it into data.drv_*; ``drive_poly``
(ndrv, P) polynomial coefficients c_p of t^p, ``drive_sine`` (ndrv, H, 3) amplitude, angular frequency
[rad/s], phase [rad]; :meth:`Mechanism.loaded`)."""


@njit(cache=True)
def drive_motion(loaded, t, data):
    """data.drv_z, drv_zd, drv_zdd = s(t), s'(t), s''(t) with
    s(t) = sum_p c_p t^p + sum_h A_h sin(omega_h t + phase_h) for every driven coordinate."""
    poly, sine = loaded.drive_poly, loaded.drive_sine
    P = poly.shape[1]
    for k in range(poly.shape[0]):
        s = 0.0
        sd = 0.0
        sdd = 0.0
        for p in range(P - 1, -1, -1):      # Horner for s, s', s''
            sdd = sdd * t + 2.0 * sd
            sd = sd * t + s
            s = s * t + poly[k, p]
        for h in range(sine.shape[1]):
            A, w, ph = sine[k, h, 0], sine[k, h, 1], sine[k, h, 2]
            sn, cs = em.sincos(w * t + ph)
            s += A * sn
            sd += A * w * cs
            sdd -= A * w * w * sn
        data.drv_z[k] = s
        data.drv_zd[k] = sd
        data.drv_zdd[k] = sdd


@njit(cache=True)
def mechanism_rhs(t, y, loaded, data, ydot):
    """dy/dt = [zd^i, zdd^i] for a mechanism loaded by constant joint forces ``loaded.joint_forces``, its
    driven coordinates following ``loaded``'s motion at t (if ``loaded.drive_set``)."""
    model = loaded.mech
    if loaded.drive_set:
        drive_motion(loaded, t, data)
    st = set_state(model, data, y, loaded.position_tol, loaded.position_maxit)
    if st < 0:
        return st
    clear_loads(data)
    for i in range(model.n):
        data.jforce[i] = loaded.joint_forces[i]
    if not forward_dynamics(model, data):
        return STATUS_MASS_NOT_PD
    drive_forces(model, data)
    ni = model.ni
    for k in range(ni):
        ydot[k] = y[ni + k]
        ydot[ni + k] = data.zddi[k]
    return st


@njit(cache=True)
def mechanism_record(t, y, loaded, data, row):
    """Output row: z (n), zd (n), zdd (n), kinetic, potential [J], max|Phi|, max|Phi_z zd|, the driving
    forces (ndrv) [N | N m], the drive power and the non-conservative power [W] (energy.drive_power,
    energy.nonconservative_power)."""
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
        perr = max_abs(perr, data.phi[r])
        s = 0.0
        for j in range(n):
            s += data.phiz[r, j] * data.zd[j]
        verr = max_abs(verr, s)
    row[3 * n + 2] = perr
    row[3 * n + 3] = verr
    for k in range(model.ndrv):
        row[3 * n + 4 + k] = data.drv_force[k]
    row[3 * n + 4 + model.ndrv] = drive_power(model, data)
    row[3 * n + 5 + model.ndrv] = nonconservative_power(model, data)


# A LoadedMechanism names its passes for integrators (resolved from the model's type at compile time).
LoadedMechanism.rhs = staticmethod(mechanism_rhs)
LoadedMechanism.record = staticmethod(mechanism_record)


class MechanismSystem:
    """:class:`~fmu_vehicle.integrators.OdeSystem` of a mechanism under constant joint forces; a mechanism
    with driven coordinates needs their motion ``driven`` (see :meth:`Mechanism.loaded`)."""

    # staticmethod: read from an instance, a plain class attribute would be bound to it and get the
    # system as an extra first argument in Python-level calls (scipy reference, NUMBA_DISABLE_JIT=1)
    rhs = staticmethod(mechanism_rhs)
    record = staticmethod(mechanism_record)

    def __init__(self, mech: Mechanism, joint_forces: dict | None = None, driven: dict | None = None):
        self.mech = mech
        jf = np.zeros(mech.model.n)
        for name, v in (joint_forces or {}).items():
            jf[mech.coordinate(name)] = v
        if mech.model.ndrv and driven is None:
            raise ModelError(f"{mech.spec.source}: driven: the mechanism has driven coordinates "
                             f"{list(mech.driven_names)}: give their motion (MechanismSystem(mech, driven={{...}}))")
        self.model = mech.loaded(jf, driven)
        self.data = mech.data
        c = mech.coordinate_names
        self.output_names = (tuple(f"z.{x}" for x in c) + tuple(f"zd.{x}" for x in c) + tuple(f"zdd.{x}" for x in c)
                             + ("energy.kinetic", "energy.potential", "residual.position", "residual.velocity")
                             + tuple(f"drive_force.{x}" for x in mech.driven_names)
                             + ("power.drive", "power.nonconservative"))

    def reparameterize(self, y):
        return self.mech.repartition(y)

    def failure(self, code, t):
        return failure(self.mech.spec.name, code, t)
