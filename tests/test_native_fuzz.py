"""A fuzz harness over the native FMUs (``fmu_vehicle.native.fmu``): bad inputs, parameters, step sizes and call
sequences, and crafted FMU states (truncated, enlarged, of another FMU, bit flips with and without their check
word made right), each made through the C functions in a child process (``native_probe``), so that a crash is
a failed test, not a dead pytest.

What must hold: the child never dies (0 crashes); every invalid call returns a status other than OK with a
message (no silent OK), naming the variable where there is one; every crafted state that is not a state the
FMU could have made is refused with a message before any byte of it is used; a state accepted (a flip in a
workspace number, with its check word made right) leaves an FMU that steps or refuses with a message. The same
calls also run on a build of the C layer with AddressSanitizer and UndefinedBehaviorSanitizer, which must
report nothing (docs/native.md §6)."""
from __future__ import annotations

import random
import subprocess

import pytest

from fmu_vehicle.fmi.hosts import Inputs, build_host, run_c_host
from native_probe import asan_runtime, extract, run_child, sanitizer_flags, with_check

NAN, INF = float("nan"), float("inf")
SEED = 20261207
HEAD = 8 + 64 + 8 * 9 + 8 * 7
"""A serialized state's header [bytes]: magic, GUID, nine int64 (sizes, life-cycle, integrator, restart flag),
seven doubles."""
SCALARS = HEAD - 8 * 7
"""Where the seven doubles (time, dt, steering angle, rack travel, v0, x0, model time) start."""


def _inputs(info: dict) -> list[str]:
    """The FMU's Real inputs (modelDescription)."""
    from xml.etree import ElementTree
    root = ElementTree.parse(f"{info['dir']}/modelDescription.xml").getroot()
    return [sv.get("name") for sv in root.iter("ScalarVariable")
            if sv.get("causality") == "input" and next(iter(sv)).tag == "Real"]


def _n_variables(info: dict) -> int:
    """The FMU's variables but Model Exchange's states and derivatives (local): those of the C layer's table."""
    from xml.etree import ElementTree
    root = ElementTree.parse(f"{info['dir']}/modelDescription.xml").getroot()
    return sum(1 for sv in root.iter("ScalarVariable") if sv.get("causality") != "local")


def _tunable_real(info: dict) -> tuple[str, float, float]:
    """(name, start, max) of the first Real parameter held in the model's arrays (settable until initialization
    ends, like dt, v0 and x0)."""
    from xml.etree import ElementTree
    root = ElementTree.parse(f"{info['dir']}/modelDescription.xml").getroot()
    for sv in root.iter("ScalarVariable"):
        real = next(iter(sv))
        if sv.get("causality") == "parameter" and real.tag == "Real" and sv.get("name") not in ("dt", "v0", "x0"):
            return sv.get("name"), float(real.get("start")), float(real.get("max"))
    raise AssertionError("no tunable Real parameter")


