"""FMI 2.0 Co-Simulation adapters: the slaves of the package's FMUs, the rules they share, their build and the
tools that run them as other hosts do.

Modules, by what they hold:

Variables and slaves
    ``variables``            ``Var`` (one FMI variable: causality, variability, unit, start, range,
                             Enumeration items), ``Structure`` (the ModelStructure), the SI unit table
    ``slave_base``           ``SlaveBase``: the pythonfmu slave that owns every FMI rule (statuses,
                             bad input, state save/restore, the per-step fast paths)
    ``vehicle_slave``        the vehicle FMUs' common slave over ``Vehicle``/``VehicleSimulator``
    ``slaves/``              one script per FMU, ``fmu_vehicle_<name>.py``: a ``SlaveBase`` subclass
                             with its variable table
    ``registry``             ``FMUS``: FMU name -> slave script, found in ``slaves/`` (each script's class
                             declares the name in ``MODEL_NAME``)

Parameter tables and data files
    ``vehicle_parameters``   the vehicle FMUs' parameters, start values from each default model's files
    ``chassis_parameters``   the ChassisControl FMU's parameters (brake system, vehicle constants, tunings)
    ``driver_parameters``    the Driver FMU's parameters (path follower tuning, vehicle fields)
    ``roads``                the road parameters of the FMUs that carry a road (VehicleLV, Tire)
    ``resource_files``       data files named by String parameters (``road``, ``tire_file``, ...)
    ``start_values``         input start values that follow from the FMUs' data files

Running inside a host
    ``wrapper/``             the FMU binary: ``fmi2_python.c`` (FMI 2.0 CS in C, forwarding to the slave),
                             ``instance`` (its Python side), ``library`` (compiled and cached per user)
    ``embedding``            the FMU's Python code in its host process: its own package copy, the kernels it
                             ships, and the corrections pythonfmu's binary needs (shutdown, ``sys.path``)
    ``messages``             short, safe text for FMI log messages
    ``state_format``         FMU states as a versioned byte format that cannot execute code

Build
    ``build``                one FMU from its slave script: staging, the pythonfmu builder, post-processing
    ``post_process``         ``modelDescription.xml`` patched from the slave's ``Var`` table, the binary put in
    ``build_cache``          the package's FMUs built on demand (``ensure_fmus``), rebuilt when stale
    ``version``              package version, build information, deterministic GUIDs

Other hosts
    ``hosts``                an FMU run in the C host ``host/fmi2_host.c`` and in FMPy (``fmu-vehicle doctor``)
    ``crosscheck``           FMI Cross-Check results of every FMU (``fmu-vehicle crosscheck``)

The FMUs and the rules they share: docs/fmus.md; hosts: docs/fmu_hosts.md; misuse and states:
docs/fmu_robustness.md; adding a controller FMU: docs/extending.md.
"""
