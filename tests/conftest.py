"""Shared fixtures: the real LDraw library, the official models, a tiny library.

The repository root is put first on ``sys.path`` so the tests exercise the
checkout they live in (CI clones the repo elsewhere while the venv's editable
install may point at another working tree).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

#: ``shared/`` lies beside the repository (``/work/main`` -> ``/work/shared``; CI
#: clones elsewhere with a copy of ``shared/`` beside the clone).
_OFFICIAL_DEFAULT = REPO_ROOT.parent / "shared" / "models" / "official"

DATA_DIR = Path(__file__).resolve().parent / "data"


def _official_dir() -> Path | None:
    for cand in (_OFFICIAL_DEFAULT, os.environ.get("BRICKWRIGHT_MODELS_DIR")):
        if not cand:
            continue
        p = Path(cand)
        if p.is_dir() and any(p.glob("*.mpd")):
            return p
        if (p / "official").is_dir() and any((p / "official").glob("*.mpd")):
            return p / "official"
    return None


@pytest.fixture(scope="session")
def official_dir() -> Path:
    """Folder of the 67 official set models (``shared/models/official``)."""
    p = _official_dir()
    if p is None:
        pytest.skip(
            f"official models not found at {_OFFICIAL_DEFAULT} nor $BRICKWRIGHT_MODELS_DIR; "
            "put shared/ beside the repository or set BRICKWRIGHT_MODELS_DIR"
        )
    return p


@pytest.fixture(scope="session")
def library():
    """The real LDraw library (``ldraw_data.get_library()``), session-wide."""
    from ldraw_data import LibraryNotFoundError, get_library

    try:
        return get_library()
    except LibraryNotFoundError as exc:
        pytest.skip(f"no LDraw library installed: {exc}")


#: Files of the tiny library built by :func:`tiny_library_root`: relative path -> text.
TINY_LIBRARY = {
    "LDConfig.ldr": (
        "0 LDraw.org Configuration File\n"
        "0 Name: LDConfig.ldr\n"
        "0 !COLOUR Black CODE 0 VALUE #1B2A34 EDGE #808080\n"
        "0 !COLOUR Red CODE 4 VALUE #B40000 EDGE #333333\n"
    ),
    "parts/3001.dat": (
        "0 Brick  2 x  4\n0 Name: 3001.dat\n0 !LDRAW_ORG Part UPDATE 2004-03\n"
        "0 BFC CERTIFY CCW\n1 16 0 0 0 1 0 0 0 1 0 0 0 1 s\\3001s01.dat\n"
    ),
    "parts/3003.dat": "0 Brick  2 x  2\n0 Name: 3003.dat\n0 !LDRAW_ORG Part\n",
    # same name in parts/ and p/: parts/ wins (LDraw search order)
    "parts/dup.dat": "0 Dup in parts\n0 Name: dup.dat\n0 !LDRAW_ORG Part\n",
    "p/dup.dat": "0 Dup in p\n0 Name: dup.dat\n0 !LDRAW_ORG Primitive\n",
    "parts/s/3001s01.dat": "0 ~Brick  2 x  4 without Front and Back Faces\n0 Name: s\\3001s01.dat\n"
                           "0 !LDRAW_ORG Subpart\n4 16 -40 0 -20 40 0 -20 40 0 20 -40 0 20\n",
    "p/4-4cyli.dat": "0 Cylinder 1.0\n0 Name: 4-4cyli.dat\n0 !LDRAW_ORG Primitive\n",
    "p/48/1-4cyli.dat": "0 Hi-Res Cylinder 0.25\n0 Name: 48\\1-4cyli.dat\n0 !LDRAW_ORG 48_Primitive\n",
    "p/8/1-4cyli.dat": "0 Lo-Res Cylinder 0.25\n0 Name: 8\\1-4cyli.dat\n0 !LDRAW_ORG 8_Primitive\n",
}


def build_tiny_library(root: Path) -> Path:
    """Write :data:`TINY_LIBRARY` under ``root`` and return ``root``."""
    for rel, text in TINY_LIBRARY.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


@pytest.fixture
def tiny_library_files() -> dict[str, str]:
    """The files of the tiny library, relative path -> text (:data:`TINY_LIBRARY`)."""
    return dict(TINY_LIBRARY)


@pytest.fixture
def make_tiny_library():
    """Function ``root -> root`` writing the tiny library under ``root``."""
    return build_tiny_library


@pytest.fixture
def tiny_library_root(tmp_path) -> Path:
    """A minimal LDraw folder: ``parts/``, ``parts/s/``, ``p/``, ``p/48/``, ``p/8/``, ``LDConfig.ldr``."""
    return build_tiny_library(tmp_path / "ldraw")


@pytest.fixture
def tiny_library(tiny_library_root):
    """:class:`~ldraw_data.LDrawLibrary` on the tiny folder."""
    from ldraw_data import LDrawLibrary

    return LDrawLibrary(tiny_library_root)

