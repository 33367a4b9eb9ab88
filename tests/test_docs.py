"""The tutorial's code blocks run, in order, in one namespace (the docs cannot drift from the code)."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_tutorial_code_blocks_run(capsys):
    blocks = _blocks(DOCS / "tutorial.md")
    assert len(blocks) >= 8
    ns: dict = {}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"tutorial.md block {i + 1}", "exec"), ns)
        except Exception as exc:  # pragma: no cover - the message says which block
            pytest.fail(f"tutorial.md block {i + 1} failed: {exc!r}\n{code}")
