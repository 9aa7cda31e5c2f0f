"""The semantic-collapse probe (after CogMem), rebuilt for cogmem.

Matched pairs: a person's own record ("Dana: I ran the Berlin marathon last week.") and
another speaker's opinion about the same thing ("Eli: Honestly I think Dana's marathon
running is reckless."). The generator spreads the pairs over many small two-person
conversations arranged as chains of acquaintances: in conversation k, person P_k tells
P_{k+1} about their own week, and also passes on opinions about what P_{k-1} told them in
conversation k-1 (P_{k-1} is not in the room, so the opinion names them). Topics, verbs,
times, adjectives and sentiments vary, the listener reacts neutrally and mentions small
things of their own, and every name is unique to the corpus.

Reported:

1. the mean cosine similarity of the pairs under the configured embedder (the two
   sentences alone, and as the turns are indexed: ``"Speaker: text"``);
2. the misattribution rate. For each pair a record question ("What did Dana do last
   week?" or a topic question) and an opinion question ("What does Eli think of Dana's
   marathon running?"). Flat dense retrieval embeds every turn and returns the top-1 by
   cosine; cogmem answers ``Memory.search(q, k=1)``. A record question is misattributed
   when the top-1 is the paired opinion (for cogmem: evidence from the opinion turn, e.g.
   Eli's Claim), an opinion question when the top-1 is the paired record.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import numpy as np

from cogmem.bench.common import (
    Stopwatch,
    Written,
    bench_group,
    command_line,
    grouped_bars,
    machine_info,
    machine_line,
    markdown_table,
    mean,
    now_iso,
    pct,
    write_results,
)
from cogmem.config import Settings
from cogmem.models import Conversation, Evidence, Turn

RECORDS_PER_PERSON = 2
CHAIN_CONVERSATIONS = 6  # persons per chain = conversations + 1; pairs per chain = (n-1)*r


# ---------------------------------------------------------------------------------------
# Topics
# ---------------------------------------------------------------------------------------
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


def _t(
    name: str,
    record: str,
    thing: str,
    question: str,
    options: tuple[str, ...],
    positive: tuple[str, ...],
    negative: tuple[str, ...],
) -> Topic:
    return Topic(name, record, thing, question, options, positive, negative)


TOPICS: tuple[Topic, ...] = (
    _t("marathon", "I ran the {x} marathon {time}", "marathon running",
       "Which race did {a} run?", ("Berlin", "Chicago", "Vienna", "Lisbon", "Tokyo"),
       ("impressive", "inspiring"), ("reckless", "obsessive")),
    _t("tattoo", "I got a {x} tattoo on my forearm {time}", "new tattoo",
       "What tattoo did {a} get?", ("koi fish", "compass", "rose", "mountain"),
       ("beautiful", "really cool"), ("tacky", "a mistake")),
    _t("quit", "I quit my job at the {x} {time}", "decision to quit the {x}",
       "Where did {a} quit working?", ("bank", "law firm", "insurance company", "ad agency"),
       ("brave", "smart"), ("irresponsible", "rash")),
    _t("motorbike", "I bought a used {x} motorcycle {time}", "motorcycle",
       "What vehicle did {a} buy?", ("Ducati", "Honda", "Triumph", "Yamaha"),
       ("cool", "fun"), ("dangerous", "a waste of money")),
    _t("dinner", "I cooked a five-course {x} dinner for my neighbours {time}", "cooking",
       "What did {a} cook for the neighbours?", ("Thai", "Moroccan", "Italian", "Georgian"),
       ("amazing", "generous"), ("showy", "overrated")),
    _t("skydive", "I went skydiving over {x} {time}", "skydiving hobby",
       "Where did {a} go skydiving?", ("the coast", "the desert", "the lake district"),
       ("brave", "fearless"), ("reckless", "crazy")),
    _t("dog", "I adopted a {x} from the shelter {time}", "new dog",
       "What pet did {a} adopt?", ("greyhound", "beagle", "three-legged terrier", "old collie"),
       ("sweet", "adorable"), ("a big mistake", "too much to handle")),
    _t("podcast", "I launched a podcast about {x} {time}", "podcast",
       "What is {a}'s podcast about?", ("local history", "urban gardening", "film scores"),
       ("insightful", "fun"), ("boring", "self-indulgent")),
    _t("vegan", "I switched to a fully vegan diet {time}", "vegan diet",
       "What diet did {a} switch to?", ("",),
       ("admirable", "healthy"), ("extreme", "preachy")),
    _t("painting", "I sold my first {x} painting at a gallery {time}", "painting",
       "What did {a} sell at the gallery?", ("watercolour", "oil", "abstract"),
       ("talented", "gifted"), ("overpriced", "amateurish")),
    _t("house", "I put an offer on a house in {x} {time}", "house hunting",
       "Where is the house {a} made an offer on?", ("Riverside", "Old Town", "Hillcrest"),
       ("smart", "exciting"), ("rushed", "risky")),
    _t("openmic", "I played guitar at the open mic night at {x} {time}", "guitar playing",
       "Where did {a} play the open mic night?", ("the Blue Lantern", "Cafe Roma", "the Dock"),
       ("talented", "wonderful"), ("off-key", "embarrassing")),
    _t("climb", "I climbed {x} {time}", "mountain climbing",
       "Which mountain did {a} climb?", ("Mont Blanc", "Kilimanjaro", "Ben Nevis", "Mount Kenya"),
       ("impressive", "fearless"), ("dangerous", "reckless")),
    _t("invest", "I invested my savings in my cousin's {x} startup {time}",
       "startup investment", "What did {a} invest in?",
       ("coffee", "drone", "meal-kit", "language app"),
       ("bold", "smart"), ("naive", "foolish")),
    _t("shave", "I shaved my head for a {x} fundraiser {time}", "shaved head",
       "What fundraiser did {a} take part in?", ("cancer charity", "children's hospital"),
       ("brave", "generous"), ("odd", "attention-seeking")),
    _t("tomatoes", "I planted {x} tomato plants in my back garden {time}", "gardening",
       "What did {a} plant in the garden?", ("twelve", "thirty", "forty"),
       ("lovely", "relaxing"), ("obsessive", "pointless")),
    _t("novel", "I finished the first draft of my {x} novel {time}", "novel",
       "What did {a} finish writing?", ("crime", "fantasy", "science fiction"),
       ("impressive", "creative"), ("cliched", "boring")),
    _t("cycling", "I sold my car and started cycling to work {time}", "cycling to work",
       "How does {a} get to work now?", ("",),
       ("admirable", "healthy"), ("impractical", "silly")),
    _t("tournament", "I won the {x} tournament at the community centre {time}", "{x} playing",
       "Which tournament did {a} win?", ("chess", "table tennis", "darts"),
       ("brilliant", "talented"), ("too competitive", "obsessive")),
    _t("move", "I moved into a tiny flat in {x} {time}", "move to {x}",
       "Where did {a} move?", ("Glasgow", "Porto", "Leipzig", "Utrecht"),
       ("exciting", "brave"), ("impulsive", "a mistake")),
    _t("streaming", "I stayed up all night streaming {x} {time}", "gaming streams",
       "What did {a} stream all night?", ("a horror game", "a racing game", "retro games"),
       ("entertaining", "fun"), ("lazy", "unhealthy")),
    _t("language", "I signed up for an evening {x} course {time}", "{x} classes",
       "What course did {a} sign up for?", ("Japanese", "Arabic", "Portuguese", "Korean"),
       ("smart", "admirable"), ("pointless", "a waste of money")),
    _t("foodbank", "I volunteered at the {x} food bank {time}", "volunteering",
       "Where did {a} volunteer?", ("downtown", "harbour", "university"),
       ("generous", "kind"), ("performative", "just for show")),
    _t("wall", "I knocked down the wall between my kitchen and {x} {time}", "DIY renovation",
       "What did {a} knock down?", ("the living room", "the hallway", "the dining room"),
       ("impressive", "handy"), ("reckless", "sloppy")),
)  # fmt: skip

# How a third person names the event itself (opinions that restate what happened).
EVENT_PHRASES: dict[str, str] = {
    "marathon": "running the {x} marathon",
    "tattoo": "getting a {x} tattoo",
    "quit": "quitting the job at the {x}",
    "motorbike": "buying a used {x} motorcycle",
    "dinner": "cooking a five-course {x} dinner for the neighbours",
    "skydive": "going skydiving over {x}",
    "dog": "adopting a {x} from the shelter",
    "podcast": "launching a podcast about {x}",
    "vegan": "switching to a fully vegan diet",
    "painting": "selling a {x} painting at a gallery",
    "house": "putting an offer on a house in {x}",
    "openmic": "playing guitar at the open mic night at {x}",
    "climb": "climbing {x}",
    "invest": "investing savings in a cousin's {x} startup",
    "shave": "shaving off all that hair for a {x} fundraiser",
    "tomatoes": "planting {x} tomato plants",
    "novel": "finishing a {x} novel draft",
    "cycling": "selling the car to cycle to work",
    "tournament": "winning the {x} tournament",
    "move": "moving into a tiny flat in {x}",
    "streaming": "staying up all night streaming {x}",
    "language": "signing up for an evening {x} course",
    "foodbank": "volunteering at the {x} food bank",
    "wall": "knocking down the wall to {x}",
}

TIMES = (
    "last week",
    "yesterday",
    "on Saturday",
    "last month",
    "over the weekend",
    "two weeks ago",
    "a few days ago",
    "on Sunday morning",
)

OPINION_FORMS = (
    "Honestly I think {a}'s {thing} is {adj}",
    "I feel like {a}'s {thing} is a bit {adj}",
    "In my opinion {a}'s {thing} is {adj}",
    "I believe {a}'s {thing} is {adj}",
    "If you ask me, {a}'s {thing} is {adj}",
    "I have to say I think {a}'s {thing} is {adj}",
)
POSITIVE_FORMS = (
    "Honestly I think {a}'s {thing} is {adj}",
    "I really think {a}'s {thing} is {adj}",
    "In my opinion {a}'s {thing} is {adj}",
    "I believe {a}'s {thing} is {adj}",
    "If you ask me, {a}'s {thing} is {adj}",
)
# Opinions that restate the event, with its time ("… Dana running the Berlin marathon last
# week was reckless"): the hardest case for flat retrieval.
EVENT_FORMS = (
    "Honestly I think {a} {event} {time} was {adj}",
    "I really think {a} {event} was {adj}",
    "In my opinion {a} {event} {time} was {adj}",
    "If you ask me, {a} {event} was {adj}",
    "I feel like {a} {event} {time} was {adj}",
)
RECORD_QUESTION_FORMS = (
    "What did {a} do {time}?",
    "What did {a} get up to {time}?",
)
OPINION_QUESTION_FORMS = (
    "What does {b} think of {a}'s {thing}?",
    "How does {b} feel about {a}'s {thing}?",
    "What is {b}'s opinion of {a}'s {thing}?",
)
RECORD_LEADS = (
    "Guess what!",
    "Big news.",
    "So, an update from me.",
    "Oh, I forgot to tell you.",
    "",
)
OPINION_LEADS = (
    "Between us,",
    "Can I say something?",
    "Speaking of friends,",
    "By the way, about {a}.",
    "",
)
REACTIONS = (
    "Oh wow, how did that go?",
    "No way! Tell me more.",
    "How long did that take?",
    "That sounds like a lot.",
    "Really? I had no idea.",
    "Wait, when was this exactly?",
    "Huh, what made you do that?",
    "Okay, and how are you feeling about it?",
)
GOSSIP_REACTIONS = (
    "Hmm, I hadn't thought about it like that.",
    "Oh really? I didn't know that.",
    "Interesting, I'll ask them about it.",
    "Fair enough.",
    "I see what you mean.",
)
SMALL_TALK = (
    "Not much here, work has been busy and I've mostly been cooking at home.",
    "I spent most of the week fixing my bike and catching up on sleep.",
    "Pretty quiet week, I finally cleaned out the garage.",
    "I've been reading a lot lately, mostly old detective stories.",
    "Busy as usual, my sister visited and we went to the market together.",
    "Same old, I started going to the pool in the mornings.",
)
GREETINGS = (
    "Hey {b}! How's your week going?",
    "Hi {b}, long time no see. What's new?",
    "Morning {b}! Got a minute to catch up?",
)
GOODBYES = (
    "Anyway, I have to run. Talk soon!",
    "Okay, I should get going. See you next week!",
    "Let's catch up again soon.",
)

NAMES = tuple(
    """
    Dana Eli Fay Gus Hana Ivo Jade Kai Lior Mira Nico Omar Pia Quinn Rafa Sana Tess Umar Vera
    Wes Xena Yara Zane Abel Bea Cole Dina Emil Flora Gideon Hugo Isla Jonah Kira Luca Maya
    Nadia Otto Petra Rhea Silas Tara Uri Vince Willa Yusuf Zora Alma Boris Cleo Darius Elsa
    Farah Gwen Hector Iris Jasper Kamal Lena Milo Nora Orson Paloma Ravi Selma Theo Ulla
    Viggo Wren Ximena Yosef Zelda Anouk Bruno Celine Dmitri Esme Felix Greta Hamza Ilse Joel
    Katya Leon Magnus Nell Oona Pascal Renata Soren Talia Ugo Valentin Winona Yannick Zofia
    Arlo Brigid Cyrus Delphine Ezra Fiona Gael Hazel Idris Juno Kofi Lotte Marek Nina Odile
    Pavel Rosalind Stellan Tamsin Ulric Vivian Wolfgang Yvette Ada Benedikt Carmen Dorian
    Elif Florian Gemma Henrik Ines Jarek Kerstin Lorcan Malin Nilo Olga Piet Ramona Sigrid
    Tobias Ursula Vaclav Wilma Aurelio Birgit Casimir Dagny Evander Frida Gunnar Helga
    """.split()
)


# ---------------------------------------------------------------------------------------
# Generated corpus
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pair:
    id: str
    topic: str
    owner: str  # whose record it is (A)
    holder: str  # who holds the opinion (B)
    record: str  # the record sentence, verbatim in its turn
    opinion: str  # the opinion sentence, verbatim in its turn
    sentiment: Literal["positive", "negative"]
    record_turn: str  # source id of the turn, unique in the corpus
    opinion_turn: str
    record_question: str
    record_question_kind: Literal["time", "topic"]
    opinion_question: str
    opinion_form: Literal["thing", "event"] = "thing"


@dataclass(frozen=True)
class ProbeTurn:
    source_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class ProbeConversation:
    id: str
    speakers: tuple[str, str]
    turns: tuple[ProbeTurn, ...]
    start: datetime

    def to_conversation(self) -> Conversation:
        return Conversation(
            id=self.id,
            speakers=list(self.speakers),
            turns=[
                Turn(
                    conversation=self.id,
                    session="1",
                    session_index=1,
                    index=i,
                    source_id=t.source_id,
                    speaker=t.speaker,
                    text=t.text,
                    at=self.start + timedelta(minutes=3 * i),
                )
                for i, t in enumerate(self.turns)
            ],
            source_format="bench-collapse",
        )


@dataclass(frozen=True)
class Corpus:
    seed: int
    conversations: tuple[ProbeConversation, ...]
    pairs: tuple[Pair, ...]

    def turns(self) -> list[ProbeTurn]:
        return [t for c in self.conversations for t in c.turns]


def _names(count: int, rng: random.Random) -> list[str]:
    pool = list(NAMES)
    rng.shuffle(pool)
    if count <= len(pool):
        return pool[:count]
    surnames = ("Okoro", "Lind", "Haas", "Moreau", "Sato", "Quispe", "Novak", "Reyes")
    out = list(pool)
    for extra in range(count - len(pool)):
        out.append(f"{pool[extra % len(pool)]} {surnames[(extra // len(pool)) % len(surnames)]}")
    return out


@dataclass
class _Plan:
    """What one person tells in their conversation: own records and opinions to pass on."""

    records: list[tuple[Topic, str, str]] = field(default_factory=list)  # topic, x, time
    record_ids: list[str] = field(default_factory=list)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def generate_corpus(pairs: int = 150, seed: int = 0) -> Corpus:
    """At least ``pairs`` matched pairs (exactly ``pairs`` are kept), seeded."""
    if pairs < 1:
        raise ValueError("pairs must be >= 1")
    rng = random.Random(f"cogmem-collapse:{seed}")
    per_chain = (CHAIN_CONVERSATIONS - 1) * RECORDS_PER_PERSON
    chains = -(-pairs // per_chain)
    names = _names(chains * (CHAIN_CONVERSATIONS + 1), rng)
    conversations: list[ProbeConversation] = []
    out_pairs: list[Pair] = []
    start = datetime(2024, 5, 6, 18, 0, tzinfo=UTC)
    for c in range(chains):
        people = names[c * (CHAIN_CONVERSATIONS + 1) : (c + 1) * (CHAIN_CONVERSATIONS + 1)]
        previous: list[tuple[Topic, str, str, str]] = []  # what P_{k-1} told: topic, x, time, id
        for k in range(CHAIN_CONVERSATIONS):
            teller, listener = people[k], people[k + 1]
            absent = people[k - 1] if k > 0 else None
            cid = f"collapse-s{seed}-c{c:02d}-k{k}"
            topics = rng.sample(TOPICS, RECORDS_PER_PERSON)
            times = rng.sample(TIMES, RECORDS_PER_PERSON)
            own = [(t, rng.choice(t.options), when) for t, when in zip(topics, times, strict=True)]
            # the beats of the conversation, shuffled a little: own records and opinions
            beats: list[tuple[str, Any]] = [("record", r) for r in own]
            beats += [("opinion", p) for p in previous]
            rng.shuffle(beats)
            beats.insert(rng.randint(0, len(beats)), ("small-talk", None))
            turns: list[ProbeTurn] = []

            def add(speaker: str, text: str, cid: str = cid, turns: list[ProbeTurn] = turns) -> str:
                sid = f"{cid}:T{len(turns) + 1}"
                turns.append(ProbeTurn(sid, speaker, text))
                return sid

            add(teller, rng.choice(GREETINGS).format(b=listener))
            add(listener, rng.choice(SMALL_TALK))
            told: list[tuple[Topic, str, str, str]] = []
            for kind, item in beats:
                if kind == "record":
                    topic, x, when = item
                    sentence = _cap(topic.record.format(x=x, time=when))
                    lead = rng.choice(RECORD_LEADS)
                    sid = add(teller, f"{lead} {sentence}.".strip())
                    told.append((topic, x, when, sid))
                    add(listener, rng.choice(REACTIONS))
                elif kind == "opinion":
                    assert absent is not None
                    topic, x, when, record_sid = item
                    sentiment: Literal["positive", "negative"] = rng.choice(
                        ("positive", "negative")
                    )
                    adj = rng.choice(topic.positive if sentiment == "positive" else topic.negative)
                    thing = topic.thing.format(x=x)
                    restates = rng.random() < 0.5
                    if restates:
                        opinion = rng.choice(EVENT_FORMS).format(
                            a=absent,
                            event=EVENT_PHRASES[topic.name].format(x=x),
                            time=when,
                            adj=adj,
                        )
                    else:
                        forms = POSITIVE_FORMS if sentiment == "positive" else OPINION_FORMS
                        opinion = rng.choice(forms).format(a=absent, thing=thing, adj=adj)
                    lead = rng.choice(OPINION_LEADS).format(a=absent)
                    if lead.endswith(",") and not opinion.startswith("I "):
                        opinion = opinion[:1].lower() + opinion[1:]
                    sid = add(teller, f"{lead} {opinion}.".strip())
                    record_sentence = _cap(topic.record.format(x=x, time=when))
                    use_time = rng.random() < 0.5
                    record_q = (
                        rng.choice(RECORD_QUESTION_FORMS).format(a=absent, time=when)
                        if use_time
                        else topic.question.format(a=absent)
                    )
                    out_pairs.append(
                        Pair(
                            id=f"pair-{len(out_pairs) + 1:03d}",
                            topic=topic.name,
                            owner=absent,
                            holder=teller,
                            record=record_sentence,
                            opinion=opinion,
                            sentiment=sentiment,
                            record_turn=record_sid,
                            opinion_turn=sid,
                            record_question=record_q,
                            record_question_kind="time" if use_time else "topic",
                            opinion_question=rng.choice(OPINION_QUESTION_FORMS).format(
                                b=teller, a=absent, thing=thing
                            ),
                            opinion_form="event" if restates else "thing",
                        )
                    )
                    add(listener, rng.choice(GOSSIP_REACTIONS))
                else:
                    add(teller, "Anyway, enough about everyone else. How's your family?")
                    add(listener, rng.choice(SMALL_TALK))
            add(teller, rng.choice(GOODBYES))
            conversations.append(
                ProbeConversation(
                    id=cid,
                    speakers=(teller, listener),
                    turns=tuple(turns),
                    start=start + timedelta(days=7 * c + k),
                )
            )
            previous = told
    return Corpus(seed=seed, conversations=tuple(conversations), pairs=tuple(out_pairs[:pairs]))


# ---------------------------------------------------------------------------------------
# Flat dense retrieval
# ---------------------------------------------------------------------------------------
def turn_text(turn: ProbeTurn, speaker: bool = True) -> str:
    """The text a turn is indexed under: ``"Speaker: text"`` (as cogmem embeds turns) or
    the utterance alone."""
    return f"{turn.speaker}: {turn.text}" if speaker else turn.text


class FlatIndex:
    """Every turn embedded (with or without its speaker); top-1 by cosine."""

    def __init__(self, turns: Sequence[ProbeTurn], embedder: Any, speaker: bool = True) -> None:
        self.ids = [t.source_id for t in turns]
        self.embedder = embedder
        self.vectors = np.asarray(
            embedder.embed([turn_text(t, speaker) for t in turns]), dtype=np.float32
        )

    def top1(self, question: str, qvec: np.ndarray | None = None) -> str:
        q = self.embedder.embed_query(question) if qvec is None else qvec
        return self.ids[int(np.argmax(self.vectors @ np.asarray(q, dtype=np.float32)))]


def pair_cosines(pairs: Sequence[Pair], embedder: Any, corpus: Corpus) -> dict[str, list[float]]:
    """Cosine of each pair: the two sentences alone, and the two turns as indexed."""
    by_id = {t.source_id: t for t in corpus.turns()}
    sentences = embedder.embed([s for p in pairs for s in (p.record + ".", p.opinion + ".")])
    indexed = embedder.embed(
        [turn_text(by_id[sid]) for p in pairs for sid in (p.record_turn, p.opinion_turn)]
    )
    plain = [float(np.dot(sentences[2 * i], sentences[2 * i + 1])) for i in range(len(pairs))]
    turns = [float(np.dot(indexed[2 * i], indexed[2 * i + 1])) for i in range(len(pairs))]
    return {"sentences": plain, "turns": turns}


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------
Outcome = Literal["correct", "misattributed", "other", "none"]
Asked = Literal["record", "opinion"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "misattributed", "other", "none")


def judge_flat(pair: Pair, asked: Asked, top: str | None) -> Outcome:
    if top is None:
        return "none"
    want, swap = (
        (pair.record_turn, pair.opinion_turn)
        if asked == "record"
        else (pair.opinion_turn, pair.record_turn)
    )
    if top == want:
        return "correct"
    if top == swap:
        return "misattributed"
    return "other"


def judge_cogmem(pair: Pair, asked: Asked, ev: Evidence | None) -> Outcome:
    """cogmem's top evidence. Record question: it must be the owner's own turn and not a
    Claim (the holder's Claim, or anything from the opinion turn, is a misattribution);
    opinion question: the holder's opinion turn (the owner's record turn is a
    misattribution)."""
    if ev is None:
        return "none"
    sid = ev.turn_source_id
    if asked == "record":
        if sid == pair.opinion_turn or (ev.type == "Claim" and ev.speaker == pair.holder):
            return "misattributed"
        if sid == pair.record_turn and ev.speaker == pair.owner and ev.type != "Claim":
            return "correct"
        return "other"
    if sid == pair.record_turn:
        return "misattributed"
    if sid == pair.opinion_turn and ev.speaker == pair.holder:
        return "correct"
    return "other"


def rates(outcomes: Sequence[Outcome]) -> dict[str, float]:
    n = len(outcomes) or 1
    return {k: sum(1 for o in outcomes if o == k) / n for k in OUTCOMES}


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
SYSTEMS: dict[str, str] = {
    "flat-text": "flat dense over utterances (top-1 turn by cosine)",
    "flat-speaker": "flat dense over `Speaker: text` (top-1 turn by cosine)",
    "cogmem": "cogmem `Memory.search(q, k=1)`",
}


@dataclass
class CollapseResult:
    data: dict[str, Any]
    markdown: str
    written: Written | None = None


@dataclass
class _Tally:
    """Outcomes per system, split by what was asked and by the pair's forms."""

    outcomes: dict[str, list[tuple[Pair, Asked, Outcome]]] = field(
        default_factory=lambda: {name: [] for name in SYSTEMS}
    )

    def add(self, system: str, pair: Pair, asked: Asked, outcome: Outcome) -> None:
        self.outcomes[system].append((pair, asked, outcome))

    def select(
        self, system: str, keep: Callable[[Pair, Asked], bool] = lambda _p, _a: True
    ) -> list[Outcome]:
        return [o for p, a, o in self.outcomes[system] if keep(p, a)]


