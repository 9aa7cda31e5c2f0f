"""The planted-facts templates: what a domain can plant and the filler around it.

The data lives in ``templates.json`` beside this module (validated on load); this module
holds its shape and the loaded constants.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from pydantic import TypeAdapter

FactType = Literal["KeyFact", "Decision", "Reminder", "Insight"]
FACT_TYPES: tuple[FactType, ...] = ("KeyFact", "Decision", "Reminder", "Insight")
Role = Literal["user", "assistant"]
SPEAKERS: dict[Role, str] = {"user": "User", "assistant": "Assistant"}


@dataclass(frozen=True)
class FactTemplate:
    """One plantable sentence (no sentence-ending punctuation inside) and the question a
    user would ask to get it back. Both may use ``{slot}`` fields of the domain."""

    type: FactType
    wording: str
    question: str
    role: Role = "user"


@dataclass(frozen=True)
class ChainTemplate:
    """Cause (KeyFact/Reminder) → Decision → an item the decision affected."""

    name: str
    cause: FactTemplate
    decision: FactTemplate
    effect: FactTemplate
    why: str
    why_keywords: tuple[str, ...]
    impact: str
    impact_keywords: tuple[str, ...]


@dataclass(frozen=True)
class Domain:
    name: str
    opener: tuple[str, ...]
    slots: dict[str, tuple[str | tuple[str, ...], ...]]  # a value, or a tuple for {slot[i]}
    singles: tuple[FactTemplate, ...]
    chains: tuple[ChainTemplate, ...]
    user_filler: tuple[str, ...]
    assistant_filler: tuple[str, ...]


@dataclass(frozen=True)
class Templates:
    """Everything ``templates.json`` holds."""

    domains: tuple[Domain, ...]
    user_leads: tuple[str, ...]
    user_tails: tuple[str, ...]
    assistant_leads: tuple[str, ...]
    assistant_tails: tuple[str, ...]
    generic_assistant: tuple[str, ...]
    farewells: tuple[str, ...]
    closers: tuple[str, ...]


def load_templates(text: str | None = None) -> Templates:
    """The templates from ``text`` (JSON), by default the packaged ``templates.json``."""
    if text is None:
        text = resources.files(__package__).joinpath("templates.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    data.pop("_comment", None)
    return TypeAdapter(Templates).validate_python(data, strict=False)


TEMPLATES = load_templates()
DOMAINS: tuple[Domain, ...] = TEMPLATES.domains
USER_LEADS = TEMPLATES.user_leads
USER_TAILS = TEMPLATES.user_tails
ASSISTANT_LEADS = TEMPLATES.assistant_leads
ASSISTANT_TAILS = TEMPLATES.assistant_tails
GENERIC_ASSISTANT = TEMPLATES.generic_assistant
FAREWELLS = TEMPLATES.farewells
CLOSERS = TEMPLATES.closers
