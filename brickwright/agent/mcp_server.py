"""``brickwright mcp``: the harness tools, part search and part info as an MCP server (stdio).

Built on the official ``mcp`` Python SDK (``pip install 'brickwright-toolkit[mcp]'``; 2.x ``MCPServer``, or
1.x ``FastMCP``). The harness tools (:data:`~.tools.TOOL_NAMES`) keep their names, descriptions and argument
names and answer exactly the text the harness model reads (:mod:`.runfolder`: the same :class:`~.tools.ToolBox`,
state in ``RUN/.brickwright/``); ``render`` also returns the PNG as MCP image content. Each tool takes an
optional ``run_dir`` (default: the server's ``--run-dir``). Extra tools: ``init_run`` (a new run folder with
the starting build.py), ``system_prompt`` (what the harness tells a model), ``search_parts`` and ``part_info``.

One warm sandboxed :class:`~.worker.Worker` and one :class:`~.judge.Judge` serve every call for the server's
life; calls run one at a time, in a thread, so the server keeps answering pings meanwhile.
"""

# no ``from __future__ import annotations``: the SDK reads the tools' annotations to make their schemas

__all__ = ["BrickwrightTools", "build_server", "serve", "SERVER_INSTRUCTIONS"]

import functools
import tempfile
import threading
from pathlib import Path
from typing import Annotated, Any, Optional

import anyio
from ldraw_data.errors import LDrawError
from pydantic import Field

try:  # mcp 2.x
    from mcp.server.mcpserver import Image, MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # pragma: no cover - mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server, Image
    from mcp.server.fastmcp.exceptions import ToolError

from .errors import BrickWrightError
from .judge import Judge
from .runfolder import _check_run_folder, harness_system_prompt, init_run_folder, open_run_folder, run_tool
from .tools import TOOL_DEFINITIONS, ToolOutcome
from .worker import DEFAULT_TIME_LIMIT, Worker

SERVER_INSTRUCTIONS = (
    "BrickWright: design LEGO models that can really be built (real parts, no collisions, nothing floating, one "
    "connected assembly), as a build.py written against the bricklayer library. Call system_prompt first: it is "
    "what the BrickWright harness tells a model (the loop, the build.py contract, the API). The tools act on a "
    "run folder (run_dir; init_run makes one): write_build / edit_build / insert_build, validate until it says "
    "VALIDATE: PASSED, render to look, explore to try code, then finalize (writes model.ldr). search_parts and "
    "part_info look up catalog parts.")

_SPECS = {t["function"]["name"]: t["function"] for t in TOOL_DEFINITIONS}


def _desc(tool: str) -> str:
    return _SPECS[tool]["description"]


def _arg(tool: str, name: str) -> str:
    return _SPECS[tool]["parameters"]["properties"][name]["description"]


RunDir = Annotated[Optional[str], Field(description="The run folder (default: the server's --run-dir).")]