def run_collapse(
    settings: Settings,
    pairs: int = 150,
    seed: int = 0,
    out_dir: Path | None = None,
    store: Any | None = None,
    progress: Callable[[str], None] | None = None,
    argv: Sequence[str] | None = None,
) -> CollapseResult:
    """Generate the probe, ingest it into one throwaway group, ask every question of every
    system, write ``collapse.md/.json/.png`` to ``out_dir`` (unless None)."""
    from cogmem.api import Memory

    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    corpus = generate_corpus(pairs, seed)
    base = Memory(settings, store=store)
    embedder = base.embedder
    watch = Stopwatch()
    cos = watch.time("pair cosines", lambda: pair_cosines(corpus.pairs, embedder, corpus))
    flats = {
        "flat-text": watch.time(
            "flat index", lambda: FlatIndex(corpus.turns(), embedder, speaker=False)
        ),
        "flat-speaker": watch.time(
            "flat index", lambda: FlatIndex(corpus.turns(), embedder, speaker=True)
        ),
    }
    mem = base.for_group(bench_group("collapse"))
    tally = _Tally()
    per_pair: list[dict[str, Any]] = []
    try:
        say(f"ingesting {len(corpus.conversations)} conversations into {mem.group}")
        summary = watch.time(
            "cogmem ingest",
            lambda: mem.ingest_conversations([c.to_conversation() for c in corpus.conversations]),
        )
        say(f"ingested {summary.turns} turns in {summary.seconds:.1f}s; asking questions")
        for i, pair in enumerate(corpus.pairs, 1):
            row: dict[str, Any] = {"pair": pair.id}
            asks: tuple[tuple[Asked, str], ...] = (
                ("record", pair.record_question),
                ("opinion", pair.opinion_question),
            )
            for asked, question in asks:
                qvec = embedder.embed_query(question)
                entry: dict[str, Any] = {"question": question}
                for name, index in flats.items():
                    top = watch.time("flat query", lambda q=question, v=qvec, x=index: x.top1(q, v))
                    outcome = judge_flat(pair, asked, top)
                    tally.add(name, pair, asked, outcome)
                    entry[name] = {"top": top, "outcome": outcome}
                hits = watch.time("cogmem search", lambda q=question: mem.search(q, k=1))
                ev = hits[0] if hits else None
                outcome = judge_cogmem(pair, asked, ev)
                tally.add("cogmem", pair, asked, outcome)
                entry["cogmem"] = {
                    "top": None
                    if ev is None
                    else {"turn": ev.turn_source_id, "type": ev.type, "speaker": ev.speaker},
                    "outcome": outcome,
                }
                row[asked] = entry
            per_pair.append(row)
            if i % 25 == 0:
                say(f"[{i}/{len(corpus.pairs)}] pairs asked")
    finally:
        mem.forget()
    data = _summarise(settings, base, corpus, cos, tally, per_pair, watch, started, argv)
    data["groups"] = [mem.group]
    markdown = render_markdown(data)
    written = None
    if out_dir is not None:
        written = write_results(
            out_dir, "collapse", markdown, data, chart=lambda plt, p: _chart(plt, p, data, cos)
        )
    if store is None:
        base.close()
    return CollapseResult(data=data, markdown=markdown, written=written)


