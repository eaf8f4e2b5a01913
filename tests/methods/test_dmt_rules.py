"""DMT-RoleBench rules: metrics per role type, the ALL/ANY prefix rules, curves, scores, majority."""

from __future__ import annotations

import pytest

from pingpong.core.methods.dmt_rules import (
    ANY_METRICS,
    DMT_METRICS,
    METRIC_DESCRIPTIONS,
    METRIC_TIERS,
    METRICS_BY_ROLE_TYPE,
    ROLE_TYPES,
    conversation_passes,
    dmt_curve,
    dmt_metric_score,
    dmt_overall,
    majority_label,
    metrics_for,
)

G, B = True, False  # a good round, a bad round

# --- facts -------------------------------------------------------------------------------------


def test_fourteen_metrics_in_three_tiers_each_once():
    assert len(DMT_METRICS) == 14 and len(set(DMT_METRICS)) == 14
    in_tiers = [m for tier in METRIC_TIERS.values() for m in tier]
    assert sorted(in_tiers) == sorted(DMT_METRICS)
    assert set(METRIC_TIERS) == {"basic", "conversation", "imitation"}
    assert METRIC_TIERS["basic"] == ("instruction_following", "role_embodying")


def test_every_metric_has_a_one_sentence_description():
    assert set(METRIC_DESCRIPTIONS) == set(DMT_METRICS)
    for metric, text in METRIC_DESCRIPTIONS.items():
        assert text.strip().endswith("."), metric
        assert text.count(". ") == 0, metric  # one sentence


def test_role_types_and_their_metric_lists():
    assert set(METRICS_BY_ROLE_TYPE) == set(ROLE_TYPES) and len(ROLE_TYPES) == 6
    conversation = set(METRIC_TIERS["conversation"])
    assert set(metrics_for("fictional")) == {"role_embodying", *conversation, "knowledge_accuracy",
                                             "knowledge_hallucination", "knowledge_exposure", "personality_trait"}
    assert set(metrics_for("historical")) == {"instruction_following", *conversation, "knowledge_accuracy",
                                              "personality_trait"}
    assert set(metrics_for("professional")) == {"instruction_following", *conversation, "knowledge_accuracy",
                                                "knowledge_hallucination"}
    assert metrics_for("assistant") == metrics_for("professional")
    assert set(metrics_for("companion")) == {"instruction_following", *conversation, "empathy",
                                             "personality_trait", "interactivity"}
    assert metrics_for("npc") == ("game_completion",)


def test_metric_lists_are_in_canonical_order_without_repeats():
    for role_type, metrics in METRICS_BY_ROLE_TYPE.items():
        assert list(metrics) == [m for m in DMT_METRICS if m in metrics], role_type


def test_what_does_not_apply():
    assert "role_embodying" not in metrics_for("historical")
    assert "knowledge_hallucination" not in metrics_for("historical")
    assert "instruction_following" not in metrics_for("fictional")
    assert "empathy" not in metrics_for("professional")
    assert "knowledge_accuracy" not in metrics_for("companion")
    assert "game_completion" not in metrics_for("fictional")
    # game_completion belongs to the npc alone
    assert [rt for rt in ROLE_TYPES if "game_completion" in metrics_for(rt)] == ["npc"]


@pytest.mark.parametrize("role_type", [None, "", "villain", "Fictional "])
def test_missing_or_unknown_role_type_is_fictional(role_type):
    assert metrics_for(role_type) == METRICS_BY_ROLE_TYPE["fictional"]


def test_role_type_is_matched_ignoring_case():
    assert metrics_for(" NPC") == ("game_completion",)


def test_any_metrics():
    assert ANY_METRICS == {"interactivity", "knowledge_exposure"}


# --- one conversation --------------------------------------------------------------------------


def test_all_rule_one_bad_round_spoils_every_longer_prefix():
    labels = [G, G, B, G, G]
    # prefixes: [G] pass, [G,G] pass, [G,G,B] fail, and every longer prefix still holds that B
    assert [conversation_passes(labels, tau, any_rule=False) for tau in range(1, 6)] == [G, G, B, B, B]


def test_any_rule_one_good_round_passes_every_longer_prefix():
    labels = [B, B, G, B]
    # prefixes: [B] fail, [B,B] fail, [B,B,G] pass, [B,B,G,B] pass
    assert [conversation_passes(labels, tau, any_rule=True) for tau in range(1, 5)] == [B, B, G, G]


def test_a_short_conversation_is_judged_on_all_its_rounds():
    # 2 rounds, asked for prefix 5: judged on [G, G] -> passes; [G, B] -> fails
    assert conversation_passes([G, G], 5, any_rule=False) is True
    assert conversation_passes([G, B], 5, any_rule=False) is False
    assert conversation_passes([B, G], 5, any_rule=True) is True


