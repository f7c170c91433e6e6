"""Tires: the Magic Formula 5.2 tire model behind one contact interface, and the rigs and steppers of one wheel.

Every vehicle wheel's tire is the MF 5.2 combined-slip contact ``contact.tire_contact_3d`` reached through
``models.contact`` (the interface: the vehicle never calls a model's kernels). ISO 8855 axes, SI units.

Modules:
    interface  the interface's layouts: parameter width N_PARAMS and model slot P_MODEL, contact output slots
               OUT_* and CONTACT_OUT_N (re-exported by ``models``, where every caller reads them)
    models     the tire models by name (mf52), chosen by a tire's data; params(tire), contact(model_id, p, ...)
               and the accessors (unloaded_radius, vertical_stiffness, ...) every caller outside tire/ uses
    tir        the MF 5.2 model's data: read_tir(path) -> TireParams (MF-Tyre .tir file), its P_* layout
    pacejka    MF 5.2 pure longitudinal slip, rolling resistance and vertical force: mf_fx0, slip_stiffness,
               rolling_resistance_moment, vertical_force, effective_rolling_radius, relaxation lengths,
               low_speed_damping
    pacejka_combined  MF 5.2 camber, lateral force, aligning moment and combined slip: mf_fx0_camber,
               mf_fy0, mf_mz0, mf_combined, cornering_stiffness, lateral_relaxation_length
    contact    the MF 5.2 single-point contacts: tire_contact_3d (combined slip, transient κ' and q = tan α';
               the vehicle's) and tire_contact (longitudinal only, a wheel in the x-z plane; the planar rig's)
    brake      brake_torque(...): LuGre-type brake element (holds a wheel without creep), BRAKE_* constants
    stepper    the planar single-wheel stepper: WheelArrays record, wheel_derivative on tire_contact, RK4
               (``numerics.rk4``) steps and wheel_advance; refuses a tire that is not MF 5.2 (require_mf52)
    wheel      simulate_wheel(...): one wheel on a road with drive and brake torque, the stepper from static
               equilibrium (tire studies without the multibody engine)
    tire_planar  TireModel: a planar wheel's tire per communication step from the wheel's state (Tire.fmu's
               planar interface)
    stepper3d  the slip states (κ', q) of ``models.contact`` on a prescribed spatial wheel over a step:
               derivative3d, advance3d (RK4 of ``numerics.rk4``)
    tire3d     TireModel3d: that tire per communication step from a wheel state and terrain in Project Chrono's
               tire-interface form (Tire.fmu's chrono interface)
    signals    Tire.fmu's signal tables: inputs, outputs, units, descriptions and output dependencies

See docs/tire.md.
"""
