"""Native vehicle FMUs: ``VehicleLV.fmu``, ``Vehicle.fmu``, ``VehicleCombination.fmu`` and
``TractorSemitrailer.fmu`` whose binaries carry the package's compiled step and an FMI 2.0 layer in C (``c/fmi2_native.c``), with no Python on the host.

:func:`export` builds one:

1. the parameter values: the Python FMU's variable table (``fmi.vehicle_slave.vehicle_variables``) with its
   start values, changed by ``settings`` (``name -> value``; errors name the parameter);
2. the vehicle, road and simulator exactly as the Python FMU builds them at initialization
   (``fmi.vehicle_slave.load_vehicle``, ``Vehicle.simulator``). At initialization the FMU solves the static
   equilibrium at the ``x0`` set (``vehicle.equilibrium.static_equilibrium``) and makes the initial state for
   the ``v0`` set (``vehicle.start.start_state``) with the same compiled kernels;
3. the image of the simulator's (model, data) (``layout.make_image``) in ``resources/image.bin``, and the
   compiled step (``step``/``emit``: the kernels' machine code, no second formula) linked with
   ``c/runtime.c`` and ``c/fmi2_native.c`` per platform (``binaries/linux64/<id>.so``,
   ``binaries/win64/<id>.dll`` when mingw is installed);
4. ``modelDescription.xml`` from the same Var table (names, units, ranges, descriptions via
   ``fmi.post_process.patch_model_description``). While stepping, outputs change only in ``fmi2DoStep``:
   ``ModelStructure/Outputs`` lists them with no dependencies on inputs.

What stays settable in the native FMU until initialization ends: every Real parameter (``dt``, ``v0`` and ``x0``,
held by the C layer, and the masses, inertias, springs, dampers and tire radii, which the C layer writes into
the model's arrays of the instance: :mod:`.tunable` finds where at export) and the ``integrator``, among the
methods the library carries: RK4 and the ``integrator`` set at export, plus the stepping integrators named in
``export(integrators=...)`` (each one's entry point, ``step.integrator_cfuncs``: ABM4, BDF2, RK4E, costs
compile time and library size, so an export carries only what it is asked for: docs/native.md §8); every
input at any time. The other choices and the file names (``model``, ``road``, ..., ``road_file``) are fixed at
export (their value is the start value in the modelDescription, and setting one to another value returns
fmi2Error naming it; an Enumeration is an Integer in the C layer holding its item value). The FMU state can be
saved, restored and serialized, with the integrator and its arrays (ABM4's history, BDF2's matrices, ...). A
new coordinate partition during a run is made in the compiled step (``fv_repartition``). See docs/native.md §6
and §8.

The FMI 2.0 FMU is a Model Exchange FMU too (the same library, ``c/fmi2_me.c``): the vehicle's state vector is
its continuous states (:func:`model_exchange_states`, appended to the description by
:func:`add_model_exchange`), the switching functions RK4E locates its event indicators, and a new coordinate
partition or an origin rebase a step event (docs/native.md §9).

``export(..., fmi_version=3)`` builds the same FMU as an FMI 3.0 Co-Simulation FMU into ``<dest_dir>/fmi3/``:
``c/fmi3_native.c`` over the FMI 2.0 layer in one library exporting only ``fmi3*`` (binaries in
``x86_64-linux``/``x86_64-windows``), its modelDescription by ``fmi.description3`` from the same Var table and
structure (docs/native.md §7).
"""
from __future__ import annotations

import hashlib
import math
import tempfile
from dataclasses import replace
import uuid
import zipfile
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from ..errors import ModelError
from ..fmi.description3 import TYPES3, model_description3, time_reference
from ..fmi.post_process import patch_model_description
from ..fmi.slave_base import SlaveBase
from ..fmi.variables import Var
from ..fmi.vehicle_parameters import parameter_table
from ..fmi.vehicle_slave import load_vehicle, steering_input_limits, vehicle_structure, vehicle_variables
from ..fmi.version import package_version
from ..paths import resource_path
from ..util import atomic_write
from .emit import (C_DIR, FMI3_EXPORTS, FMI_EXPORTS, RUNTIME_DEFINES, TARGETS, _run, build_library, fresh_ir,
                   method_defines, usable_targets)
from .layout import ARRAY_DATA, make_image
from .step import pack_system
from .tunable import mass_offsets, tunable_parameters

