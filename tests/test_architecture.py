"""Guard rails of the architecture plan (../shared/docs/architecture.md, step 0; issue 19).

- Every public name snapshotted in ``tests/data/public_names.json`` stays importable from its module (names
  may be added; removing or moving one breaks users). Regenerate after a deliberate addition with
  ``python tests/test_architecture.py --update``.
- One-way layering: ``ldraw_data`` imports nothing of ``bricklayer``/``brickwright``; ``bricklayer`` nothing of
  ``brickwright`` (module level or inside functions).
- Private names imported across modules do not grow beyond the recorded baseline (the plan removes them).
- No import cycle among our modules, counting imports inside functions (those under ``if TYPE_CHECKING:``
  do not run and are left out): an import placed in a function must not be what keeps a cycle from
  failing at start-up. The rule that keeps the graph acyclic is written in ``bricklayer/build.py``'s module
  docstring. :data:`CYCLE_ALLOWLIST` names the few edges still closing a cycle; it may only shrink.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

import networkx as nx


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


#: Import edges ``(importer, imported)`` that still close a cycle, each with the way out. May only shrink:
#: an entry whose edge is gone fails the test, so remove it.
CYCLE_ALLOWLIST: dict = {}


class _ImportVisitor(ast.NodeVisitor):
    """Edges ``(module, imported module, line)`` of one module; imports under ``if TYPE_CHECKING:`` skipped."""

    def __init__(self, module: str, path: Path, modules: set):
        self.module, self.path, self.modules, self.edges = module, path, modules, []

    def _targets(self, base: str, names: tuple) -> set:
        # ``from a import b``: the submodule a.b when it is one, else the module a (for the names in it)
        out = {f"{base}.{n}" for n in names if f"{base}.{n}" in self.modules}
        if base in self.modules and (not names or any(f"{base}.{n}" not in self.modules for n in names)):
            out.add(base)
        return out

    def visit_If(self, node):
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self._add(self._targets(a.name, ()), node)

    def visit_ImportFrom(self, node):
        pkg = self.module if self.path.name == "__init__.py" else self.module.rpartition(".")[0]
        base = node.module or ""
        if node.level:
            parts = pkg.split(".")
            up = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
            base = ".".join(up + ([base] if base else []))
        self._add(self._targets(base, tuple(a.name for a in node.names)), node)

    def _add(self, targets, node):
        self.edges += [(self.module, t, node.lineno) for t in targets if t != self.module]


def import_graph() -> nx.DiGraph:
    """Directed graph of imports among our modules: module level and inside functions, not TYPE_CHECKING.

    Edge attribute ``lines``: the importing lines. A module importing ``a.b`` depends on ``a.b`` only (the
    parent package ``a`` runs first, but that is Python's order, not a dependency of the code).
    """
    mods = dict(_modules())
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for mod, p in mods.items():
        v = _ImportVisitor(mod, p, set(mods))
        v.visit(ast.parse(p.read_text(encoding="utf-8")))
        for a, b, line in v.edges:
            if g.has_edge(a, b):
                g.edges[a, b]["lines"].append(line)
            else:
                g.add_edge(a, b, lines=[line])
    return g


def import_cycles(g: nx.DiGraph) -> list:
    """Strongly connected components (sorted module lists) of more than one module, with their edges."""
    out = []
    for comp in nx.strongly_connected_components(g):
        if len(comp) > 1:
            edges = sorted(f"{a}:{g.edges[a, b]['lines']} -> {b}" for a, b in g.subgraph(comp).edges)
            out.append((sorted(comp), edges))
    return sorted(out)


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


def test_no_import_cycle():
    g = import_graph()
    gone = [e for e in CYCLE_ALLOWLIST if not g.has_edge(*e)]
    assert not gone, f"allow-listed import edges no longer exist; remove them from CYCLE_ALLOWLIST: {gone}"
    g.remove_edges_from(CYCLE_ALLOWLIST)
    cycles = import_cycles(g)
    assert not cycles, ("import cycles (an import inside a function does not break one; see the layering rule "
                        f"in bricklayer/build.py): {cycles}")


def test_allowlisted_edges_are_the_only_ones_closing_a_cycle():
    """Each allow-listed edge still closes a cycle (else it is not needed and must go)."""
    g = import_graph()
    g.remove_edges_from(CYCLE_ALLOWLIST)
    needless = [(a, b) for a, b in CYCLE_ALLOWLIST if not nx.has_path(g, b, a)]
    assert not needless, f"these edges close no cycle any more; remove them from CYCLE_ALLOWLIST: {needless}"


STRATEGY_DIR = ROOT / "bricklayer" / "assembly" / "strategies"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str, filename: str = "<source>") -> list:
    """``"file:line: what"`` for every private name a module reaches outside itself: an attribute ``x._name``
    (read or written) on anything but ``self`` inside a method of a class of that module whose ``self`` is
    not rebound (``self = search`` hides the search), ``getattr(x, "_name")``, and ``from m import _name`` /
    ``import m._name``. The deadlock strategies talk to the search only through the public interface
    listed in ``bricklayer/assembly/strategies/base.py`` (issue 19)."""
    tree = ast.parse(source, filename)
    own: set = set()  # methods whose ``self`` is the class's own instance
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for f in cls.body:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.args.args and f.args.args[0].arg == "self":
                rebound = any(isinstance(x, ast.Name) and x.id == "self" and isinstance(x.ctx, ast.Store)
                              for x in ast.walk(f))
                if not rebound:
                    own.add(f)
    out: list = []

    def visit(node, fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = node
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id == "self" and fn in own):
                out.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr",
              "hasattr") and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _is_private(node.args[1].value)):
            out.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom):
            out.extend(f"{filename}:{node.lineno}: from {'.' * node.level}{node.module or ''} import {a.name}"
                       for a in node.names if _is_private(a.name))
        elif isinstance(node, ast.Import):
            out.extend(f"{filename}:{node.lineno}: import {a.name}" for a in node.names
                       if any(_is_private(part) for part in a.name.split(".")))
        for child in ast.iter_child_nodes(node):
            visit(child, fn)

    visit(tree, None)
    return out


def test_private_use_scan_finds_what_it_must():
    """The scan of :func:`private_uses` on the patterns the strategies had before issue 19, and on the ones
    that are allowed."""
    bad = (
        "from ..plan import Move, _Unit\n"
        "import bricklayer.assembly._x\n"
        "def _held(self, left):\n"            # a module function whose ``self`` is the search
        "    return self._stuck_parts(left)\n"
        "class S:\n"
        "    def apply(self, search):\n"
        "        self = search\n"              # the strategy's ``self`` rebound to the search
        "        self._drop(1)\n"
        "        search.pl._result(search.g._sweep, getattr(search, '_mine'))\n"
    )
    found = private_uses(bad)
    assert [f.split(": ", 1)[1] for f in found] == [
        "from ..plan import _Unit", "import bricklayer.assembly._x", "self._stuck_parts", "self._drop",
        "search.pl._result", "search.g._sweep", "getattr(search, '_mine')"], found
    good = (
        "from .base import snap_fits_found\n"
        "def _helper(search):\n"              # a private function of the module itself is fine
        "    return search.stuck_parts([], {}, 'blocked').__len__()\n"
        "class S:\n"
        "    def apply(self, search):\n"
        "        self._memo = {}\n"            # the strategy's own state
        "        return _helper(search), self._memo\n"
    )
    assert private_uses(good) == []


def test_strategies_use_only_the_public_interface():
    """No deadlock strategy reads a private member of the search, planner or geometry, or imports a private
    name from another module (issue 19; the interface is listed in ``strategies/base.py``)."""
    files = sorted(STRATEGY_DIR.glob("*.py"))
    assert len(files) >= 12, files  # the package and its strategy modules were found
    uses = [u for p in files for u in private_uses(p.read_text(), str(p.relative_to(ROOT)))]
    assert not uses, "private names used by deadlock strategies (give them a public name): " + "; ".join(uses)


if __name__ == "__main__":  # pragma: no cover - regenerate the snapshots after a deliberate change
    if "--update" in sys.argv:
        sys.path.insert(0, str(ROOT))
        SNAPSHOT.write_text(json.dumps(public_names(), indent=1, sort_keys=True) + "\n")
        PRIVATE_IMPORT_BASELINE_FILE.write_text(json.dumps(private_imports(), indent=1) + "\n")
        print(f"{SNAPSHOT}: {sum(len(v) for v in json.loads(SNAPSHOT.read_text()).values())} names; "
              f"{len(private_imports())} private imports in the baseline")