class BrickwrightTools:
    """What the server's tools call: one warm worker and judge, a default run folder, one call at a time.

    Parameters
    ----------
    run_dir : path, optional
        Default run folder (must hold build.py); calls may name another.
    sandbox : bool, default True
        Run build.py in the OS sandbox (False: process limits only, ``--no-sandbox``).
    time_limit : float
        Seconds per build.py run, s.

    Raises
    ------
    SandboxUnavailableError
        ``sandbox`` is true and no sandbox can be set up (raised before any process starts).
    RunFolderError
        ``run_dir`` is not a run folder.
    """

    def __init__(self, run_dir: str | Path | None = None, *, sandbox: bool = True,
                 time_limit: float = DEFAULT_TIME_LIMIT):
        if sandbox:
            from .sandbox import SandboxUnavailableError, sandbox_problem

            problem = sandbox_problem()
            if problem:
                raise SandboxUnavailableError(f"refusing to serve model code without a sandbox: {problem}; pass "
                                              "--no-sandbox to run it with process limits only")
        self.run_dir = None if run_dir is None else Path(run_dir).resolve()
        if self.run_dir is not None:
            _check_run_folder(self.run_dir)
        # the one folder tree the client may name: the --run-dir itself, or the folder the server started in
        self.root = self.run_dir if self.run_dir is not None else Path.cwd().resolve()
        self._lock = threading.Lock()
        self._prompt: str | None = None
        self._scratch = tempfile.TemporaryDirectory(prefix="brickwright-mcp-")
        self.worker = Worker(time_limit=time_limit, sandbox=sandbox)
        self.judge = Judge()
        if self.run_dir is not None:  # warm up now, in the sandbox the first call will use
            args = open_run_folder(self.run_dir, self.worker, self.judge).worker_args()
            self.worker.start((str(Path(args["cwd"]).resolve()),
                               tuple(str(Path(f).resolve()) for f in args["read_files"])))

    def close(self) -> None:
        """Stop the worker and the judge."""
        self.worker.close()
        self.judge.close()
        self._scratch.cleanup()

    def _confined(self, run_dir: str) -> Path:
        """``run_dir`` resolved, refused unless it lies in :attr:`root` (a client must not point the sandbox's
        writable folder, or init_run's clean-up, at folders of the user's elsewhere)."""
        p = Path(run_dir).expanduser()
        p = (p if p.is_absolute() else self.root / p).resolve()
        if p != self.root and self.root not in p.parents:
            raise ToolError(f"run_dir {run_dir!r} is outside {self.root}, the folder this server serves "
                            "(start it there, or with --run-dir)")
        return p

    def _folder(self, run_dir: str | None) -> Path:
        if run_dir:
            return self._confined(run_dir)
        if self.run_dir is None:
            raise ToolError("no run folder: pass run_dir (init_run makes one), or start the server with --run-dir")
        return self.run_dir

    def tool(self, name: str, arguments: dict, run_dir: str | None) -> ToolOutcome:
        """Run harness tool ``name`` on the run folder (blocking; one call at a time).

        Raises
        ------
        ToolError
            No run folder, or one that is not a run folder (the message says what to do).
        """
        with self._lock:
            try:
                return run_tool(self._folder(run_dir), name, arguments, worker=self.worker, judge=self.judge)
            except BrickWrightError as exc:
                raise ToolError(str(exc)) from None

    def system_prompt(self) -> str:
        """The harness's system prompt (asked from the warm worker once, then kept)."""
        with self._lock:
            if self._prompt is None:
                cwd = self.run_dir / "work" if self.run_dir is not None else Path(self._scratch.name)
                self._prompt = harness_system_prompt(self.worker, cwd)
            return self._prompt

    def init_run(self, run_dir: str, from_path: str | None, force: bool) -> str:
        """Create a run folder (:func:`~.runfolder.init_run_folder`); the line saying where build.py is."""
        with self._lock:
            try:
                d = init_run_folder(self._confined(run_dir), from_path=self._confined(from_path) if from_path else None, force=force)
            except (BrickWrightError, FileNotFoundError, ValueError) as exc:
                raise ToolError(str(exc)) from None
        return f"{d / 'build.py'} holds a starting template; read_build shows it. Pass run_dir={str(d)!r} to the tools."