def call_cases(info: dict) -> list[tuple[list, object]]:
    """[(call, expected)] on instance 0: expected "OK", or the text the message of a refused call must hold
    (refused: any status but OK, with that message)."""
    cases: list[tuple[list, object]] = []
    t = 0.0

    def ok_steps(n):
        nonlocal t
        cases.append((["steps", 0, t, 1e-3, n], "OK"))
        t += n * 1e-3 if n else 0.0

    # call sequences on a fresh instance
    cases += [(["instantiate", 0], "OK"), (["step", 0, 0.0, 1e-3], "not initialized"),
              (["exit", 0], "not in initialization mode"), (["setup", 0, NAN], "startTime nan is not finite"),
              (["setup", 0, INF], "startTime inf is not finite"), (["setup", 0, 0.0], "OK"), (["enter", 0], "OK"),
              (["enter", 0], "called twice"), (["setup", 0, 0.0], "only before initialization"),
              (["exit", 0], "OK"), (["exit", 0], "not in initialization mode"), (["terminate", 0], "OK"),
              (["step", 0, 0.0, 1e-3], "terminated"), (["set", 0, {"v0": 10.0}], "terminated"),
              (["reset", 0], "OK"), (["setup", 0, 0.0], "OK"), (["enter", 0], "OK"), (["exit", 0], "OK")]
    ok_steps(5)
    # parameters: before initialization (a fresh instance each), then after it
    tunable, value, top = _tunable_real(info)
    for name, bad in [("dt", 0.0), ("dt", -1e-3), ("dt", NAN), ("dt", INF), ("dt", 1.0), ("v0", -1.0),
                      ("v0", NAN), ("v0", 1e300), ("x0", NAN), ("x0", INF), ("x0", -INF), (tunable, NAN),
                      (tunable, -INF), (tunable, 2 * top + 1)]:
        cases.append((["init", 0, 0.0, {name: bad}], f"{name} = "))
    cases.append((["init", 0, 0.0, {tunable: 0.5 * (value + top), "v0": 15.0}], "OK"))
    t = 0.0
    ok_steps(5)
    for name in ("dt", "v0", "x0", tunable):
        cases.append((["set", 0, {name: 1e-3}], f"parameter '{name}' can only be set before initialization ends"))
    # inputs: NaN, infinities, huge values, each refused naming the input; the instance then steps on
    for name in _inputs(info):
        for bad in (NAN, INF, -INF, 1e300, -1e300):
            cases.append((["set", 0, {name: bad}], f"{name} = "))
        ok_steps(1)
    # step sizes and communication points
    for point, h in [(t, 0.0), (t, -1e-3), (t, NAN), (t, INF), (t, -INF), (t, 1e9), (t, 1e300), (NAN, 1e-3),
                     (INF, 1e-3), (-INF, 1e-3), (t + 1.0, 1e-3), (t - 1e-3, 1e-3)]:
        cases.append((["step", 0, point, h], "fmi2DoStep: "))
    cases.append((["step", 0, t, 1e-12], "OK"))                 # one internal step of 1e-12 s: a valid step
    t += 1e-12
    ok_steps(3)
    return cases


def _check_calls(results: list, cases: list) -> None:
    assert len(results) == len(cases)
    for (call, expected), result in zip(cases, results):
        if expected == "OK":
            assert result["status"] == "OK", (call, result)
        else:
            assert result["status"] != "OK", f"silent OK: {call} {result}"
            assert any(expected in m for m in result["messages"]), (call, expected, result)


@pytest.mark.parametrize("name", ["VehicleLV", "Vehicle"])
def test_bad_inputs_parameters_steps_and_call_sequences_are_refused_with_a_message(native_fmus, name, tmp_path):
    info = extract(native_fmus[name], tmp_path / name)
    cases = call_cases(info)
    assert len(cases) > 100
    code, results, err = run_child([info], [call for call, _ in cases])
    assert code == 0, f"the child died (exit {code}) after {len(results)} of {len(cases)} calls: {err}"
    _check_calls(results, cases)


def _saved_state(info: dict, steps: int = 50) -> bytes:
    code, results, err = run_child([info], [["init", 0, 0.0, {}], ["steps", 0, 0.0, 1e-3, steps],
                                            ["save", 0, "s"], ["state_bytes", 0, "s"]])
    assert code == 0 and [r["status"] for r in results] == ["OK"] * 4, (results, err)
    return bytes.fromhex(results[-1]["hex"])


def _flip(state: bytes, byte: int, bit: int) -> bytes:
    out = bytearray(state)
    out[byte] ^= 1 << bit
    return bytes(out)


