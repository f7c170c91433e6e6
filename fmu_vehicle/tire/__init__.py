"""Longitudinal-vertical Magic Formula tire: .tir reader, njit force kernels, single-point contact, wheel rig.

Modules:
    tir        read_tir(path) -> TireParams; TireParams.to_array() and the P_* index constants
    pacejka    mf_fx0, rolling_resistance_moment, vertical_force, effective_rolling_radius, relaxation_length
    contact    tire_contact(...) on a locally planar road and the OUT_* index constants
    wheel      simulate_wheel(...): single wheel on a road, fixed-step RK4 (no multibody engine needed)
"""
