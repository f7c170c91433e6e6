"""``run_libcosim``: an .ssp run in OSP libcosim (libcosimpy, imported when called), its signals sampled per
step (no tests here), for the tests that compare our master or the FMUs with libcosim (test_cosim_libcosim.py,
test_cosim_lane_change.py, test_native_fmu.py, test_ssp_archives.py). The libcosim quirks it handles are listed
in test_cosim_libcosim.py's docstring."""
from pathlib import Path

import numpy as np


def run_libcosim(ssp_path, n_steps, step_ns, signals):
    """Run the .ssp in libcosim; {'component.variable': (step numbers, values)}."""
    from libcosimpy.CosimEnums import CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    from fmu_vehicle.fmi.post_process import ssp_with_integer_choices
    log_output_level(CosimLogLevel.WARNING)
    # libcosim skips FMI Enumeration variables and drops their bindings: it runs the copy whose FMUs declare
    # their choices as Integers (docs/cosimulation.md)
    import tempfile
    copy_dir = Path(tempfile.mkdtemp(prefix="libcosim_"))
    ssp_path = ssp_with_integer_choices(ssp_path, copy_dir / Path(ssp_path).name)
    ex = CosimExecution.from_ssp_file(str(ssp_path), step_size=step_ns)
    index = {info.name.decode(): info.index for info in ex.slave_infos()}
    refs = {(name, v.name.decode()): v.reference for name, i in index.items() for v in ex.slave_variables(i)}
    series = CosimObserver.create_time_series()
    ex.add_observer(series)
    for signal in signals:
        comp, var = signal.split(".", 1)
        series.start_time_series(index[comp], refs[(comp, var)], CosimVariableType.REAL)
    assert ex.simulate_until(target_time=n_steps * step_ns)
    out = {}
    for signal in signals:
        comp, var = signal.split(".", 1)
        first = series.time_series_real_samples(index[comp], refs[(comp, var)], from_step=0, sample_count=2)
        rest = series.time_series_real_samples(index[comp], refs[(comp, var)], from_step=1, sample_count=n_steps)
        samples = dict(zip(first[1], first[2])) | dict(zip(rest[1], rest[2]))
        steps = np.array(sorted(samples))
        out[signal] = steps, np.array([samples[s] for s in steps])
    return out
