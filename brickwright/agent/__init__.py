"""The BrickWright agent harness: the plan-execute-validate loop, its tools, providers and budgets.

Heavy dependencies (``openai``, ``anthropic``, ``bricklayer`` itself) load only when a run starts; bricklayer
is imported in the sandboxed worker process, not here.
"""

# runs
from .run import DEFAULT_MAX_CALLS, DEFAULT_MAX_VALIDATE, Progress, ReplayResult, RunResult, generate, replay, validate_file
from .evaluate import EvalResult, evaluate, read_prompts

# tools, worker, providers
from .tools import TOOL_DEFINITIONS, TOOL_NAMES, ToolBox, ToolOutcome
from .worker import Worker, WorkerResult
from .providers import AnthropicProvider, OpenAIProvider, Provider, resolve_provider
from .pricing import PRICES, Usage, cost_usd, price_for

# errors
from .errors import BrickWrightError, ProviderError, ProviderNotConfiguredError, TranscriptError

__all__ = [
    "generate", "replay", "evaluate", "validate_file", "read_prompts", "RunResult", "ReplayResult", "EvalResult", "Progress",
    "DEFAULT_MAX_CALLS", "DEFAULT_MAX_VALIDATE",
    "TOOL_DEFINITIONS", "TOOL_NAMES", "ToolBox", "ToolOutcome", "Worker", "WorkerResult",
    "Provider", "OpenAIProvider", "AnthropicProvider", "resolve_provider", "PRICES", "Usage", "cost_usd", "price_for",
    "BrickWrightError", "ProviderError", "ProviderNotConfiguredError", "TranscriptError",
]
