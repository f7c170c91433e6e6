"""Drive native FMUs (``fmu_vehicle.native.fmu``) through their C functions with ctypes, in a child process.

A test hands :func:`run_child` a list of FMUs (extracted folders) and a list of calls; the child loads the
libraries (``RTLD_GLOBAL`` if asked, and under any ``LD_PRELOAD`` the test sets), makes one instance of each,
makes the calls in order and prints one JSON line per call: the FMI status, the values read and the messages
the FMU logged. A crash of the library is the child's death: the lines so far and its exit code (a signal is
negative) come back, never a dead pytest. No FMPy here: a fuzzer needs calls FMPy does not make (raw state
bytes, NaN times) and the statuses it would turn into exceptions.

Calls (lists): ``["init", k, start_time, {name: value}]`` (a new instance, the previous one freed: instantiate,
set the Reals, setup, enter and exit initialization; the status is the first one not OK), the single steps of
that ``["instantiate", k]``, ``["setup", k, start_time]``, ``["enter", k]``, ``["exit", k]``, and
``["terminate", k]``, ``["reset", k]``, ``["set", k, {name: value}]``, ``["get", k, [names]]``, ``["step", k, t, h]``,
``["steps", k, t0, h, n]`` (n steps, stops at the first non-OK), ``["save", k, slot]`` (getFMUstate and
serialize into a slot), ``["load", k, bytes_hex_or_slot]`` (deserialize and set; a slot name or hex bytes),
``["state_bytes", k, slot]`` (print the slot's hex), ``["free", k]``, ``["rss", k]`` (the process's resident
memory [bytes] after a garbage collection and glibc's ``malloc_trim``). :func:`run_case_script` runs a test's
own child script (FMPy over a native and a Python FMU) the same way.
"""
from __future__ import annotations

import ctypes
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree


STATUS = ("OK", "Warning", "Discard", "Error", "Fatal", "Pending")


def extract(fmu: Path, dest: Path) -> dict:
    """``fmu`` unzipped into ``dest``: {dir, id, guid, lib, vars: name -> (value reference, type)}."""
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(fmu) as z:
        z.extractall(dest)
    root = ElementTree.parse(dest / "modelDescription.xml").getroot()
    model_id = root.find("CoSimulation").get("modelIdentifier")
    variables = {}
    for sv in root.iter("ScalarVariable"):
        kind = next(iter(sv)).tag
        variables[sv.get("name")] = (int(sv.get("valueReference")), kind)
    return {"dir": str(dest), "id": model_id, "guid": root.get("guid"),
            "lib": str(dest / "binaries" / "linux64" / f"{model_id}.so"), "vars": variables}


def state_check(body: bytes) -> int:
    """The check word of a native FMU state's bytes before it (``c/fmi2_native.c`` ``state_check``): the sum
    of the little-endian 64-bit words w_i (the last zero padded) times 2 i + 1, modulo 2^64."""
    import numpy as np
    padded = body + bytes(-len(body) % 8)
    words = np.frombuffer(padded, "<u8")
    with np.errstate(over="ignore"):
        return int(np.sum(words * (2 * np.arange(words.size, dtype=np.uint64) + 1), dtype=np.uint64))


def with_check(state: bytes) -> bytes:
    """``state`` (a serialized native FMU state, possibly altered) with its check word made right again, so
    that what it holds is checked, not only its bytes."""
    body = state[:-8]
    return body + state_check(body).to_bytes(8, "little")


def run_child(fmus: list[dict], calls: list, *, rtld_global: bool = False, env: dict | None = None) -> tuple:
    """(exit code, [one dict per call made]) of ``calls`` (module docstring) on ``fmus`` (:func:`extract`) in a
    fresh Python process; ``env`` is added to its environment (e.g. ``LD_PRELOAD``)."""
    from timeouts import HANG_GUARD_S
    spec = json.dumps({"fmus": fmus, "calls": calls, "global": rtld_global})
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve())], input=spec, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=HANG_GUARD_S)
    results = [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("CALL ")]
    return proc.returncode, results, proc.stderr[-3000:]


# ---- the child ---------------------------------------------------------------------------------------------
LOGGER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)


