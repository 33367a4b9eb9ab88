"""brickwright: the BrickWright agent harness and CLI, on top of :mod:`bricklayer`.

``build.py`` files import :class:`TestContext` from here; the run API (:func:`generate`, :func:`evaluate`,
:func:`replay`) drives the agent.
"""

# build.py contract
from .testing import CheckResult, TestContext, TestReport

# agent runs
#: Names served by :mod:`brickwright.agent`, imported on first use (PEP 562): the agent harness
#: (providers, tools, transcripts) costs about 0.15 s to import, which ``python -m brickwright
#: validate`` and ``brickwright.validation`` do not need.
_AGENT_NAMES = frozenset({"BrickWrightError", "EvalResult", "ProviderNotConfiguredError", "ReplayResult", "RunResult",
                          "evaluate", "generate", "replay", "validate_file"})


def __getattr__(name: str):
    """Import the agent harness the first time one of its names is asked for (``_AGENT_NAMES``)."""
    if name in _AGENT_NAMES:
        from . import agent

        value = getattr(agent, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'brickwright' has no attribute {name!r}")

__all__ = [
    "TestContext", "TestReport", "CheckResult",
    "generate", "evaluate", "replay", "validate_file", "RunResult", "EvalResult", "ReplayResult",
    "BrickWrightError", "ProviderNotConfiguredError",
]
