"""Contestants' display names and status words (arena/names.py, issue 34): shortened from
the left, never losing what tells two contestants apart; "hung" for an attempt ended as hung."""

from __future__ import annotations

from arena.heats import split
from arena.names import Namer, shown_status
from arena.view import view_of
from arena.events import Event


def test_two_models_of_one_family_stay_apart_at_every_length():
    namer = Namer([("codex@openai/gpt-4.1-mini", ""), ("codex@openai/gpt-4.1", "")])
    mini, full = namer.forms("codex@openai/gpt-4.1-mini"), namer.forms("codex@openai/gpt-4.1")
    assert mini == ("codex@openai/gpt-4.1-mini", "codex@gpt-4.1-mini", "codex@…4.1-mini")
    assert full == ("codex@openai/gpt-4.1", "codex@gpt-4.1", "codex@…4.1")
    assert not set(mini) & set(full)
    assert namer.name("codex@openai/gpt-4.1-mini", width=16) == "codex@…4.1-mini"
    assert namer.name("codex@openai/gpt-4.1-mini", width=5) == "codex@…4.1-mini"  # never cut: the caller wraps


def test_the_provider_stays_when_it_is_what_differs():
    a, b = "bot (codex, openai/gpt-4.1)", "bot (codex, azure/gpt-4.1)"
    namer = Namer([(a, "openai/gpt-4.1"), (b, "azure/gpt-4.1")])
    assert namer.forms(a, "openai/gpt-4.1") == (a,)  # dropping the provider or the family would join them
    alone = Namer([(a, "openai/gpt-4.1")]).forms(a, "openai/gpt-4.1")
    assert alone == (a, "bot (codex, gpt-4.1)", "bot (codex, …4.1)")


def test_families_that_differ_in_their_first_word_are_not_cut():
    namer = Namer([("codex@openai/gpt-4.1", ""), ("codex@openai/o3", "")])
    assert namer.shortest("codex@openai/gpt-4.1") == "codex@gpt-4.1"
    assert namer.shortest("codex@openai/o3") == "codex@o3"


def test_a_plan_name_is_shown_whole_and_agents_without_a_model_as_they_are():
    namer = Namer([("scripted:elite", "")])
    assert namer.forms("scripted:elite", "", "house-bot") == ("house-bot",)
    assert namer.forms("scripted:elite") == ("scripted:elite",)


def test_hung_on_every_screen_and_other_words_unchanged():
    assert shown_status("finished", "agent hung") == "hung"
    assert shown_status("finished", "Agent hung: no output for 60 s") == "hung"
    assert shown_status("hung") == "hung"
    for status in ("finished", "infra_error", "interrupted", "running"):
        assert shown_status(status, "time limit reached") == status
    view = view_of(
        [
            Event(attempt="a-1", t=0, kind="attempt.started", data={"agent": "x", "heat": "r-1", "contestant": "X"}),
            Event(attempt="a-1", t=9, kind="attempt.finished", data={"status": "finished", "reason": "agent hung"}),
        ]
    )
    assert (view.shown_status, view.name, view.heat) == ("hung", "X", "r-1")


def test_the_current_heat_and_the_older_attempts():
    def v(heat: str):
        return view_of([Event(attempt="a", t=0, kind="attempt.started", data={"agent": "x", "heat": heat})])

    views = {"a": v("r-old"), "b": v("r-new"), "c": v(""), "d": v("r-new")}
    order = ["a", "b", "c", "d"]
    assert split(order, views, heat="r-new", own=True, is_local=lambda a: a == "c") == (["b", "c", "d"], ["a"])
    assert split(order, views, heat=None, own=True, is_local=lambda a: False) == ([], order)  # before its run
    assert split(order, views, heat=None, own=False, is_local=lambda a: False) == (order, [])  # no heats known
