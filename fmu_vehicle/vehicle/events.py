"""The vehicle's switching functions (compiled): where its derivative is not smooth, for methods that locate
events (``integrators.rk4e``).

On a road with bumps the derivative f(t, y) of ``dynamics.vehicle_rhs`` is only piecewise smooth. Per wheel
(internal road and tire) four values change sign where it jumps or kinks:

    g[4w + k] = break_switch(breaks, x_w, k, 2), k = 0, 1
                                                       x_w the wheel centre's road x [m]: the road's slope
                                                       or height kinks at a break (the nodes around a bump
                                                       edge), so do the contact normal, the deflection and
                                                       its rate (road.kernel.break_switch: the signed
                                                       distance [m] to the nearest break of the even and
                                                       of the odd breaks: the two ends of a jump cell,
                                                       2 mm apart, are often passed within one step)
    g[4w + 2] = delta                                  tire deflection [m]: the wheel lands or lifts off
                                                       (the airborne slip equations take over at delta <= 0)
    g[4w + 3] = CZ LCZ delta + KZ delta_rate  if delta > 0, else CZ LCZ delta
                                                       the unclipped vertical force [N]: Fz = max(0, .)
                                                       is clipped at 0 (the damper would pull the wheel)

delta and delta_rate = -n·v as in ``tire.contact`` (n the road normal, v the wheel centre's velocity). The
third value is continuous at a landing (both branches vanish with delta) and keeps its negative sign
through a lift-off after the force has clipped, so it marks the clip alone. With road inputs the first two values,
with an external tire the other two are the constant 1.0 (the vehicle does not see where those switch).

``vehicle_switch`` reads what the derivative evaluation left in the workspace (wheel centres, contact
outputs): it costs a few operations per wheel, no evaluation. See docs/integrators.md §2.
"""
from __future__ import annotations

from ..numerics.jit import njit

from ..road.kernel import break_switch
from ..tire.models import OUT_DEFLECTION, OUT_NORMAL, vertical_damping, vertical_stiffness
from .model import MODE_ROAD, MODE_TIRE, W_CENTER, W_VEL

ROAD_FAMILIES = 2
"""Interleaved families of road breaks per wheel (``road.kernel.break_switch``)."""

SWITCH_PER_WHEEL = ROAD_FAMILIES + 2
"""Switching functions per wheel (module docstring)."""


def n_switch(model) -> int:
    """Number of switching functions of a vehicle model: ``SWITCH_PER_WHEEL`` per wheel."""
    return SWITCH_PER_WHEEL * int(model.w_body.shape[0])


@njit(cache=True)
def vehicle_switch(t, y, model, data, breaks, g):
    """The switching functions (module docstring) of the state just evaluated by ``vehicle_rhs`` into
    g[0:4 nw]; ``breaks``: the internal road's slope breaks [m] (``road.arrays.slope_breaks``, the vehicle
    system's ``switch_params``)."""
    nw = model.w_body.shape[0]
    for w in range(nw):
        wk = data.work[w]
        out = data.contact[w]
        b = SWITCH_PER_WHEEL * w
        for k in range(ROAD_FAMILIES):
            if data.modes[MODE_ROAD] == 0:
                g[b + k] = break_switch(breaks, wk[W_CENTER] + data.origin[0], k, ROAD_FAMILIES)
            else:
                g[b + k] = 1.0
        if data.modes[MODE_TIRE] == 0:
            p = model.tire_p[w]
            delta = out[OUT_DEFLECTION]
            g[b + ROAD_FAMILIES] = delta
            spring = vertical_stiffness(p) * delta
            if delta > 0.0:
                rate = -(out[OUT_NORMAL] * wk[W_VEL] + out[OUT_NORMAL + 1] * wk[W_VEL + 1]
                         + out[OUT_NORMAL + 2] * wk[W_VEL + 2])
                g[b + ROAD_FAMILIES + 1] = spring + vertical_damping(p) * rate
            else:
                g[b + ROAD_FAMILIES + 1] = spring
        else:
            g[b + ROAD_FAMILIES] = 1.0
            g[b + ROAD_FAMILIES + 1] = 1.0
