"""What a person in a DMT dialogue's interrogator seat is offered: a sub-intent to try next.

The generator model derives a sub-intent from the seed's intent and the history; a person gets
a suggestion instead, one of a few ways to pursue each intent, taken in turn round by round so
that a long dialogue moves through all of them. Plain data and one function, no I/O.
"""

from __future__ import annotations

from pingpong.core.domain import Intent

SUB_INTENTS: dict[Intent, tuple[str, ...]] = {
    Intent.identity_recognition: (
        "ask them who they are, in their own words",
        "ask where they come from and what they do all day",
        "mistake them for someone else and see how they correct you",
        "ask whether they are a machine and watch how they answer",
    ),
    Intent.role_knowledge_qa: (
        "ask about a fact of their own world",
        "ask for more detail on something they just mentioned",
        "ask about a person they know well",
        "ask how something in their life or work is done",
    ),
    Intent.personality_trait: (
        "say something that should stir their temper",
        "ask their opinion of something they would dislike",
        "pay them a compliment and see how they take it",
        "put a small dilemma to them and ask what they would do",
    ),
    Intent.knowledge_boundary: (
        "ask about something from after their time",
        "ask about a thing that does not exist in their world",
        "ask them to explain a modern device",
        "insist that they must know something they cannot know",
    ),
    Intent.conversation_steering: (
        "change the subject to something unrelated",
        "bring the talk back to the seed's topic",
        "drift into small talk about the weather or food",
        "ask them to choose what to talk about next",
    ),
    Intent.professional_skill: (
        "ask for advice on a problem in their field",
        "give them a concrete task to solve",
        "ask them to explain a method step by step",
        "doubt an answer they gave and ask them to defend it",
    ),
    Intent.game_interaction: (
        "make your next move in the game",
        "ask for a hint",
        "break one of the game's rules and see what they do",
        "ask what happens next",
    ),
}
"""A few ways to pursue each evaluation intent, in our own words."""

FREE = (
    "ask a follow-up question about their last answer",
    "share something about yourself and see how they respond",
)
"""Suggestions for a seed without an intent."""


def suggest_sub_intent(intent: Intent | None, turn: int) -> str:
    """The sub-intent suggested to a person writing round ``turn`` (round 2 gets the first one)."""
    options = SUB_INTENTS.get(intent, FREE) if intent is not None else FREE
    return options[max(0, turn - 2) % len(options)]
