"""The install (issue 18, item 9): bricknet's pybullet dependency is never imported (README, "Install size")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_pybullet_is_never_imported():
    """Reading the BrickNet labels, validating and sequencing a build with connectors leaves pybullet unimported."""
    code = (
        "import sys\n"
        "from bricklayer import Color, Element, LegoBuild\n"
        "from ldraw_data.connectors import catalog_connector_coverage\n"
        "from ldraw_data.library import get_library\n"
        "covered, total = catalog_connector_coverage(get_library())\n"
        "b = LegoBuild(); base = b.add(Element('3031', Color.GREEN)); b.stack(Element('3003', Color.RED), on=base)\n"
        "assert b.is_valid() and b.is_connected() and b.assembly_sequence().order == [0, 1]\n"
        "print(covered > 10000, 'pybullet' in sys.modules, 'bricknet' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "False", "False"]
