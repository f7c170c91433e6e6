"""The compiled vehicle: a static description (``VehicleModel``) and its workspace (``VehicleData``).

The pair follows the engine's model/data split (``multibody.model``): the model holds what a run never
changes (the compiled mechanism, the wheels, the tire parameters, the road as one record, the signal
layout), the data holds everything a run writes (the engine workspace, the inputs, the road/tire
source switches, the last tire contact outputs, the vehicle's own scratch, the engine origin on the
road). The derivative and output passes (``vehicle.dynamics``) are free functions of (model, data).
``check_data`` verifies that a workspace fits a model where the pair is built. See docs/vehicle.md.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..errors import ModelError
from ..tire.models import CONTACT_OUT_N

VehicleModel = namedtuple("VehicleModel", [
    "mech",            # engine model (multibody.model.Model)
    "position_tol",    # max |Phi| after the position problem [m or m^2]
    "position_maxit",  # Newton iterations allowed for the position problem
    "w_body",          # (nw,) int64 wheel body
    "w_hub",           # (nw,) int64 hub (upright) body carrying the wheel
    "w_spin",          # (nw,) int64 spin coordinate (wheel relative to hub) [rad]
    "w_spring",        # (nw,) int64 index of the corner's spring-damper element
    "w_center0",       # (nw,3) wheel centre at the design configuration [m]
    "w_axis0",         # (nw,3) unit spin axis at the design configuration
    "w_inertia",       # (nw,) wheel spin inertia about its axle [kg m^2] (brake element)
    "w_side",          # (nw,) +1.0 left-hand corner, -1.0 right-hand (its tire is mirrored, tire.contact)
    "tire_p",          # (nw, N_PARAMS) tire parameter arrays (tire.models.params: model id in P_MODEL)
    "road",            # road.arrays.RoadArrays: the internal road
    "chassis",         # chassis body index
    "chassis_coords",  # (6,) int64 coordinates of chassis x, y, z, roll, pitch, yaw (-1: not a coordinate)
    "chassis_com0",    # (3,) chassis CoM at the design configuration [m] (the chassis joint's reference point)
    "steer_drv",       # index of the steering rack among the engine's driven coordinates, -1: no steering
    "out_map",         # (n_out,) int64 quantity of each output row (signals.SignalTable.output_map), -1: none
    "point_column",    # input column of an external load's point.x (then .y, .z), -1: the table has none
    "w_center_row",    # (nw,3) int64 output row of each wheel centre's x, y, z (pos.*), -1: not an output
    "w_chassis",       # (nw,) int64 chassis body of the unit each wheel is mounted on (docs/articulated.md §6)
    "held",            # (nh,) int64 coordinates the static equilibrium holds besides the towing chassis's x,
                       # y, yaw and the wheel spins: each coupling's yaw (a standing combination leaves its
                       # articulation undetermined); empty for a single-unit vehicle
    "u_body",          # (nu,) int64 chassis body of each towed unit (its coupling yaw: held[u]); nu = nh
    "a_wheels",        # (na, 2) int64 left and right wheel of each axle (loader.vehicle_axles)
    "bar_wheels",      # (nb, 2) int64 left and right wheel of each anti-roll bar (templates.AntiRollBar)
    "bar_rate",        # (nb,) each bar's rate at the wheel k_w = K_phi / t^2 [N/m]
])

VehicleData = namedtuple("VehicleData", [
    "mech",            # engine workspace (multibody.model.Data)
    "modes",           # (2,) int64: [road_source (0 internal, 1 inputs), tire_source (0 internal, 1 external)]
    "inputs",          # (nw, n_inputs) per-wheel inputs, columns as the signal table's inputs
    "contact",         # (nw, CONTACT_OUT_N) last tire contact outputs (tire.contact OUT_*)
    "brake",           # (nw,) brake torque on each wheel about its spin axis at the last evaluation [N m]
    "work",            # (nw, N_WORK) per-wheel scratch, columns W_*
    "origin",          # (1,) x [m] of the engine's origin on the road (VehicleSystem.rebase)
    "steer",           # (4,) steering ramp: t0 [s], rack travel at t0 [m], rack rate [m/s], rack gain [m/rad]
    "quantities",      # (n_q,) the quantities computed by vehicle_record (dynamics.QUANTITIES layout)
])

# per-wheel scratch columns of VehicleData.work (3-vectors; W_ROAD holds h, dh/dx, mu, dh/dy; W_LEVER the
# external load point's lever about the wheel centre [m], set per step by the simulator)
W_CENTER, W_VEL, W_AXIS, W_FORCE, W_POINT, W_MOMENT, W_OMEGA, W_LEVER, W_ROAD = (3 * k for k in range(9))
N_WORK = 28

# VehicleData.modes
MODE_ROAD, MODE_TIRE = 0, 1


def make_data(model: VehicleModel, engine_data, n_inputs: int, input_start, n_quantities: int,
              rack_gain: float = 0.0) -> VehicleData:
    """A fresh workspace for ``model`` around the engine workspace ``engine_data``; inputs at their start
    values, steering straight ahead with ``rack_gain`` [m of rack travel per rad of steering-wheel angle]."""
    nw = model.w_body.shape[0]
    inputs = np.tile(np.asarray(input_start, dtype=float), (nw, 1)).reshape(nw, n_inputs)
    return VehicleData(engine_data, np.zeros(2, dtype=np.int64), inputs, np.zeros((nw, CONTACT_OUT_N)),
                       np.zeros(nw), np.zeros((nw, N_WORK)), np.zeros(1), np.array([0.0, 0.0, 0.0, rack_gain]),
                       np.zeros(n_quantities))


def check_data(model: VehicleModel, data: VehicleData, n_inputs: int) -> None:
    """Raise ModelError unless ``data`` fits ``model`` (the compiled passes index without bounds checks)."""
    nw = model.w_body.shape[0]
    shapes = {"inputs": (data.inputs, (nw, n_inputs)), "contact": (data.contact, (nw, CONTACT_OUT_N)),
              "brake": (data.brake, (nw,)), "work": (data.work, (nw, N_WORK)), "modes": (data.modes, (2,)),
              "origin": (data.origin, (1,)), "steer": (data.steer, (4,))}
    for name, (arr, shape) in shapes.items():
        if arr.shape != shape:
            raise ModelError(f"vehicle workspace: {name} has shape {arr.shape}, the model needs {shape}")
    if model.chassis_com0.shape != (3,):
        raise ModelError(f"vehicle model: chassis_com0 has shape {model.chassis_com0.shape}, needs (3,)")
    for name in ("w_chassis", "w_hub", "w_spin", "w_spring", "w_center0", "w_axis0", "w_inertia", "w_side", "tire_p"):
        if getattr(model, name).shape[0] != nw:
            raise ModelError(f"vehicle model: {name} has {getattr(model, name).shape[0]} rows for {nw} wheels")
    n_bodies = model.mech.n
    for name in ("w_body", "w_hub", "w_spin", "w_chassis", "held", "u_body"):
        idx = getattr(model, name)
        if idx.size and (idx.min() < 0 or idx.max() >= n_bodies):
            raise ModelError(f"vehicle model: {name} indexes outside the mechanism's {n_bodies} bodies")
    if model.a_wheels.shape[1:] != (2,) or model.a_wheels.size and (model.a_wheels.min() < 0
                                                                     or model.a_wheels.max() >= nw):
        raise ModelError(f"vehicle model: a_wheels must be (axles, 2) indexes of the {nw} wheels")
    if model.bar_wheels.shape[1:] != (2,) or model.bar_rate.shape != model.bar_wheels.shape[:1] or \
            model.bar_wheels.size and (model.bar_wheels.min() < 0 or model.bar_wheels.max() >= nw):
        raise ModelError(f"vehicle model: bar_wheels must be (bars, 2) indexes of the {nw} wheels, bar_rate one "
                         f"rate per bar")
    if model.u_body.shape != model.held.shape:
        raise ModelError("vehicle model: u_body and held need one entry per towed unit")
    if data.mech.z.shape[0] != model.mech.n:
        raise ModelError("vehicle workspace: the engine workspace belongs to another mechanism")
    if model.w_center_row.shape != (nw, 3) or model.w_center_row.max(initial=-1) >= model.out_map.shape[0]:
        raise ModelError("vehicle model: w_center_row must be (wheels, 3) rows of the output row")
    if model.point_column + 3 > n_inputs:
        raise ModelError(f"vehicle model: point_column {model.point_column} is outside the {n_inputs} inputs")
    if model.out_map.size and model.out_map.max() >= data.quantities.shape[0]:
        raise ModelError("vehicle model: an output row points outside the workspace's quantity row")