FMI_C = C_DIR / "fmi2_native.c"
FMI3_C = C_DIR / "fmi3_native.c"
"""The FMI 3.0 layer: an adapter over the FMI 2.0 one (``FMI_C``), both in the library of an FMI 3.0 FMU."""
FMI_VERSIONS = (2, 3)
PLATFORMS3 = {"linux64": "x86_64-linux", "win64": "x86_64-windows"}
"""The FMI 3.0 platform folder of each target (FMI 2.0: the target's name, ``binaries/linux64``)."""
FMI3_FOLDER = "fmi3"
"""An FMI 3.0 FMU is written to ``<dest_dir>/fmi3/<name>.fmu``: the same name as its FMI 2.0 twin in ``dest_dir``."""
IMAGE_FILE = "image.bin"
NATIVE_FMUS = ("VehicleLV", "Vehicle", "VehicleCombination", "TractorSemitrailer")
"""The vehicle FMUs that have a native build (keys of ``fmi.vehicle_parameters.KINDS``). The variable table, the
image and the C layer are generic in the wheels and outputs, so a combination's wheels (six, or the
tractor-semitrailer's twelve) and its towed units' outputs need nothing of their own (its equilibrium holds the
couplings' yaw through ``model.held``, in the image)."""

# kinds of variable in the C table (c/fmi2_native.c)
K_OUTPUT, K_WHEEL_INPUT, K_STEERING_ANGLE, K_RACK_TRAVEL, K_DT, K_V0, K_X0, K_FIXED, K_TUNABLE, K_INTEGRATOR = range(10)
OWN_KINDS = ("dt", "v0", "x0")
"""Real parameters the C layer holds itself (not in the image): never probed as tunable."""
_TYPES = {"Real": 0, "Integer": 1, "Boolean": 2, "String": 3}


def parameter_values(variables: tuple[Var, ...], settings: dict | None) -> dict:
    """Every parameter's value: its start value, or the one in ``settings`` (name -> value or text),
    checked against its type, range and choices. ModelError names a parameter that does not exist or a value
    it refuses."""
    values = {v.name: v.start for v in variables if v.causality == "parameter"}
    table = {v.name: v for v in variables}
    for name, raw in (settings or {}).items():
        var = table.get(name)
        if var is None or var.causality != "parameter":
            raise ModelError(f"--set {name}: no such parameter; parameters: {', '.join(sorted(values))}")
        try:
            value = var.coerce(_parse(raw, var.type))
        except (TypeError, ValueError):
            raise ModelError(f"--set {name}={raw!r}: not a {var.type}") from None
        problem = var.check(value)
        if problem is not None:
            raise ModelError(f"--set {name}={raw!r}: {problem}")
        values[name] = value
    return values


def _parse(raw, type_: str):
    if not isinstance(raw, str):
        return raw
    if type_ == "Boolean":
        if raw.lower() not in ("true", "false", "1", "0"):
            raise ValueError(raw)
        return raw.lower() in ("true", "1")
    return raw


def simulator(fmu: str, values: dict):
    """The ``VehicleSimulator`` the Python FMU ``fmu`` makes at initialization for the parameter ``values``
    (before the inputs are applied): its (model, data) and state are what the native FMU ships."""
    car, road = load_vehicle(parameter_table(fmu, None), values, Path(resource_path()))
    return car, car.simulator(road, v0=values["v0"], x0=values["x0"], dt=values["dt"], integrator="rk4",
                              road_source=values["road_source"], tire_source=values["tire_source"])


def _image(fmu: str, values: dict):
    """(car, simulator, ``step.Packed``, ``layout.Image``) of the Python FMU ``fmu`` initialized with ``values``."""
    car, sim = simulator(fmu, values)
    p = pack_system(sim.system, car.n_states)
    return car, sim, p, make_image(sim.system.model, p.model_buf, p.model_type, sim.system.data, p.data_buf,
                                   p.data_type)


def _c_number(x) -> str:
    if x is None:
        return "0.0"
    x = float(x)
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return repr(x)


