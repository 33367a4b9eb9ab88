"""Language-model providers: OpenAI-compatible chat completions and (optionally) Anthropic.

The harness keeps the conversation in the chat-completions message format (``{"role", "content",
"tool_calls"}`` dicts); :class:`AnthropicProvider` converts on the way out and back. Clients load lazily, so
neither ``openai`` nor ``anthropic`` is imported until a run starts.

Configuration, first match wins (arguments beat environment):

- ``base_url`` / ``BRICKWRIGHT_BASE_URL``: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp
  server); needs ``model`` / ``BRICKWRIGHT_MODEL``; the key is optional (local servers ignore it).
- ``api_key`` / ``BRICKWRIGHT_API_KEY`` / ``OPENAI_API_KEY``: OpenAI itself (model default
  :data:`DEFAULT_OPENAI_MODEL`).
- ``ANTHROPIC_API_KEY`` or a model named ``claude-*`` without a base URL: Anthropic (model default
  :data:`DEFAULT_ANTHROPIC_MODEL`).
"""

from __future__ import annotations

__all__ = [
    "AssistantTurn",
    "Provider",
    "OpenAIProvider",
    "AnthropicProvider",
    "resolve_provider",
    "DEFAULT_OPENAI_MODEL",
    "DEFAULT_ANTHROPIC_MODEL",
]

import json
import logging
import os
from dataclasses import dataclass, field
from typing import Any

from .errors import ProviderError, ProviderNotConfiguredError

logger = logging.getLogger(__name__)

DEFAULT_OPENAI_MODEL = "gpt-4.1"
DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"


@dataclass
class AssistantTurn:
    """One model response.

    Attributes
    ----------
    message : dict
        The assistant message in chat-completions form, ready to append to the conversation.
    tool_calls : list of dict
        ``{"id", "name", "arguments"}`` each; ``arguments`` is the raw JSON string the model sent.
    prompt_tokens, completion_tokens : int
        Usage reported by the server (0 when it reports none).
    finish_reason : str or None
    """

    message: dict[str, Any]
    tool_calls: list[dict[str, str]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None

    @property
    def content(self) -> str:
        """The assistant text of the turn ("" when it only called tools)."""
        c = self.message.get("content")
        return c if isinstance(c, str) else ""


class Provider:
    """Interface: ``complete(messages, tools) -> AssistantTurn``.

    Attributes
    ----------
    name : str
        ``"openai"`` or ``"anthropic"``.
    model : str
    base_url : str or None
    """

    name = "abstract"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key

    def complete(self, messages: list[dict], tools: list[dict]) -> AssistantTurn:  # pragma: no cover
        """Send the conversation and the tool definitions; return the assistant's turn.

        Parameters
        ----------
        messages : list of dict
            Chat messages in the OpenAI chat-completions shape (``role``, ``content``,
            ``tool_calls``, ``tool_call_id``); providers convert them to their own API.
        tools : list of dict
            Tool definitions (``{"type": "function", "function": {name, description, parameters}}``,
            parameters as JSON schema).

        Returns
        -------
        AssistantTurn

        Raises
        ------
        ProviderError
            When the server fails or answers with something that is not an assistant turn.
        NotImplementedError
            On this abstract base.
        """
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """Provider, model and base URL (never the key), for the transcript."""
        return {"provider": self.name, "model": self.model, "base_url": self.base_url}


class OpenAIProvider(Provider):
    """Any OpenAI-compatible chat-completions server, through the official ``openai`` client.

    Parameters
    ----------
    model : str
    base_url : str, optional
        E.g. ``http://localhost:11434/v1``; None for api.openai.com.
    api_key : str, optional
        Sent as the bearer token; a placeholder is used for local servers that need none.
    timeout : float, default 600
        Seconds per HTTP request.
    """

    name = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, timeout: float = 600.0):
        super().__init__(model, base_url, api_key)
        try:
            import openai
        except ImportError as exc:
            raise ProviderNotConfiguredError("the `openai` package is missing: pip install openai") from exc
        self._openai = openai
        self._client = openai.OpenAI(api_key=api_key or "not-needed", base_url=base_url, timeout=timeout,
                                     max_retries=2)

    def complete(self, messages: list[dict], tools: list[dict]) -> AssistantTurn:
        """Send the conversation and tool definitions; return the assistant turn.

        Raises
        ------
        ProviderError
            When the server fails or answers with something that is not a chat completion.
        """
        where = self.base_url or "OpenAI"
        try:
            extra = {"tools": tools} if tools else {}  # a critic's call has none: servers refuse tools=[]
            resp = self._client.chat.completions.create(model=self.model, messages=messages, **extra)
        except self._openai.OpenAIError as exc:
            raise ProviderError(f"{where}: {type(exc).__name__}: {exc}") from exc
        except ValueError as exc:  # a body that is not JSON (json.JSONDecodeError is a ValueError)
            raise ProviderError(f"{where} answered with something that is not a chat completion: {exc}") from exc
        choices = getattr(resp, "choices", None)
        if not choices:
            raise ProviderError(f"{where} returned no choices")
        choice = choices[0]
        msg = getattr(choice, "message", None)
        if msg is None:
            raise ProviderError(f"{where} returned a choice without a message")
        calls = [{"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments or "{}"}
                 for tc in (msg.tool_calls or []) if getattr(tc, "function", None) is not None]
        message: dict[str, Any] = {"role": "assistant", "content": msg.content}
        if calls:
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
        usage = resp.usage
        return AssistantTurn(message, calls, int(getattr(usage, "prompt_tokens", 0) or 0),
                             int(getattr(usage, "completion_tokens", 0) or 0), choice.finish_reason)


class AnthropicProvider(Provider):
    """Anthropic's Messages API through the official ``anthropic`` client (optional dependency).

    Parameters
    ----------
    model : str
    api_key : str, optional
        Default: ``ANTHROPIC_API_KEY``.
    max_tokens : int, default 8192
        Output tokens per response.
    """

    name = "anthropic"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, max_tokens: int = 8192):
        super().__init__(model, base_url, api_key)
        try:
            import anthropic
        except ImportError as exc:
            raise ProviderNotConfiguredError("Anthropic needs its client: pip install anthropic") from exc
        self._anthropic = anthropic
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url)
        self.max_tokens = max_tokens

    @staticmethod
    def _convert(messages: list[dict]) -> tuple[str, list[dict]]:
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        out: list[dict] = []

        def push(role: str, blocks: list[dict]) -> None:
            if out and out[-1]["role"] == role:
                out[-1]["content"].extend(blocks)
            else:
                out.append({"role": role, "content": list(blocks)})

        for m in messages:
            if m["role"] == "system":
                continue
            if m["role"] == "tool":
                push("user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}])
            elif m["role"] == "assistant":
                blocks: list[dict] = [{"type": "text", "text": m["content"]}] if m.get("content") else []
                for tc in m.get("tool_calls") or []:
                    try:
                        args = json.loads(tc["function"]["arguments"] or "{}")
                    except json.JSONDecodeError:
                        args = {}
                    blocks.append({"type": "tool_use", "id": tc["id"], "name": tc["function"]["name"], "input": args})
                push("assistant", blocks)
            else:
                content = m["content"]
                if isinstance(content, str):
                    push("user", [{"type": "text", "text": content}])
                else:
                    blocks = []
                    for part in content:
                        if part.get("type") == "image_url":
                            url = part["image_url"]["url"]
                            head, _, data = url.partition(",")
                            media = head.removeprefix("data:").removesuffix(";base64")
                            blocks.append({"type": "image", "source": {"type": "base64", "media_type": media,
                                                                       "data": data}})
                        else:
                            blocks.append({"type": "text", "text": part.get("text", "")})
                    push("user", blocks)
        return system, out

    def complete(self, messages: list[dict], tools: list[dict]) -> AssistantTurn:
        """Send the conversation and tool definitions; return the assistant turn.

        Raises
        ------
        ProviderError
            When the server fails or answers with something that is not a chat completion.
        """
        system, conv = self._convert(messages)
        atools = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                   "input_schema": t["function"]["parameters"]} for t in tools]
        try:
            resp = self._client.messages.create(model=self.model, system=system, messages=conv, tools=atools,
                                                max_tokens=self.max_tokens)
        except self._anthropic.AnthropicError as exc:
            raise ProviderError(f"Anthropic: {type(exc).__name__}: {exc}") from exc
        text = "".join(b.text for b in resp.content if b.type == "text")
        calls = [{"id": b.id, "name": b.name, "arguments": json.dumps(b.input)} for b in resp.content
                 if b.type == "tool_use"]
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}} for c in calls]
        return AssistantTurn(message, calls, int(resp.usage.input_tokens), int(resp.usage.output_tokens),
                             resp.stop_reason)


