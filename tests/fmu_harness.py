"""One harness for hostile-input cases over every FMU of the package (no tests here).

The FMUs come from the session fixtures (``all_fmus`` of ``plugins/fmus.py``: the FMUs of
``fmu_lists.HARNESS_FMUS``, each built once per session). ``run_cases(fmu, cases, workdir)`` runs a list of
cases one after another in ONE fresh interpreter (``fmi_support.run_child``: the FMU runs its shipped package
copy, a crash cannot take pytest down, and the child must exit 0 after ``terminate``/``freeInstance`` and a
garbage collection, which is where a released instance would crash), each on a fresh instance that is freed
and garbage collected before the next one starts (starting and ending a process that loads a vehicle FMU takes
seconds); ``CaseBatches`` gives a test module one such process per FMU.  Each case gives a dict:

    statuses   FMI status of every call made, in order (0 OK, 2 Discard, 3 Error, 4 Fatal)
    errors     messages logged with status >= Error while the case ran (until its instances were freed and
               garbage collected)
    reals      Real outputs read after the last call (name -> value)
    extra      case-specific results
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fmi_support import run_child

CASE_CODE = r'''
import gc, os, sys, time
from ctypes import c_char_p
from fmpy.fmi2 import fmi2ValueReference, fmi2String, fmi2Terminated

H = 1e-3

def _case(fmu, case, ARGS):
    # statuses, Real outputs and extras of one case on a fresh instance, freed before returning
    md = fmu.md
    STATUSES, EXTRA = [], {}
    reals = [v for v in md.modelVariables if v.type == 'Real']
    outputs = [v for v in reals if v.causality == 'output']
    inputs = [v for v in reals if v.causality == 'input']
    # String parameters first, then Enumerations (a host may call fmi2SetString on those too: the Controller has no String)
    strings = sorted((v for v in md.modelVariables if v.type in ('String', 'Enumeration') and v.causality == 'parameter'),
                     key=lambda v: v.type != 'String')
    fixed_reals = [v for v in reals if v.causality == 'parameter' and v.variability == 'fixed']

    def call(fn, *a):
        try:
            out = fn(*a)
            STATUSES.append(0)
            return out
        except FMICallException as exc:
            STATUSES.append(int(exc.status))
            return None

    def step(f, t, h=H):
        return call(f.doStep, t, h)

    def read_outputs(f):
        vals = f.getReal([v.valueReference for v in outputs])
        return {v.name: x for v, x in zip(outputs, vals)}

    def finish(f):
        f.terminate()
        f.freeInstance()

    f = fmu.new('hostile', init=case not in ('non_utf8_string', 'huge_string', 'start_values'),
                start=ARGS.get('start'))
    if case == 'unknown_reference':
        EXTRA['value'] = call(f.getReal, [9999])[0]
        step(f, 0.0)                       # refused once: the misuse is reported through the status
        step(f, 0.0)                       # then the instance works
    elif case == 'wrong_type_reference':
        var = next(v for v in md.modelVariables if v.type != 'Real')
        EXTRA['name'] = var.name
        EXTRA['value'] = call(f.getReal, [var.valueReference])[0]
        call(f.setReal, [var.valueReference], [1.0])
        call(f.getInteger, [outputs[0].valueReference])
        step(f, 0.0)
        step(f, 0.0)
    elif case == 'non_utf8_string':
        var = strings[0]
        EXTRA['name'] = var.name
        call(f.fmi2SetString, f.component, (fmi2ValueReference * 1)(var.valueReference), 1,
             (fmi2String * 1)(b'\xff\xfe\xfa'))
        call(f.enterInitializationMode)
        call(f.exitInitializationMode)
        step(f, 0.0)
    elif case == 'huge_string':
        var = strings[0]
        EXTRA['name'] = var.name
        call(f.setString, [var.valueReference], ['x' * 1_000_000])
        call(f.enterInitializationMode)
        call(f.exitInitializationMode)
        step(f, 0.0)
    elif case == 'start_values':           # invalid parameters: Error logged at initialization, steps refused
        call(f.enterInitializationMode)
        call(f.exitInitializationMode)
        step(f, 0.0)
        step(f, 0.0)
    elif case == 'garbage_state':
        state = call(f.deSerializeFMUstate, ARGS['blob'])
        call(f.setFMUstate, state)
        step(f, 0.0)
        step(f, 0.0)
        EXTRA['marker_exists'] = os.path.exists(ARGS.get('marker', '/nonexistent'))
    elif case == 'huge_input':
        for var in inputs:
            call(f.setReal, [var.valueReference], [ARGS.get('value', 1e300)])
            step(f, 0.0)
            call(f.setReal, [var.valueReference], [var.start and float(var.start) or 0.0])
        step(f, 0.0)
    elif case == 'huge_step':
        t0 = time.perf_counter()
        step(f, 0.0, 1e9)
        EXTRA['seconds'] = time.perf_counter() - t0
    elif case == 'time_mismatch':
        step(f, 0.0)
        step(f, 5.0)
        step(f, H)
    elif case == 'setup_after_init':       # fmi2SetupExperiment once stepping: refused, the time does not move
        step(f, 0.0)
        call(lambda: f.setupExperiment(startTime=5.0))
        step(f, H)                         # refused once (the misuse reported through the status)
        step(f, H)                         # the FMU's time is still H
        step(f, 5.0)                       # ... not 5 s
    elif case == 'fixed_after_init':
        if fixed_reals:
            var = fixed_reals[0]
            EXTRA['name'] = var.name
            call(f.setReal, [var.valueReference], [float(var.start)])
        else:                     # a String parameter (the Robot's tables)
            var = next(v for v in strings if v.type == 'String')
            EXTRA['name'] = var.name
            call(f.setString, [var.valueReference], [var.start or ""])
        step(f, 0.0)
        step(f, 0.0)
    elif case == 'other_parameters':
        var = next(v for v in fixed_reals if v.name == ARGS['parameter'])
        other = fmu.new('other', start={var.name: ARGS['value']})
        step(other, 0.0)
        blob = other.serializeFMUstate(other.getFMUstate())
        finish(other)
        EXTRA['name'] = var.name
        call(f.setFMUstate, f.deSerializeFMUstate(blob))
        step(f, 0.0)
        EXTRA['value_after'] = f.getReal([var.valueReference])[0]
    else:
        raise ValueError(f"unknown hostile case {case!r}")
    EXTRA['terminated'] = bool(f.getBooleanStatus(fmi2Terminated))
    reals_out = read_outputs(f)
    finish(f)
    return dict(statuses=STATUSES, reals=reals_out, extra=EXTRA)

def run_one(fmu, case, ARGS):
    # one case; its instances are freed and garbage collected before it returns, its errors are the
    # messages logged with status >= Error meanwhile (MESSAGES, of the child prelude, holds the whole process's)
    first = len(MESSAGES)
    result = _case(fmu, case, ARGS)
    gc.collect()
    result['errors'] = [m for s, m in MESSAGES[first:] if s >= 3]
    return result
'''
"""Child code defining ``run_one(fmu, case, args)``: one hostile case on a fresh instance of ``fmu`` (an ``Fmu``
of the child prelude), its result dict (see the module doc)."""

BATCH = CASE_CODE + r'''
fmu = Fmu(INPUTS['fmu'])
RESULT = []
for i, (case, args) in enumerate(INPUTS['cases']):       # the case that was running is in the stderr of a crash
    shown = {k: f'<{len(v)} bytes>' if isinstance(v, bytes) else v for k, v in args.items()}
    print(f"hostile case {i + 1}/{len(INPUTS['cases'])}: {case} {shown}", file=sys.stderr, flush=True)
    RESULT.append(run_one(fmu, case, args))
del fmu
gc.collect()
'''
"""Child script of ``run_cases``: the ``(case, args)`` pairs of ``INPUTS['cases']``, one after another."""

def run_cases(fmu: Path, cases: list[tuple[str, dict]], workdir: Path) -> list[dict]:
    """Run the hostile cases ``[(case, args), ...]`` on ``fmu`` one after another in ONE fresh process (each on
    a fresh instance, freed and garbage collected before the next one starts; the process must exit 0 after
    a last garbage collection); their result dicts, in order.  Raises with the child's output if it fails."""
    results = run_child(BATCH, workdir, fmu=str(fmu), cases=[(case, dict(args)) for case, args in cases])
    assert len(results) == len(cases), results
    return results