def _message(exc: Exception) -> str:
    """An error's one-line message (a KeyError's own text, not its repr)."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def _content(out: ToolOutcome) -> list:
    """A tool outcome as MCP content: its text, and the PNG as image content when there is one."""
    return [out.text, Image(path=out.image)] if out.image else [out.text]


def build_server(tools: BrickwrightTools) -> Any:
    """The MCP server object (``MCPServer``, or ``FastMCP`` on mcp 1.x) with every tool registered on ``tools``."""
    server = _Server("brickwright", instructions=SERVER_INSTRUCTIONS, log_level="WARNING")

    async def call(name: str, args: dict, run_dir: str | None) -> list:
        out = await anyio.to_thread.run_sync(functools.partial(tools.tool, name, args, run_dir))
        return _content(out)

    def register(name: str, description: str | None = None):
        return server.tool(name=name, description=description or _desc(name), structured_output=False)

    @register("read_build")
    async def read_build(run_dir: RunDir = None):
        return await call("read_build", {}, run_dir)

    @register("write_build")
    async def write_build(content: Annotated[str, Field(description=_arg("write_build", "content"))],
                          run_dir: RunDir = None):
        return await call("write_build", {"content": content}, run_dir)

    @register("edit_build")
    async def edit_build(old_text: Annotated[str, Field(description=_arg("edit_build", "old_text"))],
                         new_text: Annotated[str, Field(description=_arg("edit_build", "new_text"))],
                         run_dir: RunDir = None):
        return await call("edit_build", {"old_text": old_text, "new_text": new_text}, run_dir)

    @register("insert_build")
    async def insert_build(line: Annotated[int, Field(description=_arg("insert_build", "line"))],
                           text: Annotated[str, Field(description=_arg("insert_build", "text"))],
                           run_dir: RunDir = None):
        return await call("insert_build", {"line": line, "text": text}, run_dir)

    @register("validate")
    async def validate(run_dir: RunDir = None):
        return await call("validate", {}, run_dir)

    @register("render")
    async def render(view: Annotated[str, Field(description=_arg("render", "view"))] = "sheet",
                     highlight_problems: Annotated[bool, Field(description=_arg("render", "highlight_problems"))]
                     = False,
                     pose: Annotated[Optional[dict[str, float]], Field(description=_arg("render", "pose"))] = None,
                     run_dir: RunDir = None):
        args = {"view": view, "highlight_problems": highlight_problems}
        if pose is not None:
            args["pose"] = pose
        return await call("render", args, run_dir)

    @register("explore")
    async def explore(code: Annotated[str, Field(description=_arg("explore", "code"))], run_dir: RunDir = None):
        return await call("explore", {"code": code}, run_dir)

    @register("finalize")
    async def finalize(summary: Annotated[str, Field(description=_arg("finalize", "summary"))] = "",
                       run_dir: RunDir = None):
        return await call("finalize", {"summary": summary}, run_dir)

    @register("init_run", "Create a run folder holding the harness's starting build.py (as a BrickWright run "
                          "starts), or start one over with force.")
    async def init_run(run_dir: Annotated[str, Field(description="Folder to create.")],
                       from_path: Annotated[str, Field(description="Optional: start from this build.py or "
                                                                   ".ldr/.mpd model.")] = "",
                       force: Annotated[bool, Field(description="Start over a folder that holds a run.")] = False):
        return await anyio.to_thread.run_sync(functools.partial(tools.init_run, run_dir, from_path, force))

    @register("system_prompt", "The system prompt the BrickWright harness gives a model: the work loop, the "
                               "build.py contract, TestContext and the bricklayer API reference. Read it first.")
    async def system_prompt():
        return await anyio.to_thread.run_sync(tools.system_prompt)

    @register("search_parts", "Search the LDraw part catalog (BM25 x popularity in official sets): one line per "
                              "part: id, name, category, uses.")
    async def search_parts(query: Annotated[str, Field(description='Free text, e.g. "brick 2 x 4", "slope 45", '
                                                                   'or a part id.')],
                           category: Annotated[str, Field(description="Optional exact category, e.g. Brick, "
                                                                      "Plate, Slope.")] = "",
                           limit: Annotated[int, Field(description="Number of results.", ge=1, le=100)] = 10):
        from brickwright.parts_text import search_text

        try:
            return await anyio.to_thread.run_sync(
                functools.partial(search_text, query, category=category or None, limit=limit))
        except (ValueError, LookupError, LDrawError) as exc:
            raise ToolError(_message(exc)) from None

    @register("part_info", "One library part: name, category, size (LDU, studs, plates) and its connectors per "
                           "type with their indices in Element(id, colour).connectors.")
    async def part_info(part_id: Annotated[str, Field(description='Part id, e.g. "3001".')]):
        from brickwright.parts_text import part_info_text

        try:
            return await anyio.to_thread.run_sync(functools.partial(part_info_text, part_id))
        except (ValueError, LookupError, LDrawError) as exc:
            raise ToolError(_message(exc)) from None

    @server.prompt(name="brickwright", description="The BrickWright harness's system prompt.")
    async def brickwright_prompt():
        return await anyio.to_thread.run_sync(tools.system_prompt)

    return server


def serve(run_dir: str | Path | None = None, *, sandbox: bool = True,
          time_limit: float = DEFAULT_TIME_LIMIT) -> None:
    """Run the MCP server on standard input and output until the client closes it.

    Parameters
    ----------
    run_dir : path, optional
        Default run folder of the tools.
    sandbox : bool, default True
        Run build.py in the OS sandbox.
    time_limit : float
        Seconds per build.py run, s.

    Raises
    ------
    SandboxUnavailableError, RunFolderError
        See :class:`BrickwrightTools` (raised before the server starts).
    """
    tools = BrickwrightTools(run_dir, sandbox=sandbox, time_limit=time_limit)
    try:
        build_server(tools).run()
    finally:
        tools.close()
