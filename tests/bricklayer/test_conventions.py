"""Python conventions (issue 18, item 8): PEP 561 markers, one exception root, notebook display, and
``LegoBuild.assembly_sequence`` taking the arguments docs/stability.md documents."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import bricklayer
from bricklayer import BrickLayerError, Color, Element, LDrawError, LegoBuild, read_ldraw
from bricklayer.connector import ConnectorMismatchError
from bricklayer.construction import SizeNotAvailableError, brick
from bricklayer.render import RenderBackendError
from ldraw_data.errors import LDrawFileNotFoundError, LDrawParseError

REPO = Path(__file__).resolve().parents[2]


def test_each_package_has_py_typed_and_pyproject_ships_it():
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = data["tool"]["setuptools"]["package-data"]
    for pkg in ("bricklayer", "brickwright", "ldraw_data"):
        assert (REPO / pkg / "py.typed").is_file(), pkg
        assert "py.typed" in package_data[pkg], pkg


def test_bricklayer_errors_share_one_root():
    for cls, builtin in ((ConnectorMismatchError, ValueError), (SizeNotAvailableError, ValueError),
                         (RenderBackendError, RuntimeError)):
        assert issubclass(cls, BrickLayerError) and issubclass(cls, builtin), cls
    assert issubclass(BrickLayerError, LDrawError)
    # a real one: there is no 3 x 7 brick in the catalog
    with pytest.raises(BrickLayerError) as info:
        brick(3, 7)
    assert isinstance(info.value, SizeNotAvailableError)


def test_missing_file_is_an_oserror_and_an_ldraw_error(tmp_path):
    missing = tmp_path / "nope.ldr"
    with pytest.raises(FileNotFoundError) as info:
        read_ldraw(missing)
    exc = info.value
    assert isinstance(exc, OSError) and isinstance(exc, LDrawParseError) and isinstance(exc, LDrawFileNotFoundError)
    assert exc.errno == 2 and exc.filename == str(missing) and exc.path == str(missing)
    assert str(exc).startswith(f"{missing}: cannot read file: no such file")
    # a folder is unreadable but not missing: a parse error only
    with pytest.raises(LDrawParseError) as info2:
        read_ldraw(tmp_path)
    assert not isinstance(info2.value, FileNotFoundError)


def test_build_assembly_sequence_takes_time_budget():
    b = LegoBuild()
    base = b.add(Element("3031", Color.GREEN), (0, 0, 0))
    b.stack(Element("3003", Color.RED), on=base)
    plan = b.assembly_sequence(time_budget=30.0, separate_objects=False)
    assert plan.order == [0, 1] and not plan.failed
    with pytest.raises(ValueError, match="time_budget"):
        b.assembly_sequence(time_budget=-1)


def _small_build() -> LegoBuild:
    b = LegoBuild(name="demo | stack")
    base = b.add(Element("3031", Color.GREEN), (0, 0, 0))
    b.stack(Element("3003", Color.RED), on=base)
    return b


def test_notebook_text_summary():
    b = _small_build()
    md = b._repr_markdown_()
    # 4x4 plate (8 LDU + 4 LDU studs) with a 2x2 brick (24 LDU) on it: 80 x 80 x 36 LDU = 4 x 4 studs x 4.5 plates
    assert md.splitlines()[0] == ("**demo \\| stack: 2 parts, 2 distinct part/colour pairs, "
                                  "4.0 x 4.0 studs x 4.5 plates high**")
    assert "| 1 | 3031 | Green (2) |" in md and "| 1 | 3003 | Red (4) |" in md
    html = b._repr_html_()
    assert "<td>3031</td><td>Green (2)</td>" in html and "demo | stack" in html
    assert LegoBuild()._repr_png_() is None  # nothing to draw


@pytest.mark.render
def test_notebook_png_with_renderer():
    import bricklayer.render as r

    try:
        r.backend_info()
    except r.RenderBackendError as exc:
        pytest.skip(f"no offscreen OpenGL: {exc}")
    from PIL import Image

    png = _small_build()._repr_png_()
    assert png is not None and png.startswith(b"\x89PNG")
    assert Image.open(io.BytesIO(png)).size == LegoBuild.NOTEBOOK_PICTURE_SIZE


def test_notebook_display_without_opengl():
    """pyrender cannot be imported (as on a machine without OpenGL): the PNG is None, the text is shown."""
    code = (
        "import sys; sys.modules['pyrender'] = None\n"  # `import pyrender` raises ImportError
        "from bricklayer import Color, Element, LegoBuild\n"
        "b = LegoBuild(); b.add(Element('3003', Color.RED))\n"
        "assert b._repr_png_() is None\n"
        "print(b._repr_markdown_().splitlines()[0])\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "**LegoBuild: 1 part, 1 distinct part/colour pair, 2.0 x 2.0 studs x 3.5 plates high**"
