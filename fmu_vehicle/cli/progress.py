"""What the command line says while the package compiles or builds: the notice and bar of numba compiles in
this process (:class:`compile_progress`) and what the build of an FMU compiles (:func:`build_notice`)."""
from __future__ import annotations

import sys
from pathlib import Path


class compile_progress:
    """Context: while numba compiles functions in this process (a first run, or after a source change;
    nothing when every kernel is in the cache), say so once on stderr and show a tqdm bar there: the
    functions compiled so far, the one being compiled, the time elapsed (refreshed every second; a kernel
    with its inlined engine takes minutes). ``quiet``: the notice line only, no bar."""

    NOTICE = ("fmu-vehicle: compiling the model's kernels for this machine (first run after an install or an "
              "update; a few minutes, then cached in {cache})")

    def __init__(self, quiet: bool = False, stream=None):
        self.quiet, self.stream, self.bar, self.count, self.active = quiet, stream, None, 0, []

    def __enter__(self):
        from numba.core import event

        outer = self

        class Listener(event.Listener):
            def on_start(self, ev):
                if outer.bar is None:
                    outer._start()
                outer.active.append(_function_name(ev))
                outer._show()

            def on_end(self, ev):
                outer.count += 1
                if outer.active:
                    outer.active.pop()
                if outer.bar is not None:
                    outer.bar.update(1)
                    outer._show()

        self._listener = Listener()
        event.register("numba:compile", self._listener)
        return self

    def _show(self):
        if self.bar is not None and self.active:
            self.bar.set_postfix_str(f"compiling {self.active[0]}", refresh=True)

    def _start(self):
        import threading

        from tqdm import tqdm

        from ..numerics.cache import cache_dir
        stream = self.stream or sys.stderr
        print(self.NOTICE.format(cache=cache_dir() or "memory only"), file=stream, flush=True)
        self.bar = tqdm(desc="compiled", unit=" functions", file=stream, disable=self.quiet)
        self._stop = threading.Event()

        def tick():                      # the elapsed time moves while one long compile runs
            while not self._stop.wait(1.0):
                self.bar.refresh()

        threading.Thread(target=tick, daemon=True).start()

    def __exit__(self, *exc):
        from numba.core import event
        event.unregister("numba:compile", self._listener)
        if self.bar is not None:
            self._stop.set()
            self.bar.close()
        return False


def _function_name(ev) -> str:
    """The name of the function a numba compile event is about."""
    return getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__name__", "a function")


def build_notice(fmu_name: str) -> str:
    """What the build of the registered FMU ``fmu_name`` compiles, for the line that says it is built: the
    kernels of the models it imports (``jit.dependencies`` of its slave script), compiled once per source
    version at build time; '' for an FMU that compiles nothing (it builds in seconds)."""
    from ..fmi.registry import slave_script
    from ..numerics.jit import dependencies
    package = Path(__file__).resolve().parents[1]
    modules = {path.relative_to(package).as_posix() for path in dependencies(slave_script(fmu_name))}
    if "vehicle/dynamics.py" in modules:
        return " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)"
    if "tire/stepper.py" in modules:
        return " (compiles the tire model once)"
    return ""