def _c_string(text) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def variable_rows(variables, car, tunables=()) -> list[tuple]:
    """(type, kind, index, start, min, max, string) of every variable, in the table's order (the value
    reference is the position): where the C layer finds each value. ``tunables``: names of the parameters the
    C layer takes until initialization ends (:mod:`.tunable`); every other one it does not hold is fixed."""
    outputs = {name: i for i, name in enumerate(car.output_names)}
    rows = []
    for v in variables:
        lo = -math.inf if v.min is None else v.min
        hi = math.inf if v.max is None else v.max
        if v.causality == "output":
            rows.append((v.type, K_OUTPUT, outputs[v.name], 0.0, lo, hi, ""))
        elif v.causality == "input" and v.name.startswith("wheel_"):
            wheel, name = v.name[len("wheel_"):].split(".", 1)
            col = int(car.input_columns[car.signals.input_names.index(name)])
            rows.append((v.type, K_WHEEL_INPUT, (car.wheel_index(wheel), col), v.start, lo, hi, ""))
        elif v.name == "steering_wheel_angle":
            rows.append((v.type, K_STEERING_ANGLE, 0, v.start, lo, hi, ""))
        elif v.name == "rack_travel_command":
            rows.append((v.type, K_RACK_TRAVEL, 0, v.start, lo, hi, ""))
        elif v.causality == "input":
            raise ModelError(f"native FMU: no place for the input {v.name!r}")
        elif v.name == "dt":
            rows.append((v.type, K_DT, 0, v.start, lo, hi, ""))
        elif v.name == "v0":
            rows.append((v.type, K_V0, 0, v.start, lo, hi, ""))
        elif v.name == "x0":
            rows.append((v.type, K_X0, 0, v.start, lo, hi, ""))
        elif v.name == "integrator":
            rows.append((v.type, K_INTEGRATOR, 0, v.start, lo, hi, ""))
        elif v.name in tunables:
            rows.append((v.type, K_TUNABLE, 0, v.start, lo, hi, ""))
        else:
            rows.append((v.type, K_FIXED, 0, v.start, lo, hi, v.start))
    return rows


def exported_variables(variables, values: dict, car) -> list[Var]:
    """The FMU's variables with every parameter's start value set to its export value (``values``) and the
    steering input declared to the exported car's own rack end stops (``vehicle_slave.steering_input_limits``;
    the Python FMU checks them at the step, as its model can change)."""
    limits = steering_input_limits(car, values.get("steering_input"))
    return [replace(v, start=values[v.name]) if v.causality == "parameter"
            else replace(v, min=limits[v.name][0], max=limits[v.name][1]) if v.name in limits else v
            for v in variables]


def blob_ranges(image, holes=()) -> tuple[list, list]:
    """What a restored state's blob is checked against (``c/fmi2_native.c`` ``check_state``): ([(offset, bytes,
    path)] of the model's arrays, merged where they touch ("first .. last" path), less the 8-byte entries at
    the offsets ``holes`` (the tunable parameters' values, checked on their own): they never change in a run, so
    a state must hold this instance's bytes there; [(offset, bytes, path)] of the data's int64 arrays (the
    coordinate partition, the wheel modes), whose every value must lie in [0, the mechanism's number of
    coordinates])."""
    fixed = merged_ranges(f for f in image.fields if f.path.startswith("model."))
    index = [(f.offset, int(f.array.nbytes), f.path) for f in sorted(image.fields, key=lambda f: f.offset)
             if f.array.nbytes and not f.path.startswith("model.") and f.array.dtype.kind in "iu"
             and f.array.dtype.itemsize == 8]
    for hole in sorted(holes):
        for i, (start, size, path) in enumerate(fixed):
            if start <= hole < start + size:
                parts = [(start, hole - start, path), (hole + 8, start + size - hole - 8, path)]
                fixed[i:i + 1] = [r for r in parts if r[1] > 0]
                break
    return fixed, index


def merged_ranges(fields) -> list[tuple[int, int, str]]:
    """[(offset, bytes, path)] of the image ``fields``' memory in the blob, in offset order, merged where they
    touch or overlap (path "first .. last"); empty arrays left out."""
    ranges = []
    for f in sorted(fields, key=lambda f: f.offset):
        n = int(f.array.nbytes)
        if n == 0:
            continue
        if ranges and f.offset <= ranges[-1][0] + ranges[-1][1]:
            start, size, path = ranges[-1]
            ranges[-1] = (start, max(size, f.offset + n - start), f"{path.split(' .. ')[0]} .. {f.path}")
        else:
            ranges.append((f.offset, n, f.path))
    return ranges


def _c_ranges(name: str, ranges) -> list[str]:
    rows = [f"    {{{o}, {n}, {_c_string(path)}}}," for o, n, path in ranges] or ['    {0, 0, ""},']
    return [f"#define FV_N_{name} {len(ranges)}", f"static const fv_range FV_{name}[] = {{", *rows, "};"]


