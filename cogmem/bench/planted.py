"""The controlled "planted facts" benchmark (after CogCanvas §4), rebuilt for cogmem.

A seeded generator writes 50-turn conversations between a user and an assistant about a
software project, a trip, a renovation, a wedding or a thesis. Facts of four types —
KeyFact, Decision, Reminder, Insight — are planted verbatim at known turns (all before the
compression point, turn 40), among varied filler. Two causal chains per conversation (a
KeyFact or Reminder, the Decision it caused, and a later item that decision affected) give
the multi-hop questions: "Why did we …?" (causal) and "What did … affect?" (impact).

Every system gets the same budget of estimated tokens for the context it injects:

- ``cogmem``: ``Memory.context(question, budget)`` after ingesting turns 1..50 into a
  group of its own;
- ``truncation``: the last 5 turns;
- ``rag-top3`` / ``rag-top10``: the conversation cut into 1000-character chunks with a
  200-character overlap, the top-k chunks by cosine under the same embedder, in rank order,
  whole chunks only, until the budget is full;
- ``summarization`` (only when an LLM is configured): an LLM summary of the turns before
  the last 5, then the last 5 turns verbatim.

Scores per planted fact: *recall* (rapidfuzz ``partial_ratio`` of the planted wording
against the context ≥ 80) and *exact match* (the wording verbatim in the context). Per
multi-hop question: *keyword coverage* (fraction of ground-truth keywords in the context)
and *pass* (coverage ≥ 80 %). The context is scored, not an LLM's answer: this measures
what a memory system puts in front of the model.
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

from cogmem.answer import estimate_tokens
from cogmem.bench.common import (
    Stopwatch,
    Written,
    bench_group,
    command_line,
    exact_found,
    fit_budget,
    fuzzy_found,
    fuzzy_score,
    grouped_bars,
    keyword_coverage,
    machine_info,
    machine_line,
    markdown_table,
    mean,
    now_iso,
    pct,
    ratio_text,
    write_results,
)
from cogmem.config import Settings
from cogmem.models import Conversation, Turn

FactType = Literal["KeyFact", "Decision", "Reminder", "Insight"]
FACT_TYPES: tuple[FactType, ...] = ("KeyFact", "Decision", "Reminder", "Insight")
Role = Literal["user", "assistant"]
SPEAKERS: dict[Role, str] = {"user": "User", "assistant": "Assistant"}

TURNS = 50
COMPRESSION_TURN = 40
RECENT_TURNS = 5
CHUNK_CHARS = 1000
CHUNK_OVERLAP = 200
BUDGET_TOKENS = 2000
PASS_COVERAGE = 0.8


# ---------------------------------------------------------------------------------------
# Templates
# ---------------------------------------------------------------------------------------
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
    slots: dict[str, tuple[Any, ...]]
    singles: tuple[FactTemplate, ...]
    chains: tuple[ChainTemplate, ...]
    user_filler: tuple[str, ...]
    assistant_filler: tuple[str, ...]


def _f(kind: FactType, wording: str, question: str, role: Role = "user") -> FactTemplate:
    return FactTemplate(kind, wording, question, role)


SOFTWARE = Domain(
    name="software project",
    opener=(
        "Hi! I'm building the {service} for our startup and I'd like your help over the next "
        "few weeks.",
        "Hey, can you help me plan and build the {service}? It's a small team, just three of us.",
    ),
    slots={
        "service": ("billing service", "invoicing API", "payments backend", "subscription service"),
        "db": (
            ("PostgreSQL", "its JSONB support"),
            ("MySQL", "the managed replicas our host offers"),
            ("SQLite", "the single-server deployment"),
            ("CockroachDB", "its multi-region writes"),
        ),
        "ms": ("150", "200", "250", "300"),
        "rps": ("1,200", "3,500", "800", "6,000"),
        "eng": ("Priya", "Marcus", "Ines", "Tomasz", "Keiko"),
        "leaver": ("Oskar", "Femi", "Lucia", "Hamid"),
        "bill": ("900", "1,500", "2,400", "3,100"),
        "beta": ("March 14", "April 2", "May 20", "June 9"),
        "queue": ("Kafka", "RabbitMQ", "Amazon SQS", "NATS JetStream"),
        "events": ("40", "25", "60", "90"),
        "month": ("August", "September", "October", "November"),
    },
    singles=(
        _f(
            "Reminder",
            "Please use type hints everywhere in the {service} code",
            "What are my coding constraints?",
        ),
        _f(
            "Reminder",
            "Remember to keep every API response under {ms} ms",
            "What response time target did I give you for the API?",
        ),
        _f(
            "Reminder",
            "Make sure every database migration can be rolled back with one command",
            "What rule did I set for schema migrations?",
        ),
        _f(
            "Decision",
            "We decided to use {db[0]} because of {db[1]}",
            "What did we decide about the database?",
        ),
        _f(
            "Decision",
            "We agreed to ship the public beta on {beta}",
            "When is the public beta going out?",
        ),
        _f(
            "Decision",
            "We decided to drop GraphQL and expose plain REST endpoints",
            "Which API style did we settle on?",
        ),
        _f(
            "KeyFact",
            "The {service} peaks at about {rps} requests per second on the first of the month",
            "How much load does the {service} get?",
        ),
        _f(
            "KeyFact",
            "{eng} is the only engineer with write access to the production database",
            "Who can change data in production?",
        ),
        _f(
            "KeyFact",
            "The client contract caps our hosting bill at {bill} dollars a month",
            "How much are we allowed to spend on hosting?",
        ),
        _f(
            "Insight",
            "I realized the cache was the bottleneck, not the database",
            "What did I figure out about the slowdown?",
        ),
        _f(
            "Insight",
            "I realized most of the flaky tests share one fixture that leaks state between runs",
            "What was behind the flaky tests?",
        ),
        _f(
            "Insight",
            "It turns out the retry job was charging some customers twice",
            "What did we find out about the double charges?",
            "assistant",
        ),
    ),
    chains=(
        ChainTemplate(
            name="ingest-volume",
            cause=_f(
                "KeyFact",
                "Our largest customer pushes about {events} million events a day "
                "into the ingest endpoint",
                "How much data does our largest customer send?",
            ),
            decision=_f(
                "Decision",
                "Given that volume, we decided to put {queue} in front of the ingest workers",
                "What did we decide about ingestion?",
            ),
            effect=_f(
                "KeyFact",
                "Because ingestion now runs through {queue}, the nightly revenue "
                "report has to read from the consumer tables",
                "Where does the nightly revenue report get its data?",
            ),
            why="Why did we put {queue} in front of the ingest workers?",
            why_keywords=(
                "largest customer",
                "{events} million events",
                "ingest endpoint",
                "{queue}",
            ),
            impact="What did the event volume from our largest customer affect?",
            impact_keywords=(
                "{queue}",
                "ingest workers",
                "nightly revenue report",
                "consumer tables",
            ),
        ),
        ChainTemplate(
            name="audit-retention",
            cause=_f(
                "Reminder",
                "Remember that the auditors need every invoice change kept for seven years",
                "What do the auditors require?",
            ),
            decision=_f(
                "Decision",
                "For that audit rule we decided to store invoice history as append-only events",
                "How are we storing invoice history?",
            ),
            effect=_f(
                "Decision",
                "Since invoice history is append-only now, refunds will be "
                "written as new correcting entries",
                "How will refunds be recorded?",
            ),
            why="Why did we make invoice history append-only?",
            why_keywords=("auditors", "seven years", "invoice change", "append-only"),
            impact="What did the auditors' retention requirement affect?",
            impact_keywords=("append-only", "invoice history", "refunds", "correcting entries"),
        ),
        ChainTemplate(
            name="leaver",
            cause=_f(
                "KeyFact",
                "{leaver} is leaving the team at the end of {month} and wrote "
                "all our deploy scripts",
                "Who is leaving the team?",
            ),
            decision=_f(
                "Decision",
                "With {leaver} gone soon, we decided to move deployments into "
                "the shared GitLab pipeline",
                "What did we decide about deployments?",
            ),
            effect=_f(
                "Reminder",
                "Now that deployments go through GitLab, make sure every release has a signed tag",
                "What do releases need now?",
            ),
            why="Why are we moving deployments into the shared pipeline?",
            why_keywords=("{leaver}", "leaving the team", "end of {month}", "GitLab"),
            impact="What did {leaver} leaving affect?",
            impact_keywords=("GitLab", "shared GitLab pipeline", "signed tag", "release"),
        ),
    ),
    user_filler=(
        "Can you sketch how the request flow would look from the client to the database?",
        "What's a sensible folder layout for a service like this?",
        "How should we structure the error responses so the frontend can show nice messages?",
        "Do you think we need feature flags this early?",
        "Ok that makes sense. What about logging, what should we log per request?",
        "How would you test the webhook handlers without hitting the real provider?",
        "What's your take on monorepo versus separate repositories for three people?",
        "Could you write a short checklist for code reviews?",
        "How do we handle time zones for customers in different countries?",
        "Should the admin dashboard live in the same codebase?",
        "What would a reasonable on-call rotation look like for a tiny team?",
        "Let's talk about authentication for a bit. Sessions or tokens?",
        "How do you usually version an internal API?",
        "Thanks, that's helpful. Can you explain idempotency keys again in simple terms?",
        "What metrics should go on the first dashboard?",
        "How should we seed the staging environment with realistic data?",
        "Can you compare a couple of options for background jobs?",
        "How much documentation is enough at this stage?",
        "What's the simplest way to do blue-green deploys?",
        "Ok, let's pause the architecture talk. What should the onboarding doc contain?",
        "Do we need rate limiting from day one?",
        "How do we keep secrets out of the repository?",
        "Nice. What would you name the main modules?",
        "How do we make the local setup painless for a new hire?",
    ),
    assistant_filler=(
        "A clean way to think about it is to separate the transport layer from the business "
        "rules, so handlers stay thin and the core logic can be tested without a web server.",
        "For a team of your size I would keep the moving parts to a minimum and add "
        "infrastructure only when a concrete problem shows up.",
        "Structured logs with a request identifier make it much easier to follow one "
        "customer's request across services when something goes wrong.",
        "Error responses work best with a stable machine-readable code, a human message and "
        "an optional field that points at the offending input.",
        "Contract tests against recorded provider responses catch most integration problems "
        "without the flakiness of calling the real sandbox.",
        "Short-lived access tokens with a refresh flow are a reasonable default, and sessions "
        "are simpler if the only client is your own web app.",
        "Versioning through the URL prefix is blunt but very easy to reason about for "
        "internal consumers.",
        "A checklist should stay short enough that people actually read it, five to eight "
        "items is usually the sweet spot.",
        "Store every timestamp in UTC and convert at the edges, that avoids a whole class of "
        "daylight saving bugs.",
        "Feature flags help once you deploy several times a day, before that a config file is "
        "often enough.",
        "On-call for three people works if alerts are rare and actionable, so invest in "
        "tuning thresholds early.",
        "An idempotency key lets a client retry a request safely, because the server "
        "remembers the first result and returns it again.",
        "The first dashboard should answer one question quickly, namely whether customers "
        "can use the product right now.",
        "Synthetic seed data generated from a script is easier to keep current than a copy of "
        "production, and it avoids privacy trouble.",
        "Background job libraries differ mostly in how they persist jobs and how they retry, "
        "so pick the one that matches your operational comfort.",
        "Documentation that explains why a choice was made tends to age better than "
        "documentation that explains how each function works.",
        "Blue-green deploys need two identical environments and a switch at the load "
        "balancer, which is more setup than a rolling deploy.",
        "A good onboarding doc gets a new person from a clean laptop to a passing test suite "
        "in under an hour.",
        "Rate limiting at the gateway is cheap to add and protects you from a single noisy client.",
        "Secrets belong in the environment or a secrets manager, and a pre-commit hook can "
        "catch accidental leaks.",
        "Module names that follow the business vocabulary make conversations with "
        "non-engineers much smoother.",
        "A one-command local setup with containers for the dependencies usually pays for "
        "itself within the first month.",
        "I'd keep the admin tools in the same repository at first, since they share models "
        "and validation with the main service.",
        "It helps to write down the expected failure modes of each external dependency and "
        "decide what the service should do when it is unavailable.",
        "Pagination with opaque cursors is more robust than page numbers once the data "
        "changes while someone is scrolling.",
        "Health checks should be cheap and should not depend on every downstream system, "
        "otherwise one outage cascades.",
        "A small architecture decision record per major choice keeps future you from "
        "relitigating the same debates.",
    ),
)

TRIP = Domain(
    name="trip",
    opener=(
        "Hi! We're planning a three-week trip to {place[0]} this {season} and I'd love your "
        "help with the planning.",
        "Hey, my family and I are going to {place[0]} in the {season} and I need help "
        "organising everything.",
    ),
    slots={
        "place": (
            ("Japan", "Kyoto", "Osaka"),
            ("Portugal", "Lisbon", "Porto"),
            ("Peru", "Cusco", "Lima"),
            ("Norway", "Bergen", "Oslo"),
            ("Italy", "Florence", "Naples"),
        ),
        "season": ("spring", "summer", "autumn"),
        "food": ("35", "40", "50", "60"),
        "days": ("four", "five", "six"),
        "arrive": ("6:40 in the morning", "11:15 at night", "2:30 in the afternoon"),
        "weekday": ("Tuesday", "Thursday", "Saturday"),
        "sister": ("Amara", "Lena", "Rosa", "Yuki"),
        "budget": ("7,500", "9,000", "12,000", "14,500"),
        "friend": ("Jonas", "Malik", "Theo", "Noor"),
        "fest": ("the 12th to the 15th", "the 3rd to the 6th", "the 21st to the 24th"),
    },
    singles=(
        _f(
            "Reminder",
            "Please book only hotels with free cancellation everywhere we stay",
            "What are my rules for booking hotels?",
        ),
        _f(
            "Reminder",
            "Remember to keep the daily food budget under {food} euros per person",
            "How much can we spend on food each day?",
        ),
        _f(
            "Reminder",
            "Make sure my passport has at least six months of validity before we fly",
            "What did I ask you to check about travel documents?",
        ),
        _f(
            "Decision",
            "We decided to take the night train from {place[1]} to {place[2]} instead of flying",
            "How are we getting between the two cities?",
        ),
        _f(
            "Decision",
            "We decided to rent a car only for the {days} days in the countryside",
            "What did we decide about renting a car?",
        ),
        _f(
            "Decision",
            "We agreed to skip the guided tours and explore on our own",
            "What did we decide about guided tours?",
        ),
        _f(
            "KeyFact",
            "Our flight lands in {place[1]} at {arrive} on a {weekday}",
            "When does our flight arrive?",
        ),
        _f(
            "KeyFact",
            "My sister {sister} is allergic to shellfish and peanuts",
            "Does anyone in our group have food allergies?",
        ),
        _f(
            "KeyFact",
            "The whole trip budget is {budget} euros for the three of us",
            "What is the total budget for the trip?",
        ),
        _f(
            "Insight",
            "I realized we packed too much into the first week and left no rest days",
            "What did I realize about the itinerary?",
        ),
        _f(
            "Insight",
            "I realized the rail pass only pays off if we take at least four long rides",
            "What did I figure out about the rail pass?",
        ),
        _f(
            "Insight",
            "It turns out the museums in {place[1]} are free on the first Sunday of the month",
            "What did we learn about museum prices?",
            "assistant",
        ),
    ),
    chains=(
        ChainTemplate(
            name="wheelchair",
            cause=_f(
                "KeyFact",
                "{friend} uses a wheelchair and cannot manage long staircases",
                "Does anyone travelling with us have mobility needs?",
            ),
            decision=_f(
                "Decision",
                "Because of that we decided to book the ground floor "
                "apartment next to the central station",
                "What accommodation did we pick?",
            ),
            effect=_f(
                "Decision",
                "Since we're staying by the station, every day trip will start "
                "with the early regional trains",
                "How will the day trips start?",
            ),
            why="Why did we pick the ground floor apartment?",
            why_keywords=("{friend}", "wheelchair", "staircases", "ground floor"),
            impact="What did {friend}'s mobility needs affect?",
            impact_keywords=("ground floor apartment", "central station", "early regional trains"),
        ),
        ChainTemplate(
            name="seasick",
            cause=_f(
                "Reminder",
                "Remember that I get seasick on anything smaller than a ferry",
                "What did I tell you about boats?",
            ),
            decision=_f(
                "Decision",
                "So we decided to skip the island boat tour and do the coastal hike instead",
                "What are we doing instead of the boat tour?",
            ),
            effect=_f(
                "Reminder",
                "With the coastal hike in the plan, make sure we buy proper "
                "trail shoes before we leave",
                "What do we need to buy before the trip?",
            ),
            why="Why did we skip the island boat tour?",
            why_keywords=("seasick", "ferry", "island boat tour", "coastal hike"),
            impact="What did my seasickness change about our plans?",
            impact_keywords=("island boat tour", "coastal hike", "trail shoes"),
        ),
        ChainTemplate(
            name="festival",
            cause=_f(
                "KeyFact",
                "The lantern festival in {place[2]} runs from {fest}",
                "When is the lantern festival?",
            ),
            decision=_f(
                "Decision",
                "We decided to move the {place[2]} leg to the last four days "
                "so we catch the festival",
                "When are we visiting {place[2]}?",
            ),
            effect=_f(
                "Decision",
                "Because {place[2]} is at the end now, we'll fly home from "
                "{place[2]} instead of {place[1]}",
                "Which airport do we fly home from?",
            ),
            why="Why did we move the {place[2]} leg to the end of the trip?",
            why_keywords=("lantern festival", "{fest}", "last four days", "{place[2]}"),
            impact="What did the timing of the lantern festival affect?",
            impact_keywords=("last four days", "{place[2]} leg", "fly home"),
        ),
    ),
    user_filler=(
        "What's the best way to get from the airport to the city centre?",
        "Are there any local customs we should know about before we go?",
        "What should we pack for the weather at that time of year?",
        "Can you suggest a few neighbourhoods that are nice to walk around in the evening?",
        "How far in advance should we book the popular restaurants?",
        "Do we need cash or do cards work almost everywhere?",
        "What's a good rainy-day plan in case the weather turns?",
        "How do we handle mobile data, local SIM or an eSIM?",
        "Are there any markets worth visiting on a weekend morning?",
        "Can you suggest a realistic pace, how many sights per day?",
        "Thanks! What about tipping, is it expected?",
        "Is it worth getting travel insurance for a trip like this?",
        "What are some easy phrases we should learn?",
        "Any tips for jet lag on the first couple of days?",
        "Should we plan every dinner or leave some evenings open?",
        "What's the best way to see the old town without the crowds?",
        "Can you suggest a nice half-day trip from the first city?",
        "How do we keep the kids entertained on long travel days?",
        "What souvenirs are actually worth bringing back?",
        "Okay, what's a good plan for the very last day before the flight?",
        "Is there anything we should avoid doing as tourists?",
        "How early should we get to the airport on the way back?",
    ),
    assistant_filler=(
        "Most visitors find that two or three sights a day, with a long lunch in between, is "
        "far more enjoyable than rushing through a checklist.",
        "Public transport from the airport is usually the cheapest option, although a taxi "
        "is worth it if you land very late with luggage.",
        "Layers are your friend at that time of year, mornings can be cool while afternoons "
        "get surprisingly warm.",
        "Booking the well-known restaurants a couple of weeks ahead is wise, smaller places "
        "often keep tables for walk-ins.",
        "Cards are widely accepted in cities, but small cafes and rural shops sometimes "
        "prefer cash, so keep a little on hand.",
        "A museum, a covered market or a long cafe break makes a good rainy-day fallback.",
        "An eSIM is convenient if your phones support it, you can set it up before you leave home.",
        "Weekend morning markets are a great way to taste local food and see daily life.",
        "Learning a greeting, please and thank you goes a long way with locals.",
        "For jet lag, get outside in daylight on the first morning and avoid long naps.",
        "Leaving a couple of evenings unplanned gives you room for the places you discover "
        "along the way.",
        "Early mornings are the best time for the famous viewpoints, before the tour groups "
        "arrive.",
        "Travel insurance that covers cancellations and medical costs is usually worth the "
        "modest price for a longer trip.",
        "Kids do better on travel days with snacks, a downloaded film and a promise of "
        "something fun at the destination.",
        "Local crafts and food products tend to be better souvenirs than mass-produced trinkets.",
        "Tipping customs vary, so a quick look at local norms avoids awkward moments.",
        "Walking tours of the old town are easy to do on your own with a good offline map.",
        "Plan a relaxed last day close to your accommodation so packing doesn't feel rushed.",
        "Dress codes for religious sites are worth checking in advance, covering shoulders is "
        "a common rule.",
        "Getting to the airport about three hours before an international flight leaves "
        "comfortable margin.",
        "Half-day trips work best when the journey is under an hour each way.",
        "Keeping digital copies of important documents in your email is a simple safety net.",
        "A small daypack with water and sunscreen covers most sightseeing days.",
        "Evening walks through residential neighbourhoods often feel more authentic than the "
        "main tourist streets.",
        "It's worth checking opening days, since many museums close one weekday.",
    ),
)

RENOVATION = Domain(
    name="renovation",
    opener=(
        "Hi, we just bought an old house and we're renovating the kitchen and a few other rooms. "
        "Can you help me keep track of things?",
        "Hello! We're starting a big renovation of our {room} and I want to plan it properly.",
    ),
    slots={
        "room": ("kitchen", "downstairs", "old house"),
        "spend": ("45,000", "60,000", "38,000", "72,000"),
        "year": ("1928", "1935", "1952", "1961"),
        "builder": ("Dario", "Agnieszka", "Callum", "Rui"),
        "start": ("the 3rd of May", "the 18th of June", "the 9th of September"),
        "sqft": ("180", "210", "240", "165"),
        "month": ("July", "October", "November", "January"),
        "weeks": ("five", "six", "seven"),
        "baby": ("four", "six", "nine"),
    },
    singles=(
        _f(
            "Reminder",
            "Please use low-VOC paint everywhere in the house",
            "What are my requirements for paint?",
        ),
        _f(
            "Reminder",
            "Remember to keep the total spend under {spend} dollars",
            "What spending limit did I set for the renovation?",
        ),
        _f(
            "Reminder",
            "Make sure the contractor never works past 6 pm on weekdays",
            "What working hours did I agree to for the contractor?",
        ),
        _f(
            "Decision",
            "We decided to go with quartz countertops because granite stains too easily",
            "What did we choose for the countertops?",
        ),
        _f(
            "Decision",
            "We decided to keep the original oak floors and just refinish them",
            "What are we doing about the floors?",
        ),
        _f(
            "Decision",
            "We agreed to move the washing machine into the basement",
            "Where is the washing machine going?",
        ),
        _f(
            "KeyFact",
            "The house was built in {year} and still has some original plaster walls",
            "How old is the house?",
        ),
        _f(
            "KeyFact",
            "Our contractor {builder} can only start after {start}",
            "When can the contractor start?",
        ),
        _f(
            "KeyFact",
            "The kitchen is {sqft} square feet including the pantry",
            "How big is the kitchen?",
        ),
        _f(
            "Insight",
            "I realized the damp smell comes from the blocked gutter, not the pipes",
            "What did I realize about the damp smell?",
        ),
        _f(
            "Insight",
            "I realized we use the dining room maybe twice a year",
            "What did I notice about how we use the dining room?",
        ),
        _f(
            "Insight",
            "It turns out the wall between the kitchen and the living room is load-bearing",
            "What did we learn about the kitchen wall?",
            "assistant",
        ),
    ),
    chains=(
        ChainTemplate(
            name="wiring",
            cause=_f(
                "KeyFact",
                "The inspector found knob-and-tube wiring behind the kitchen walls",
                "What did the inspector find?",
            ),
            decision=_f(
                "Decision",
                "Given the wiring, we decided to rewire the whole ground "
                "floor before any cabinets go in",
                "What did we decide about the electrics?",
            ),
            effect=_f(
                "KeyFact",
                "Because of the rewiring, the cabinet installation slips to {month}",
                "When will the cabinets be installed?",
            ),
            why="Why are we rewiring the ground floor?",
            why_keywords=("inspector", "knob-and-tube", "rewire", "before any cabinets"),
            impact="What did the inspector's finding affect?",
            impact_keywords=("rewire", "ground floor", "cabinet installation", "{month}"),
        ),
        ChainTemplate(
            name="home-office",
            cause=_f(
                "Reminder",
                "Remember that my partner works from home and needs a quiet office during the day",
                "What did I tell you about my partner's work?",
            ),
            decision=_f(
                "Decision",
                "For that reason we decided to do the noisy demolition only on weekends",
                "When will the demolition happen?",
            ),
            effect=_f(
                "KeyFact",
                "With demolition limited to weekends, the dumpster rental has "
                "to run for {weeks} weeks",
                "How long do we need the dumpster?",
            ),
            why="Why is the demolition only happening on weekends?",
            why_keywords=("works from home", "quiet office", "noisy demolition", "weekends"),
            impact="What did my partner working from home affect?",
            impact_keywords=("noisy demolition", "weekends", "dumpster rental", "{weeks} weeks"),
        ),
        ChainTemplate(
            name="baby",
            cause=_f(
                "KeyFact",
                "We have a {baby} month old baby sleeping in the back bedroom",
                "Who sleeps in the back bedroom?",
            ),
            decision=_f(
                "Decision",
                "Because of the baby we decided to seal off the back hallway with a dust barrier",
                "What did we decide about dust?",
            ),
            effect=_f(
                "Decision",
                "With the back hallway sealed, the crew will bring materials in through the garage",
                "How will the crew bring materials in?",
            ),
            why="Why are we sealing off the back hallway?",
            why_keywords=("{baby} month old baby", "back bedroom", "dust barrier"),
            impact="What did having the baby at home change about the renovation?",
            impact_keywords=("back hallway", "dust barrier", "garage", "materials"),
        ),
    ),
    user_filler=(
        "How do we pick between a few contractor quotes that look similar?",
        "What order do the trades usually come in for a kitchen?",
        "Should we live in the house during the work or move out?",
        "What's a realistic contingency to set aside?",
        "Can you explain what a rough-in inspection is?",
        "How do we protect the rest of the house from dust?",
        "Ok. What should be in the written contract with the builder?",
        "Which permits does a job like this usually need?",
        "How do we choose lighting for a kitchen that feels warm?",
        "What questions should I ask when checking references?",
        "Thanks. How should we handle changes once the work has started?",
        "What kind of cabinet finish holds up best with kids?",
        "Is underfloor heating worth it in a kitchen?",
        "How do we keep a temporary kitchen going during the work?",
        "What's the usual payment schedule for a renovation?",
        "How do we compare tile samples without getting overwhelmed?",
        "Should we upgrade the windows at the same time?",
        "How can we keep the neighbours happy during the noisy weeks?",
        "What's a punch list and when do we write it?",
        "Any tips for planning enough electrical outlets?",
        "How long does plaster need to dry before painting?",
    ),
    assistant_filler=(
        "Comparing quotes line by line matters more than the total, since contractors often "
        "price different scopes under the same headings.",
        "The usual sequence is demolition, structural work, rough plumbing and electrics, "
        "inspection, drywall, then cabinets and finishes.",
        "Setting aside ten to fifteen percent for surprises is common, older houses often need "
        "the upper end.",
        "A written contract should list the scope, the schedule, the payment milestones and "
        "how changes are priced.",
        "Plastic sheeting, zip doors and taped vents keep most of the dust where the work happens.",
        "Layered lighting, with ceiling lights, task lights under the cabinets and a pendant, "
        "makes a kitchen feel warmer.",
        "References are most useful when you ask what went wrong and how the builder handled it.",
        "Change orders should be written down and priced before the work is done, even small ones.",
        "Painted cabinets show chips more than stained wood or laminate in a busy household.",
        "A temporary kitchen with a microwave, a kettle and a fridge in another room makes the "
        "weeks without a kitchen bearable.",
        "Payments tied to completed milestones protect both you and the builder.",
        "Looking at tile samples in your own light at different times of day avoids surprises.",
        "Telling the neighbours the schedule in advance, and keeping the site tidy, prevents "
        "most friction.",
        "A punch list is the final list of small fixes, written together with the builder near "
        "the end.",
        "Plan outlets for every spot where an appliance might live, including inside a pantry.",
        "Permits depend on the local rules, structural and electrical changes almost always "
        "need them.",
        "Replacing windows during a renovation can save on trim and plaster work later.",
        "Underfloor heating is pleasant in a kitchen but adds cost and height to the floor "
        "build-up.",
        "Moving out for the messiest few weeks is often worth it if you can arrange it.",
        "A weekly site meeting with the builder keeps small questions from piling up.",
        "It helps to order long-lead items like appliances and windows early.",
        "Photos of the open walls before they are closed up are useful for any future repairs.",
        "Good ventilation during painting and finishing makes the house livable sooner.",
        "A clear storage plan for furniture avoids damage while the floors are being worked on.",
    ),
)

WEDDING = Domain(
    name="wedding",
    opener=(
        "Hi! My partner and I are getting married next {month} and I need help planning.",
        "Hey, we're planning our wedding and I'd like to keep all the details in one place.",
    ),
    slots={
        "month": ("June", "September", "May", "October"),
        "guests": ("80", "110", "140", "60"),
        "venue": ("the Willow Barn", "Harbour Hall", "the Old Mill", "Cedar Gardens"),
        "deposit": ("2,000", "3,500", "1,800", "4,200"),
        "due": ("the 1st of March", "the 15th of April", "the 30th of January"),
        "gran": ("Margaret", "Elsie", "Dorothea", "Ruth"),
        "photog": ("Sven", "Aisha", "Camille", "Diego"),
        "rate": ("180", "250", "320"),
        "town": ("Ashford", "Kelso", "Whitby", "Tavira"),
        "cap": ("18,000", "22,000", "25,000", "30,000"),
        "surcharge": ("300", "450", "600"),
    },
    singles=(
        _f(
            "Reminder",
            "Please keep the guest list under {guests} people",
            "How many guests can we invite?",
        ),
        _f(
            "Reminder",
            "Remember to ask every vendor for a written quote",
            "What did I say about vendor quotes?",
        ),
        _f(
            "Reminder",
            "Make sure there is a vegetarian option at every meal",
            "What did I ask for about the food?",
        ),
        _f(
            "Decision",
            "We decided to hold the ceremony at {venue} in {month}",
            "Where is the ceremony going to be?",
        ),
        _f(
            "Decision",
            "We decided to hire a string quartet instead of a DJ",
            "What did we choose for the music?",
        ),
        _f(
            "Decision",
            "We agreed to skip wedding favours and give a donation instead",
            "What did we decide about favours?",
        ),
        _f(
            "KeyFact",
            "The venue deposit of {deposit} dollars is due on {due}",
            "When is the venue deposit due?",
        ),
        _f(
            "KeyFact",
            "My grandmother {gran} turns ninety the week of the wedding",
            "Whose birthday falls near the wedding?",
        ),
        _f(
            "KeyFact",
            "The photographer {photog} charges {rate} dollars an hour",
            "How much does the photographer cost?",
        ),
        _f(
            "Insight",
            "I realized half the guests will need hotel rooms",
            "What did I realize about accommodation?",
        ),
        _f(
            "Insight",
            "I realized we care much more about the food than the decorations",
            "What did I realize about our priorities?",
        ),
        _f(
            "Insight",
            "It turns out the venue does not allow open flames, so no candles",
            "What did we find out about candles?",
            "assistant",
        ),
    ),
    chains=(
        ChainTemplate(
            name="grandfather",
            cause=_f(
                "KeyFact",
                "My grandfather can't fly anymore and lives four hours away by car",
                "Why can't my grandfather travel far?",
            ),
            decision=_f(
                "Decision",
                "So we decided to hold the wedding in {town}, close to where he lives",
                "Where is the wedding going to be?",
            ),
            effect=_f(
                "KeyFact",
                "Since it's in {town}, most guests will need a shuttle from the airport",
                "How will guests get to the wedding?",
            ),
            why="Why did we choose {town} for the wedding?",
            why_keywords=("grandfather", "can't fly", "four hours away", "{town}"),
            impact="What did my grandfather's situation affect?",
            impact_keywords=("{town}", "shuttle", "airport"),
        ),
        ChainTemplate(
            name="budget-cap",
            cause=_f(
                "Reminder",
                "Remember that the total budget is capped at {cap} dollars with no exceptions",
                "What is our wedding budget?",
            ),
            decision=_f(
                "Decision",
                "We decided to cut the reception down to a buffet lunch to stay inside that cap",
                "What kind of reception are we having?",
            ),
            effect=_f(
                "KeyFact",
                "With a lunch reception, the ceremony has to start at eleven in the morning",
                "What time does the ceremony start?",
            ),
            why="Why are we having a buffet lunch reception?",
            why_keywords=("{cap} dollars", "no exceptions", "buffet lunch"),
            impact="What did the budget cap affect?",
            impact_keywords=("buffet lunch", "lunch reception", "eleven in the morning"),
        ),
        ChainTemplate(
            name="sabbath",
            cause=_f(
                "KeyFact",
                "Half of my partner's family observes the Sabbath",
                "What did I tell you about my partner's family?",
            ),
            decision=_f(
                "Decision",
                "We decided to move the wedding to a Sunday",
                "Which day is the wedding on?",
            ),
            effect=_f(
                "KeyFact",
                "Because it's a Sunday now, the florist adds a weekend "
                "surcharge of {surcharge} dollars",
                "What extra does the florist charge?",
            ),
            why="Why did we move the wedding to a Sunday?",
            why_keywords=("partner's family", "Sabbath", "Sunday"),
            impact="What did the Sabbath affect?",
            impact_keywords=("Sunday", "florist", "weekend surcharge", "{surcharge} dollars"),
        ),
    ),
    user_filler=(
        "How far ahead should we send the save-the-dates?",
        "What's a realistic timeline for the day itself?",
        "How do we politely tell people they can't bring a plus-one?",
        "Can you suggest a few ideas for the first dance song?",
        "What should we ask when we visit a venue?",
        "How do we split tasks between the two of us without fighting?",
        "Should we have a wedding website or is that overkill?",
        "Ok, what about the seating plan, any tricks?",
        "What's the etiquette for inviting coworkers?",
        "How much time should we leave for photos?",
        "Thanks. What does a day-of coordinator actually do?",
        "What should go in the welcome bags for out-of-town guests?",
        "How do we handle a rain plan for an outdoor ceremony?",
        "Any ideas for a short and sweet ceremony script?",
        "How do we keep the speeches from running too long?",
        "What's a good way to track RSVPs?",
        "Should we do a rehearsal dinner?",
        "How early should we order the invitations?",
        "What's a nice way to include family traditions?",
        "How do we stay sane in the last two weeks?",
        "Is it rude to have an adults-only wedding?",
    ),
    assistant_filler=(
        "Save-the-dates usually go out six to eight months ahead, a little earlier if many "
        "guests have to travel.",
        "A simple timeline with buffers between each part keeps the day relaxed even when "
        "something runs late.",
        "A warm but clear note on the invitation, naming exactly who is invited, avoids most "
        "plus-one confusion.",
        "When you visit a venue, ask about the rain plan, the end time, the vendor rules and "
        "what is included in the price.",
        "Splitting the work by area, with one person owning each vendor, keeps decisions quick.",
        "A wedding website saves a lot of repeated questions about travel, dress code and timings.",
        "Seating people near at least one person they know goes a long way, and keep "
        "tricky relatives apart.",
        "Leaving about an hour for photos between the ceremony and the reception is common.",
        "A day-of coordinator runs the timeline, handles the vendors and answers questions so "
        "you can enjoy the day.",
        "Welcome bags with water, snacks, a map and a schedule are thoughtful and inexpensive.",
        "A tent on standby or an indoor room at the venue is the usual rain plan.",
        "Short ceremonies of twenty minutes or so keep guests engaged, especially outdoors.",
        "Asking each speaker for three to five minutes, and telling them in advance, keeps "
        "speeches tight.",
        "A shared spreadsheet or the RSVP feature of a wedding website works well for tracking "
        "replies.",
        "A rehearsal dinner can be very small, just the wedding party and close family.",
        "Invitations are usually ordered about four months ahead, leaving time for printing "
        "and postage.",
        "Family traditions can be woven into the ceremony readings, the food or the music.",
        "In the last two weeks, delegate small tasks and keep one evening a week free of "
        "wedding talk.",
        "An adults-only wedding is perfectly acceptable if you say so clearly and kindly.",
        "Confirm every vendor's arrival time in writing the week before.",
        "It helps to have a small emergency kit with safety pins, plasters and stain remover.",
        "Guests appreciate knowing the dress code and whether the ceremony is outdoors.",
        "A short private moment together after the ceremony is something many couples treasure.",
    ),
)

THESIS = Domain(
    name="thesis",
    opener=(
        "Hi! I'm in the final year of my PhD and I want help planning the thesis and the last "
        "experiments.",
        "Hey, can you help me stay organised while I write my master's thesis on {field}?",
    ),
    slots={
        "field": ("speech recognition", "protein folding", "urban traffic models", "crop yields"),
        "pages": ("120", "150", "180", "200"),
        "dataset": ("CrowdLabel-9", "WebNotes", "OpenFields", "StreetScenes"),
        "deadline": ("the 30th of September", "the 14th of March", "the 1st of December"),
        "advisor": ("Professor Halvorsen", "Dr Okafor", "Professor Brandt", "Dr Marchetti"),
        "back": ("February", "April", "June", "August"),
        "gpu": ("500", "800", "1,200"),
        "cut": ("200", "150", "300"),
        "funding": ("July", "August", "December", "March"),
    },
    singles=(
        _f(
            "Reminder",
            "Please cite the original papers everywhere, not the surveys",
            "What are my citation rules?",
        ),
        _f(
            "Reminder",
            "Remember to keep the thesis under {pages} pages excluding appendices",
            "What is the page limit for the thesis?",
        ),
        _f(
            "Reminder",
            "Make sure every figure uses the colorblind-safe palette",
            "What did I say about the figures?",
        ),
        _f(
            "Decision",
            "We decided to run all experiments with five random seeds",
            "How many random seeds are we using?",
        ),
        _f(
            "Decision",
            "We decided to drop the {dataset} dataset because its labels are too noisy",
            "Which dataset did we drop and why?",
        ),
        _f(
            "Decision",
            "We agreed to write the related work chapter last",
            "When will I write the related work chapter?",
        ),
        _f("KeyFact", "My submission deadline is {deadline}", "When is my thesis due?"),
        _f(
            "KeyFact",
            "My advisor {advisor} is on sabbatical until {back}",
            "When is my advisor back?",
        ),
        _f(
            "KeyFact",
            "The cluster gives me {gpu} GPU hours per month",
            "How much compute do I have?",
        ),
        _f(
            "Insight",
            "I realized the baseline used a different tokenizer, which explains the gap",
            "What did I realize about the baseline?",
        ),
        _f(
            "Insight",
            "I realized my best ideas come when I sketch the argument by hand first",
            "What did I notice about how I work best?",
        ),
        _f(
            "Insight",
            "It turns out the evaluation script was skipping the last batch",
            "What did we find out about the evaluation script?",
            "assistant",
        ),
    ),
    chains=(
        ChainTemplate(
            name="quota",
            cause=_f(
                "Reminder",
                "Remember that the lab's GPU quota drops to {cut} hours after {funding}",
                "What happens to my GPU quota?",
            ),
            decision=_f(
                "Decision",
                "Given the quota cut, we decided to switch from the large "
                "model to the distilled variant",
                "Which model size are we using?",
            ),
            effect=_f(
                "Decision",
                "Since we use the distilled variant, the results chapter gets "
                "an extra distillation ablation",
                "What is being added to the results chapter?",
            ),
            why="Why did we switch to the distilled variant?",
            why_keywords=("GPU quota", "{cut} hours", "distilled variant"),
            impact="What did the GPU quota cut affect?",
            impact_keywords=(
                "distilled variant",
                "large model",
                "results chapter",
                "distillation ablation",
            ),
        ),
        ChainTemplate(
            name="annotation",
            cause=_f(
                "KeyFact",
                "Reviewer two said the original annotation guide was ambiguous",
                "What did reviewer two say?",
            ),
            decision=_f(
                "Decision",
                "We decided to re-annotate the test split with two annotators per item",
                "What are we doing about the test split?",
            ),
            effect=_f(
                "KeyFact",
                "Because of the re-annotation, the inter-annotator agreement "
                "table moves into chapter four",
                "Where does the agreement table go?",
            ),
            why="Why are we re-annotating the test split?",
            why_keywords=("reviewer two", "annotation guide", "ambiguous", "two annotators"),
            impact="What did reviewer two's comment affect?",
            impact_keywords=(
                "re-annotate",
                "test split",
                "inter-annotator agreement",
                "chapter four",
            ),
        ),
        ChainTemplate(
            name="funding",
            cause=_f(
                "KeyFact",
                "My funding ends in {funding} and cannot be extended",
                "When does my funding end?",
            ),
            decision=_f(
                "Decision",
                "We decided to submit before the summer instead of adding a third study",
                "What did we decide about a third study?",
            ),
            effect=_f(
                "Decision",
                "Without the third study, the discussion chapter will focus "
                "on limitations and future work",
                "What will the discussion chapter focus on?",
            ),
            why="Why did we decide against a third study?",
            why_keywords=("funding ends", "{funding}", "cannot be extended", "third study"),
            impact="What did the end of my funding affect?",
            impact_keywords=(
                "third study",
                "before the summer",
                "discussion chapter",
                "limitations",
            ),
        ),
    ),
    user_filler=(
        "How should I structure the introduction so it doesn't ramble?",
        "What's a good daily writing routine?",
        "How do I know when an experiment is done enough?",
        "Can you help me outline the methods chapter?",
        "How do I deal with a plot that looks messy?",
        "What should go in the appendix versus the main text?",
        "Ok, how do I prepare for the defence questions?",
        "How do I keep my bibliography tidy?",
        "How much should I talk about failed experiments?",
        "What's the best way to get feedback from my committee?",
        "Thanks. How do I write a good abstract?",
        "How do I make the contributions section convincing?",
        "Can you suggest a system for tracking experiment results?",
        "What's a reasonable length for each chapter?",
        "How do I handle a reviewer who misunderstood the method?",
        "How should I back up everything?",
        "What should I do when I feel stuck on a section?",
        "How formal should the writing style be?",
        "How do I present negative results without sounding defensive?",
        "Any tips for the final proofreading pass?",
        "How do I balance writing with running new experiments?",
    ),
    assistant_filler=(
        "A strong introduction moves from the broad problem to the specific gap and ends with "
        "a short list of contributions.",
        "Many people write best in a fixed morning block, protected from email and meetings.",
        "An experiment is done when its result answers the question it was designed for, not "
        "when every variant has been tried.",
        "The methods chapter should let a careful reader reproduce the work without "
        "contacting you.",
        "Messy plots usually improve with fewer lines, larger fonts and a direct label on each "
        "series.",
        "The appendix is for details a reader might check but does not need to follow the "
        "argument.",
        "For the defence, practise explaining each design choice and its most obvious alternative.",
        "A reference manager with a single shared library avoids duplicated and broken entries.",
        "Failed experiments are worth a short paragraph when they rule out an obvious "
        "alternative explanation.",
        "Committee members respond best to short, specific questions with a deadline.",
        "A good abstract states the problem, the approach, the main result and why it "
        "matters, in that order.",
        "Contributions are convincing when each one points to the section and result that "
        "supports it.",
        "A simple results log with the commit, the config and the metric for each run saves "
        "hours later.",
        "Chapters of twenty to forty pages are typical, but balance matters more than length.",
        "When a reviewer misunderstands, the fix is usually a clearer sentence in the text, "
        "not an argument in the rebuttal.",
        "Keep three copies of everything, on two kinds of media, with one off-site.",
        "When stuck, write the section as bullet points first and turn them into prose later.",
        "Clear, plain sentences read as more confident than ornate academic phrasing.",
        "Negative results read well when framed as evidence about where a method stops working.",
        "Reading the text aloud during proofreading catches awkward sentences quickly.",
        "Scheduling experiments to run overnight leaves the day free for writing.",
        "It helps to keep a running list of open questions at the end of each chapter draft.",
        "Consistent notation across chapters saves the reader a lot of effort.",
    ),
)

DOMAINS: tuple[Domain, ...] = (SOFTWARE, TRIP, RENOVATION, WEDDING, THESIS)

USER_LEADS = (
    "Okay, one more thing.",
    "Quick note so we don't lose it.",
    "Right, that's settled then.",
    "Something I should mention.",
    "Good, thanks.",
    "Let me add a detail.",
    "Alright.",
    "Before we continue.",
    "Update from my side.",
    "",
)
USER_TAILS = (
    "Can you keep that in mind from now on?",
    "Just so it's written down somewhere.",
    "That should simplify things a bit.",
    "Let's keep going.",
    "I'll probably ask about it again later.",
    "",
    "",
)
ASSISTANT_LEADS = (
    "Good question, I looked into it.",
    "I went through the details you sent.",
    "Here is what I found.",
    "That explains a lot, actually.",
)
ASSISTANT_TAILS = (
    "That should help with planning the next steps.",
    "It's worth keeping in mind for later decisions.",
    "Let me know if you want me to dig further.",
)
GENERIC_ASSISTANT = (
    "Happy to help with that.",
    "Let me break this down into a few steps.",
    "There are a couple of trade-offs worth keeping in mind here.",
    "In short, I would start simple and revisit the choice once you have more information.",
    "If you want, I can turn this into a checklist you can tick off.",
    "None of this needs to be perfect on the first pass.",
    "The most important thing is to be consistent once you pick an approach.",
    "It's easy to overthink this part, so it helps to set a time limit for the decision.",
    "A quick sketch on paper often reveals the awkward parts before any money or time is spent.",
    "Writing the options side by side, with their costs and risks, usually makes the answer "
    "obvious.",
    "Asking someone who has done it before can save you a surprising amount of trial and error.",
    "Small, reversible steps are safer than one big change that is hard to undo.",
    "I'd revisit this in a couple of weeks, once you've seen how the first part goes.",
    "Try to keep a short log of what you changed and why, it pays off later.",
    "Most problems at this stage come from unclear expectations rather than technical limits.",
    "A shared document with the current plan prevents people from working from old versions.",
    "When two options are close, pick the one that is easier to explain to everyone involved.",
    "It's fine to leave some questions open for now and decide when you know more.",
    "Budget a little slack in the schedule, things rarely go exactly to plan.",
    "Checklists are boring but they are the cheapest way to avoid forgetting a step.",
    "If something feels complicated, it's worth asking whether it needs to exist at all.",
    "Celebrate the small milestones, long projects need a sense of progress.",
    "Clear ownership of each task avoids the situation where everyone assumes someone else "
    "is handling it.",
    "A short weekly review keeps the plan honest without taking much time.",
    "Good defaults matter more than clever options that nobody uses.",
)
FAREWELLS = (
    "You're welcome, good luck with everything!",
    "Anytime. Talk soon!",
    "Sounds good, I'm here whenever you need me.",
)
CLOSERS = (
    "Thanks, this has been really useful. Let's pick it up again tomorrow.",
    "Great, I think that's enough for today.",
    "Perfect, I'll think about it and come back to you.",
)


# ---------------------------------------------------------------------------------------
# Generated conversations
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlantedFact:
    id: str
    type: FactType
    turn: int  # 1-based position in the conversation
    speaker: str
    wording: str  # verbatim in the turn's text
    question: str
    chain: str | None = None
    link: Literal["cause", "decision", "effect"] | None = None


@dataclass(frozen=True)
class MultiHopQuestion:
    id: str
    kind: Literal["causal", "impact"]
    question: str
    keywords: tuple[str, ...]
    chain: str
    turns: tuple[int, int, int]  # cause, decision, effect


@dataclass(frozen=True)
class PlantedConversation:
    id: str
    seed: int
    index: int
    domain: str
    turns: tuple[tuple[str, str], ...]  # (speaker, text); turn n is turns[n - 1]
    facts: tuple[PlantedFact, ...]
    multihop: tuple[MultiHopQuestion, ...]
    compression_turn: int = COMPRESSION_TURN
    start: datetime = field(default_factory=lambda: datetime(2024, 3, 4, 9, 0, tzinfo=UTC))

    def text(self, turn: int) -> str:
        return self.turns[turn - 1][1]

    def line(self, turn: int) -> str:
        speaker, text = self.turns[turn - 1]
        return f"{speaker}: {text}"

    def transcript(self, first: int = 1, last: int | None = None) -> str:
        last = len(self.turns) if last is None else last
        return "\n".join(self.line(n) for n in range(first, last + 1))

    def to_conversation(self) -> Conversation:
        turns = [
            Turn(
                conversation=self.id,
                session="1",
                session_index=1,
                index=n - 1,
                source_id=f"T{n}",
                speaker=speaker,
                text=text,
                at=self.start + timedelta(minutes=2 * (n - 1)),
            )
            for n, (speaker, text) in enumerate(self.turns, 1)
        ]
        return Conversation(
            id=self.id,
            speakers=list(SPEAKERS.values()),
            turns=turns,
            source_format="bench-planted",
        )


def _fill(template: str, values: dict[str, Any]) -> str:
    return template.format(**values)


def _pick_turn(
    rng: random.Random, lo: int, hi: int, role: Role, taken: set[int], user_first: bool = True
) -> int:
    """A free turn in [lo, hi] that the role speaks (user odd, assistant even)."""
    parity = 1 if (role == "user") == user_first else 0
    options = [n for n in range(lo, hi + 1) if n % 2 == parity and n not in taken]
    if not options:
        raise ValueError(f"no free {role} turn between {lo} and {hi}")
    turn = rng.choice(options)
    taken.add(turn)
    return turn


class _Deck:
    """Draws without replacement, reshuffling when empty (varied filler, no streaks)."""

    def __init__(self, rng: random.Random, items: Sequence[str]) -> None:
        self.rng = rng
        self.items = list(items)
        self.pile: list[str] = []

    def draw(self) -> str:
        if not self.pile:
            self.pile = list(self.items)
            self.rng.shuffle(self.pile)
        return self.pile.pop()


def generate_conversation(
    seed: int,
    index: int,
    *,
    turns: int = TURNS,
    compression_turn: int = COMPRESSION_TURN,
    singles_per_type: int = 2,
    chains: int = 2,
) -> PlantedConversation:
    """One conversation; the same (seed, index) always gives the same conversation."""
    if compression_turn > turns or compression_turn < 20:
        raise ValueError("compression_turn must be in [20, turns]")
    rng = random.Random(f"cogmem-planted:{seed}:{index}")
    domain = DOMAINS[index % len(DOMAINS)]
    values = {slot: rng.choice(options) for slot, options in domain.slots.items()}
    cid = f"planted-s{seed}-{index:03d}"
    taken: set[int] = {1}  # turn 1 opens the conversation
    placed: list[tuple[int, FactTemplate, str | None, str | None]] = []

    third = compression_turn // 3
    for chain in rng.sample(domain.chains, min(chains, len(domain.chains))):
        c = _pick_turn(rng, 2, third, chain.cause.role, taken)
        d = _pick_turn(rng, third + 1, 2 * third, chain.decision.role, taken)
        e = _pick_turn(rng, 2 * third + 1, compression_turn, chain.effect.role, taken)
        placed += [
            (c, chain.cause, chain.name, "cause"),
            (d, chain.decision, chain.name, "decision"),
            (e, chain.effect, chain.name, "effect"),
        ]
    for kind in FACT_TYPES:
        pool = [t for t in domain.singles if t.type == kind]
        for template in rng.sample(pool, min(singles_per_type, len(pool))):
            turn = _pick_turn(rng, 2, compression_turn, template.role, taken)
            placed.append((turn, template, None, None))
    placed.sort(key=lambda item: item[0])

    by_turn = {turn: (template, chain, link) for turn, template, chain, link in placed}
    user_deck = _Deck(rng, domain.user_filler)
    assistant_deck = _Deck(rng, domain.assistant_filler + GENERIC_ASSISTANT)
    texts: list[tuple[str, str]] = []
    facts: list[PlantedFact] = []
    for n in range(1, turns + 1):
        role: Role = "user" if n % 2 == 1 else "assistant"
        speaker = SPEAKERS[role]
        if n == 1:
            texts.append((speaker, _fill(rng.choice(domain.opener), values)))
            continue
        if n == turns - 1 and role == "user":
            texts.append((speaker, rng.choice(CLOSERS)))
            continue
        if n == turns and role == "assistant":
            texts.append((speaker, rng.choice(FAREWELLS)))
            continue
        planted = by_turn.get(n)
        if planted is not None:
            template, chain_name, link = planted
            wording = _fill(template.wording, values)
            if role == "user":
                lead, tail = rng.choice(USER_LEADS), rng.choice(USER_TAILS)
            else:
                lead, tail = rng.choice(ASSISTANT_LEADS), rng.choice(ASSISTANT_TAILS)
            parts = [lead, wording + ".", tail]
            if role == "assistant":
                parts.append(assistant_deck.draw())
            texts.append((speaker, " ".join(p for p in parts if p)))
            facts.append(
                PlantedFact(
                    id=f"{cid}:T{n}",
                    type=template.type,
                    turn=n,
                    speaker=speaker,
                    wording=wording,
                    question=_fill(template.question, values),
                    chain=chain_name,
                    link=link,  # type: ignore[arg-type]
                )
            )
            continue
        if role == "user":
            text = user_deck.draw()
            if rng.random() < 0.35:
                text = f"{rng.choice(('Thanks.', 'Got it.', 'Makes sense.', 'Ok.'))} {text}"
        else:
            text = " ".join(assistant_deck.draw() for _ in range(rng.randint(6, 10)))
        texts.append((speaker, text))

    multihop: list[MultiHopQuestion] = []
    chain_turns: dict[str, dict[str, int]] = {}
    for f in facts:
        if f.chain and f.link:
            chain_turns.setdefault(f.chain, {})[f.link] = f.turn
    for chain in domain.chains:
        if chain.name not in chain_turns:
            continue
        t = chain_turns[chain.name]
        span = (t["cause"], t["decision"], t["effect"])
        for kind, question, keywords in (
            ("causal", chain.why, chain.why_keywords),
            ("impact", chain.impact, chain.impact_keywords),
        ):
            multihop.append(
                MultiHopQuestion(
                    id=f"{cid}:{chain.name}:{kind}",
                    kind=kind,  # type: ignore[arg-type]
                    question=_fill(question, values),
                    keywords=tuple(_fill(k, values) for k in keywords),
                    chain=chain.name,
                    turns=span,
                )
            )
    return PlantedConversation(
        id=cid,
        seed=seed,
        index=index,
        domain=domain.name,
        turns=tuple(texts),
        facts=tuple(facts),
        multihop=tuple(multihop),
        compression_turn=compression_turn,
        start=datetime(2024, 3, 4, 9, 0, tzinfo=UTC) + timedelta(days=index),
    )


def generate(n: int, seed: int = 0, **kwargs: Any) -> list[PlantedConversation]:
    return [generate_conversation(seed, i, **kwargs) for i in range(n)]


# ---------------------------------------------------------------------------------------
# Baselines
# ---------------------------------------------------------------------------------------
def truncation_context(conv: PlantedConversation, last: int = RECENT_TURNS) -> str:
    """What a context window that keeps only the last ``last`` turns still holds."""
    first = max(1, len(conv.turns) - last + 1)
    return conv.transcript(first, len(conv.turns))


def chunk_text(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """Naive fixed-size character chunks with overlapping windows (the last one may be
    shorter); every character of ``text`` is in at least one chunk."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("need size > 0 and 0 <= overlap < size")
    if not text:
        return []
    step = size - overlap
    chunks = []
    for start in range(0, len(text), step):
        chunks.append(text[start : start + size])
        if start + size >= len(text):
            break
    return chunks


