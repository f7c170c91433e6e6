"""The Jacobi master against OSP libcosim (libcosimpy 0.0.6) running the same .ssp written by write_ssp.

libcosim's fixed_step_algorithm is Jacobi: it steps every due simulator, then transfers the outputs of those whose
own step ended; parameter bindings and osp:StepSizeHint annotations come from the SSD.

libcosim quirks met here:
* time-series samples come back as (time points [ns], step numbers, values); with ``from_step=0`` the last
  requested sample is dropped, so step 0 is read separately and steps 1..N with ``from_step=1``;
* a simulator with a longer own step (osp:StepSizeHint) is sampled only at the end of its steps (steps 5, 10, ...
  for 5 ms on a 1 ms base step), not at every base step;
* it passes dt = t(n+1) - t(n) computed on an integer-nanosecond clock, so the step size varies in the last
  bit; results therefore agree to ~1e-15, not bit for bit (asserted: 1e-12);
* it prints its own log to stdout unless ``log_output_level(CosimLogLevel.WARNING)``.
"""
import zipfile

import numpy as np
import pytest
from lxml import etree

from cosim_fmus.fixtures import plant_ctrl_system, session_fmus
from fmu_vehicle.cosim import Experiment, read_ssp, run_system, write_ssp
from libcosim_runner import run_libcosim

libcosim = pytest.importorskip("libcosimpy")


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    return session_fmus(tmp_path_factory)


@pytest.mark.parametrize("ctrl_step", [None, 5e-3])
def test_jacobi_equals_libcosim_on_the_written_ssp(fmus, tmp_path, ctrl_step):
    system = plant_ctrl_system(fmus, plant={"x0": 0.8, "k": 12.0}, ctrl={"Kp": 25.0, "Kd": 3.0},
                               ctrl_step=ctrl_step)
    path = write_ssp(system, tmp_path / "pd.ssp")
    signals = ["plant.x", "plant.v", "ctrl.F"]
    ours = run_system(read_ssp(path), Experiment(stop_time=1.0, step_size=1e-3, scheme="jacobi"), progress=False)
    theirs = run_libcosim(path, 1000, 1_000_000, signals)
    for signal in signals:
        steps, values = theirs[signal]
        np.testing.assert_allclose(ours[signal][steps], values, rtol=0, atol=1e-12, err_msg=signal)
    assert list(theirs["plant.x"][0]) == list(range(1001))
    assert list(theirs["ctrl.F"][0]) == (list(range(5, 1001, 5)) if ctrl_step else list(range(1001)))
    assert ours["plant.x"][0] == theirs["plant.x"][1][0] == 0.8        # bound x0 applied by both
    if ctrl_step:                       # multi-rate: the controller output moves only every 5 base steps
        assert np.all(np.diff(ours["ctrl.F"])[np.arange(1000) % 5 != 4] == 0.0)


def test_written_ssd_is_valid_ssp_and_round_trips(fmus, tmp_path):
    from fmpy.ssp.ssd import validate_tree

    system = plant_ctrl_system(fmus, ctrl_step=1e-2)
    path = write_ssp(system, tmp_path / "pd.ssp")
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["SystemStructure.ssd", "resources/ctrl.fmu", "resources/plant.fmu"]
        root = etree.fromstring(archive.read("SystemStructure.ssd"))
    validate_tree(root, "SystemStructureDescription.xsd")        # raises on schema violations
    for con in root.iter("{*}Connection"):
        assert con.get("endElement") and con.get("startElement")
    back = read_ssp(path)
    assert [c.name for c in back.components] == ["plant", "ctrl"]
    assert back.connections == system.connections
    assert back.component("ctrl").step_size == 1e-2 and back.component("plant").step_size is None
    assert back.component("plant").parameters == system.component("plant").parameters
    assert (back.start_time, back.stop_time, back.step_size) == (0.0, 1.0, 1e-3)