def config_header(model_id: str, guid: str, fixed, values: dict, car, sim, key_word: int, shape, image,
                  tunables: dict, methods=()) -> str:
    """``fv_fmu_config.h`` for ``c/fmi2_native.c``: the variable table ``fixed`` (:func:`exported_variables`),
    where the ``tunables`` (``tunable.tunable_parameters``) live in the blob, where the bodies' masses lie
    (``tunable.mass_offsets``: the C layer adds the total mass as ``Vehicle.total_mass_kg`` does), the sizes of
    the equilibrium's scratch (``shape``: ``step.StepShape``), the start
    table's first tire state, the steering input, the position of ``data.inputs`` in the image, the step
    budget (the Python FMU's ``MAX_SUBSTEPS``) and the parts of the ``image``'s blob a restored state is
    checked against (:func:`blob_ranges`); the integrators' part (:func:`integrator_config`, ``methods`` the
    ones carried besides RK4)."""
    n_cols = sim.inputs.shape[1]
    lines = [f"#define FV_MODEL_IDENTIFIER {_c_string(model_id)}", f"#define FV_GUID {_c_string(guid)}",
             f"#define FV_IMAGE_FILE {_c_string(IMAGE_FILE)}", f"#define FV_KEY_WORD {key_word}",
             f"#define FV_N_INPUT_COLS {n_cols}",
             f"#define FV_STEERING {dict(steering_wheel_angle=1, rack_travel=2).get(values.get('steering_input'), 0)}",
             f"#define FV_RACK_GAIN {_c_number(car.rack_gain)}", f"#define FV_N_VARS {len(fixed)}",
             "static const fv_var FV_VARS[FV_N_VARS] = {"]
    for v, (type_, kind, index, start, lo, hi, string) in zip(fixed, variable_rows(fixed, car, tunables)):
        if kind == K_WHEEL_INPUT:
            index = index[0] * n_cols + index[1]
        if type_ == "Enumeration":       # an Integer in the C layer, holding the item value of its option
            type_, start = "Integer", v.item_value(start)
        number = float(start) if type_ in ("Real", "Integer", "Boolean") else 0.0
        lines.append(f"    {{{_TYPES[type_]}, {kind}, {index}, {_c_number(number)}, {_c_number(lo)}, {_c_number(hi)}, "
                     f"{_c_string(string if type_ == 'String' else '')}, {_c_string(v.name)}}},")
    lines.append("};")
    n_doubles, n_ints = shape.work_sizes()
    writes = [(vr, offset) for vr, v in enumerate(fixed) if v.name in tunables for offset in tunables[v.name].offsets]
    body_masses, rods = mass_offsets(car, image)
    lines += [f"#define FV_N_TUNE_WRITES {len(writes)}", "static const fv_write FV_TUNE_WRITES[] = {",
              *([f"    {{{vr}, {offset}}}," for vr, offset in writes] or ["    {0, -1},"]), "};",
              f"#define FV_N_BODY_MASSES {len(body_masses)}",
              f"static const int64_t FV_BODY_MASSES[FV_N_BODY_MASSES] = {{{', '.join(map(str, body_masses))}}};",
              f"#define FV_ROD_MASS {_c_number(rods)}"]
    lines += [f"#define FV_TIRE_FROM {int(sim.start_table.tire_from)}",
              f"#define FV_EQ_DOUBLES {n_doubles}", f"#define FV_EQ_INTS {n_ints}",
              f"#define FV_MAX_SUBSTEPS {int(SlaveBase.MAX_SUBSTEPS)}"]
    model_arrays, index_arrays = blob_ranges(image, [offset for _vr, offset in writes])
    lines += [*_c_ranges("BLOB_FIXED", model_arrays), *_c_ranges("BLOB_INDEX", index_arrays),
              f"#define FV_INDEX_MAX {int(sim.system.model.mech.n)}",
              f"#define FV_INPUTS_OFFSET {image.field('data.inputs').offset}"]
    integrator = next(v for v in fixed if v.name == "integrator")
    steer = next((f.offset for f in image.fields if f.path == "data.steer"), -1) if car.steer_drv >= 0 else -1
    lines += [f"#define FV_N_EVENT_INDICATORS {int(shape.n_switch)}", f"#define FV_STEER_OFFSET {steer}",
              "static const double FV_NOMINALS[] = {"
              + ", ".join(_c_number(s.nominal) for s in model_exchange_states(car)) + "};"]
    workspace = evaluation_workspace(image)
    lines += [*_c_ranges("ME_RANGES", workspace), f"#define FV_ME_BYTES {max(1, sum(n for _o, n, _p in workspace))}"]
    return "\n".join(lines + integrator_config(integrator, shape, sim.system, methods)) + "\n"


def evaluation_workspace(image) -> list[tuple[int, int, str]]:
    """[(offset, bytes, path)] of the data's arrays in the ``image``'s blob (merged where they touch), but
    ``data.inputs``: what an evaluation reads and writes besides the state and the inputs (the engine's warm
    starts, the partition, the origin, the wheels' scratch). A Model Exchange instance (``c/fmi2_me.c``) keeps a
    copy of it from the last accepted state and puts it back before each evaluation, so that a derivative
    depends on (t, y, inputs) and that state only, not on the trial states a host's method tried before."""
    ranges = merged_ranges(f for f in image.fields if f.path.startswith("data.") and f.path != "data.inputs")
    inputs = image.field("data.inputs")
    lo, hi = inputs.offset, inputs.offset + int(inputs.array.nbytes)
    if any(o < hi and lo < o + n for o, n, _p in ranges):
        raise ModelError("native FMU: data.inputs shares memory with another array of the workspace")
    return ranges


