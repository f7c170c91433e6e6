"""Which Real parameters a native vehicle FMU takes until initialization ends, and where their values live.

A native FMU ships the image of the (model, data) pair the Python FMU builds at initialization
(``layout.make_image``). A parameter is *tunable* in the C layer when the Python loader puts its value, unchanged,
into entries of the model's arrays and derives nothing else from it: then writing the value into those entries
of an instance's blob, followed by the initialization the C layer always runs (the static equilibrium, the start
state and the outputs, by the compiled kernels), builds what the Python FMU builds. Body masses also enter the
vehicle's total mass, which the equilibrium takes as an argument; the C layer sums the bodies' masses from the
blob in the loader's order (:func:`mass_offsets`), so the sum is the Python one to the last bit.

:func:`tunable_parameters` finds them by asking the loader itself: for each Real parameter it builds the image
again with the parameter at two probe values (its bounds, or points inside the range where the loader refuses a
bound) and accepts the parameter if, in both, exactly the same model-array entries differ from the export image
and each of them holds the probe value exactly, with everything else (every word of the buffers, the data's
integer arrays, the layout) unchanged. A parameter that fails this (a value the loader transforms, one that
changes sizes or the data) stays fixed at export; the log says why. The tests compare every tunable parameter,
set to two values in its range, with the Python FMU set the same way.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import FmuVehicleError

PROBE_FRACTIONS = ((0.0, 1.0), (0.25, 0.75))
"""Probe points as fractions of a parameter's range: its bounds first, then two inside it if the loader refuses
a bound (e.g. no static equilibrium with a spring preload at its limit)."""


class Tunable(NamedTuple):
    """A Real parameter of a native FMU that stays settable until initialization ends."""
    name: str
    offsets: tuple[int, ...]    # blob offsets [bytes] of the model-array entries (float64) holding its value


def _model_arrays(image) -> dict:
    """path -> ArrayField of the image's float64 model arrays."""
    return {f.path: f for f in image.fields if f.path.startswith("model.") and f.array.dtype == np.float64}


def _signature(image) -> tuple:
    """What must not change with a tunable parameter: every array's path, dtype and shape, the model's numbers
    and integer arrays."""
    model_numbers = tuple((f.path, bytes(image.words[:image.model_words].tobytes()[f.byte:f.byte + 8]))
                          for f in image.scalars if f.path.startswith("model.") and f.byte < 8 * image.model_words)
    model_ints = tuple((f.path, f.array.tobytes()) for f in image.fields
                       if f.path.startswith("model.") and f.array.dtype != np.float64)
    return (tuple((f.path, f.array.dtype.str, f.array.shape) for f in image.fields), model_numbers, model_ints)


def _probes(var, start: float) -> list[tuple[float, float]]:
    lo, hi = var.min, var.max
    if lo is None or hi is None or not np.isfinite(lo) or not np.isfinite(hi):
        step = 0.1 * abs(start) if start else 1.0
        return [(start - step, start + step)]
    return [(lo + a * (hi - lo), lo + b * (hi - lo)) for a, b in PROBE_FRACTIONS]


def _entries(base, base_sig, image, value: float) -> tuple[int, ...] | None:
    """Blob offsets in ``base`` of the model entries where ``image`` differs from it, if the two differ in
    nothing else of :func:`_signature` and every such entry holds ``value``; else None."""
    if _signature(image) != base_sig:
        return None
    offsets = []
    new = _model_arrays(image)
    for path, f in _model_arrays(base).items():
        changed = np.argwhere(f.array != new[path].array)
        if changed.size and not np.all(new[path].array[tuple(changed.T)] == value):
            return None
        offsets += [f.offset + int(np.dot(idx, f.array.strides)) for idx in changed]
    return tuple(sorted(set(offsets))) or None


def tunable_parameters(variables, values: dict, base_image, image_of, skip=(), log=lambda message: None) -> dict:
    """``{name: Tunable}`` of the Real parameters in ``variables`` (the FMU's Var table) other than those in
    ``skip`` that pass the test of the module docstring. ``base_image`` is the export's image (``values``);
    ``image_of(values)`` builds the image for other values (raising FmuVehicleError where the loader refuses
    them)."""
    base_sig = _signature(base_image)
    found = {}
    for var in variables:
        if var.causality != "parameter" or var.type != "Real" or var.name in skip:
            continue
        reason = "the loader refuses every probe value"
        for probes in _probes(var, float(values[var.name])):
            results = []
            for p in probes:
                if p == values[var.name]:
                    p = 0.5 * (p + (var.max if p == var.min else var.min))
                try:
                    image = image_of({**values, var.name: p})
                except FmuVehicleError as e:
                    reason = f"the loader refuses {p:g}: {e}"
                    break
                results.append(_entries(base_image, base_sig, image, p))
            else:
                if results[0] is not None and results[0] == results[1]:
                    found[var.name] = Tunable(var.name, results[0])
                else:
                    reason = "the loader derives more than the value's own entries from it"
                break
        if var.name not in found:
            log(f"parameter {var.name!r} stays fixed at export: {reason}")
    return found


def mass_offsets(car, image) -> tuple[tuple[int, ...], float]:
    """(blob offsets [bytes] of the bodies' masses in ``car``'s own order, the removed rods' mass [kg]): the
    C layer's total mass is ``sum(blob[o] for o in offsets) + rods``, added in this order as
    ``Vehicle.total_mass_kg`` adds, which this checks bit for bit."""
    field = image.field("model.mech.mass")
    stride = field.array.strides[0]
    offsets = tuple(field.offset + stride * car.mech.body(b.name) for b in car.spec.mechanism.bodies)
    rods = sum(r.mass_kg for r in car.spec.mechanism.rods)
    blob = np.frombuffer(image.blob, "<f8", len(image.blob) // 8)
    total = 0.0
    for o in offsets:
        total += float(blob[o // 8])
    if total + rods != car.total_mass_kg:
        raise FmuVehicleError(f"native FMU: the bodies' masses in the image ({total} kg + rods {rods} kg) do not add "
                              f"up to the vehicle's {car.total_mass_kg} kg")
    return offsets, rods
