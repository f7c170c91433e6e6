"""``tracked_text_files``: the repository's tracked text files below some places (no tests here), for the tests
that read the repository's text (test_repo_hygiene.py, test_docs.py)."""
from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The places whose text is checked (folders and single files, relative to the repository root).
CHECKED = ("fmu_vehicle", "tests", "examples", "docs", "build_scripts", "README.md")


def tracked_text_files(places=CHECKED) -> list[Path]:
    """The git-tracked files under ``places`` that decode as UTF-8 text (all files there without git)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *places], cwd=REPO, capture_output=True,
                             check=True).stdout.decode()
        paths = [REPO / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for place in places:
            root = REPO / place
            paths += [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file()]
    files = []
    for path in sorted(paths):
        try:
            data = path.read_bytes()
        except OSError:          # tracked but deleted in the work tree
            continue
        if b"\0" in data:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files