def resolve_provider(model: str | None = None, base_url: str | None = None, api_key: str | None = None) -> Provider:
    """Pick and build a provider from arguments, then environment variables.

    Parameters
    ----------
    model, base_url, api_key : str, optional
        Explicit settings (the CLI's ``--model``, ``--base-url``, ``--api-key``).

    Returns
    -------
    Provider

    Raises
    ------
    ProviderNotConfiguredError
        When nothing is configured, when a base URL has no model, or when the needed client is not installed;
        the message is one line saying how to configure one.
    """
    env = os.environ
    model = model or env.get("BRICKWRIGHT_MODEL") or None
    base_url = base_url or env.get("BRICKWRIGHT_BASE_URL") or None
    key = api_key or env.get("BRICKWRIGHT_API_KEY") or None
    anthropic_key = env.get("ANTHROPIC_API_KEY") or None
    openai_key = key or env.get("OPENAI_API_KEY") or None
    is_claude = bool(model and model.split("/")[-1].lower().startswith("claude"))
    if base_url:
        if not model:
            raise ProviderNotConfiguredError(f"base URL {base_url} is set but no model: set BRICKWRIGHT_MODEL or --model")
        if is_claude and "anthropic.com" in base_url:
            return AnthropicProvider(model, base_url, key or anthropic_key)
        return OpenAIProvider(model, base_url, openai_key)
    if is_claude and (key or anthropic_key):
        return AnthropicProvider(model, None, key or anthropic_key)
    if openai_key and not is_claude:
        return OpenAIProvider(model or DEFAULT_OPENAI_MODEL, None, openai_key)
    if anthropic_key:
        return AnthropicProvider(model or DEFAULT_ANTHROPIC_MODEL, None, anthropic_key)
    raise ProviderNotConfiguredError()