class RagIndex:
    """Chunks of one conversation, embedded once; top-k by cosine for a question."""

    def __init__(self, text: str, embedder: Any, size: int = CHUNK_CHARS, overlap: int = 200):
        self.chunks = chunk_text(text, size, overlap)
        self.embedder = embedder
        self.vectors = (
            np.asarray(embedder.embed(self.chunks), dtype=np.float32)
            if self.chunks
            else np.zeros((0, 1), dtype=np.float32)
        )

    def top(self, question: str, k: int) -> list[str]:
        if not self.chunks:
            return []
        q = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
        scores = self.vectors @ q
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.chunks[i] for i in order]

    def context(self, question: str, k: int, budget_tokens: int) -> str:
        return fit_budget(self.top(question, k), budget_tokens)


SUMMARY_PROMPT = (
    "You compress the history of a conversation between a user and an assistant so that the "
    "conversation can continue in a smaller context window. Write a concise summary of what "
    "matters for continuing it: facts, decisions, constraints and insights. Plain prose, "
    "no preamble."
)


def summarization_context(
    conv: PlantedConversation,
    summarize: Callable[[str, str], str],
    budget_tokens: int = BUDGET_TOKENS,
    last: int = RECENT_TURNS,
) -> str:
    """An LLM summary of everything before the last ``last`` turns, then those turns."""
    recent = truncation_context(conv, last)
    room = max(50, budget_tokens - estimate_tokens(recent) - 20)
    history = conv.transcript(1, len(conv.turns) - last)
    summary = summarize(
        SUMMARY_PROMPT + f" Use at most {int(room * 0.7)} words.",
        history,
    ).strip()
    summary_block = fit_budget([f"Summary of earlier conversation: {summary}"], room)
    if not summary_block:  # an over-long summary is cut to the budget, word by word
        words = summary.split()
        while words and estimate_tokens(" ".join(words)) > room - 10:
            words = words[: int(len(words) * 0.9)]
        summary_block = "Summary of earlier conversation: " + " ".join(words)
    return f"{summary_block}\n\n{recent}"


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------
@dataclass
class SystemScores:
    """Per-item outcomes of one system."""

    name: str
    recall: dict[str, bool] = field(default_factory=dict)
    exact: dict[str, bool] = field(default_factory=dict)
    fuzzy: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, float] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)

    def score_fact(self, fact: PlantedFact, context: str) -> None:
        self.fuzzy[fact.id] = fuzzy_score(fact.wording, context)
        self.recall[fact.id] = fuzzy_found(fact.wording, context)
        self.exact[fact.id] = exact_found(fact.wording, context)
        self.tokens.append(estimate_tokens(context))

    def score_question(self, q: MultiHopQuestion, context: str) -> None:
        self.coverage[q.id] = keyword_coverage(q.keywords, context)
        self.tokens.append(estimate_tokens(context))


