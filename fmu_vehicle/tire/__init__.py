"""Longitudinal-vertical Magic Formula tire: .tir reader, njit force kernels, single-point contact, wheel rig.

Modules:
    tir        read_tir(path) -> TireParams; TireParams.to_array() in the P_* layout
    pacejka    mf_fx0, mf_fx0_slope, slip_stiffness, rolling_resistance_moment, vertical_force,
               effective_rolling_radius, relaxation_length, slip_relaxation_length, low_speed_damping
    contact    tire_contact(...) on a locally planar road; OUT_* indices into its output array
    models     the tire models by name (mf52 first), chosen by a tire's data; contact(model_id, p, ...) and
               the accessors (unloaded_radius, vertical_stiffness, ...) every caller outside tire/ uses
    brake      brake_torque(...): LuGre-type brake element (holds a wheel without creep), BRAKE_* constants
    stepper    the single-wheel stepper: WheelArrays record, wheel_derivative, RK4 step/stages/dense output,
               wheel_advance (what the rig and the Tire FMU both run)
    wheel      simulate_wheel(...): one wheel on a road, fixed-step RK4, no multibody engine needed
    stepper3d  the slip states (κ', q) of tire_contact_3d on a prescribed spatial wheel over a step: derivative3d,
               RK4 sub-steps, advance3d (Tire.fmu's chrono interface)
    tire3d     TireModel3d: that tire per communication step, from a wheel state and terrain in
               Project Chrono's tire-interface form

See docs/tire.md.
"""
