"""Exception tree of :mod:`brickwright`; messages say what to do next.

:class:`BrickWrightError` derives from :class:`~ldraw_data.errors.ToolkitError`, the one root of every
error the toolkit raises on purpose (re-exported as :class:`bricklayer.errors.ToolkitError`).
"""

from __future__ import annotations

__all__ = ["BrickWrightError", "BrickWrightValueError", "BrickWrightTypeError", "WorkerStartError", "ProviderNotConfiguredError",
           "ProviderError", "TranscriptError", "RunFolderExistsError", "RayClusterError"]

from ldraw_data.errors import ToolkitError


class BrickWrightError(ToolkitError):
    """Base class of every error raised by the BrickWright harness and command line."""


class BrickWrightValueError(BrickWrightError, ValueError):
    """A value given to the harness is not valid (an empty search query, a prompts file with no prompt, a
    ``--from`` file of an unknown kind); also a ``ValueError``. The message says what to give instead."""


class BrickWrightTypeError(BrickWrightError, TypeError):
    """A value handed to the harness has the wrong type (e.g. ``run_tests()`` in a build's tests returned
    something that is not a report); also a ``TypeError``."""


class WorkerStartError(BrickWrightError, RuntimeError):
    """The sandboxed build worker did not start (the import of bricklayer failed or timed out); also a
    ``RuntimeError``."""


class ProviderNotConfiguredError(BrickWrightError):
    """No language-model provider is configured.

    The message is one line naming every way to configure one (flags and environment variables), so the CLI
    can print it as is.
    """

    def __init__(self, detail: str = ""):
        msg = (
            "No model provider configured: set BRICKWRIGHT_BASE_URL and BRICKWRIGHT_MODEL for any "
            "OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama), or OPENAI_API_KEY, or "
            "ANTHROPIC_API_KEY (with `pip install anthropic`); or pass --base-url, --model and --api-key."
        )
        if detail:
            msg = f"{msg} ({detail})"
        super().__init__(msg)


class ProviderError(BrickWrightError):
    """The provider failed to answer (network error, HTTP error, malformed reply)."""


class TranscriptError(BrickWrightError):
    """A transcript file cannot be replayed (missing, not JSONL, or no ``run_start`` record)."""


class RunFolderExistsError(BrickWrightError):
    """The run folder given with ``--out`` already holds a run; it is never replaced without ``--force``."""


class RayClusterError(BrickWrightError):
    """``eval --ray`` cannot use the Ray cluster: Ray is not installed (the ``ray`` extra), the address is
    malformed or unreachable, or the cluster's nodes cannot run the toolkit. The message is one line saying
    what to do."""
