"""Which Real parameters a native vehicle FMU takes until initialization ends, and where their values live.

A native FMU ships the image of the (model, data) pair the Python FMU builds at initialization
(``layout.make_image``). A parameter is *tunable* in the C layer when the Python loader puts its value, unchanged,
into entries of the model's arrays and derives nothing else from it: then writing the value into those entries
of an instance's blob, followed by the initialization the C layer always runs (the static equilibrium, the start
state and the outputs, by the compiled kernels), builds what the Python FMU builds. Body masses also enter the
vehicle's total mass, which the equilibrium takes as an argument; the C layer sums the bodies' masses from the
blob in the loader's order (:func:`mass_offsets`), so the sum is the Python one to the last bit.

:func:`tunable_parameters` finds them by asking the loader itself, twice: it builds the image again with every Real
parameter moved at once, each to its own probe value (above, then below the export value), and attributes each
model-array entry that differs from the export image to the one parameter whose probe value it holds exactly. A
parameter is tunable if both probes give it the same entries; an entry holding no probe value (something the
loader derived from the parameters) or a change of the arrays' sizes, the model's numbers or integer arrays
leaves every parameter fixed at export, and the log says why. Two images cost a fraction of a second. The tests
compare every tunable parameter, set to two values in its range, with the Python FMU set the same way. See
docs/native.md §6.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import FmuVehicleError

PROBE_STEP = 1e-4
"""A probe moves each parameter by this fraction of its range's width times its rank + 1 (1e-4 to 8e-3 for the
shipped FMUs' 77 parameters at most): every parameter gets its own value, near the export one, so the vehicle
stays where the loader accepts it."""


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
    words = image.words[:image.model_words].tobytes()
    model_numbers = tuple((f.path, words[f.byte:f.byte + 8]) for f in image.scalars
                          if f.path.startswith("model.") and f.byte < len(words))
    model_ints = tuple((f.path, f.array.tobytes()) for f in image.fields
                       if f.path.startswith("model.") and f.array.dtype != np.float64)
    return (tuple((f.path, f.array.dtype.str, f.array.shape) for f in image.fields), model_numbers, model_ints)


def _probe_values(params, values: dict, sign: float) -> dict:
    """name -> probe value of each Var in ``params``: its export value moved by ``sign`` x PROBE_STEP x (rank + 1)
    of its range's width (of max(|value|, 1) when unbounded), inward where that would leave the range."""
    probes = {}
    for rank, var in enumerate(params):
        x = float(values[var.name])
        lo = -np.inf if var.min is None else float(var.min)
        hi = np.inf if var.max is None else float(var.max)
        width = hi - lo if np.isfinite(hi - lo) else max(abs(x), 1.0)
        d = sign * PROBE_STEP * (rank + 1) * width
        probes[var.name] = x + d if lo <= x + d <= hi else x - d
    return probes


def _attribution(base, base_sig, image, probes: dict) -> dict | str:
    """name -> blob offsets (in ``base``) of the model entries where ``image`` holds that parameter's probe value
    and ``base`` does not; a str saying why when ``image`` differs from ``base`` in anything else."""
    if _signature(image) != base_sig:
        return "the probe changes the model's sizes, numbers or integer arrays"
    by_value = {}
    for name, x in probes.items():
        by_value.setdefault(x, []).append(name)
    found = {}
    new = _model_arrays(image)
    for path, f in _model_arrays(base).items():
        for idx in np.argwhere(f.array != new[path].array):
            names = by_value.get(float(new[path].array[tuple(idx)]), [])
            if len(names) != 1:
                return f"{path}{list(map(int, idx))} holds a value derived from the parameters"
            found.setdefault(names[0], []).append(f.offset + int(np.dot(idx, f.array.strides)))
    return {name: tuple(sorted(offsets)) for name, offsets in found.items()}


def tunable_parameters(variables, values: dict, base_image, image_of, skip=(), log=lambda message: None) -> dict:
    """``{name: Tunable}`` of the Real parameters in ``variables`` (the FMU's Var table) other than those in
    ``skip`` that pass the test of the module docstring. ``base_image`` is the export's image (``values``);
    ``image_of(values)`` builds the image for other values (raising FmuVehicleError where the loader refuses
    them)."""
    params = [v for v in variables if v.causality == "parameter" and v.type == "Real" and v.name not in skip]
    base_sig = _signature(base_image)
    seen = []
    for sign in (1.0, -1.0):
        probes = _probe_values(params, values, sign)
        try:
            seen.append(_attribution(base_image, base_sig, image_of({**values, **probes}), probes))
        except FmuVehicleError as e:
            seen.append(f"the loader refuses the probe values: {e}")
    problem = next((x for x in seen if isinstance(x, str)), None)
    found = {} if problem else {name: Tunable(name, offsets) for name, offsets in seen[0].items()
                                if seen[1].get(name) == offsets}
    for var in params:
        if var.name not in found:
            log(f"parameter {var.name!r} stays fixed at export: "
                f"{problem or 'its value does not appear, unchanged, in the same model entries at both probes'}")
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


def moved(tunables: dict, image, other) -> dict | None:
    """``tunables`` (found in ``image``) carried over to ``other``, the image of the same vehicle on another road:
    each entry at the same element of the array of the same path (the road changes only the road's arrays, so
    the others move in the blob but keep their paths, shapes and values). None if an entry's array differs in
    shape or its value in ``other`` is not the one in ``image`` (then ``other`` is probed itself)."""
    fields = sorted((f for f in image.fields if f.path.startswith("model.")), key=lambda f: f.offset)
    others = {f.path: f for f in other.fields}
    blob = np.frombuffer(image.blob, "<f8", len(image.blob) // 8)
    other_blob = np.frombuffer(other.blob, "<f8", len(other.blob) // 8)
    out = {}
    for name, t in tunables.items():
        offsets = []
        for offset in t.offsets:
            f = next((f for f in fields if f.offset <= offset < f.offset + f.array.nbytes), None)
            g = None if f is None else others.get(f.path)
            if g is None or g.array.shape != f.array.shape or g.array.strides != f.array.strides:
                return None
            moved_to = g.offset + offset - f.offset
            if moved_to % 8 or offset % 8 or other_blob[moved_to // 8] != blob[offset // 8]:
                return None
            offsets.append(moved_to)
        out[name] = Tunable(name, tuple(offsets))
    return out
