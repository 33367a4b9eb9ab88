"""Scaffolding shared by the fault-injection benchmarks (``fault_injection.py``, ``fault_injection_support.py``).

Plain helpers over the public SDK: which official models to read, and how to move one flattened
placement to a new world pose inside the sub-build that holds it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# this checkout's packages, not another editable install (the venv's may point at another worktree)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def official_texts(models_dir: Path, names):
    """``(name, LDraw text)`` of the official models ``names`` present in ``models_dir`` (``NAME.mpd``)."""
    for name in names:
        path = Path(models_dir) / f"{name}.mpd"
        if path.exists():
            yield name, path.read_text(errors="replace")


def owner_of(build, fp):
    """The (sub-)build whose placement list holds flattened placement ``fp``'s leaf."""
    owner = build
    for p in fp.path[:-1]:
        owner = p.content
    return owner


def replace_world(build, i: int, world: np.ndarray):
    """Give flattened placement ``i`` the world pose ``world`` ((4, 4), LDU) at the same index of its
    owner's placement list; returns the new leaf Placement."""
    from bricklayer import Pose

    fp = build.flattened_placements[i]
    owner = owner_of(build, fp)
    leaf = fp.leaf
    parent_world = fp.pose.matrix @ np.linalg.inv(leaf.pose.matrix)
    local = np.linalg.inv(parent_world) @ world
    idx = owner.placements.index(leaf)
    owner.remove(leaf)
    return owner.add_raw(leaf.content, Pose.from_matrix(local), index=idx)


def index_of(build, leaf, path_prefix) -> int:
    """Flattened index of ``leaf`` under the sub-build path ``path_prefix`` (ids of its placements)."""
    for k, p in enumerate(build.flattened_placements):
        if p.leaf is leaf and tuple(id(x) for x in p.path[:-1]) == path_prefix:
            return k
    raise LookupError("moved placement not found")