class CaseBatches:
    """One child process per FMU for the hostile cases of a test module.

    ``plan(name, folder)`` lists the ``(case, args)`` pairs the module's tests ask of FMU ``name`` (it may
    write the files they use into ``folder``, the FMU's work folder).  The first ``result(name, case, **args)``
    for ``name`` runs all of them with ``run_cases``; each call returns the result of its own case.  If the
    child fails, every case of that FMU fails with the child's output; a case missing from the plan fails
    naming it.
    """

    def __init__(self, fmus: Mapping[str, Path], plan, tmp_path_factory):
        self.fmus = fmus
        self.plan = plan
        self._factory = tmp_path_factory
        self._folders: dict[str, Path] = {}
        self._results: dict[str, tuple[list, list] | BaseException] = {}

    def folder(self, name: str) -> Path:
        """The work folder of FMU ``name``'s child (its cwd; files the planned cases use go here)."""
        if name not in self._folders:
            self._folders[name] = self._factory.mktemp(f"hostile_{name}")
        return self._folders[name]

    def result(self, name: str, case: str, **args) -> dict:
        """The result dict of hostile case ``case`` with ``args`` on FMU ``name`` (see the module doc)."""
        if name not in self._results:
            cases = list(self.plan(name, self.folder(name)))
            try:
                self._results[name] = (cases, run_cases(self.fmus[name], cases, self.folder(name)))
            except Exception as exc:          # the child failed: kept, so that every case of the FMU fails
                self._results[name] = exc
        got = self._results[name]
        if isinstance(got, BaseException):
            raise AssertionError(f"the child running every hostile case of {name} (this one: {case}) failed: "
                                 f"{type(got).__name__}: {got}")
        for (planned, planned_args), r in zip(*got):
            if planned == case and planned_args == args:
                return r
        raise AssertionError(f"hostile case {case!r} with {args!r} of {name} is not in the test module's plan")