class Callbacks(ctypes.Structure):
    _fields_ = [("logger", LOGGER), ("allocateMemory", ctypes.c_void_p), ("freeMemory", ctypes.c_void_p),
                ("stepFinished", ctypes.c_void_p), ("componentEnvironment", ctypes.c_void_p)]


class Instance:
    """One FMU's library and instance."""

    def __init__(self, info: dict, mode: int, messages: list):
        self.info, self.messages = info, messages
        self.lib = ctypes.CDLL(info["lib"], mode=mode)
        self.comp = None
        self.slots: dict[str, bytes] = {}
        L = self.lib
        L.fmi2Instantiate.restype = ctypes.c_void_p
        L.fmi2Instantiate.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.POINTER(Callbacks), ctypes.c_int, ctypes.c_int]
        for name in ("fmi2SetupExperiment", "fmi2EnterInitializationMode", "fmi2ExitInitializationMode",
                     "fmi2DoStep", "fmi2SetReal", "fmi2GetReal", "fmi2GetFMUstate", "fmi2SetFMUstate",
                     "fmi2FreeFMUstate", "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate",
                     "fmi2DeSerializeFMUstate", "fmi2Terminate", "fmi2GetBooleanStatus", "fmi2Reset"):
            getattr(L, name).restype = ctypes.c_int
        L.fmi2FreeInstance.restype = None
        L.fmi2SetupExperiment.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_double,
                                          ctypes.c_int, ctypes.c_double]
        L.fmi2DoStep.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int]
        for name in ("fmi2SetReal", "fmi2GetReal"):
            getattr(L, name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_double)]
        for name in ("fmi2EnterInitializationMode", "fmi2ExitInitializationMode", "fmi2Terminate", "fmi2Reset",
                     "fmi2FreeInstance"):
            getattr(L, name).argtypes = [ctypes.c_void_p]
        L.fmi2GetFMUstate.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        L.fmi2SetFMUstate.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        L.fmi2FreeFMUstate.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        L.fmi2SerializedFMUstateSize.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        L.fmi2SerializeFMUstate.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        L.fmi2DeSerializeFMUstate.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                              ctypes.POINTER(ctypes.c_void_p)]

        def log(env, name, status, category, message):
            messages.append(message.decode(errors="replace").replace("%%", "%"))

        self.callbacks = Callbacks(LOGGER(log), None, None, None, None)

    def vr(self, names):
        refs = [self.info["vars"][n][0] for n in names]
        return (ctypes.c_uint * len(refs))(*refs)

    def instantiate(self) -> int:
        uri = Path(self.info["dir"], "resources").as_uri()
        self.comp = self.lib.fmi2Instantiate(b"probe", 1, self.info["guid"].encode(), uri.encode(),
                                             ctypes.byref(self.callbacks), 0, 1)
        return 0 if self.comp else 3

    def set(self, values: dict) -> int:
        names = list(values)
        data = (ctypes.c_double * len(names))(*[float(values[n]) for n in names])
        return self.lib.fmi2SetReal(self.comp, self.vr(names), len(names), data)

    def get(self, names):
        out = (ctypes.c_double * len(names))()
        status = self.lib.fmi2GetReal(self.comp, self.vr(names), len(names), out)
        return status, list(out)

    def save(self, slot: str) -> int:
        state = ctypes.c_void_p()
        st = self.lib.fmi2GetFMUstate(self.comp, ctypes.byref(state))
        if st != 0:
            return st
        n = ctypes.c_size_t()
        self.lib.fmi2SerializedFMUstateSize(self.comp, state, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        st = self.lib.fmi2SerializeFMUstate(self.comp, state, buf, n.value)
        self.slots[slot] = buf.raw
        self.lib.fmi2FreeFMUstate(self.comp, ctypes.byref(state))
        return st

    def load(self, data: bytes) -> int:
        state = ctypes.c_void_p()
        st = self.lib.fmi2DeSerializeFMUstate(self.comp, data, len(data), ctypes.byref(state))
        if st != 0:
            return st
        st = self.lib.fmi2SetFMUstate(self.comp, state)
        self.lib.fmi2FreeFMUstate(self.comp, ctypes.byref(state))
        return st


def _finite(x):
    return x if x == x and abs(x) != float("inf") else repr(x)


def child(spec: dict) -> None:
    messages: list[str] = []
    mode = ctypes.RTLD_GLOBAL if spec["global"] else ctypes.RTLD_LOCAL
    fmus = [Instance(info, mode, messages) for info in spec["fmus"]]     # every library loaded first
    for call in spec["calls"]:
        op, k, *args = call
        f = fmus[k]
        messages.clear()
        out: dict = {"call": call}
        if op in ("init", "instantiate") and f.comp:
            f.lib.fmi2FreeInstance(f.comp)
        if op == "instantiate":
            st = f.instantiate()
        elif op == "setup":
            st = f.lib.fmi2SetupExperiment(f.comp, 0, 0.0, args[0], 0, 0.0)
        elif op in ("enter", "exit", "terminate", "reset"):
            st = getattr(f.lib, {"enter": "fmi2EnterInitializationMode", "exit": "fmi2ExitInitializationMode",
                                 "terminate": "fmi2Terminate", "reset": "fmi2Reset"}[op])(f.comp)
        elif op == "init":
            start, values = args
            st = f.instantiate()
            if st == 0 and values:
                st = f.set(values)
            for fn in (lambda: f.lib.fmi2SetupExperiment(f.comp, 0, 0.0, start, 0, 0.0),
                       lambda: f.lib.fmi2EnterInitializationMode(f.comp),
                       lambda: f.lib.fmi2ExitInitializationMode(f.comp)):
                if st == 0:
                    st = fn()
        elif op == "set":
            st = f.set(args[0])
        elif op == "get":
            st, values = f.get(args[0])
            out["values"] = [_finite(v) for v in values]
        elif op == "step":
            st = f.lib.fmi2DoStep(f.comp, args[0], args[1], 1)
        elif op == "steps":
            t, h, n = args
            st = 0
            for i in range(int(n)):
                st = f.lib.fmi2DoStep(f.comp, t + i * h, h, 1)
                if st != 0:
                    break
        elif op == "save":
            st = f.save(args[0])
        elif op == "state_bytes":
            st = 0
            out["hex"] = f.slots[args[0]].hex()
        elif op == "load":
            data = f.slots[args[0]] if args[0] in f.slots else bytes.fromhex(args[0])
            st = f.load(data)
        elif op == "rss":                 # resident memory [bytes] after a collection and malloc_trim
            gc.collect()
            ctypes.CDLL(None).malloc_trim(0)
            with open("/proc/self/statm") as statm:
                out["rss"] = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            st = 0
        elif op == "free":
            f.lib.fmi2FreeInstance(f.comp)
            f.comp, st = None, 0
        else:
            raise ValueError(f"unknown call {op!r}")
        out.update(status=STATUS[st] if 0 <= st < len(STATUS) else st, messages=list(messages))
        print("CALL " + json.dumps(out), flush=True)


def sanitizer_flags() -> tuple[str, ...] | None:
    """The flags of a sanitizer build, or None if this machine's C compiler cannot link one."""
    flags = ("-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all")
    if shutil.which("cc") is None:
        return None
    proc = subprocess.run(["cc", *flags, "-x", "c", "-o", "/dev/null", "-"], input="int main(void){return 0;}",
                          capture_output=True, text=True)
    return flags if proc.returncode == 0 else None


def asan_runtime() -> str | None:
    """The path of the C compiler's ASan runtime (to preload in a child), or None."""
    out = subprocess.run(["cc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    return out if out.startswith("/") else None


if __name__ == "__main__":
    child(json.loads(sys.stdin.read()))


def run_case_script(script: str, spec: dict) -> list:
    """Run ``script`` (Python source driving FMUs, typically through FMPy) in a child process with ``spec`` as
    its JSON argument, in a fresh working folder; the JSON values of the lines it printed that start with
    ``CASE,``. A crash of the child fails the calling test with its stderr."""
    with tempfile.TemporaryDirectory(prefix="fv_cases_") as cwd:
        proc = subprocess.run([sys.executable, "-c", script, json.dumps(spec)], capture_output=True, text=True,
                              cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("CASE,")]
