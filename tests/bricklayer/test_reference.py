"""api_reference() and `python -m bricklayer`: generated from docstrings, covering the public surface."""

import subprocess
import sys

import bricklayer
from bricklayer import api_reference


def test_reference_names_every_public_name():
    ref = api_reference()
    for name in bricklayer.__all__:
        assert name in ref, name
    assert ".add(self, content, position=(0, 0, 0), rotation=Rotation.DEG_0, anchor=Anchor.FRONT_RIGHT" in ref
    assert "ForwardRef" not in ref and "<Rotation." not in ref
    # docstring text, not a hand-written copy
    assert bricklayer.LegoBuild.stack.__doc__.splitlines()[0].strip() in ref


def test_python_m_bricklayer_prints_the_reference():
    out = subprocess.run([sys.executable, "-m", "bricklayer"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert out.stdout == api_reference()