def test_no_rounds_pass_nothing_and_tau_starts_at_one():
    assert conversation_passes([], 1, any_rule=False) is False
    assert conversation_passes([], 3, any_rule=True) is False
    with pytest.raises(ValueError):
        conversation_passes([G], 0, any_rule=False)


# --- curves ------------------------------------------------------------------------------------


def test_all_rule_curve_over_conversations_of_different_lengths():
    conversations = [
        [G, G, B, G],  # passes tau 1, 2; fails 3, 4
        [G, G],  # ended after 2 rounds: judged on [G, G] for every tau -> passes 1..4
        [B, G, G],  # fails from tau 1
        [G, G, G, G],  # passes 1..4
    ]
    # N = 4, T = 4
    # tau=1: 1+1+0+1 = 3 -> 0.75
    # tau=2: 1+1+0+1 = 3 -> 0.75
    # tau=3: 0+1+0+1 = 2 -> 0.5
    # tau=4: 0+1+0+1 = 2 -> 0.5
    curve = dmt_curve(conversations, "coherence")
    assert curve == [0.75, 0.75, 0.5, 0.5]
    # Score_m = (0.75 + 0.75 + 0.5 + 0.5) / 4 = 0.625
    assert dmt_metric_score(curve) == pytest.approx(0.625)


def test_any_rule_curve_for_interactivity_and_knowledge_exposure():
    conversations = [
        [B, G, B],  # fails tau 1; passes 2, 3
        [B, B],  # never a good round: fails everything
        [G],  # one good round: passes 1..3
    ]
    # N = 3, T = 3
    # tau=1: 0+0+1 = 1 -> 1/3
    # tau=2: 1+0+1 = 2 -> 2/3
    # tau=3: 1+0+1 = 2 -> 2/3
    for metric in ("interactivity", "knowledge_exposure"):
        assert dmt_curve(conversations, metric) == pytest.approx([1 / 3, 2 / 3, 2 / 3])
    # the same labels under the ALL rule (empathy):
    # tau=1: 0+0+1 = 1 -> 1/3; tau=2: 0+0+1 -> 1/3; tau=3: 0+0+1 -> 1/3
    assert dmt_curve(conversations, "empathy") == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_none_labels_are_left_out_and_the_rest_judged_in_order():
    conversations = [
        [G, None, B],  # judged as [G, B]: passes tau 1, fails tau 2
        [None, G, G],  # judged as [G, G]: passes tau 1, 2
        [None, None],  # no labelled round: not counted at all
    ]
    # N = 2 (the third is left out), T = 2 (the longest labelled conversation)
    # tau=1: 1+1 = 2 -> 1.0
    # tau=2: 0+1 = 1 -> 0.5
    assert dmt_curve(conversations, "fluency") == [1.0, 0.5]


def test_unlabelled_conversation_does_not_lower_the_denominator_share():
    with_empty = dmt_curve([[G, G], [B], []], "diversity")
    without = dmt_curve([[G, G], [B]], "diversity")
    # N = 2 either way: tau=1: 1/2, tau=2: 1/2
    assert with_empty == without == [0.5, 0.5]


def test_empty_input_gives_an_empty_curve_and_no_score():
    assert dmt_curve([], "fluency") == []
    assert dmt_curve([[None], [None, None]], "fluency") == []
    assert dmt_metric_score([]) is None


def test_unknown_metric_is_refused():
    with pytest.raises(ValueError, match="in_character"):
        dmt_curve([[G]], "in_character")


# --- scores ------------------------------------------------------------------------------------


def test_overall_is_the_mean_over_metrics_with_a_score():
    # (0.5 + 1.0 + 0.0) / 3 = 0.5; empathy has no score and is left out
    assert dmt_overall({"fluency": 0.5, "coherence": 1.0, "diversity": 0.0, "empathy": None}) == pytest.approx(0.5)
    assert dmt_overall({"fluency": None}) is None
    assert dmt_overall({}) is None


# --- several judges ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([G, G, B], G),  # 2 good of 3
        ([G, B, B], B),  # 1 good of 3
        ([G, B], B),  # tie 1:1 counts as bad
        ([G, G, B, B], B),  # tie 2:2 counts as bad
        ([G, None, B], B),  # None does not vote: tie 1:1 -> bad
        ([G, None, None], G),  # 1 good of 1 vote
        ([G], G),
        ([B], B),
        ([None, None], None),
        ([], None),
    ],
)
def test_majority_label(labels, expected):
    assert majority_label(labels) is expected