def _system_summary(tally: _Tally, name: str) -> dict[str, Any]:
    everything = tally.select(name)
    record = tally.select(name, lambda _p, a: a == "record")
    opinion = tally.select(name, lambda _p, a: a == "opinion")
    return {
        "misattribution": rates(everything)["misattributed"],
        "record_to_opinion": rates(record)["misattributed"],
        "opinion_to_record": rates(opinion)["misattributed"],
        "correct": rates(everything)["correct"],
        "record_correct": rates(record)["correct"],
        "opinion_correct": rates(opinion)["correct"],
        "other": rates(everything)["other"] + rates(everything)["none"],
        "misattributed_questions": sum(1 for o in everything if o == "misattributed"),
        "record_questions_misattributed": sum(1 for o in record if o == "misattributed"),
        "questions": len(everything),
        "record_questions": len(record),
    }


def _summarise(
    settings: Settings,
    base: Any,
    corpus: Corpus,
    cos: dict[str, list[float]],
    tally: _Tally,
    per_pair: list[dict[str, Any]],
    watch: Stopwatch,
    started: float,
    argv: Sequence[str] | None,
) -> dict[str, Any]:
    systems = {name: _system_summary(tally, name) for name in SYSTEMS}
    cog = systems["cogmem"]["misattribution"]
    ratios = {
        name: (systems[name]["misattribution"] / cog if cog > 0 else None)
        for name in SYSTEMS
        if name != "cogmem"
    }
    splits: dict[str, dict[str, Any]] = {}
    for label, keep in (
        (
            "record question: 'What did X do <when>?'",
            lambda p, a: a == "record" and p.record_question_kind == "time",
        ),
        (
            "record question: topic",
            lambda p, a: a == "record" and p.record_question_kind == "topic",
        ),
        (
            "record question, opinion restates the event",
            lambda p, a: a == "record" and p.opinion_form == "event",
        ),
        (
            "record question, opinion names only the thing",
            lambda p, a: a == "record" and p.opinion_form == "thing",
        ),
        (
            "opinion question, positive opinion",
            lambda p, a: a == "opinion" and p.sentiment == "positive",
        ),
        (
            "opinion question, negative opinion",
            lambda p, a: a == "opinion" and p.sentiment == "negative",
        ),
    ):
        selected = {name: tally.select(name, keep) for name in SYSTEMS}
        splits[label] = {"questions": len(selected["cogmem"])} | {
            name: rates(v)["misattributed"] for name, v in selected.items()
        }
    info = machine_info(base.store, base.embedder.name, settings.neo4j_uri)
    return {
        "benchmark": "collapse",
        "when": now_iso(),
        "command": command_line(argv),
        "machine": info,
        "machine_line": machine_line(info),
        "parameters": {
            "pairs": len(corpus.pairs),
            "seed": corpus.seed,
            "conversations": len(corpus.conversations),
            "turns": len(corpus.turns()),
            "persons": len({s for c in corpus.conversations for s in c.speakers}),
            "topics": len({p.topic for p in corpus.pairs}),
            "extractor": base.extractor.name,
            "llm": settings.llm,
            "embed_threads": settings.embed_threads,
        },
        "cosine": {
            "mean_sentences": mean(cos["sentences"]),
            "mean_turns": mean(cos["turns"]),
            "min_sentences": min(cos["sentences"], default=0.0),
            "max_sentences": max(cos["sentences"], default=0.0),
            "mean_sentences_event_form": mean(
                c
                for c, p in zip(cos["sentences"], corpus.pairs, strict=True)
                if p.opinion_form == "event"
            ),
            "mean_sentences_thing_form": mean(
                c
                for c, p in zip(cos["sentences"], corpus.pairs, strict=True)
                if p.opinion_form == "thing"
            ),
        },
        "systems": SYSTEMS,
        "results": systems,
        "ratio_over_cogmem": ratios,
        "splits": splits,
        "sentiment_split": {
            s: sum(1 for p in corpus.pairs if p.sentiment == s) for s in ("positive", "negative")
        },
        "timing": {**watch.summary(), "total_s": round(time.perf_counter() - started, 1)},
        "examples": [
            {
                "record": f"{p.owner}: {p.record}.",
                "opinion": f"{p.holder}: {_cap(p.opinion)}.",
                "record_question": p.record_question,
                "opinion_question": p.opinion_question,
            }
            for p in corpus.pairs[:6]
        ],
        "per_pair": per_pair,
    }


