"""The offline, deterministic extractor: rules over sentences, no model.

Each sentence of a turn is classified by patterns (an artifact marker, an opinion, a
first-person fact or preference, a past or planned event); persons and concepts come from
names, relations ("my sister") and noun phrases. Every record quotes an exact span of the
turn. A turn that matches nothing still yields a low-confidence KeyFact quoting its longest
sentence, so nothing said is unreachable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cogmem.extract.base import ExtractionContext
from cogmem.extract.lexicon import (
    ACTIVITIES,
    DISLIKE_VERBS,
    LIKE_VERBS,
    NOT_NAMES,
    PAST_IRREGULAR,
    PLACES,
    RELATIONS,
    USE_VERBS,
    VERBISH,
)
from cogmem.extract.opinion import (
    BAD,
    COPULA,
    GOOD,
    INTENSE,
    JUDGED_PERSON,
    OPINION_CUE,
    PRONOUN,
    hearsay,
    judged_doing,
    judges,
    verdict_of,
    with_name,
)
from cogmem.extract.plans import CANCELLED_CUE, plan_status
from cogmem.extract.rewrite import third_person
from cogmem.models import (
    PLAN_TYPES,
    ExtractedRecord,
    Extraction,
    RecordType,
    TimeRange,
    Turn,
)
from cogmem.temporal import TimeMention, find_time_expressions, infer_tense
from cogmem.text import STOPWORDS, WORD, Span, sentences


def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?:" + "|".join(alternatives) + r")", re.IGNORECASE)


DECISION = _rx(
    r"\b(?:we|i|they)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)?(?:decided|chose|agreed|settled on|"
    r"went with|opted|picked|made the (?:call|decision))\b",
    r"\b(?:we're|we are|i'm|i am)\s+going (?:with|for)\b",
    r"\blet'?s\s+(?:go with|use|do|stick|switch|move|keep|choose|pick|try|plan)\b",
    r"\bthe (?:plan|decision) is\b",
    r"\b(?:decided|decision) to\b",
)
TODO = _rx(
    r"\b(?:i|we)\s*(?:'ll|will|need to|have to|must|should|gotta|'ve got to|plan to|"
    r"am planning to|'m planning to|am going to|'m going to|'re going to|are going to)\s+"
    r"(?!be\b|miss\b|love\b|enjoy\b|see\b)[a-z]+",
    r"\b(?:to-?do|action item|next step)s?\b",
    r"\bdon't let me forget\b",
)
REMINDER = _rx(
    r"\b(?:remember to|don't forget|do not forget|make sure|remind me|keep in mind|"
    r"be sure to|never forget)\b",
    r"^(?:please\s+)?(?:always|never)\s+[a-z]+",
    r"^please\s+(?:use|avoid|keep|add|write|stick|make|follow|don't|do not)\b",
    r"\beverywhere\b",
)
INSIGHT = _rx(
    r"\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:realized|realised|learned|learnt|figured out|"
    r"discovered|noticed|understood)\b",
    r"\b(?:made|makes|taught|teaches|showed|shows|helped|helps) me (?:realize|realise|see|"
    r"understand|learn|appreciate)\b",
    r"\b(?:the (?:key|lesson|trick|secret) is|it turns out|turns out|what i've learned|"
    r"i now understand|reminds? me (?:that|of how))\b",
)
FIRST_PERSON_FACT = _rx(
    r"^(?:and\s+|but\s+|so\s+|also\s+)?(?:i\s+(?:am|'m)|i'm)\s+(?:a|an|the|from|into|"
    r"currently|still|now|originally|single|married|divorced|\w+ing\b)",
    r"\bi\s+(?:have|'ve got|own|live|work|study|teach|play|speak|grew up)\b",
    r"\bmy\s+(?:favorite|favourite|name|job|work|hobby|hobbies|passion|dream|goal|home|"
    r"family|kids|children|dog|dogs|cat|cats|pets?|partner|husband|wife)\b",
    r"\bi\s+(?:usually|always|often|never|sometimes|regularly|normally)\b",
    r"\bi\s+(?:'ve|have)\s+been\s+\w+ing\b",
    r"\b(?:been|for)\s+(?:\w+\s+)?(?:years|months)\b",
)
FUTURE = _rx(
    r"\b(?:will|'ll|going to|gonna|plan(?:ning)? to|hope to|want to|can't wait to|"
    r"looking forward to|next (?:week|month|year|weekend|time|summer|spring|fall|winter))\b",
)
DETERMINER_NP = re.compile(
    r"\b(?:a|an|the|my|our|his|her|their|your|some|this|that|these|those|new|first|another|"
    r"favorite|favourite)\s+((?:[A-Za-z][A-Za-z\-]*\s+){0,2}[A-Za-z][A-Za-z\-]*)",
    re.IGNORECASE,
)
CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z\-]+(?:\s+(?:of\s+)?[A-Z][a-zA-Z\-]+)*")
RELATION_NP = re.compile(
    r"\b(?P<owner>my|our)\s+(?:(?:new|old|former|late|older|younger|little|big)\s+)?(?P<rel>"
    + "|".join(sorted(RELATIONS, key=len, reverse=True))
    + r")\b(?:,?\s+(?P<name>[A-Z][a-z]+))?"
)
VOCATIVE = re.compile(
    r"(?:^|[,.!?]\s*)(?i:hey|hi|hello|thanks|thank you|congrats|congratulations|wow|yes|yeah|"
    r"sure|oh|aww|bye|good luck|see you|take care|agreed|cheers),?\s+(?P<name>[A-Z][a-z]+)\b"
    r"|,\s*(?P<tail>[A-Z][a-z]+)\s*[!?.]"
)
PREFERENCE = re.compile(
    r"\b(?:i|we)\s*(?:really\s+|also\s+|absolutely\s+|totally\s+|just\s+)?"
    r"(?P<verb>"
    + "|".join(re.escape(v) for v in (*DISLIKE_VERBS, *LIKE_VERBS, *USE_VERBS))
    + r")\s+(?P<obj>[^,.;!?]{2,60})",
    re.IGNORECASE,
)
PAST_VERB = re.compile(
    r"\b(?:(?i:i|we|they|he|she|my\s+\w+|our\s+\w+)|[A-Z][a-z]+)\s+"
    r"(?i:just\s+|finally\s+|recently\s+|also\s+|even\s+|actually\s+)?"
    r"(?i:(?:had|have|'ve)\s+(?:been\s+|just\s+)?)?(?P<verb>(?i:[a-z]+ed|"
    + "|".join(sorted(PAST_IRREGULAR, key=len, reverse=True))
    + r"))\b"
)
_PERSON_VERBS = (
    r"came|said|told|helped|promised|called|asked|invited|gave|stayed|thinks|says|wants|"
    r"texted|visited|joined|loves|showed|carried|brought|left|moved|arrived|fixed|repaired|"
    r"lent|sent|bought|paid|organised|organized|hosted|cooked|baked|drove|picked|met|took|"
    r"sorted|cancelled|canceled|flew|went"
)
PERSON_MENTION = re.compile(
    r"(?:(?<=[a-z,;] )|(?<=\bthink ))(?P<mid>[A-Z][a-z]{2,})\s+(?:is|was|has|had|and I|"
    + _PERSON_VERBS
    + r")\b"
    r"|(?:^|(?<=[.!?] ))(?P<start>[A-Z][a-z]{2,})\s+(?:"
    + _PERSON_VERBS
    # "Sophie is running it too": someone doing something (not "Family is everything",
    # not "Painting is relaxing": a gerund opening the sentence is a thing)
    + r"|(?:is|was)\s+(?!\w*thing\b)\w+ing)\b"
    r"|\b(?:with|met|told|called|asked|invited|visited|texted|thanked)\s+(?P<obj>[A-Z][a-z]{2,})\b"
)
#: Words after which "X is …" more often names a place or a thing than a person.
CLAUSE_OPENERS = frozenset(
    "because since as in at to from of near when while if although though until after "
    "before where whereas unless".split()
)


SELF_NAMED = re.compile(r"\b(?i:my name is|my name's|call me)\s+(?P<name>[A-Z][a-z]+)\b")
"""A speaker saying their own name: "my name is Tom", "call me Tom"."""


def _could_be_name(name: str) -> bool:
    low = name.lower()
    return (
        name not in NOT_NAMES
        and low not in STOPWORDS
        and low not in VERBISH
        and not low.endswith(("ing", "ed", "ly"))
    )


ADDRESSED = re.compile(
    r"\b(?i:hey|hi|hello|thanks|thank you|thx|congrats|congratulations|bye|night|morning|"
    r"love you|miss you),?\s+(?P<name>[A-Z][a-z]+)\s*(?=[,.!?;:]|$)"
    r"|,\s*(?P<tail>[A-Z][a-z]+)\s*[!?.]"
)
"""A name that closes a greeting or a sentence, as one calls the listener: "Hey Sarah!",
"haha thanks Tom!", "You'll crush it, Sarah!" (not "Yeah Dev mentioned it"). Not
:data:`VOCATIVE`, which extraction reads: that one needs its greeting at a sentence's start
(it misses "haha thanks Tom!") and takes "Yeah Dev" before any verb, fine for naming a
person in a turn, too loose for deciding whose name it is."""


def _addressed(text: str) -> list[str]:
    """Names the text calls its listener by (:data:`ADDRESSED`)."""
    names = (m.group("name") or m.group("tail") for m in ADDRESSED.finditer(text))
    return [name for name in names if _could_be_name(name)]


def _nickname_of(vocative: str, addressee: str) -> bool:
    """Whether the name a speaker calls the listener by is a nickname of the listener's:
    no longer, and the same first three letters ("Mell", "Mel" or "Mels" for Melanie). In
    a two-person chat, "Thanks, Mell!" speaks to the other person."""
    a, b = vocative.lower(), addressee.lower()
    return len(a) >= 3 and len(a) <= len(b) and a[:3] == b[:3]


def _noun_phrase(text: str, limit: int = 3) -> str:
    """The first words of ``text`` up to a verb, adverb or stopword (a rough noun phrase)."""
    kept: list[str] = []
    for w in WORD.findall(text):
        low = w.lower()
        if low in STOPWORDS or low in VERBISH or (low.endswith("ly") and len(low) > 4):
            break
        kept.append(w)
        if len(kept) >= limit:
            break
    return " ".join(kept)


def _obj_phrase(text: str) -> str:
    words = [w for w in WORD.findall(text) if w.lower() not in ("it", "that", "this", "them")]
    kept: list[str] = []
    for w in words:
        if w.lower() in ("and", "but", "because", "so", "when", "with", "since", "as") and kept:
            break
        if kept and w.lower() in VERBISH:
            break
        kept.append(w)
        if len(kept) >= 5:
            break
    while kept and kept[0].lower() in ("to", "the", "a", "an", "my", "our", "some", "being"):
        kept = kept[1:]
    while kept and kept[-1].lower() in STOPWORDS:
        kept = kept[:-1]
    return " ".join(kept)


_STRONG_TIME = re.compile(
    r"\d|yesterday|today|tonight|tomorrow|ago|last|next|this|past|week|month|year|"
    r"since|before|after|recently|lately",
    re.IGNORECASE,
)


def _weak_mention(mention: TimeMention) -> tuple[bool, int]:
    """Sort key: explicit or relative mentions first ("yesterday", "last May"), then bare
    names ("the Saturday hiking club" is rarely a date), each in order of appearance."""
    return (_STRONG_TIME.search(mention.text) is None, mention.start)


_ASK_ME = re.compile(r"\bif you ask me\b")
_NOT_A_VERDICT = re.compile(  # words that judge no one: "I was wrong about her", "to be honest"
    r"\b(?:I|we) (?:was|were) (?:so |totally |completely )?wrong\b|\bto be (?:honest|fair)\b",
    re.IGNORECASE,
)


__all__ = ["HeuristicExtractor", "third_person"]


class HeuristicExtractor:
    """Rules over sentences. Deterministic, offline, fast."""

    name = "heuristic"

    def extract(self, turn: Turn, ctx: ExtractionContext) -> Extraction:
        text = turn.full_text
        speaker = ctx.canonical(turn.speaker)
        addressee = ctx.addressee_of(turn)
        records: list[ExtractedRecord] = []
        persons = self._persons(text, speaker, addressee, ctx)
        records += persons
        for person in persons:  # known from now on, so claims in this turn can target them
            ctx.learn_person(person.name)
        concepts = self._concepts(text, ctx)
        records += concepts
        for sent in sentences(text):
            records += self._sentence_records(sent, turn, speaker, addressee, ctx)
            self._note_named(sent.text, speaker, addressee, ctx)
        if not any(r.type not in (RecordType.PERSON, RecordType.CONCEPT) for r in records):
            longest = max(sentences(text), key=lambda s: len(s.text), default=None)
            if longest is not None:
                records.append(
                    ExtractedRecord(
                        type=RecordType.KEYFACT,
                        content=third_person(longest.text, speaker, addressee),
                        quote=longest.text,
                        confidence=0.2,
                        speaker=speaker,
                        subject=speaker,
                        persons=[speaker],
                        concepts=[c.name for c in concepts if c.name][:4],
                    )
                )
        return Extraction(records=records)

    def discover(self, turn: Turn, ctx: ExtractionContext) -> None:
        """Learn the persons (and vocative aliases) a turn names, extracting nothing else;
        count the names the speaker calls the listener by (:meth:`ExtractionContext.
        settle_addressed` decides after the whole conversation), and take a speaker's own
        "my name is X" / "call me X" as the speaker's alias."""
        speaker = ctx.canonical(turn.speaker)
        for person in self._persons(turn.full_text, speaker, ctx.addressee_of(turn), ctx):
            ctx.learn_person(person.name)
        for name in _addressed(turn.full_text):
            if name not in ctx.speakers:
                ctx.addressed[(speaker, name)] += 1
        for m in SELF_NAMED.finditer(turn.full_text):
            name = m.group("name")
            if _could_be_name(name) and name not in ctx.speakers:
                ctx.learn_alias(name, speaker)
        ctx.last_speaker = speaker

    @staticmethod
    def _note_named(s: str, speaker: str, addressee: str | None, ctx: ExtractionContext) -> None:
        """Remember who the sentence named in the third person, for the next pronoun."""
        found: list[tuple[int, str]] = []
        for name in ctx.known_names():
            m = re.search(rf"\b{re.escape(name)}\b", s)
            if m is None:
                continue
            canonical = ctx.canonical(name)
            if canonical in (speaker, addressee) or any(c == canonical for _, c in found):
                continue
            if any(start <= m.start() < start + len(n) for start, n in found):
                continue  # "Ana" inside "Ana Lopez"
            found.append((m.start(), canonical))
        found.sort()
        if not found:
            return
        opener = re.match(r"\s*(?:(?:and|but|so|well|then|also|oh),?\s+)?", s, re.IGNORECASE)
        subject = found[0][1] if opener and found[0][0] == opener.end() else None
        ctx.note_named([c for _, c in found], subject)

    # -- entities ----------------------------------------------------------------------
    def _persons(
        self, text: str, speaker: str, addressee: str | None, ctx: ExtractionContext
    ) -> list[ExtractedRecord]:
        found: dict[str, ExtractedRecord] = {}

        def add(name: str, quote: str, confidence: float, relation: str | None = None) -> None:
            canonical = ctx.canonical(name)
            if canonical in found or not quote:
                return
            if canonical in PLACES and canonical not in ctx.known_names():
                return
            found[canonical] = ExtractedRecord(
                type=RecordType.PERSON,
                name=canonical,
                aliases=[name] if name != canonical else [],
                content=canonical if relation is None else f"{canonical} ({relation})",
                quote=quote,
                confidence=confidence,
                speaker=speaker,
                subject=canonical,
                relation="KNOWS" if relation else None,
                relation_label=relation,
            )

        for m in VOCATIVE.finditer(text):
            name = m.group("name") or m.group("tail")
            if _could_be_name(name):
                if addressee and (
                    ctx.is_alias_of(name, addressee) or _nickname_of(name, addressee)
                ):
                    ctx.learn_alias(name, addressee)
                add(name, name, 0.8)
        for m in RELATION_NP.finditer(text):
            rel = m.group("rel").lower()
            if m.group("name") and m.group("name") not in NOT_NAMES:
                add(m.group("name"), m.group(0), 0.8, relation=f"{speaker}'s {rel}")
            elif rel not in (
                "family",
                "team",
                "friends",
                "kids",
                "children",
                "pets",
                "dogs",
                "cats",
                "parents",
                "siblings",
                "grandparents",
                "cousins",
                "colleagues",
                "coworkers",
                "mentors",
                "teammates",
            ):
                add(f"{speaker}'s {rel}", m.group(0), 0.6, relation=f"{speaker}'s {rel}")
        for m in JUDGED_PERSON.finditer(text):
            name = m.group("obj") or m.group("subj")
            if name not in NOT_NAMES and name.lower() not in STOPWORDS:
                add(name, name, 0.6)
        for m in PERSON_MENTION.finditer(text):
            name = m.group("mid") or m.group("start") or m.group("obj")
            if m.group("start") and name.endswith("ing"):
                continue  # "Painting is …", "Hiking was …": an activity, not a person
            before = text[: m.start()].split()[-1:]
            if m.group("mid") and before and before[0].lower().strip(",;") in CLAUSE_OPENERS:
                continue  # "because Lima is at the end of the line": a place, not a person
            if name not in NOT_NAMES and name.lower() not in STOPWORDS:
                add(name, name, 0.6)
        for name in ctx.known_names():
            for m in re.finditer(rf"\b{re.escape(name)}\b", text):
                add(name, m.group(0), 0.9)
                break
        return list(found.values())

    def _concepts(self, text: str, ctx: ExtractionContext) -> list[ExtractedRecord]:
        found: dict[str, ExtractedRecord] = {}
        known = {n.lower() for n in ctx.known_names()}
        for m in re.finditer(r"[A-Za-z]+", text):
            word = m.group(0).lower()
            if word in ACTIVITIES and word not in found:
                found[word] = ExtractedRecord(
                    type=RecordType.CONCEPT,
                    name=word,
                    content=word,
                    quote=m.group(0),
                    confidence=0.7,
                )
        for m in DETERMINER_NP.finditer(text):
            phrase = _noun_phrase(m.group(1))
            key = phrase.lower()
            words = key.split()
            if not words or all(w in STOPWORDS for w in words) or len(key) < 3:
                continue
            if words[-1] in STOPWORDS or key in known or words[0] in RELATIONS:
                continue
            if key not in found:
                start = text.find(phrase, m.start(1))
                if start < 0:
                    continue
                found[key] = ExtractedRecord(
                    type=RecordType.CONCEPT, name=key, content=key, quote=phrase, confidence=0.5
                )
        starts = {sent.start for sent in sentences(text)}
        for m in CAPITALISED.finditer(text):
            phrase = m.group(0)
            words = phrase.split()
            while words and words[0] in NOT_NAMES:
                words = words[1:]
            phrase = " ".join(words)
            key = phrase.lower()
            if len(phrase) < 3 or key in known or phrase in NOT_NAMES or key in found:
                continue
            if len(words) == 1 and m.start() in starts and phrase not in known:
                continue  # a sentence-initial single capitalised word is usually not a name
            if phrase not in text:
                continue
            found[key] = ExtractedRecord(
                type=RecordType.CONCEPT,
                name=phrase,
                content=phrase,
                quote=phrase,
                confidence=0.6,
            )
        return list(found.values())[:8]

    # -- sentence-level records --------------------------------------------------------
    def _sentence_records(
        self,
        sent: Span,
        turn: Turn,
        speaker: str,
        addressee: str | None,
        ctx: ExtractionContext,
    ) -> Iterable[ExtractedRecord]:
        s = sent.text
        lower = s.lower()
        is_question = s.rstrip().endswith("?")
        tense = infer_tense(s)
        time: TimeRange | None = None
        if turn.at is not None:
            mentions = find_time_expressions(s, turn.at, tense)
            if mentions:
                time = min(mentions, key=_weak_mention).range
        concepts = [c.name for c in self._concepts(s, ctx) if c.name][:5]
        persons = [speaker]
        content = third_person(s, speaker, addressee)
        base = {
            "quote": s,
            "speaker": speaker,
            "subject": speaker,
            "concepts": concepts,
            "time": time,
            "tense": tense,
        }
        out: list[ExtractedRecord] = []

        def emit(rtype: RecordType, confidence: float, **extra: object) -> None:
            fields = {**base, "content": content, "persons": persons, **extra}
            if rtype in PLAN_TYPES:
                fields["plan_status"] = plan_status(s, tense, rtype)
            out.append(ExtractedRecord(type=rtype, confidence=confidence, **fields))

        if is_question:
            if time is not None or PAST_VERB.search(s):
                emit(RecordType.EVENT, 0.3)
            return out
        if REMINDER.search(s):
            emit(RecordType.REMINDER, 0.7)
        if DECISION.search(s):
            emit(RecordType.DECISION, 0.7)
        elif TODO.search(s):
            emit(RecordType.TODO, 0.6)
        if INSIGHT.search(s):
            emit(RecordType.INSIGHT, 0.6)
        claim = self._claim(s, lower, speaker, addressee, ctx, concepts)
        if claim is not None:
            target, sentiment, predicate, via = claim
            emit(
                RecordType.CLAIM,
                0.6 if via is None else 0.5,
                content=content if via is None else with_name(content, via, target),
                source=speaker,
                target=target,
                predicate=predicate,
                sentiment=sentiment,
                subject=target if target[:1].isupper() else speaker,
                persons=[speaker, target] if target[:1].isupper() else [speaker],
            )
        pref = PREFERENCE.search(s)
        if pref and not lower.startswith(("would you", "do you", "did you")):
            verb = pref.group("verb").lower()
            obj = _obj_phrase(pref.group("obj"))
            if obj and obj.lower() not in STOPWORDS:
                relation = (
                    "DISLIKES"
                    if verb in DISLIKE_VERBS
                    else "USES"
                    if verb in USE_VERBS
                    else "LIKES"
                )
                out.append(
                    ExtractedRecord(
                        type=RecordType.FACT,
                        confidence=0.7,
                        relation=relation,
                        content=content,
                        persons=persons,
                        **{**base, "concepts": [obj.lower(), *concepts][:5]},
                    )
                )
        event_like = (
            time is not None
            or PAST_VERB.search(s) is not None
            or (tense == "future" and FUTURE.search(s) is not None)
            or CANCELLED_CUE.search(s) is not None  # a plan called off is an event too
        )
        # an opinion of another person's doing is theirs, not the speaker's event; the Claim
        # keeps the sentence
        theirs = claim is not None and hearsay(s, claim[0], speaker)
        if event_like and not theirs and not (claim and time is None and not PAST_VERB.search(s)):
            emit(RecordType.EVENT, 0.6 if time is not None else 0.5)
        elif FIRST_PERSON_FACT.search(s) and not pref:
            emit(RecordType.FACT, 0.6)
        if not out and len(s) > 25 and (re.search(r"\d", s) or CAPITALISED.search(s[1:])):
            emit(RecordType.KEYFACT, 0.4)
        return out

    def _claim(
        self,
        s: str,
        lower: str,
        speaker: str,
        addressee: str | None,
        ctx: ExtractionContext,
        concepts: list[str],
    ) -> tuple[str, float, str, str | None] | None:
        """(target, sentiment, predicate, the pronoun that named the target, if one did)."""
        words = {w.lower().strip("'") for w in WORD.findall(_NOT_A_VERDICT.sub(" ", s))}
        pos = len(words & GOOD)
        neg = len(words & BAD)
        named = [
            name
            for name in ctx.known_names()
            if name != speaker and re.search(rf"\b{re.escape(name)}\b", s)
        ]
        judged = next((n for n in named if judges(n, s)), None)
        antecedent = ctx.antecedent(speaker, addressee)
        pronoun = next(
            (m.group(0) for m in PRONOUN.finditer(s) if antecedent and judges(m.group(0), s)),
            None,
        )
        intense = (
            judged
            and re.search(rf"\b{re.escape(judged)}\s+{COPULA}\s+{INTENSE}\b", s, re.IGNORECASE)
        ) or (
            pronoun
            and re.search(rf"\b{re.escape(pronoun)}\s+{COPULA}\s+{INTENSE}\b", s, re.IGNORECASE)
        )
        explicit = OPINION_CUE.search(lower) or intense
        addressed = _ASK_ME.sub(" ", lower)  # "if you ask me" addresses no one
        if not explicit and not (pos or neg):
            return None
        target: str | None = None
        who: str | None = None  # the words that name the target in the sentence
        via: str | None = None
        if judged is not None:  # "I think Marco is lazy … help you" judges Marco
            target, who = ctx.canonical(judged), judged
        elif pronoun is not None and antecedent is not None and not named:
            target, who, via = antecedent, pronoun, pronoun  # "I think she is reliable"
        elif re.search(r"\byou\b|\byou're\b|\byour\b", addressed) and addressee:
            target, who = addressee, "you"
        elif named:
            target, who = ctx.canonical(named[0]), named[0]
        if target is None:
            # a thing is judged when the speaker says it is their view ("I think the mayor
            # …"), or cues an opinion and gives it a sign ("Honestly the mayor is doing a
            # great job")
            opinion = re.search(
                r"\bi\s+(?:really\s+)?(?:think|believe|feel|guess|reckon)\b", lower
            ) or (OPINION_CUE.search(lower) and pos != neg)
            if not opinion or not concepts:
                return None
            target = concepts[0].lower()  # a concept, not a person: lower case marks it
        if target == speaker:
            return None
        sentiment = 0.0 if pos == neg else (0.7 if pos > neg else -0.7)
        adjectives = sorted(words & (GOOD | BAD))
        verdict = verdict_of(who, s) if who else None
        if adjectives:
            predicate = f"is {adjectives[0]}"
        elif verdict:
            predicate = f"is {verdict}"
        else:
            predicate = "opinion"
        doing = judged_doing(who, s) if who and predicate != "opinion" else None
        if doing:  # "selling is sad": Emre's selling judged, not Emre
            predicate = f"{doing} {predicate}"
        return target, sentiment, predicate, via