class MeState(NamedTuple):
    """A continuous state of the Model Exchange FMU: its variable's name, description and nominal value."""
    name: str
    description: str
    nominal: float


STATE_NOMINALS = {"position": 1.0, "velocity": 1.0, "slip": 0.1, "brake": 0.01, "lateral": 0.1}
"""Nominal value of each kind of state (``fmi2GetNominalsOfContinuousStates``; a host scales its absolute
tolerance by them): the engine's positions [m or rad] and velocities [m/s or rad/s], the transient longitudinal
slip kappa' [-], the brake bristle angle phi [rad] and the lateral transient slip q = tan(alpha') [-]."""


def model_exchange_states(car) -> list[MeState]:
    """The continuous states of the Model Exchange FMU: the vehicle's state vector y in its order
    (docs/vehicle.md §6: the engine's independent positions and velocities, then per wheel kappa', phi and q),
    named ``y[1]`` ... ``y[n]``. Which coordinate an engine slot holds depends on the coordinate partition of
    the moment (a new partition is an event), so its description names the slot, not the coordinate."""
    ni = (car.n_states - 3 * car.n_wheels) // 2
    states = [MeState(f"y[{k + 1}]", f"independent position of the engine, partition slot {k + 1} [m or rad]",
                      STATE_NOMINALS["position"]) for k in range(ni)]
    states += [MeState(f"y[{ni + k + 1}]", f"independent velocity of the engine, partition slot {k + 1} "
                       "[m/s or rad/s]", STATE_NOMINALS["velocity"]) for k in range(ni)]
    for kind, what in (("slip", "transient longitudinal slip kappa' [-]"), ("brake", "brake bristle angle phi [rad]"),
                       ("lateral", "lateral transient slip q = tan(alpha') [-]")):
        for w in car.wheel_names:
            states.append(MeState(f"y[{len(states) + 1}]", f"wheel '{w}': {what}", STATE_NOMINALS[kind]))
    return states


def add_model_exchange(root, model_id: str, states: list[MeState], n_event_indicators: int) -> None:
    """Make the FMI 2.0 description ``root`` (written and patched for Co-Simulation) a Model Exchange one too:
    the ``ModelExchange`` element (the same modelIdentifier), ``numberOfEventIndicators``, the ``states`` as
    local continuous Real variables and their derivatives ``der(y[k])`` appended after the Co-Simulation
    variables (value references len(table) + k and len(table) + n + k: every existing one stays), and
    ``ModelStructure/Derivatives`` and ``InitialUnknowns`` entries for them (dependencies not given: on every
    known)."""
    root.set("numberOfEventIndicators", str(n_event_indicators))
    me = etree.Element("ModelExchange", modelIdentifier=model_id, needsExecutionTool="false",
                       completedIntegratorStepNotNeeded="false", canBeInstantiatedOnlyOncePerProcess="false",
                       canNotUseMemoryManagementFunctions="true", canGetAndSetFMUstate="true",
                       canSerializeFMUstate="true")
    root.insert(0, me)
    mv = root.find("ModelVariables")
    first_vr, first_index, n = len(mv), len(mv) + 1, len(states)
    for k, st in enumerate(states):
        sv = etree.SubElement(mv, "ScalarVariable", name=st.name, valueReference=str(first_vr + k),
                              description=st.description, causality="local", variability="continuous",
                              initial="calculated")
        etree.SubElement(sv, "Real", nominal=repr(float(st.nominal)))
    for k, st in enumerate(states):
        sv = etree.SubElement(mv, "ScalarVariable", name=f"der({st.name})", valueReference=str(first_vr + n + k),
                              description=f"time derivative of {st.name}", causality="local",
                              variability="continuous", initial="calculated")
        etree.SubElement(sv, "Real", derivative=str(first_index + k))
    structure = root.find("ModelStructure")
    derivatives = etree.Element("Derivatives")
    for k in range(n):
        etree.SubElement(derivatives, "Unknown", index=str(first_index + n + k))
    initial = structure.find("InitialUnknowns")
    if initial is None:
        initial = etree.SubElement(structure, "InitialUnknowns")
    for k in range(2 * n):
        etree.SubElement(initial, "Unknown", index=str(first_index + k))
    structure.insert(1 if structure.find("Outputs") is not None else 0, derivatives)


