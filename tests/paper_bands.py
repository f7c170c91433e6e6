"""The bands within which our final states must match the paper's tables (Dai, Pan et al. 2022, Real-Time
Modeling of Vehicle's Longitudinal-Vertical Dynamics in ADAS Applications), and ``outside_bands`` (no tests
here), used by test_halfcar_paper.py and test_fullcar.py."""
from fmu_vehicle.tools.paper import MANEUVERS, paper_final_state

# Bands of the final state (5 s) against the paper's tables, and why each is as wide as it is. The paper
# gives neither its hardpoints, inertias, tire data nor its initial condition (resources/vehicles/README.md).
BANDS = {
    # x: the paper's start is not stated; its bumpy-road x is 0.8 m (0.8 %) short of a uniform
    # acceleration to its own final speed, so x is compared to 1.5 % of the distance
    "x_m": ("rel", 0.015),
    # vx: 1 % of the speed. On the slope this pins the force balance: a 5 % torque or mass error moves vx
    # by T/d x 5 % x 5 s / M = 1550/0.46 x 0.05 x 5 / 1243 = 0.68 m/s (4.5 %)
    "vx_m_per_s": ("rel", 0.01),
    # z: the static CoM height depends on the unknown hardpoints and the calibrated preloads: 10 mm
    "z_m": ("abs", 0.010),
    # pitch: the rest attitude is calibrated to the paper's flat-road pitch; the slope adds the
    # load transfer of the unknown CoM height and hardpoints: 0.01 rad
    "pitch_rad": ("abs", 0.01),
}
# vz and pitch rate: the paper's values (< 1 mm/s, < 2 mrad/s) are a settled body. On the slope nothing
# excites the car after the torque step at t = 0, so a settled model is within 1 mm/s and 1 mrad/s.
# On the bumpy road the rear wheel leaves the last bump about 1 s before the end, and the paper's bump
# positions are not given, so the phase of the decaying bounce and pitch at 5 s is not reproducible:
# the band asks for a body settled to 20 mm/s and 20 mrad/s, a fifth of the motion in the last second
# (0.11 m/s and 0.055 rad/s peak).
RATE_BANDS = {"bumpy_road": {"vz_m_per_s": 0.02, "pitch_rate_rad_per_s": 0.02},
              "sloping_road": {"vz_m_per_s": 1e-3, "pitch_rate_rad_per_s": 1e-3}}
# The speed gained on the bumpy road: the paper's 7-DOF and 14-DOF rows gain 1.95 m/s; its fork-arm row
# 1.88 m/s, 3.6 % less, although the fork-arm removal is exact for an arm whose mass lies on its bars
# (a rigid body's velocity field is affine, so each bar's velocities follow from its ends; the model's
# two variants agree to 0.003 m/s), so every variant is compared with the 7-DOF row's gain. The band is 5 %
# (the paper's own spread between equivalent models), which a 10 % torque error (-0.23 m/s, -12 %) fails.
DV_BAND = 0.05
DV_PAPER_7DOF = paper_final_state("bumpy_road", "7dof")["vx_m_per_s"] - MANEUVERS["bumpy_road"].v0


def outside_bands(axes, paper, maneuver, v0):
    """The final-state quantities outside their bands: [(quantity, ours, paper)]."""
    bad = []
    for q, (kind, tol) in BANDS.items():
        ours, ref = float(axes[q][-1]), float(paper[q])
        if abs(ours - ref) > (tol * abs(ref) if kind == "rel" else tol):
            bad.append((q, ours, ref))
    for q, tol in RATE_BANDS[maneuver].items():
        ours, ref = float(axes[q][-1]), float(paper[q])
        if abs(ours - ref) > tol:
            bad.append((q, ours, ref))
    if maneuver == "bumpy_road":
        dv = float(axes["vx_m_per_s"][-1]) - v0
        if abs(dv - DV_PAPER_7DOF) > DV_BAND * DV_PAPER_7DOF:
            bad.append(("speed gain", dv, DV_PAPER_7DOF))
    return bad
