"""The semantic-collapse templates: topics (what a person does and how others judge it), the
forms opinions and questions take, the small talk around them, and the names.

The data lives in ``templates.json`` beside this module (validated on load); this module
holds its shape and the loaded constants.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pydantic import TypeAdapter


@dataclass(frozen=True)
class Topic:
    """A kind of thing a person does, and how others talk about it."""

    name: str
    record: str  # first person, past tense, "{x}" slot and "{time}" at the end
    thing: str  # what an opinion is about: "marathon running" (may use "{x}")
    question: str  # a record question naming the person: "Which race did {a} run?"
    options: tuple[str, ...]  # values of "{x}"
    positive: tuple[str, ...]
    negative: tuple[str, ...]


@dataclass(frozen=True)
class Templates:
    """Everything ``templates.json`` holds."""

    topics: tuple[Topic, ...]
    event_phrases: dict[str, str]  # how a third person names the event itself, per topic
    times: tuple[str, ...]
    opinion_forms: tuple[str, ...]
    positive_forms: tuple[str, ...]
    event_forms: tuple[str, ...]
    record_question_forms: tuple[str, ...]
    opinion_question_forms: tuple[str, ...]
    record_leads: tuple[str, ...]
    opinion_leads: tuple[str, ...]
    reactions: tuple[str, ...]
    gossip_reactions: tuple[str, ...]
    small_talk: tuple[str, ...]
    greetings: tuple[str, ...]
    goodbyes: tuple[str, ...]
    names: tuple[str, ...]
    surnames: tuple[str, ...]  # for corpora with more persons than names

    def __post_init__(self) -> None:
        missing = [t.name for t in self.topics if t.name not in self.event_phrases]
        if missing:
            raise ValueError(f"topics without an event phrase: {', '.join(missing)}")


def load_templates(text: str | None = None) -> Templates:
    """The templates from ``text`` (JSON), by default the packaged ``templates.json``."""
    if text is None:
        text = resources.files(__package__).joinpath("templates.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    data.pop("_comment", None)
    return TypeAdapter(Templates).validate_python(data, strict=False)


TEMPLATES = load_templates()
TOPICS: tuple[Topic, ...] = TEMPLATES.topics
EVENT_PHRASES: dict[str, str] = TEMPLATES.event_phrases
TIMES = TEMPLATES.times
OPINION_FORMS = TEMPLATES.opinion_forms
POSITIVE_FORMS = TEMPLATES.positive_forms
# Opinions that restate the event, with its time ("… Dana running the Berlin marathon last
# week was reckless"): the hardest case for flat retrieval.
EVENT_FORMS = TEMPLATES.event_forms
RECORD_QUESTION_FORMS = TEMPLATES.record_question_forms
OPINION_QUESTION_FORMS = TEMPLATES.opinion_question_forms
RECORD_LEADS = TEMPLATES.record_leads
OPINION_LEADS = TEMPLATES.opinion_leads
REACTIONS = TEMPLATES.reactions
GOSSIP_REACTIONS = TEMPLATES.gossip_reactions
SMALL_TALK = TEMPLATES.small_talk
GREETINGS = TEMPLATES.greetings
GOODBYES = TEMPLATES.goodbyes
NAMES = TEMPLATES.names
SURNAMES = TEMPLATES.surnames