def integrator_config(integrator: Var, shape, system, methods=()) -> list[str]:
    """The integrators' part of ``fv_fmu_config.h``: the item value of each method of the ``integrator``
    Enumeration (``FV_ITEM_RK4``, ...), the sizes of the stepper arrays (``abm.abm_arrays``, ``bdf.bdf_arrays``,
    ``rk4e``'s; each at least 1 for C), the ranges of their control integers a restored state is checked
    against (``CTL_RANGES``), the methods' options (the defaults of ``BDF2`` and ``RK4E``, as the Python FMU's
    ``make_stepper`` uses them), the system's ``switch_params`` (RK4E's switching pass) and ``FV_CARRIED``, the
    text naming RK4 and the ``methods`` the library carries with their item values."""
    import numpy as np
    from ..integrators import abm, bdf, rk4e
    missing = {"rk4", abm.ABM4.name, bdf.BDF2.name, rk4e.RK4E.name} - set(integrator.choices)
    if missing:
        raise ModelError(f"native FMU: the integrator parameter has no {', '.join(sorted(missing))}")
    n = shape.n_states
    hist, actl, awork = abm.abm_arrays(n)
    jac, lu, piv, hmat, bctl, bwork = bdf.bdf_arrays(n)
    bdf2, rk = bdf.BDF2(), rk4e.RK4E()
    sizes = {"WORK": max(5 * n, awork.size, bwork.size, rk4e.N_WORK * n), "ABM_HIST": hist.size,
             "ABM_CTL": actl.size, "BDF_JAC": jac.size, "BDF_LU": lu.size, "BDF_PIV": piv.size, "BDF_HMAT": hmat.size,
             "BDF_CTL": bctl.size, "RK4E_G": rk4e.N_G * shape.n_switch, "RK4E_STATS": rk4e.N_STATS}
    sw = np.ascontiguousarray(getattr(system, "switch_params", np.zeros(0)), dtype=np.float64).reshape(-1)
    lines = [f"#define FV_ITEM_{name.upper()} {integrator.item_value(name)}"
             for name in ("rk4", abm.ABM4.name, bdf.BDF2.name, rk4e.RK4E.name)]
    lines += [f"#define FV_{k} {max(1, int(v))}" for k, v in sizes.items()]
    for name, ranges in (("ABM", abm.CTL_RANGES), ("BDF", bdf.CTL_RANGES)):
        lines += [f"static const int64_t FV_{name}_CTL_LO[] = {{{', '.join(f'{lo}' for lo, _ in ranges)}}};",
                  f"static const int64_t FV_{name}_CTL_HI[] = {{{', '.join(f'{hi}LL' for _, hi in ranges)}}};"]
    lines += [f"#define FV_BDF_RTOL {_c_number(bdf2.rtol)}", f"#define FV_BDF_ATOL {_c_number(bdf2.atol)}",
              f"#define FV_RK4E_TOL {_c_number(rk.tol)}", f"#define FV_RK4E_MAX_ITER {rk.max_iter}",
              f"#define FV_RK4E_MAX_SUB {rk.max_sub}", f"#define FV_N_SWITCH_PARAMS {sw.size}",
              "static const double FV_SWITCH_PARAMS[] = {"
              + ", ".join(_c_number(x) for x in sw.tolist() or [0.0]) + "};"]
    carried = [m for m in integrator.choices if m == "rk4" or m in methods]
    lines.append(f"#define FV_CARRIED {_c_string(', '.join(f'{integrator.item_value(m)} = {m}' for m in carried))}")
    return lines


DEFAULT_EXPERIMENT = {"startTime": "0.0", "stopTime": "10.0", "stepSize": "0.001"}


def fmi3_config_header(table) -> str:
    """``fv_fmi3_config.h`` for ``c/fmi3_native.c``: the FMI 3.0 type (``fmi.description3.TYPES3``) and name of
    every value reference of the Var table ``table``, and the value reference of the independent variable."""
    codes = {"Float64": "V3_FLOAT64", "Int32": "V3_INT32", "Enumeration": "V3_ENUMERATION", "Boolean": "V3_BOOLEAN",
             "String": "V3_STRING"}
    lines = [f"#define FV3_N_VARS {len(table)}", f"#define FV3_TIME_VR {time_reference(table)}",
             "static const fv3_var FV3_VARS[FV3_N_VARS] = {"]
    lines += [f"    {{{codes[TYPES3[v.type]]}, {_c_string(v.name)}}}," for v in table]
    return "\n".join([*lines, "};"]) + "\n"