def render_markdown(data: dict[str, Any]) -> str:
    p = data["parameters"]
    res = data["results"]
    c = data["cosine"]
    lines = [
        "# Semantic-collapse probe (after CogMem)",
        "",
        f"- command: `{data['command']}`",
        f"- machine: {data['machine_line']}",
        f"- when: {data['when']}; total {data['timing']['total_s']} s",
        f"- {p['pairs']} matched pairs (seed {p['seed']}) over {p['conversations']} two-person "
        f"conversations ({p['turns']} turns, {p['persons']} people, {p['topics']} topics); "
        f"sentiment {data['sentiment_split']}; cogmem extractor `{p['extractor']}`, "
        f"LLM `{p['llm']}`",
        "",
        "## Pair similarity",
        "",
        markdown_table(
            ["embedding of", "mean cosine", "min", "max"],
            [
                [
                    "record sentence vs opinion sentence",
                    f"{c['mean_sentences']:.4f}",
                    f"{c['min_sentences']:.3f}",
                    f"{c['max_sentences']:.3f}",
                ],
                ["… opinion restates the event", f"{c['mean_sentences_event_form']:.4f}", "", ""],
                ["… opinion names only the thing", f"{c['mean_sentences_thing_form']:.4f}", "", ""],
                ["the two turns as indexed (`Speaker: text`)", f"{c['mean_turns']:.4f}", "", ""],
            ],
        ),
        "",
        "## Misattribution (top-1)",
        "",
    ]
    rows = []
    for name, label in data["systems"].items():
        r = res[name]
        ratio = data["ratio_over_cogmem"].get(name)
        rows.append(
            [
                label,
                f"{pct(r['misattribution'])} ({r['misattributed_questions']}/{r['questions']})",
                f"{pct(r['record_to_opinion'])} ({r['record_questions_misattributed']}/"
                f"{r['record_questions']})",
                pct(r["opinion_to_record"]),
                f"{pct(r['record_correct'])} / {pct(r['opinion_correct'])}",
                pct(r["other"]),
                "—" if name == "cogmem" else ("∞" if ratio is None else f"{ratio:.2f}×"),
            ]
        )
    lines.append(
        markdown_table(
            [
                "system",
                "misattribution (all questions)",
                "record asked → opinion returned",
                "opinion asked → record returned",
                "top-1 correct (record / opinion)",
                "other turn",
                "misattribution ÷ cogmem's",
            ],
            rows,
        )
    )
    lines += [
        "",
        "### Misattribution by question and pair form",
        "",
        markdown_table(
            ["subset", "questions", *data["systems"]],
            [
                [label, v["questions"], *[pct(v[name]) for name in data["systems"]]]
                for label, v in data["splits"].items()
            ],
        ),
        "",
        "## Timing",
        "",
        markdown_table(
            ["phase", "calls", "total s", "mean ms", "p50 ms", "p95 ms"],
            [
                [phase, v["calls"], v["total_s"], v["mean_ms"], v["p50_ms"], v["p95_ms"]]
                for phase, v in data["timing"].items()
                if isinstance(v, dict)
            ],
        ),
        "",
        "## Examples",
        "",
    ]
    for ex in data["examples"][:4]:
        lines += [
            f"- record “{ex['record']}” — opinion “{ex['opinion']}”",
            f"  - asked “{ex['record_question']}” and “{ex['opinion_question']}”",
        ]
    lines += [
        "",
        "Scoring: a record question is misattributed when the top-1 is the paired opinion "
        "(for cogmem: evidence from the opinion turn, or a Claim by the opinion's holder); an "
        "opinion question when the top-1 is the paired record. 'Other turn' is any other "
        "result (neither of the pair, or nothing). Every pair's outcome is in "
        "`collapse.json` → `per_pair`.",
    ]
    return "\n".join(lines)


def _chart(plt: Any, path: Path, data: dict[str, Any], cos: dict[str, list[float]]) -> None:
    res = data["results"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    metrics = [
        ("misattribution", "misattributed\n(all)"),
        ("record_to_opinion", "record asked →\nopinion"),
        ("opinion_to_record", "opinion asked →\nrecord"),
        ("correct", "top-1 correct"),
    ]
    grouped_bars(
        ax1,
        [label for _, label in metrics],
        {name: [res[name][m] for m, _ in metrics] for name in data["systems"]},
        ylabel="% of questions",
        title="Semantic collapse: who said what",
    )
    ax2.hist(cos["sentences"], bins=20, alpha=0.7, label="sentences")
    ax2.hist(cos["turns"], bins=20, alpha=0.7, label="turns as indexed")
    ax2.axvline(data["cosine"]["mean_sentences"], color="k", linestyle="--", linewidth=1)
    ax2.set_xlabel("cosine(record, opinion)")
    ax2.set_ylabel("pairs")
    ax2.set_title(f"Pair similarity (mean {data['cosine']['mean_sentences']:.3f})")
    ax2.legend(fontsize=8)
    fig.suptitle(data["machine_line"], fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
