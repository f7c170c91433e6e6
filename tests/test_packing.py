"""A vehicle's (model, data) handed to compiled code as one buffer (fmu_vehicle.numerics.packing): the same numbers
as the namedtuples themselves, the same memory, re-packed when replaced, and the same steppers uncompiled."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import typeof
from numba.core import types

from fmu_vehicle.numerics import jit
from fmu_vehicle.integrators import STEPPING_INTEGRATORS
from fmu_vehicle.integrators.rk4 import rk4_advance, rk4_advance_packed
from fmu_vehicle.numerics.packing import PackedCall, packed
from fmu_vehicle.vehicle import Vehicle
from timeouts import HANG_GUARD_S


@pytest.fixture(scope="module")
def halfcar():
    return Vehicle.load("halfcar7")


def _stepper_args(sim):
    st = sim.stepper
    return (sim.stepper.y, 5, sim.row, st._work, st._key, st._saved)


def test_packed_step_is_bit_identical_to_the_namedtuple_step(halfcar):
    """Five RK4 steps over the first bump from the same state, once with (model, data) as namedtuples and
    once packed: the same state and output row to the bit, and the packed buffers address the system's
    own arrays (a kernel writing through them writes the workspace the namedtuples hold)."""
    results = []
    for kernel in ("tuples", "packed"):
        sim = halfcar.simulator("bumpy", v0=20.0, x0=18.0, dt=1e-3)
        sim.set_input("front", torque_drive=300.0)
        sim.advance(0.05)
        system, st = sim.system, sim.stepper
        st.reset()
        before = system.data.mech.z.copy()
        if kernel == "tuples":
            done, status = rk4_advance(system.model, system.data, sim.t, 1e-3, *_stepper_args(sim))
        else:
            mbuf, mty = packed(system.model)
            dbuf, dty = packed(system.data)
            assert mty == typeof(system.model) and dty == typeof(system.data)
            # numba's layout: the engine model's three counts, then its first array's fields (meminfo: none,
            # parent: the ndarray object, items, item size, data pointer, ...)
            mech = system.model.mech
            assert mbuf[:3].tolist() == list(mech[:3]) and type(mech[3]) is np.ndarray
            assert mbuf[3:8].tolist() == [0, id(mech[3]), mech[3].size, 8, mech[3].ctypes.data]
            done, status = rk4_advance_packed(mbuf, mty, dbuf, dty, sim.t, 1e-3, *_stepper_args(sim))
        assert (done, status) == (5, 0)
        assert not np.array_equal(system.data.mech.z, before)      # the engine's warm start moved
        results.append((st.y.copy(), sim.row.copy(), system.data.mech.z.copy()))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    x = results[0][1][halfcar.output_names.index("chassis.x")]
    com_x = -2.0                             # the chassis centre of mass, 2.0 m behind x0 at the start
    assert 18.0 + com_x + 20.0 * 0.055 - 0.01 < x < 18.0 + com_x + 20.0 * 0.055 + 0.01


class _System:
    def __init__(self, model, data):
        self.model, self.data = model, data


def test_packed_call_packs_again_when_the_data_object_is_replaced(halfcar):
    """A stepper's packed call follows the system's current (model, data) objects: another data object
    (here with other inputs: 300 N m on the front wheel) gives that data's step, not the first one's."""
    base = halfcar.simulator("bumpy", v0=20.0, dt=1e-3)
    system = base.system
    call = PackedCall(rk4_advance_packed)
    other = system.data._replace(inputs=system.data.inputs.copy())
    column = halfcar.input_columns[halfcar.signals.input_column("torque_drive")]
    other.inputs[halfcar.wheel_index("front"), column] = 300.0
    rows = {}
    for name, data in (("first", system.data), ("other", other), ("first again", system.data)):
        y = base.stepper.y.copy()
        work, row = np.zeros((5, y.size)), np.zeros_like(base.row)
        key = np.zeros(1)
        saved = np.zeros(2)
        holder = _System(system.model, data)
        assert call(holder, 0.0, 1e-3, y, 20, row, work, key, saved) == (20, 0)
        assert call.data is data
        rows[name] = row.copy()
    vx = halfcar.output_names.index("chassis.vx")
    # (the engine's warm start, shared by both data objects, moved in between: not bit for bit)
    np.testing.assert_allclose(rows["first again"], rows["first"], rtol=0, atol=1e-8)
    assert rows["other"][vx] > rows["first"][vx] + 1e-4       # driven: faster after 20 ms


def test_types_key_sees_through_the_type_reference(halfcar):
    """A packed kernel's signature holds the model's type as a type reference: its cache key must still
    depend on the vehicle's passes (an edit of vehicle/dynamics.py recompiles the packed RK4 loop)."""
    model_type = typeof(halfcar.system("bumpy").model)
    assert jit.types_key((types.TypeRef(model_type),)) == jit.types_key((model_type,)) != ""


NOJIT = """
import json
from fmu_vehicle.vehicle import Vehicle
car = Vehicle.load("halfcar7")
out = {}
for name in %r:
    sim = car.simulator("bumpy", v0=20.0, x0=18.0, dt=1e-3, integrator=name)
    sim.set_input("front", torque_drive=300.0)
    for _ in range(4):
        sim.advance(2e-3)
    out[name] = sim.row.tolist()
print(json.dumps(out))
"""


def test_steppers_uncompiled_give_the_compiled_steps():
    """Every stepping method's packed call with NUMBA_DISABLE_JIT=1 (the namedtuples handed over as they
    are) gives the compiled outputs after 8 ms over the first bump's rise."""
    runs = {}
    for disabled in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disabled)
        out = subprocess.run([sys.executable, "-c", NOJIT % (sorted(STEPPING_INTEGRATORS),)], env=env,
                             capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert out.returncode == 0, out.stderr[-2000:]
        runs[disabled] = json.loads(out.stdout.strip().splitlines()[-1])
    assert sorted(runs["0"]) == sorted(STEPPING_INTEGRATORS)
    for name in runs["0"]:
        np.testing.assert_allclose(runs["1"][name], runs["0"][name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_a_reference_reads_and_writes_the_value_it_was_made_of():
    """by_ref/deref (derivative calls from compiled loops): a namedtuple with arrays of several ranks, an
    int, a float and a bool (a byte in memory, one bit in a register) read back member by member through
    a reference made in one kernel and dereferenced in another, and a write through it lands in the
    caller's array. Without NRT and with it (where the loaded arrays gain a reference)."""
    from collections import namedtuple

    from fmu_vehicle.numerics.jit import njit
    from fmu_vehicle.numerics.packing import by_ref, deref
    Rec = namedtuple("Rec", ["a", "flag", "b", "n", "c", "x"])
    rec = Rec(np.arange(3.0), True, np.arange(6.0).reshape(2, 3), 7, np.arange(4, dtype=np.int64), 2.5)
    for nrt in (False, True):
        @njit(cache=False, allocates=nrt)
        def callee(ref):
            v = deref(ref)
            v.a[0] += 1.0
            return v.a.sum(), v.flag, v.b[1, 2], v.n, v.c[3], v.x

        @njit(cache=False, allocates=nrt)
        def caller(value):
            return callee(by_ref(value))

        before = rec.a[0]
        assert caller(rec) == (rec.a.sum(), True, 5.0, 7, 3, 2.5)
        assert rec.a[0] == before + 1.0
    assert not caller(rec._replace(flag=False))[1]
