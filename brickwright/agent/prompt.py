"""The system prompt and starting ``build.py`` templates.

The prompt is short loop instructions, worked connection examples (the source of tested functions in
:mod:`brickwright.agent.examples`) plus generated references: ``bricklayer.api_reference()`` (asked from
the worker, so the harness need not import bricklayer) and the :class:`~brickwright.testing.TestContext` methods
rendered from their docstrings. Nothing in it is written twice.
"""

from __future__ import annotations

__all__ = ["INSTRUCTIONS", "NEW_BUILD_TEMPLATE", "ldraw_build_template", "testcontext_reference", "tools_reference",
           "system_prompt", "start_files"]

import inspect
from pathlib import Path

from ldraw_data.errors import InputNotFoundError

from ..testing import TestContext
from .errors import BrickWrightValueError

INSTRUCTIONS = """\
You are BrickWright. You design LEGO models that can really be built, as Python code in build.py written \
against the bricklayer library, and you work only through the tools.

Work in a loop:
1. Plan: list the sections of the model, their parts, sizes and positions.
2. Execute: write build.py (write_build), then change it in small steps (edit_build, insert_build).
3. Validate after every change (validate) and fix what it reports, first problem first; line numbers refer to \
build.py. Use explore to search parts or try code, render to look at the model.
4. When validate passes and the model matches the request, call finalize.

build.py contract: `create_build()` returns the LegoBuild (deterministic, writes no files); `run_tests()` returns \
`TestContext(create_build()).report()` (`from brickwright import TestContext`) and should check what the request \
asks for. validate also always checks collisions and floating parts. The build stands on its lowest parts \
(z = 0 is not special); bricklayer units are LDU (1 stud = 20, 1 plate = 8, 1 brick = 24), +Z up."""

NEW_BUILD_TEMPLATE = '''\
from bricklayer import *
from brickwright import TestContext


def create_build():
    build = LegoBuild()
    # add parts here
    return build


def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    ctx.check_no_collisions()
    ctx.check_connected(expected_components=1)
    return ctx.report()
'''


def ldraw_build_template(ldr_name: str) -> str:
    """Starting build.py that loads an LDraw model copied next to it.

    Parameters
    ----------
    ldr_name : str
        File name of the copy in the run folder (e.g. ``"input.ldr"``).
    """
    return f'''\
from pathlib import Path

from bricklayer import *
from brickwright import TestContext

SOURCE = Path(__file__).with_name({ldr_name!r})  # the model being edited, copied into the run folder


def create_build():
    build = read_ldraw(SOURCE)
    return build


def run_tests():
    ctx = TestContext(create_build())
    ctx.check_no_floating()
    ctx.check_no_collisions()
    return ctx.report()
'''


def testcontext_reference() -> str:
    """One line per public :class:`TestContext` method: signature and the docstring's first sentence."""
    lines = ["- TestContext(build).build: the build under test, for checks of your own, e.g. "
             "`ctx.check(\"four wheels\", sum(p.element.ldraw_id == \"56903c01\" for p in "
             "ctx.build.flattened_placements) == 4)`."]
    for name, fn in inspect.getmembers(TestContext, inspect.isfunction):
        if name.startswith("_"):
            continue
        sig = str(inspect.signature(fn)).replace("(self, ", "(").replace("(self)", "()")
        doc = (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")
        lines.append(f"- TestContext.{name}{sig}: {doc}")
    return "\n".join(lines)


def tools_reference() -> str:
    """One line per harness tool, generated from :data:`~.tools.TOOL_DEFINITIONS`: its arguments (name, JSON
    type, description; required ones without ``?``) and what it does."""
    from .tools import TOOL_DEFINITIONS

    lines = []
    for t in TOOL_DEFINITIONS:
        f = t["function"]
        params = f["parameters"]
        req = set(params.get("required", []))
        args = ", ".join(f"{k}{'' if k in req else '?'}: {v.get('type', 'any')} ({v.get('description', '')})"
                         for k, v in params.get("properties", {}).items())
        lines.append(f"- {f['name']}({args}): {f['description']}")
    return "\n".join(lines)


def system_prompt(api_reference: str) -> str:
    """Assemble the system prompt.

    Parameters
    ----------
    api_reference : str
        ``bricklayer.api_reference()`` text.

    Returns
    -------
    str
    """
    from .examples import examples_source

    return "\n\n".join([INSTRUCTIONS, "Tools:\n" + tools_reference(), "TestContext:\n" + testcontext_reference(),
                        "# Worked connections (tested code; `describe_connectors(element)` lists a part's "
                        "connectors by role)\n```python\n" + examples_source() + "\n```",
                        api_reference.strip() if api_reference.lstrip().startswith("# ")
                        else "# bricklayer API reference\n" + api_reference.strip()])


def start_files(from_path: str | Path | None) -> tuple[str, dict[str, str]]:
    """The ``build.py`` text a run starts from and the extra files to place beside it.

    Parameters
    ----------
    from_path : str, Path or None
        None (a new build: :data:`NEW_BUILD_TEMPLATE`), a ``build.py`` to continue, or an LDraw model
        (``.ldr``/``.mpd``/``.dat``) to start from (:func:`ldraw_build_template` reads it as ``input.<ext>``).

    Returns
    -------
    (str, dict of str to str)
        The ``build.py`` text, and file name -> text of the extra files (the copied LDraw model).

    Raises
    ------
    InputNotFoundError
        ``from_path`` is not a file.
    BrickWrightValueError
        Another suffix.
    """
    if from_path is None:
        return NEW_BUILD_TEMPLATE, {}
    src = Path(from_path)
    if not src.is_file():
        raise InputNotFoundError(f"--from {src}: no such file; pass a build.py or an .ldr/.mpd model")
    if src.suffix.lower() == ".py":
        return src.read_text(encoding="utf-8"), {}
    if src.suffix.lower() in (".ldr", ".mpd", ".dat"):
        name = "input" + src.suffix.lower()
        return ldraw_build_template(name), {name: src.read_text(encoding="utf-8", errors="replace")}
    raise BrickWrightValueError(f"--from {src}: expected a .py build or an .ldr/.mpd LDraw model")