def summarise_scores(
    scores: SystemScores,
    facts: Sequence[PlantedFact],
    questions: Sequence[MultiHopQuestion],
) -> dict[str, Any]:
    def rate(values: Sequence[bool]) -> float:
        return mean(1.0 if v else 0.0 for v in values)

    by_type = {}
    for kind in FACT_TYPES:
        ids = [f.id for f in facts if f.type == kind]
        by_type[kind] = {
            "facts": len(ids),
            "recall": rate([scores.recall[i] for i in ids]),
            "exact": rate([scores.exact[i] for i in ids]),
        }
    by_kind = {}
    for kind in ("causal", "impact"):
        ids = [q.id for q in questions if q.kind == kind]
        by_kind[kind] = {
            "questions": len(ids),
            "coverage": mean(scores.coverage[i] for i in ids),
            "pass": rate([scores.coverage[i] >= PASS_COVERAGE for i in ids]),
        }
    return {
        "recall": rate(list(scores.recall.values())),
        "exact": rate(list(scores.exact.values())),
        "multihop_coverage": mean(scores.coverage.values()),
        "multihop_pass": rate([c >= PASS_COVERAGE for c in scores.coverage.values()]),
        "by_type": by_type,
        "by_kind": by_kind,
        "mean_context_tokens": round(mean(scores.tokens), 1),
    }


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------
@dataclass
class PlantedResult:
    data: dict[str, Any]
    markdown: str
    written: Written | None = None