def crafted_states(state: bytes, other: bytes, rng: random.Random, n_vars: int) -> list[tuple[str, bytes, bool | None]]:
    """[(what, bytes, True if it must be refused, None if it may be taken)] made from ``state`` (a serialized
    state of this FMU, of ``n_vars`` variables: ``c/fmi2_native.c``) and ``other`` (bytes of another FMU's
    state)."""
    n = len(state)
    y_at = HEAD
    n_states, n_outputs, n_key, nb = (int.from_bytes(state[72 + 8 * i:80 + 8 * i], "little") for i in (2, 3, 4, 5))
    # doubles: y, row, work (10 n), saved, ABM4 history (4 n), BDF2 J (n^2), LU (2 n^2), h, RK4E g (4 x the
    # switching functions), counters (4), the parameter values (one per variable); int64: ABM4 control (3), BDF2
    # pivots (2 n), BDF2 control (5), the image variant
    ints = 3 + 2 * n_states + 5 + 1
    known = HEAD + 8 * (n_states + n_outputs + 10 * n_states + 1 + n_key + 4 * n_states + 3 * n_states ** 2 + 1 + 4
                        + n_vars + ints) + nb + 8
    assert n > known and (n - known) % 32 == 0          # the g rows: 4 x (4 per wheel)
    ints_at = n - 8 - nb - 8 * ints
    out = [(f"truncated to {k} bytes", state[:k], True) for k in (0, 7, 8, 71, HEAD, n // 2, n - 8, n - 1)]
    out += [("enlarged by 1 byte", state + b"\0", True), ("enlarged by 8 bytes", state + bytes(8), True),
            ("enlarged by 8 bytes, check word right", with_check(state[:-8] + bytes(8) + state[-8:]), True),
            ("another FMU's state", other, True), ("GUID changed", with_check(_flip(state, 20, 0)), True),
            ("magic changed", with_check(_flip(state, 3, 1)), True)]
    # raw bit flips anywhere: the check word refuses every one
    out += [(f"bit {b} of byte {k} flipped", _flip(state, k, b), True)
            for k, b in ((rng.randrange(n), rng.randrange(8)) for _ in range(48))]
    # flips with the check word made right: what the state holds is checked
    named = [(72 + 8 * i, f"size {i}") for i in range(6)] + [(120, "life-cycle state"), (128, "integrator"),
                                                              (136, "restart flag")]
    named += [(SCALARS + 8 * i, f"scalar {i}") for i in range(7)]
    named += [(ints_at + 8 * i, f"ABM4 control {i}") for i in (0, 1)] + [(ints_at + 24, "BDF2 pivot 0")]
    named += [(ints_at + 8 * (3 + 2 * n_states + i), f"BDF2 control {i}") for i in (0, 1)]
    named += [(ints_at + 8 * (ints - 1), "image variant")]
    named += [(y_at + 8 * i, f"y[{i}]") for i in (0, n_states - 1)]
    may_take = ("scalar", "y[")        # a flip may leave a number finite and within its range: then it is taken
    for at, what in named:
        out.append((f"{what}: high bits flipped, check word right", with_check(_flip(_flip(state, at + 7, 6), at + 6, 7)),
                    None if what.startswith(may_take) else True))
    for at, what, value in [(SCALARS + 8, "dt", 0.0), (SCALARS + 8, "dt", NAN), (SCALARS + 8, "dt", 1.0),
                            (SCALARS + 32, "v0", -1.0), (SCALARS + 48, "model time", INF), (y_at, "y[0]", INF),
                            (y_at, "y[0]", NAN), (SCALARS, "time", NAN), (ints_at - 8 * (n_vars + 4), "RK4E counter 0", NAN)]:
        import struct
        out.append((f"{what} = {value}, check word right",
                    with_check(state[:at] + struct.pack("<d", value) + state[at + 8:]), True))
    # flips anywhere in the arrays (blob), check word right: refused where the model's arrays or the data's
    # integers are hit; a workspace number may be taken (then the FMU must step or refuse with a message)
    out += [(f"blob byte {k} bit {b} flipped, check word right", with_check(_flip(state, k, b)), None)
            for k, b in ((rng.randrange(n - 8 - nb, n - 8), rng.randrange(8)) for _ in range(48))]
    return out


@pytest.mark.parametrize("name,other", [("VehicleLV", "Vehicle"), ("Vehicle", "VehicleLV")])
def test_crafted_states_are_refused_with_a_message_and_never_crash(native_fmus, name, other, tmp_path):
    info = extract(native_fmus[name], tmp_path / name)
    state = _saved_state(info)
    foreign = _saved_state(extract(native_fmus[other], tmp_path / other))
    cases = crafted_states(state, foreign, random.Random(SEED), _n_variables(info))
    calls = [["init", 0, 0.0, {}], ["steps", 0, 0.0, 1e-3, 50], ["save", 0, "good"]]
    for what, data, refused in cases:
        calls += [["load", 0, data.hex()], ["steps", 0, 0.05, 1e-3, 20], ["load", 0, "good"]]
    code, results, err = run_child([info], calls)
    assert code == 0, f"the child died (exit {code}) after {len(results)} of {len(calls)} calls: {err}"
    accepted = refused_blob = 0
    for i, (what, data, must_refuse) in enumerate(cases):
        load, steps, restore = results[3 + 3 * i: 6 + 3 * i]
        assert restore["status"] == "OK", (what, restore)
        if load["status"] == "OK":
            assert must_refuse is not True, f"a crafted state was taken: {what}"
            accepted += 1
            # taken: the FMU steps, or refuses with a message
            assert steps["status"] == "OK" or steps["messages"], (what, steps)
        else:
            assert load["messages"] and load["messages"][0].startswith("fmi2DeSerializeFMUstate: "), (what, load)
            refused_blob += what.startswith("blob")
    blob_flips = sum(1 for what, _, _ in cases if what.startswith("blob"))
    assert refused_blob >= blob_flips // 2      # most of the blob is the model's arrays, which never change
    assert accepted < blob_flips


@pytest.mark.skipif(sanitizer_flags() is None or asan_runtime() is None,
                    reason="the C compiler cannot build with -fsanitize=address,undefined (libasan/libubsan missing)")
def test_the_fuzz_calls_under_address_and_undefined_behaviour_sanitizers(native_fmus, tmp_path):
    """The C layer (fmi2_native.c, runtime.c) of VehicleLV built with ASan and UBSan (the compiled kernels are
    not instrumented), loaded in a Python process with the ASan runtime preloaded: the calls above and the
    crafted states run with no report."""
    from fmu_vehicle.native import fmu as native

    fmu = native.export("VehicleLV", tmp_path / "asan", targets=("linux64",), c_flags=sanitizer_flags())
    info = extract(fmu, tmp_path / "x")
    undefined = subprocess.run(["nm", "-D", "--undefined-only", info["lib"]], capture_output=True, text=True).stdout
    assert "__asan_report" in undefined and "__ubsan_handle" in undefined      # instrumented
    env = {"LD_PRELOAD": asan_runtime(), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    cases = call_cases(info)
    code, results, err = run_child([info], [call for call, _ in cases], env=env)
    assert code == 0 and "Sanitizer" not in err and "runtime error" not in err, err
    _check_calls(results, cases)
    code, results, err = run_child([info], [["init", 0, 0.0, {}], ["steps", 0, 0.0, 1e-3, 50], ["save", 0, "s"],
                                            ["state_bytes", 0, "s"]], env=env)
    assert code == 0 and "Sanitizer" not in err, err
    own = bytes.fromhex(results[-1]["hex"])
    cases = crafted_states(own, own[:100], random.Random(SEED), _n_variables(info))
    calls = [["init", 0, 0.0, {}], ["steps", 0, 0.0, 1e-3, 50]]
    for _, data, _ in cases:
        calls += [["load", 0, data.hex()], ["steps", 0, 0.05, 1e-3, 5]]
    code, results, err = run_child([info], calls, env=env)
    assert code == 0 and "Sanitizer" not in err and "runtime error" not in err, err
    assert len(results) == len(calls)
    # LeakSanitizer: the C host built with ASan runs the FMU (a state saved, restored and freed on the way) and
    # checks at its exit that every byte the FMU allocated was freed (a leak fails the run, exit code 23)
    host = build_host(tmp_path / "asan_host", c_flags=sanitizer_flags())
    run = run_c_host(host, fmu, ["chassis.x", "chassis.z"], Inputs(), 1e-3, 200, every=100, state_check=True,
                     python=False)
    assert run.returncode == 0 and "Sanitizer" not in run.stderr, run.stderr[-3000:]
    assert "state restore bit-identical" in run.stderr
