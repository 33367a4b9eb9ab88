"""The harness's exception tree, kept importable from here; defined in :mod:`brickwright.errors` (so that
:mod:`brickwright.testing`, which the agent package imports, can raise them without an import cycle)."""

from __future__ import annotations

from ..errors import (BrickWrightError, BrickWrightTypeError, BrickWrightValueError, ProviderError,
                      ProviderNotConfiguredError, RayClusterError, RunFolderExistsError, TranscriptError,
                      WorkerStartError)

__all__ = ["BrickWrightError", "BrickWrightValueError", "BrickWrightTypeError", "WorkerStartError",
           "ProviderNotConfiguredError", "ProviderError", "TranscriptError", "RunFolderExistsError",
           "RayClusterError"]
