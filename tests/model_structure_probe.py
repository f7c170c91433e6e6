"""The ModelStructure probe of the FMU tests (no tests here; test_fmu_model_structure.py documents the method):
``declared(fmu)`` reads an FMU's declared dependencies, ``observe(fmu, settings, workdir)`` moves each input in
a fresh process (``PROBE``, FMPy's FMU2Slave) and records which outputs followed, ``check(declared, observed)``
asserts soundness and precision. Used by test_fmu_model_structure.py and test_fmu_combination.py."""
from __future__ import annotations

from pathlib import Path

from fmpy import read_model_description

from fmi_support import run_child

PROBE = r'''
import math
fmu = Fmu(INPUTS['fmu'])
OUTS = [v for v in fmu.md.modelVariables if v.causality == 'output']
INS = [v for v in fmu.md.modelVariables if v.causality == 'input']
GET = {'Real': 'getReal', 'Integer': 'getInteger', 'Boolean': 'getBoolean'}
SET = {'Real': 'setReal', 'Integer': 'setInteger', 'Boolean': 'setBoolean'}

def read(f):
    values = {}
    for kind, getter in GET.items():
        vs = [v for v in OUTS if v.type == kind]
        if vs:
            values.update(zip((v.name for v in vs), getattr(f, getter)([v.valueReference for v in vs])))
    return values

def put(f, v, x):
    getattr(f, SET[v.type])([v.valueReference], [x])

def others(v, base):
    lo = -math.inf if v.min is None else float(v.min)
    hi = math.inf if v.max is None else float(v.max)
    d = 0.1 * max(abs(base), 1.0)
    return [x for x in (base + d, base - d) if lo <= x <= hi]

def moved(a, b):
    return {k for k in a if a[k] != b[k]}

def probe(f, base):
    """input -> outputs that changed when it took other values; and inputs whose reset did not restore."""
    ref, out, sticky = read(f), {}, []
    for v in INS:
        seen = set()
        for x in others(v, base[v.name]):
            put(f, v, x)
            seen |= moved(ref, read(f))
        put(f, v, base[v.name])
        if moved(ref, read(f)):
            sticky.append(v.name)
        out[v.name] = sorted(seen)
    return out, sticky

RESULT = []
for setting in INPUTS['settings']:
    base = {v.name: float(v.start) for v in INS}
    base.update(setting.get('inputs', {}))
    f = fmu.new('probe', init=False, start=setting.get('parameters'))
    f.enterInitializationMode()
    for v in INS:
        put(f, v, base[v.name])
    initial, sticky_initial = probe(f, base)
    f.exitInitializationMode()
    status = [do_step(f, 0.0, 1e-3), do_step(f, 1e-3, 1e-3)]
    stepping, sticky_stepping = probe(f, base)
    f.terminate()
    f.freeInstance()
    RESULT.append({'initial': initial, 'stepping': stepping, 'sticky': sticky_initial + sticky_stepping,
                   'status': status, 'errors': [m for s, m in MESSAGES if s >= 3]})
    MESSAGES.clear()
'''


def declared(path: Path) -> dict:
    """The modelDescription's ModelStructure by name: {"initial" | "stepping": {output: {known: kind}}},
    "parameters": the parameter names, "inputs": the input names. A native vehicle's Model Exchange states and
    derivatives (initial unknowns without a dependencies attribute: they depend on every known) are left out:
    the Co-Simulation declaration is what is compared."""
    md = read_model_description(str(path))
    out = {"parameters": {v.name for v in md.modelVariables if v.causality == "parameter"},
           "inputs": {v.name for v in md.modelVariables if v.causality == "input"}}
    model_exchange = {n for d in md.derivatives for n in (d.variable.name, d.variable.derivative.name)}
    for key, unknowns in (("initial", md.initialUnknowns), ("stepping", md.outputs)):
        table = {}
        for u in (u for u in unknowns if u.variable.name not in model_exchange):
            assert u.dependencies is not None, f"{u.variable.name}: no dependencies attribute ({key})"
            kinds = u.dependenciesKind or []
            assert len(kinds) == len(u.dependencies), f"{u.variable.name}: dependenciesKind ({key})"
            table[u.variable.name] = {d.name: k for d, k in zip(u.dependencies, kinds)}
        out[key] = table
    return out


def observe(fmu: Path, settings: list, workdir: Path) -> dict:
    """{"initial" | "stepping": {(output, input), ...}} seen over ``settings`` (PROBE in a fresh process)."""
    runs = run_child(PROBE, workdir, fmu=str(fmu), settings=settings)
    seen = {"initial": set(), "stepping": set()}
    for setting, run in zip(settings, runs):
        assert run["status"] == [0, 0] and not run["errors"], (setting, run["status"], run["errors"][:3])
        assert not run["sticky"], (setting, run["sticky"])           # the outputs follow the inputs, not history
        for mode in seen:
            seen[mode] |= {(o, i) for i, outs in run[mode].items() for o in outs}
    return seen


def check(structure: dict, seen: dict) -> None:
    """Soundness and precision of ``structure`` (:func:`declared`) against ``seen`` (:func:`observe`)."""
    for mode in ("initial", "stepping"):
        pairs = {(o, i) for o, deps in structure[mode].items() for i in deps if i in structure["inputs"]}
        undeclared = sorted(seen[mode] - pairs)
        assert not undeclared, f"{mode}: outputs that moved with an input they do not declare: {undeclared[:8]}"
        if mode == "stepping":
            assert pairs == seen[mode], f"declared in Outputs but never seen: {sorted(pairs - seen[mode])}"
        else:
            for name in {i for _, i in pairs}:
                assert any(p in seen[mode] for p in pairs if p[1] == name), f"input {name} moves no output declaring it"
            for name in {o for o, _ in pairs}:
                assert any(p in seen[mode] for p in pairs if p[0] == name), f"output {name} moves for no input it declares"
    for output, deps in structure["initial"].items():
        assert structure["parameters"] <= set(deps), output
        assert set(deps.values()) <= {"dependent"}, output
