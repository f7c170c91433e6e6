"""Time integration of mechanisms: energy conservation, constraint residuals, RK4 vs the adaptive
reference, and re-partitioning through a singular position of the initial partition."""
import numpy as np
import pytest

from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import Mechanism, MechanismSystem
from reference.states import load, mechanism_dict


def column(system, out, name):
    return out[:, system.output_names.index(name)]


@pytest.mark.parametrize("name", ["rssr_fourbar", "rssr_fourbar_rod"])
def test_conservative_fourbar_keeps_energy_and_constraints(name):
    """10 s of RK4 at 1 ms (gravity + undamped spring, no input).

    Energy drift is measured against the kinetic-energy range of the run (the energy exchanged
    between kinetic and potential form), which does not depend on the potential's zero level:
    max|E(t) - E(0)| < 1e-6 (max T - min T). Loop closure |Phi| < 1e-10 and |Phi_z zd| < 1e-10
    at every step.
    """
    mech = load(name)
    system = MechanismSystem(mech)
    t, out, _ = integrate(system, mech.assemble(), 10.0, 1e-3)
    assert t.size == 10001 and t[-1] == pytest.approx(10.0)
    T = column(system, out, "energy.kinetic")
    E = T + column(system, out, "energy.potential")
    assert np.ptp(T) > 0.1                                   # J: a real exchange happens
    assert np.abs(E - E[0]).max() < 1e-6 * np.ptp(T)
    assert column(system, out, "residual.position").max() < 1e-10
    assert column(system, out, "residual.velocity").max() < 1e-10
    assert np.ptp(column(system, out, "z.crank")) > 20.0     # the crank turned several times


def test_damped_slider_crank_loses_energy():
    """With its dampers the slider-crank's energy never increases (beyond RK4 error)."""
    mech = load("slider_crank")
    system = MechanismSystem(mech)
    _, out, _ = integrate(system, mech.assemble(), 2.0, 1e-3, record_every=10)
    T = column(system, out, "energy.kinetic")
    E = T + column(system, out, "energy.potential")
    assert np.diff(E).max() < 1e-9 * T[0]                     # scale: the initial kinetic energy
    assert E[0] - E[-1] > 0.5 * T[0]


def rk4_and_reference(mech, t_end, h):
    """(RK4 outputs at step h, adaptive DOP853 outputs at rtol 1e-11), recorded every 50 ms."""
    y0 = mech.assemble()
    z0 = mech.data.z.copy()
    system = MechanismSystem(mech)
    every = int(round(0.05 / h))
    t1, o1, y1 = integrate(system, y0, t_end, h, record_every=every)
    # back to the start configuration: the position problem warm-starts from the workspace, and from
    # the end of the first run Newton may return dependent angles shifted by 2 pi
    mech.data.z[:] = z0
    t2, o2, y2 = integrate(system, y0, t_end, h, record_every=every, integrator="reference", rtol=1e-11, atol=1e-12)
    mech.data.z[:] = z0
    np.testing.assert_allclose(t1, t2, rtol=0, atol=1e-12)
    n = mech.model.n
    scale = np.abs(o2[:, :2 * n]).max(axis=0) + 1.0     # z and zd columns
    return (np.abs(o1[:, :2 * n] - o2[:, :2 * n]) / scale).max(), np.abs(y1 - y2).max() / (np.abs(y2).max() + 1.0)


@pytest.mark.parametrize("name", ["slider_crank", "rssr_fourbar", "open_tree"])
def test_rk4_agrees_with_adaptive_reference(name):
    """0.3 s: RK4 at 1 ms within 1e-6 (relative to each signal's range + 1) of DOP853 at rtol 1e-11."""
    err_out, err_end = rk4_and_reference(load(name), 0.3, 1e-3)
    assert err_out < 1e-6 and err_end < 1e-6


def test_rk4_error_is_fourth_order():
    """Halving the step divides the RK4 error (vs the adaptive reference) by about 2^4."""
    mech = load("rssr_fourbar")
    e1, _ = rk4_and_reference(mech, 0.3, 1e-3)
    e2, _ = rk4_and_reference(mech, 0.3, 5e-4)
    assert 1e-9 < e1 < 1e-6
    assert 10.0 < e1 / e2 < 25.0


def test_repartition_through_the_rocker_extremes():
    """The rocker angle (with the coupler spin) as preferred independent coordinates: at the rocker's
    extremes its partition becomes singular. The run must re-partition, continue, stay on the manifold
    and follow the run made with the crank angle independent."""
    good = load("rssr_fourbar")
    y_good = good.assemble({"crank": 0.0}, {"crank": 6.0})
    rocker_rate = good.data.zd[good.coordinate("rocker")]
    d = mechanism_dict("rssr_fourbar")
    d["coordinates"]["independent"] = ["rocker", "coupler.spin"]
    mech = Mechanism.from_dict(d)
    assert mech.independent_names == ("rocker", "coupler.spin")
    y0 = mech.assemble({"crank": 0.0}, {"rocker": rocker_rate})
    np.testing.assert_allclose(mech.data.zd, good.data.zd, rtol=0, atol=1e-12)

    system = MechanismSystem(mech)
    partitions = []
    base = system.reparameterize

    def reparameterize(y):
        y_new = base(y)
        partitions.append(mech.independent_names)
        return y_new

    system.reparameterize = reparameterize
    t, out, _ = integrate(system, y0, 1.2, 1e-3)
    crank = column(system, out, "z.crank")
    rocker = column(system, out, "z.rocker")
    assert crank[-1] > 2 * np.pi                              # a full turn: both rocker extremes passed
    assert rocker.min() < -0.76 and rocker.max() > 0.53
    assert len(partitions) >= 2 and any("rocker" not in p for p in partitions)
    assert column(system, out, "residual.position").max() < 1e-10
    assert column(system, out, "residual.velocity").max() < 1e-10
    T = column(system, out, "energy.kinetic")
    E = T + column(system, out, "energy.potential")
    assert np.abs(E - E[0]).max() < 1e-4 * np.ptp(T)
    # same motion as with the crank independent, up to RK4 error (larger near the singular partition)
    ref_system = MechanismSystem(good)
    _, ref, _ = integrate(ref_system, y_good, 1.2, 1e-3)
    print(np.abs(crank - column(ref_system, ref, "z.crank")).max(), np.abs(E - E[0]).max() / np.ptp(T))
    assert np.abs(crank - column(ref_system, ref, "z.crank")).max() < 1e-4
    assert np.abs(rocker - column(ref_system, ref, "z.rocker")).max() < 1e-4
