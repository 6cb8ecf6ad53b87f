"""What a model's tokens cost, for the cost budget: a table keyed by model name.

A role's own prices (``price_in_per_mtok``, ``price_out_per_mtok``) win; unset, the table
prices the role's model; a model served on this machine (a loopback endpoint) costs nothing
per token. Anything else has no price (``None``): its calls are counted at $0 and the night,
``doctor`` and the report say the cost is unknown. An unknown model never borrows another
model's price, which would make the cost budget quietly wrong.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Price:
    """USD per million input and per million output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


FREE = Price(0.0, 0.0)

# The providers' list prices (standard tier, no cached-input discount) as of late 2025, for
# the models the docs name. Set a role's prices when yours differ.
PRICES: dict[str, Price] = {
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "claude-sonnet-4-5": Price(3.00, 15.00),
    # the embedded models (extra 'local'): llama.cpp on this machine
    "qwen2.5-coder-1.5b": FREE,
    "qwen2.5-coder-0.5b": FREE,
}

# A dated snapshot is priced as its model: gpt-4o-mini-2024-07-18, claude-sonnet-4-5-20250929.
_DATED = re.compile(r"-\d{4}-?\d{2}-?\d{2}$")


def table_price(model: str | None) -> Price | None:
    """The table's price for ``model`` (or its dated snapshot); None when it has none."""
    if not model:
        return None
    name = model.strip().lower()
    return PRICES.get(name) or PRICES.get(_DATED.sub("", name))


def on_this_machine(base_url: str | None) -> bool:
    """An endpoint on a loopback address: the user's own server (Ollama, vLLM, llama.cpp)."""
    host = urlsplit(str(base_url)).hostname if base_url else None
    if host is None or host == "localhost":
        return host is not None
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: somewhere else
        return False


def role_price(
    model: str | None,
    base_url: str | None,
    price_in: float | None = None,
    price_out: float | None = None,
) -> Price | None:
    """A role's price: its own where set, the rest from the table (or free on this
    machine); None when something is still unknown."""
    if price_in is not None and price_out is not None:
        return Price(float(price_in), float(price_out))
    known = table_price(model) or (FREE if on_this_machine(base_url) else None)
    if known is None:
        return None
    return Price(
        known.input_per_mtok if price_in is None else float(price_in),
        known.output_per_mtok if price_out is None else float(price_out),
    )
