"""One exception root (issue 19, step 5; ../shared/docs/architecture.md): every error the toolkit raises on
purpose derives from :class:`ldraw_data.errors.ToolkitError` (documented as :class:`bricklayer.errors.ToolkitError`),
keeping the built-in kind users catch today, and the CLI catches only the root and ``OSError``."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from bricklayer import Color, Element, LegoBuild
from bricklayer.errors import BrickLayerError, BrickLayerKeyError, BrickLayerValueError, ToolkitError
from ldraw_data.errors import LDrawError

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ldraw_data", "bricklayer", "brickwright")

#: Built-in exceptions a toolkit module may not raise bare: each has a toolkit kind deriving from the root.
BARE = {"ValueError", "KeyError", "TypeError", "IndexError", "FileNotFoundError", "FileExistsError",
        "IsADirectoryError", "NotADirectoryError", "OSError", "ImportError", "ModuleNotFoundError", "RuntimeError"}
#: Raises of bare built-ins still there, and why.
KNOWN_BARE = {
    # an internal invariant (the catalog gave a brick of a size fill_box did not ask for): a bug, not bad input
    ("bricklayer/construction/fill.py", "RuntimeError"): 1,
}


def _toolkit_modules():
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), p


def _exception_classes():
    """Every exception class defined in a toolkit module that imports here (optional extras may be missing)."""
    seen = {}
    for mod, _p in _toolkit_modules():
        if mod.endswith("__main__"):  # runs the command line
            continue
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        for _name, obj in vars(m).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and not issubclass(obj, Warning)
                    and obj.__module__.split(".")[0] in PACKAGES):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return seen


def test_every_toolkit_exception_class_derives_from_the_root():
    classes = _exception_classes()
    # the tree the module docstrings draw, at least: LDraw, bricklayer and harness errors, file and dependency kinds
    for name in ("ldraw_data.errors.PartNotFoundError", "bricklayer.errors.BrickLayerValueError",
                 "bricklayer.connector.ConnectorMismatchError", "brickwright.errors.ProviderError",
                 "brickwright.inspect_model.BuildScriptError", "ldraw_data.errors.OutputExistsError"):
        assert name in classes, name
    # private helpers (a KeyError whose str() is its message) are mixins, not errors anyone raises
    outside = sorted(n for n, c in classes.items() if not issubclass(c, ToolkitError)
                     and not n.rpartition(".")[2].startswith("_"))
    assert not outside, f"exception classes outside the root: {outside}"
    assert bricklayer_root_is_ldraw_root()


def bricklayer_root_is_ldraw_root() -> bool:
    import bricklayer.errors
    import brickwright.agent.errors
    import ldraw_data.errors

    return (bricklayer.errors.ToolkitError is ldraw_data.errors.ToolkitError
            and issubclass(brickwright.agent.errors.BrickWrightError, ldraw_data.errors.ToolkitError)
            and issubclass(BrickLayerError, LDrawError))


def test_kinds_keep_the_builtin_users_catch():
    from bricklayer.errors import (BrickLayerIndexError, BrickLayerTypeError, InputNotFoundError,
                                   MissingDependencyError, OutputExistsError, OutputIsAFolderError)
    from brickwright.errors import BrickWrightValueError
    from ldraw_data.errors import LDrawKeyError, LDrawValueError

    for cls, builtin in ((BrickLayerValueError, ValueError), (BrickLayerKeyError, KeyError),
                         (BrickLayerTypeError, TypeError), (BrickLayerIndexError, IndexError),
                         (LDrawValueError, ValueError), (LDrawKeyError, KeyError), (BrickWrightValueError, ValueError),
                         (InputNotFoundError, FileNotFoundError), (OutputExistsError, FileExistsError),
                         (OutputIsAFolderError, IsADirectoryError), (MissingDependencyError, ImportError)):
        assert issubclass(cls, builtin) and issubclass(cls, ToolkitError), cls


def test_no_bare_builtin_raises_outside_the_known_list():
    found: dict = {}
    for _mod, p in _toolkit_modules():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name):
                name = node.exc.func.id
                if name in BARE:
                    key = (p.relative_to(ROOT).as_posix(), name)
                    found[key] = found.get(key, 0) + 1
    extra = {k: v for k, v in found.items() if v > KNOWN_BARE.get(k, 0)}
    assert not extra, f"raise the toolkit's kind (bricklayer/errors.py) instead of the bare built-in: {extra}"


def test_real_errors_are_the_toolkit_kinds_with_plain_messages():
    # an unknown colour name: a ValueError users catch today, under the root
    with pytest.raises(ValueError) as info:
        Element("3001", "not a colour")
    assert isinstance(info.value, BrickLayerValueError) and isinstance(info.value, ToolkitError)
    assert "unknown colour name 'not a colour'" in str(info.value)
    # an unknown placement name: a KeyError whose message prints unquoted (KeyError would quote it)
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0), name="base")
    with pytest.raises(KeyError) as kinfo:
        b.named("bsae")
    assert isinstance(kinfo.value, BrickLayerKeyError)
    assert str(kinfo.value) == "no placement named 'bsae'; did you mean 'base'?"


def test_cli_catches_no_bare_valueerror_or_keyerror():
    tree = ast.parse((ROOT / "brickwright" / "cli.py").read_text(encoding="utf-8"))
    caught = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            caught += [t.id for t in types if isinstance(t, ast.Name)]
    assert "ToolkitError" in caught and "OSError" in caught
    assert not {"ValueError", "KeyError"} & set(caught), caught
