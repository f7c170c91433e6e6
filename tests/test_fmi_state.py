"""FMU state: get/set rollback, serialize into other instances, reset and interleaved instances give
bit-identical continuations (child process, FMPy low-level API)."""
import pytest

from fmu_cases import STATE_HARNESS, assert_state_bit_identical
from fmi_support import run_child

TIME_GAP = 1.0    # s, the tunable acc.time_gap set after the saved state (its default is 1.8 s)

CHILD = """
H = 1e-3
pt = Fmu(INPUTS['Powertrain'])
def pt_drive(k):
    return {'throttle': 0.5 + 0.5 * math.sin(0.004 * k), 'wheel_left.omega': 2.0 + 0.012 * k,
            'wheel_right.omega': 2.1 + 0.012 * k}
def pt_other(k):
    return {'throttle': 1.0, 'wheel_left.omega': 0.02 * k, 'wheel_right.omega': 0.02 * k}
ctl = Fmu(INPUTS['Controller'])
def ctl_drive(k):                  # following a lead that speeds up and slows down by 2 m/s
    t = k * H
    return {'ego.x': 15.0 * t, 'ego.vx': 15.0, 'lead.x': 30.0 + 15.0 * t - 4.0 * math.cos(0.5 * t),
            'lead.vx': 15.0 + 2.0 * math.sin(0.5 * t)}
def ctl_other(k):
    t = k * H
    return {'ego.x': 10.0 * t, 'ego.vx': 10.0, 'lead.x': 500.0, 'lead.vx': 0.0}
lead = Fmu(INPUTS['LeadVehicle'])
PROFILE = '0:10,1:14,2:6,3:6'
RESULT = {'Powertrain': check_state(pt, pt_drive, 2500, 900, other_drive=pt_other),
          'LeadVehicle': check_state(lead, lambda k: {}, 2500, 777, start={'speed_profile_points': PROFILE},
                                     other_start={'speed_profile_points': PROFILE, 'x0': 20.0},
                                     restore_start={'speed_profile_points': PROFILE}),
          'Controller': check_state(ctl, ctl_drive, 3000, 1234, other_drive=ctl_other,
                                    tunable=('acc.time_gap', INPUTS['time_gap']))}
# a LeadVehicle state made with PROFILE, restored into an instance with the default speed profile
p = lead.new('P', start={'speed_profile_points': PROFILE})
do_step(p, 0.0, H)
saved = p.getFMUstate()
blob = bytes(p.serializeFMUstate(saved))
p.freeFMUstate(saved)
p.terminate(); p.freeInstance()
q = lead.new('Q')
MESSAGES.clear()
s = q.deSerializeFMUstate(blob)
q.setFMUstate(s)
q.freeFMUstate(s)
RESULT['other_profile'] = {'status': do_step(q, H, H), 'errors': [m for st, m in MESSAGES if st >= 3]}
q.terminate(); q.freeInstance()
"""


@pytest.fixture(scope="module")
def results(companion_fmus, tmp_path_factory):
    return run_child(STATE_HARNESS + CHILD, tmp_path_factory.mktemp("state"), time_gap=TIME_GAP,
                     **{k: str(v) for k, v in companion_fmus.items()})


@pytest.mark.parametrize("name", ["Powertrain", "Controller", "LeadVehicle"])
def test_rollback_serialization_reset_and_interleaving_are_bit_identical(results, name):
    assert_state_bit_identical(results[name], other_differs=True)


def test_powertrain_state_covers_gear_shifts(results):
    gears = [row[-1] for row in results["Powertrain"]["ref"]]
    assert len(set(gears)) >= 2


def test_controller_rollback_restores_tunable_parameters(results):
    """Following at 15 m/s about 26 m behind a lead whose speed swings by 2 m/s: from the state saved at
    1.234 s, a time gap of 1 s (gap target 5 m + 1 s x 15 m/s = 20 m) instead of the default 1.8 s (32 m)
    gives another continuation; restoring the state saved before the change continues like the clean run
    (``again == ref`` in the test above), so the state holds the tunable parameter."""
    r = results["Controller"]
    assert r["changed"] != r["ref"]
    assert r["changed"][0] != r["ref"][0] or r["changed"][-1] != r["ref"][-1]


def test_state_restored_into_an_instance_with_other_fixed_parameters_is_refused(results):
    """The state is everything needed to continue, the speed profile included: an instance built with another
    profile cannot continue it, so it refuses the state with a message naming the parameter and refuses to
    step (it does not restore fixed parameters, see docs/fmu_robustness.md)."""
    r = results["other_profile"]
    assert r["status"] == 2                                     # fmi2Discard
    assert any("speed_profile_points = '0:10,1:14,2:6,3:6' in the state" in m for m in r["errors"]), r["errors"]


def test_instances_after_the_first_extraction_is_deleted_keep_the_guid(companion_fmus, tmp_path):
    """FMPy deletes an FMU's extraction folder after ``simulate_fmu``; instances of the same FMU made later
    in the process reuse the imported package. Their serialized states still carry the FMU's GUID (the
    build information is read when the package is imported, not from the deleted folder), so a state
    saved by one instance is accepted by another."""
    result = run_child("""
        import shutil
        from fmu_vehicle.fmi.state_format import load
        path = INPUTS["fmu"]
        simulate_fmu(path, stop_time=2e-3, output_interval=1e-3)     # extracts, imports, deletes the folder
        fmu = Fmu(path)
        a, b = fmu.new("a"), fmu.new("b")
        a.doStep(0.0, 1e-3)
        blob = bytes(a.serializeFMUstate(a.getFMUstate()))
        b.setFMUstate(b.deSerializeFMUstate(blob))
        RESULT = {"guid": fmu.md.guid, "header": load(blob).header["guid"]}
        for f in (a, b):
            f.terminate(); f.freeInstance()
        shutil.rmtree(fmu.dir, ignore_errors=True)
        """, tmp_path, fmu=str(companion_fmus["Powertrain"]))
    assert result["header"] == result["guid"]