def model_description(model_id: str, guid: str, description: str, table, structure, fmi_version: int = 2,
                      states: list[MeState] | None = None, n_event_indicators: int = 0) -> bytes:
    """modelDescription.xml: the Var table ``table`` (:func:`exported_variables`); units, ranges and the
    ModelStructure by ``patch_model_description`` from ``structure``, the Python FMU's declaration
    (``fmi.vehicle_slave.vehicle_structure``: the C layer computes its outputs in Initialization Mode and in
    doStep as the Python FMU does). ``fmi_version`` 3: the FMI 3.0 description of the same table and structure
    (``fmi.description3``; the instantiationToken is ``guid``). ``states`` (FMI 2.0 only,
    :func:`model_exchange_states`): the FMU is Model Exchange too (:func:`add_model_exchange`), with
    ``n_event_indicators`` event indicators."""
    version = package_version()
    tool = {"generationTool": f"fmu_vehicle {version} (native)", "version": version}
    if fmi_version == 3:
        flags = dict(canHandleVariableCommunicationStepSize="true", canBeInstantiatedOnlyOncePerProcess="false",
                     canGetAndSetFMUState="true", canSerializeFMUState="true", needsExecutionTool="false",
                     hasEventMode="false", providesIntermediateUpdate="false", mightReturnEarlyFromDoStep="false")
        return model_description3(model_id, guid, description, table, structure, tool, flags, DEFAULT_EXPERIMENT)
    root = etree.Element("fmiModelDescription", fmiVersion="2.0", modelName=model_id, guid=guid,
                         description=description, **tool, variableNamingConvention="structured",
                         numberOfEventIndicators="0")
    etree.SubElement(root, "CoSimulation", modelIdentifier=model_id, canHandleVariableCommunicationStepSize="true",
                     canBeInstantiatedOnlyOncePerProcess="false", canNotUseMemoryManagementFunctions="true",
                     canGetAndSetFMUstate="true", canSerializeFMUstate="true", needsExecutionTool="false")
    etree.SubElement(root, "DefaultExperiment", **DEFAULT_EXPERIMENT)
    mv = etree.SubElement(root, "ModelVariables")
    for vr, v in enumerate(table):
        sv = etree.SubElement(mv, "ScalarVariable", name=v.name, valueReference=str(vr), causality=v.causality,
                              variability=v.variability)
        # an Enumeration is written as an Integer holding its item value, as pythonfmu writes the Python FMU's;
        # patch_model_description declares it an Enumeration of its type
        node = etree.SubElement(sv, "Integer" if v.type == "Enumeration" else v.type)
        if v.causality != "output":     # an output is initial="calculated": no start value
            node.set("start", v.start_text())
    patch_model_description(root, table, structure)
    if states is not None:
        add_model_exchange(root, model_id, states, n_event_indicators)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def carried_integrators(values: dict, integrators=None) -> tuple[str, ...]:
    """The integrators a native FMU carries besides RK4 (whose entry point every build has): the ``integrator``
    of the parameter ``values`` and those named in ``integrators`` (ModelError for a name that is not a stepping
    method), in ``step.INTEGRATOR_ENTRIES`` order. Each costs compile time and library size (docs/native.md §8),
    so an export carries only what it is asked for."""
    from ..integrators import STEPPING_INTEGRATORS
    from .step import INTEGRATOR_ENTRIES
    wanted = {values.get("integrator", "rk4"), *(integrators or ())}
    unknown = sorted(wanted - set(STEPPING_INTEGRATORS))
    if unknown:
        raise ModelError(f"integrators: {', '.join(map(repr, unknown))} is not a stepping integrator; valid: "
                         f"{', '.join(STEPPING_INTEGRATORS)}")
    return tuple(m for m in INTEGRATOR_ENTRIES if m in wanted)


