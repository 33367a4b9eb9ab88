"""Token accounting and a small price table (US dollars per million tokens).

Prices are the providers' published list prices for standard (non-batch, non-cached) input and output tokens;
a model is matched by the longest table key that its name starts with (so dated snapshots such as
``gpt-4o-2024-08-06`` match ``gpt-4o``). Unknown models, local servers included, cost 0 and the run says so.
"""

from __future__ import annotations

__all__ = ["PRICES", "Usage", "price_for", "cost_usd"]

from dataclasses import dataclass

#: model prefix -> (USD per 1M input tokens, USD per 1M output tokens); list prices of OpenAI and Anthropic.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}


def price_for(model: str | None) -> tuple[float, float] | None:
    """Price of a model, or None when it is not in :data:`PRICES`.

    Parameters
    ----------
    model : str or None
        Model name as sent to the provider; a ``provider/`` prefix (``openai/gpt-4o``) is ignored.

    Returns
    -------
    (float, float) or None
        USD per million input tokens and per million output tokens.
    """
    if not model:
        return None
    name = model.split("/")[-1].lower()
    keys = [k for k in PRICES if name.startswith(k)]
    return PRICES[max(keys, key=len)] if keys else None


def cost_usd(model: str | None, prompt_tokens: int, completion_tokens: int) -> float:
    """Cost of a number of tokens, USD (0 for a model without a price)."""
    p = price_for(model)
    if p is None:
        return 0.0
    return (prompt_tokens * p[0] + completion_tokens * p[1]) / 1e6


@dataclass
class Usage:
    """Running token and cost totals of a run.

    Attributes
    ----------
    prompt_tokens, completion_tokens : int
        Sums over every model response (as reported by the provider).
    cost_usd : float
        Sum of :func:`cost_usd` over responses, USD.
    requests : int
        Model responses received.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    requests: int = 0

    def add(self, model: str | None, prompt_tokens: int, completion_tokens: int) -> None:
        """Add one response's usage."""
        self.prompt_tokens += int(prompt_tokens or 0)
        self.completion_tokens += int(completion_tokens or 0)
        self.cost_usd += cost_usd(model, int(prompt_tokens or 0), int(completion_tokens or 0))
        self.requests += 1

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens of the run."""
        return self.prompt_tokens + self.completion_tokens
