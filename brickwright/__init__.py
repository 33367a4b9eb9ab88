"""brickwright: the BrickWright agent harness and CLI, on top of :mod:`bricklayer`.

``build.py`` files import :class:`TestContext` from here; the run API (:func:`generate`, :func:`evaluate`,
:func:`replay`) drives the agent.
"""

# build.py contract
from .testing import CheckResult, TestContext, TestReport

# agent runs
from .agent import (
    BrickWrightError,
    EvalResult,
    ProviderNotConfiguredError,
    ReplayResult,
    RunResult,
    evaluate,
    generate,
    replay,
    validate_file,
)

__all__ = [
    "TestContext", "TestReport", "CheckResult",
    "generate", "evaluate", "replay", "validate_file", "RunResult", "EvalResult", "ReplayResult",
    "BrickWrightError", "ProviderNotConfiguredError",
]
