"""The repository cites only what it ships or what is published.

Design notes, seed texts and issue trackers of the project's own history are not part of the repository,
so a reader cannot follow a reference to them. Text in the package, tests, examples, docs, README and
build scripts must cite a published paper (authors, year, title), one of the repository's own documents
(docs/...), or state the reason itself. This module checks every tracked text file of those places for
references to documents the repository does not ship.
"""
from __future__ import annotations

import re
from pathlib import Path

from repo_files import REPO, tracked_text_files

#: References to documents the repository does not ship: seed texts ("seed 001", "seed file", their file
#: names "001_<16 hex digits>", the "shared/seeds" folder), issue numbers ("issue #6"), and the design
#: notes (semirecursive.md, fmi_notes, peers.md, architecture.md, protocols_and_peers, ../shared, shared/design).
UNSHIPPED = re.compile(
    r"seed ?0[0-4]|seed file|issue ?#?[0-9]|semirecursive\.md|fmi_notes|peers\.md|architecture\.md"
    r"|protocols_and_peers|\.\./shared"
    r"|\b0[0-4][0-9]_[0-9a-f]{16}\b|shared/seeds|shared/design",
    re.IGNORECASE)


def unshipped_references(files) -> list[str]:
    """'path:line: text' of every line of ``files`` that matches UNSHIPPED."""
    hits = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if UNSHIPPED.search(line):
                hits.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:160]}")
    return hits


def test_the_pattern_finds_what_it_must_and_spares_ordinary_text():
    for text in ("see seed 001 §4", "(seed001 Fig. 2)", "the seed file", "issue #6", "Issue 3", "semirecursive.md §5",
                 "fmi_notes pitfall 1", "peers.md", "architecture.md", "protocols_and_peers", "../shared/x",
                 "seeds/001_00d0666ba71cdd0d.txt", "shared/design/notes"):
        assert UNSHIPPED.search(text), text
    for text in ("random seed 1", "seed=1", "Dai, Pan et al. (2022)", "docs/formulation.md §6", "issues a warning",
                 "tissue", "0.001 s", "a_001"):
        assert not UNSHIPPED.search(text), text


def test_no_tracked_text_cites_a_document_the_repository_does_not_ship():
    files = [p for p in tracked_text_files() if p.resolve() != Path(__file__).resolve()]
    assert len(files) > 100, "the file list is implausibly short"
    hits = unshipped_references(files)
    assert not hits, ("cite the published paper (authors, year, title) or a document in docs/, or state the "
                      "reason itself, instead of:\n" + "\n".join(hits))
