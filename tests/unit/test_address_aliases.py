"""Aliases learned from how two people address each other, and from a speaker's own name.

Display names in a messaging app are often handles ("Bluejay", "Orca") while the chat calls
people by their names. The discovery pass before extraction counts the names a speaker
calls the listener by; in a chat of two, a name one side uses twice or more (and the other
never) is the listener's. "My name is Tom" / "call me Tom" names the speaker.
"""

from __future__ import annotations

from cogmem.ingest.ingestor import discover_persons
from cogmem.models import Conversation
from tests.chats import conversation


def chat(*lines: tuple[str, str]) -> Conversation:
    return conversation(lines)


def aliases(conv: Conversation) -> dict[str, str]:
    return dict(discover_persons([conv]).aliases)


def test_a_name_one_speaker_calls_the_other_twice_is_the_others() -> None:
    conv = chat(
        ("Bluejay", "Hey Sarah! Did you survive the night shift?"),
        ("Orca", "Barely. haha thanks Tom!"),
        ("Bluejay", "You'll crush it, Sarah!"),
        ("Orca", "Thanks Tom, see you Sunday."),
    )
    assert aliases(conv) == {"sarah": "Orca", "tom": "Bluejay"}


def test_once_is_not_enough_and_a_name_that_goes_on_is_spoken_of() -> None:
    conv = chat(
        ("Bluejay", "Hey Sarah! How are you?"),  # once: a greeting may name someone else
        ("Orca", "Yeah Dev mentioned it. Yeah Dev said so. Hi Dev how is it going"),
        ("Bluejay", "ok"),
    )
    assert aliases(conv) == {}


def test_a_name_both_speakers_call_is_a_third_persons() -> None:
    conv = chat(
        ("Bluejay", "Hey Sam! Hi Sam!"),
        ("Orca", "Thanks Sam! Bye Sam!"),
    )
    assert aliases(conv) == {}


def test_addresses_in_a_group_chat_name_nobody() -> None:
    conv = chat(
        ("Bluejay", "Hey Sarah! Thanks Sarah!"),
        ("Orca", "Hi"),
        ("Kestrel", "Hello all"),
    )
    assert aliases(conv) == {}


def test_a_speaker_who_gives_their_name_is_called_by_it() -> None:
    conv = chat(
        ("Bluejay", "Hi! My name is Tom, Bluejay is just my handle."),
        ("Orca", "Nice to meet you, call me Sarah. Sounds good."),
    )
    assert aliases(conv) == {"tom": "Bluejay", "sarah": "Orca"}