def export(fmu: str, dest_dir, *, settings: dict | None = None, targets=("linux64", "win64"),
           log=lambda message: None, c_flags=(), integrators=None, fmi_version: int = 2) -> Path:
    """Build the native ``<fmu>.fmu`` (``fmu`` in ``NATIVE_FMUS``) into ``dest_dir`` with the parameter
    ``settings`` (module docstring); platforms in ``targets`` whose tools are missing are left out (logged),
    and if none is left NativeBuildError names the missing tools. Compiles the entry points in a child process
    (minutes the first time; seconds for sources and sizes exported before: ``emit.fresh_irs``). Returns the
    FMU's path; nothing is written on failure. ``c_flags`` are added to the C compiler's and linker's flags
    of the FMI layer and the runtime (a test's sanitizer build: ``-fsanitize=address,undefined``).
    ``integrators``: names of stepping integrators the FMU carries besides RK4 and the ``integrator`` set
    (:func:`carried_integrators`); its ``integrator`` parameter can be set to any of them until initialization
    ends.
    ``fmi_version`` 3: an FMI 3.0 Co-Simulation FMU, ``<dest_dir>/fmi3/<fmu>.fmu`` (:data:`FMI3_FOLDER`): the
    same build with ``c/fmi3_native.c`` over the FMI 2.0 layer, exporting only its ``fmi3*`` functions, in the
    FMI 3.0 platform folders (:data:`PLATFORMS3`), described by ``fmi.description3``."""
    if fmu not in NATIVE_FMUS:
        raise ModelError(f"no native build of {fmu!r}; native FMUs: {', '.join(NATIVE_FMUS)}")
    if fmi_version not in FMI_VERSIONS:
        raise ModelError(f"fmi_version {fmi_version!r}: the native FMUs are FMI 2.0 or 3.0 (2 or 3)")
    params = parameter_table(fmu, None)
    variables = vehicle_variables(fmu, params)
    values = parameter_values(variables, settings)
    methods = carried_integrators(values, integrators)
    usable = usable_targets(fmu, targets, log)
    car, sim, p, image = _image(fmu, values)
    tunables = tunable_parameters(variables, values, image, lambda v: _image(fmu, v)[3], skip=OWN_KINDS,
                                  log=lambda message: log(f"{fmu}: {message}"))
    key_word = next(f.word for f in image.fields if f.path == "data.inputs") + ARRAY_DATA
    image_bytes = image.to_bytes()
    guid = str(uuid.uuid5(uuid.NAMESPACE_URL, "fmu_vehicle-native:" + hashlib.sha256(
        image_bytes + repr((fmu, sorted(values.items(), key=str), methods)).encode()).hexdigest()))
    description = (f"{fmu} (native build: compiled model, no Python on the host; the Real parameters and the "
                   f"integrator settable until initialization ends, the choices of model, road, tire and files fixed "
                   f"at export)")
    table = exported_variables(variables, values, car)
    xml = model_description(fmu, guid, description, table, vehicle_structure(fmu, params), fmi_version,
                            model_exchange_states(car), p.shape.n_switch)
    log(f"{fmu}: compiling the model's kernels for a generic x86-64 CPU (minutes the first time, then cached)")
    irs, names = fresh_ir(p.model_type, p.data_type, p.shape, [type(sim.system).__module__, "fmu_vehicle.vehicle.dynamics"],
                          methods)
    dest_dir = Path(dest_dir)
    with tempfile.TemporaryDirectory(prefix="fv_native_fmu_") as tmp:
        tmp = Path(tmp)
        (tmp / "fv_fmu_config.h").write_text(config_header(fmu, guid, table, values, car, sim, key_word, p.shape,
                                                                   image, tunables, methods))
        layers, exports = [(FMI_C, [])], FMI_EXPORTS          # (C source, its own flags)
        if fmi_version == 3:        # the FMI 2.0 layer with FMI_API empty (its functions hidden), the adapter over it
            (tmp / "fv_fmi3_config.h").write_text(fmi3_config_header(table))
            layers, exports = [(FMI_C, ["-DFMI_API="]), (FMI3_C, [])], FMI3_EXPORTS
        binaries = {}
        for name in usable:
            target = TARGETS[name]
            out_dir = tmp / name
            out_dir.mkdir()
            defines = [f"-D{k}={int(v)}" for k, v in zip(RUNTIME_DEFINES, p.shape)] + method_defines(methods)
            objects = []
            for source, extra in layers:
                objects.append(out_dir / f"{source.stem}-{name}.o")
                _run([target.cc, "-c", "-O2", "-fPIC", "-fvisibility=hidden", "-std=c11", "-Wall", "-Wextra",
                      "-Werror", *defines, *extra, *c_flags, f"-I{tmp}", "-o", str(objects[-1]), str(source)])
            binaries[name] = build_library(irs, names, p.shape, target, out_dir, stem=fmu, extra_objects=objects,
                                           exports=exports, c_flags=c_flags)
            log(f"{fmu}: {name} binary {binaries[name].stat().st_size // 1024} kB")
        if fmi_version == 3:
            dest_dir = dest_dir / FMI3_FOLDER
        dest_dir.mkdir(parents=True, exist_ok=True)
        path = dest_dir / f"{fmu}.fmu"

        def write(stream):
            with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as z:
                z.writestr("modelDescription.xml", xml)
                z.writestr(f"resources/{IMAGE_FILE}", image_bytes)
                for name, lib in binaries.items():
                    folder = PLATFORMS3[name] if fmi_version == 3 else name
                    z.write(lib, f"binaries/{folder}/{fmu}{TARGETS[name].suffix}")

        atomic_write(path, write, mode="wb")
    return path