Progress = Callable[[str], None]


def _summarizer(settings: Settings) -> tuple[Callable[[str, str], str] | None, Any, str | None]:
    if settings.llm != "openai":
        return (
            None,
            None,
            "skipped: no LLM is configured (settings llm is 'none'); set COGMEM_LLM=openai "
            "and an endpoint to include the summarization baseline",
        )
    from cogmem.llm import LLMClient

    client = LLMClient(settings)
    return (lambda system, user: client.complete_text(system, user)), client, None


def run_planted(
    settings: Settings,
    conversations: int = 50,
    seed: int = 0,
    budget_tokens: int = BUDGET_TOKENS,
    out_dir: Path | None = None,
    store: Any | None = None,
    progress: Progress | None = None,
    argv: Sequence[str] | None = None,
    keep_contexts: bool = False,
) -> PlantedResult:
    """Generate, ingest (one throwaway group per conversation), score every system, write
    the result files to ``out_dir`` (unless None)."""
    from cogmem.api import Memory

    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    convs = generate(conversations, seed)
    facts = [f for c in convs for f in c.facts]
    questions = [q for c in convs for q in c.multihop]
    base = Memory(settings, store=store)
    embedder = base.embedder
    summarize, llm_client, summary_note = _summarizer(settings)
    systems = ["cogmem", "truncation", "rag-top3", "rag-top10"]
    if summarize is not None:
        systems.append("summarization")
    scores = {name: SystemScores(name) for name in systems}
    watch = Stopwatch()
    run_group = bench_group("planted")
    groups: list[str] = []
    ingest_records: dict[str, int] = {}
    samples: list[dict[str, Any]] = []
    conv_tokens: list[int] = []
    try:
        for i, conv in enumerate(convs, 1):
            conv_tokens.append(estimate_tokens(conv.transcript()))
            mem = base.for_group(f"{run_group}-{conv.index:03d}")
            groups.append(mem.group)
            try:
                summary = watch.time(
                    "cogmem ingest",
                    lambda m=mem, c=conv: m.ingest_conversations([c.to_conversation()]),
                )
                for rtype, count in summary.records.items():
                    ingest_records[rtype] = ingest_records.get(rtype, 0) + count
                rag = watch.time("rag index", lambda c=conv: RagIndex(c.transcript(), embedder))
                truncated = truncation_context(conv)
                summary_ctx = None
                if summarize is not None:
                    summary_ctx = watch.time(
                        "summarize",
                        lambda c=conv: summarization_context(c, summarize, budget_tokens),
                    )
                items: list[tuple[str, PlantedFact | MultiHopQuestion]] = [
                    *[(f.question, f) for f in conv.facts],
                    *[(q.question, q) for q in conv.multihop],
                ]
                for question, item in items:
                    contexts = {
                        "cogmem": watch.time(
                            "cogmem context",
                            lambda m=mem, q=question: m.context(q, budget_tokens=budget_tokens),
                        ),
                        "truncation": truncated,
                        "rag-top3": watch.time(
                            "rag query", lambda q=question, r=rag: r.context(q, 3, budget_tokens)
                        ),
                        "rag-top10": watch.time(
                            "rag query", lambda q=question, r=rag: r.context(q, 10, budget_tokens)
                        ),
                    }
                    if summary_ctx is not None:
                        contexts["summarization"] = summary_ctx
                    for name, ctx in contexts.items():
                        if isinstance(item, PlantedFact):
                            scores[name].score_fact(item, ctx)
                        else:
                            scores[name].score_question(item, ctx)
                    if keep_contexts or (len(samples) < 3 and isinstance(item, PlantedFact)):
                        samples.append(
                            {"item": item.id, "question": question, "contexts": contexts}
                        )
            finally:
                mem.forget()
            say(
                f"[{i}/{len(convs)}] {conv.id} ({conv.domain}): recall so far "
                + ", ".join(
                    f"{n} {pct(mean(1.0 if v else 0.0 for v in s.recall.values()))}"
                    for n, s in scores.items()
                )
            )
    finally:
        if llm_client is not None:
            llm_client.close()

    results = {name: summarise_scores(s, facts, questions) for name, s in scores.items()}
    baselines = [n for n in systems if n != "cogmem"]
    best = {
        metric: max(baselines, key=lambda n, m=metric: results[n][m])
        for metric in ("recall", "exact", "multihop_coverage", "multihop_pass")
    }
    misses = [
        {
            "fact": f.id,
            "type": f.type,
            "wording": f.wording,
            "question": f.question,
            "fuzzy": round(scores["cogmem"].fuzzy[f.id], 1),
        }
        for f in facts
        if not scores["cogmem"].recall[f.id]
    ]
    info = machine_info(base.store, embedder.name, settings.neo4j_uri)
    data: dict[str, Any] = {
        "benchmark": "planted",
        "when": now_iso(),
        "command": command_line(argv),
        "machine": info,
        "machine_line": machine_line(info),
        "parameters": {
            "conversations": conversations,
            "seed": seed,
            "turns": TURNS,
            "compression_turn": COMPRESSION_TURN,
            "budget_tokens": budget_tokens,
            "truncation_turns": RECENT_TURNS,
            "rag_chunk_chars": CHUNK_CHARS,
            "rag_chunk_overlap": CHUNK_OVERLAP,
            "pass_coverage": PASS_COVERAGE,
            "fuzzy_threshold": 80,
            "extractor": base.extractor.name,
            "llm": settings.llm,
            "embed_threads": settings.embed_threads,
        },
        "dataset": {
            "facts": len(facts),
            "facts_by_type": {k: sum(1 for f in facts if f.type == k) for k in FACT_TYPES},
            "multihop_questions": len(questions),
            "mean_conversation_tokens": round(mean(conv_tokens), 1),
            "domains": sorted({c.domain for c in convs}),
        },
        "systems": systems,
        "summarization": summary_note or "included",
        "results": results,
        "best_baseline": best,
        "cogmem_ingest_records": ingest_records,
        "timing": {**watch.summary(), "total_s": round(time.perf_counter() - started, 1)},
        "groups": groups,
        "cogmem_misses": misses[:200],
        "sample_contexts": samples,
    }
    markdown = render_markdown(data)
    written = None
    if out_dir is not None:
        written = write_results(
            out_dir, "planted", markdown, data, chart=lambda plt, p: _chart(plt, p, data)
        )
    if store is None:
        base.close()
    return PlantedResult(data=data, markdown=markdown, written=written)


