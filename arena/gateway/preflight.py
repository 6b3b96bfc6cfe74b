"""A provider preflight before any clock starts (issue 21).

``check_provider(provider, env)`` makes one cheap call (``GET {OPENAI_BASE_URL}/models``,
``GET {ANTHROPIC_BASE_URL}/v1/models``) with the host's key and says what is wrong in
terms of the variables to fix: a missing key, a key the provider refuses, a base URL that
does not answer. ``preflight(agents, env)`` checks every provider the agents' models use
(each once) and refuses, with a ``UsageError`` (exit 2) naming the variable, before an
attempt is stored; so is a cost limit on a model with no price. ``gauntlet doctor``
prints the same checks.
"""

from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from arena.errors import UsageError

DEFAULT_BASE = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
TIMEOUT_S = 8.0


@dataclass(frozen=True)
class ProviderCheck:
    provider: str
    ok: bool
    detail: str
    variable: str = ""  # the environment variable to fix, when not ok
    configured: bool = True  # a key or a base URL is set


def _vars(provider: str) -> tuple[str, str]:
    p = provider.upper()
    return f"{p}_BASE_URL", f"{p}_API_KEY"


def models_url(provider: str, env: Mapping[str, str]) -> tuple[str, str, bool]:
    """``(url, base, base_was_set)`` of the provider's model list."""
    base_var, _ = _vars(provider)
    given = (env.get(base_var) or "").strip()
    base = (given or DEFAULT_BASE[provider]).rstrip("/")
    return (base + "/models" if provider == "openai" else base + "/v1/models"), base, bool(given)


def check_provider(provider: str, env: Mapping[str, str] = os.environ, timeout: float = TIMEOUT_S) -> ProviderCheck:
    base_var, key_var = _vars(provider)
    url, base, base_set = models_url(provider, env)
    key = (env.get(key_var) or "").strip()
    where = f"{base_var}={base}" if base_set else f"{base} ({base_var} is not set: the default)"
    if not key:
        return ProviderCheck(
            provider,
            False,
            f"{key_var} is not set: {provider}/... models are called with the host's key "
            f"(export {key_var}=...; {base_var} names an OpenAI-compatible server)"
            if provider == "openai"
            else f"{key_var} is not set: {provider}/... models are called with the host's key (export {key_var}=...)",
            key_var,
            configured=base_set,
        )
    headers = {"Authorization": f"Bearer {key}"} if provider == "openai" else {"x-api-key": key}
    if provider == "anthropic":
        headers["anthropic-version"] = "2023-06-01"
    req = urllib.request.Request(url, headers=headers, method="GET")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, body = r.status, r.read(200_000)
    except urllib.error.HTTPError as exc:
        status, body = exc.code, b""
    except (urllib.error.URLError, socket.timeout, TimeoutError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return ProviderCheck(
            provider, False, f"{where} does not answer ({type(reason).__name__}: {reason}): fix {base_var}", base_var
        )
    if status in (401, 403):
        return ProviderCheck(provider, False, f"{where} refused {key_var} (HTTP {status}): check {key_var}", key_var)
    if status == 404:  # some OpenAI-compatible servers have no model list: reachable all the same
        return ProviderCheck(provider, True, f"{where} answers (no model list: the key is not verified)")
    if status >= 400:
        return ProviderCheck(
            provider, False, f"{where} answered HTTP {status} to GET {url}: check {base_var}", base_var
        )
    return ProviderCheck(provider, True, f"{where} answers; {_count(body)} with {key_var}")


def _count(body: bytes) -> str:
    try:
        data: Any = json.loads(body)
        n = len(data.get("data") or [])
    except (ValueError, AttributeError, TypeError):
        return "the key is accepted"
    return f"{n} model(s) listed"


def _model_of(agent: object) -> tuple[str | None, object]:
    f = getattr(agent, "file", None)
    model = getattr(agent, "model", None) or (getattr(f, "model", None) if f is not None else None)
    return model, getattr(agent, "limits", None)


def preflight(agents: Iterable[object], env: Mapping[str, str] = os.environ) -> list[ProviderCheck]:
    """Check every provider the agents' models use; a ``UsageError`` for the first
    problem (a missing/refused key, an unreachable base URL, an unpriced cost limit)."""
    from arena.gateway.prices import PriceTable  # noqa: PLC0415

    providers: dict[str, str] = {}
    prices: PriceTable | None = None
    for agent in agents:
        model, limits = _model_of(agent)
        if not model:
            continue
        provider = model.partition("/")[0]
        providers.setdefault(provider, model)
        if getattr(limits, "cost_usd", None) is not None:
            prices = prices or PriceTable.load(env)
            if prices.get(model) is None:
                raise UsageError(
                    f"agent {getattr(agent, 'spec', '?')}: limits.cost_usd: model {model} has no price, so "
                    "its cost cannot be limited; add it to a prices file (GAUNTLET_PRICES) or drop the cost limit"
                )
    out = []
    for provider, model in providers.items():
        c = check_provider(provider, env)
        if not c.ok:
            raise UsageError(f"model {model}: the provider check failed before the attempt: {c.detail}")
        out.append(c)
    return out
