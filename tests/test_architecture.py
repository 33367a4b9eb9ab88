"""Guard rails of the architecture plan (../shared/docs/architecture.md, step 0; issue 19).

- Every public name snapshotted in ``tests/data/public_names.json`` stays importable from its module (names
  may be added; removing or moving one breaks users). Regenerate after a deliberate addition with
  ``python tests/test_architecture.py --update``.
- One-way layering: ``ldraw_data`` imports nothing of ``bricklayer``/``brickwright``; ``bricklayer`` nothing of
  ``brickwright`` (module level or inside functions).
- Private names imported across modules do not grow beyond the recorded baseline (the plan removes them).
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "public_names.json"
PACKAGES = ("ldraw_data", "bricklayer", "brickwright")
#: Top-level modules of optional extras (pyproject): a module needing one is skipped when it is missing.
OPTIONAL_EXTRAS = {"mcp", "pxr", "ray"}
LAYER = {"ldraw_data": 0, "bricklayer": 1, "brickwright": 2}
#: Private names imported across modules when the baseline was taken (architecture.md counted 14).
PRIVATE_IMPORT_BASELINE_FILE = ROOT / "tests" / "data" / "private_imports.json"


def _modules():
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            rel = p.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), p


def _imports(path: Path, module: str):
    """(imported module, imported names) of every import statement, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")
                up = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(up + ([base] if base else []))
            yield base, tuple(a.name for a in node.names)


def public_names() -> dict:
    """Module -> sorted ``__all__`` of every public module of the three packages."""
    out = {}
    for mod, _p in _modules():
        if any(part.startswith("_") for part in mod.split(".")):
            continue
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:  # only an optional extra may be missing; anything else is a bug
            if (exc.name or "").split(".")[0] in OPTIONAL_EXTRAS:
                continue
            raise
        names = getattr(m, "__all__", None)
        if names:
            out[mod] = sorted(set(names))
    return out


def private_imports() -> list:
    """``"importer <- module.name"`` for every private name imported from another subpackage of ours."""
    found = []
    for mod, p in _modules():
        for target, names in _imports(p, mod):
            if target.split(".")[0] not in PACKAGES or target == mod:
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__") and target.split(".")[:2] != mod.split(".")[:2]:
                    found.append(f"{mod} <- {target}.{n}")
    return sorted(set(found))


def test_public_names_stay_importable():
    snap = json.loads(SNAPSHOT.read_text())
    missing = []
    for mod, names in snap.items():
        try:
            m = importlib.import_module(mod)
        except ImportError as exc:
            if "mcp" in str(exc) or "pxr" in str(exc):
                continue
            missing.append(f"{mod} (module: {exc})")
            continue
        missing += [f"{mod}.{n}" for n in names if not hasattr(m, n)]
    assert not missing, f"public names removed or moved: {missing[:20]}"
    assert sum(len(v) for v in snap.values()) > 300


def test_layering_is_one_way():
    upward = []
    for mod, p in _modules():
        here = LAYER[mod.split(".")[0]]
        for target, _names in _imports(p, mod):
            top = target.split(".")[0]
            if top in LAYER and LAYER[top] > here:
                upward.append(f"{mod} imports {target}")
    assert not upward, upward


def test_private_imports_across_modules_do_not_grow():
    baseline = set(json.loads(PRIVATE_IMPORT_BASELINE_FILE.read_text()))
    new = sorted(set(private_imports()) - baseline)
    assert not new, f"new private imports across modules (give the name a public one instead): {new}"


if __name__ == "__main__":  # pragma: no cover - regenerate the snapshots after a deliberate change
    if "--update" in sys.argv:
        sys.path.insert(0, str(ROOT))
        SNAPSHOT.write_text(json.dumps(public_names(), indent=1, sort_keys=True) + "\n")
        PRIVATE_IMPORT_BASELINE_FILE.write_text(json.dumps(private_imports(), indent=1) + "\n")
        print(f"{SNAPSHOT}: {sum(len(v) for v in json.loads(SNAPSHOT.read_text()).values())} names; "
              f"{len(private_imports())} private imports in the baseline")