def render_markdown(data: dict[str, Any]) -> str:
    res = data["results"]
    systems = data["systems"]
    best = data["best_baseline"]
    p = data["parameters"]
    ds = data["dataset"]
    by_type = ", ".join(f"{k} {v}" for k, v in ds["facts_by_type"].items())
    lines = [
        "# Planted-facts benchmark (controlled retention, after CogCanvas §4)",
        "",
        f"- command: `{data['command']}`",
        f"- machine: {data['machine_line']}",
        f"- when: {data['when']}; total {data['timing']['total_s']} s",
        f"- {p['conversations']} conversations × {p['turns']} turns (seed {p['seed']}), "
        f"{ds['facts']} planted facts ({by_type}), "
        f"{ds['multihop_questions']} multi-hop questions; compression at turn "
        f"{p['compression_turn']}; mean conversation ≈ {ds['mean_conversation_tokens']:.0f} tokens",
        f"- every system gets the same context budget: {p['budget_tokens']} estimated tokens "
        f"(`cogmem.answer.estimate_tokens`); cogmem extractor `{p['extractor']}`, LLM "
        f"`{p['llm']}`",
        f"- summarization baseline: {data['summarization']}",
        "",
        "## Results",
        "",
    ]
    headers = [
        "system",
        "recall",
        "exact match",
        "multi-hop KW coverage",
        "multi-hop pass",
        "mean context tokens",
    ]
    rows = [
        [
            n,
            pct(res[n]["recall"]),
            pct(res[n]["exact"]),
            pct(res[n]["multihop_coverage"]),
            pct(res[n]["multihop_pass"]),
            f"{res[n]['mean_context_tokens']:.0f}",
        ]
        for n in systems
    ]
    rows.append(
        [
            "cogmem vs best baseline",
            *[
                f"{ratio_text(res['cogmem'][m], res[best[m]][m])} vs {best[m]}"
                for m in ("recall", "exact", "multihop_coverage", "multihop_pass")
            ],
            "",
        ]
    )
    lines.append(markdown_table(headers, rows))
    lines += ["", "## By fact type (recall / exact match)", ""]
    headers = ["system", *[f"{k} ({ds['facts_by_type'][k]})" for k in FACT_TYPES]]
    rows = [
        [
            n,
            *[
                f"{pct(res[n]['by_type'][k]['recall'])} / {pct(res[n]['by_type'][k]['exact'])}"
                for k in FACT_TYPES
            ],
        ]
        for n in systems
    ]
    lines.append(markdown_table(headers, rows))
    lines += ["", "## Multi-hop by question kind (keyword coverage / pass rate)", ""]
    headers = ["system", "causal (why …?)", "impact (what did … affect?)"]
    rows = [
        [
            n,
            *[
                f"{pct(res[n]['by_kind'][k]['coverage'])} / {pct(res[n]['by_kind'][k]['pass'])}"
                for k in ("causal", "impact")
            ],
        ]
        for n in systems
    ]
    lines.append(markdown_table(headers, rows))
    timing = data["timing"]
    lines += ["", "## Timing", ""]
    rows = [
        [phase, v["calls"], v["total_s"], v["mean_ms"], v["p50_ms"], v["p95_ms"]]
        for phase, v in timing.items()
        if isinstance(v, dict)
    ]
    lines.append(markdown_table(["phase", "calls", "total s", "mean ms", "p50 ms", "p95 ms"], rows))
    lines += [
        "",
        "## How it is scored",
        "",
        "- recall: rapidfuzz `partial_ratio(wording, context) >= 80` (case-insensitive); "
        "exact: the wording verbatim in the context.",
        "- multi-hop: keyword coverage = fraction of the chain's ground-truth keywords found in "
        "the context; pass = coverage >= 80 %. Contexts are scored directly (no LLM answer).",
        "- cogmem's context is `Memory.context(question, budget)` with the API's default "
        "k = 15 evidence blocks, so it usually fills less than the budget (see mean context "
        "tokens).",
        "- truncation keeps the last 5 turns; RAG embeds 1000-character chunks (200 overlap) "
        "with the same embedder and packs the top-k whole chunks in rank order under the "
        "budget (so top-10 is cut to what fits).",
        f"- cogmem misses (first ones) are listed in `planted.json` → `cogmem_misses` "
        f"({len(data['cogmem_misses'])} recorded).",
    ]
    return "\n".join(lines)


def _chart(plt: Any, path: Path, data: dict[str, Any]) -> None:
    res = data["results"]
    systems = data["systems"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    metrics = [
        ("recall", "recall"),
        ("exact", "exact"),
        ("multihop_coverage", "multi-hop KW"),
        ("multihop_pass", "multi-hop pass"),
    ]
    grouped_bars(
        ax1,
        [label for _, label in metrics],
        {n: [res[n][m] for m, _ in metrics] for n in systems},
        ylabel="%",
        title="Planted facts: retention and multi-hop",
    )
    grouped_bars(
        ax2,
        list(FACT_TYPES),
        {n: [res[n]["by_type"][k]["recall"] for k in FACT_TYPES] for n in systems},
        ylabel="recall %",
        title="Recall by fact type",
    )
    fig.suptitle(data["machine_line"], fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
