"""A deal nobody can stack: the hashes, the deal again from a seed, the client's verdict."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from unolan.client.verify import FAILED, UNCHECKED, VERIFIED, DealVerifier, Verdict, verify_record
from unolan.engine import Deal, Game, Rules, parse_action
from unolan.engine.fairness import commitment, deal_batch, round_seed

SECRET, SALT = "a" * 64, "b" * 64
NONCES = ["n0", "n1", "seat-2_x", "Z"]


def test_the_hashes_are_sha256_of_the_documented_bytes() -> None:
    assert commitment(SECRET, SALT) == hashlib.sha256(f"{SECRET}:{SALT}".encode()).hexdigest()
    assert round_seed(SECRET, NONCES) == hashlib.sha256(
        ("a" * 64 + ":n0:n1:seat-2_x:Z").encode()).hexdigest()
    with pytest.raises(ValueError, match="nonce"):
        round_seed(SECRET, ["a:b", "c"])  # the separator cannot hide in a nonce


def test_a_deal_names_its_seed_in_the_notation() -> None:
    assert str(Deal(2, "f00d")) == "2 deal f00d" and parse_action("2 deal f00d") == Deal(2, "f00d")
    assert parse_action("1 deal") == Deal(1) and parse_action("1 deal 42") == Deal(1, 42)


def _finish_round(game: Game, rng: random.Random) -> None:
    while game.phase.value not in ("round_over", "match_over"):
        game.apply(rng.choice([a for s in range(game.players) for a in game.legal_actions(s)]))


def test_every_round_is_dealt_again_from_its_seed_alone() -> None:
    rules, rng = Rules.preset("house"), random.Random(3)
    seeds = [round_seed(SECRET, [f"r{r}s{s}" for s in range(3)]) for r in range(1, 4)]
    game = Game(rules, 3, seeds[0])
    assert deal_batch(rules, 3, seeds[0], 1) == game.start_events
    for rnd, seed in enumerate(seeds[1:], 2):
        _finish_round(game, rng)
        if game.over:
            break
        dealer, scores = game.turn, list(game.scores)
        events = game.apply(Deal(dealer, seed))
        assert game.seed == seed and game.round == rnd
        assert deal_batch(rules, 3, seed, rnd, dealer, scores) == events


class FairServer:
    """What a server tells one seat about a match: honest, or dealing from ``cheat``."""

    def __init__(self, players: int = 4, cheat: str | None = None) -> None:
        self.rules = Rules.preset("house")
        self.players, self.cheat = players, cheat

    def round_one(self, seat: int | None, nonces: list[str], drawn: list[int]) -> list[tuple[str, dict]]:
        seed = round_seed(SECRET, nonces)
        dealt = Game(self.rules, self.players, self.cheat or seed)
        out = [("commitment", {"round": 1, "commitment": commitment(SECRET, SALT)})]
        out += [(e.kind, e.data_for(seat)) for e in dealt.start_events]
        out.append(("reveal", {"round": 1, "secret": SECRET, "salt": SALT, "nonces": nonces,
                               "drawn": drawn, "seed": seed}))
        return out


def _verdict(events: list[tuple[str, dict]], seat: int | None, nonce: str | None = None,
             rules: Rules | None = None) -> object:
    verifier = DealVerifier(seat, (rules or Rules.preset("house")).to_dict())
    if nonce is not None:
        verifier.sent_nonce(1, nonce)
    verdicts = [v for kind, data in events if (v := verifier.feed(kind, json.loads(json.dumps(data))))]
    assert len(verdicts) == 1
    return verdicts[0]


def test_a_verified_round_passes_for_every_seat_and_a_spectator() -> None:
    server = FairServer()
    for seat in (0, 1, 2, 3, None):
        verdict = _verdict(server.round_one(seat, NONCES, []), seat, None if seat is None else NONCES[seat])
        assert verdict.status == VERIFIED, verdict  # type: ignore[attr-defined]


def test_a_server_dealing_from_another_seed_is_caught() -> None:
    server = FairServer(cheat="a seed the server liked better")
    verdict = _verdict(server.round_one(2, NONCES, []), 2, NONCES[2])
    assert verdict.status == FAILED and "do not follow from the seed" in verdict.reason  # type: ignore[attr-defined]


def test_a_secret_other_than_the_committed_one_is_caught() -> None:
    events = FairServer().round_one(1, NONCES, [])
    events[0][1]["commitment"] = commitment("c" * 64, SALT)
    verdict = _verdict(events, 1, NONCES[1])
    assert verdict.status == FAILED and "committed" in verdict.reason  # type: ignore[attr-defined]


def test_a_nonce_left_out_is_caught_and_a_missing_one_drawn_by_the_server_is_not() -> None:
    events = FairServer().round_one(1, NONCES, [])
    verdict = _verdict(events, 1, "what-I-really-sent")
    assert verdict.status == FAILED and "nonce" in verdict.reason  # type: ignore[attr-defined]
    # Seat 3 sent none (or too late): the server drew one and said so.
    assert _verdict(FairServer().round_one(3, NONCES, [3]), 3, "late").status == VERIFIED  # type: ignore[attr-defined]


def test_a_member_that_missed_the_commitment_cannot_check() -> None:
    events = FairServer().round_one(0, NONCES, [])[1:]
    assert _verdict(events, 0).status == UNCHECKED  # type: ignore[attr-defined]


def test_uno_verify_reads_a_saved_match(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lines = [json.dumps({"seat": 2}), json.dumps({"rules": Rules.preset("house").to_dict()}),
             json.dumps({"round": 1, "nonce": NONCES[2]})]
    for seq, (kind, data) in enumerate(FairServer().round_one(2, NONCES, []), 1):
        lines.append(json.dumps({"seq": seq, "kind": kind, "data": data}))
    assert [v.status for v in verify_record(lines)] == [VERIFIED]
    cheat = [json.dumps({"seq": s, "kind": k, "data": d})
             for s, (k, d) in enumerate(FairServer(cheat="x").round_one(2, NONCES, []), 1)]
    assert [v.status for v in verify_record(lines[:3] + cheat)] == [FAILED]


def test_the_documented_fair_deal_checks_out() -> None:
    """docs/protocol.md's commitment, reveal and dealt hand are what the code computes."""
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()

    def example(kind: str) -> dict:
        block = re.search(rf"<!-- example: event/{kind} -->\n```json\n(.*?)\n```", text, re.S)
        assert block
        return json.loads(block.group(1))["data"]

    committed, reveal = example("commitment"), example("reveal")
    verifier = DealVerifier(2, Rules.preset("house").to_dict())
    verifier.feed("commitment", committed)
    seed = reveal["seed"]
    for event in Game(Rules.preset("house"), 4, seed).start_events:
        verifier.feed(event.kind, json.loads(json.dumps(event.data_for(2))))
    assert verifier.feed("reveal", reveal) == verifier.verdicts[0] and verifier.verdicts[0].ok
    hand = re.search(r"<!-- deal-vector -->`([A-Z0-9 ]+)`", text)
    assert hand
    assert [c.text for c in Game(Rules.preset("house"), 4, seed).hands[2]] == hand.group(1).split()


def test_uno_verify_prints_each_round_and_says_so_in_its_status(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from unolan.cli import main

    def saved(server: FairServer) -> str:
        path = tmp_path / f"{id(server)}.jsonl"
        lines = [{"seat": 0}, {"rules": Rules.preset("house").to_dict()}, {"round": 1, "nonce": NONCES[0]}]
        lines += [{"seq": q, "kind": k, "data": d} for q, (k, d) in enumerate(server.round_one(0, NONCES, []), 1)]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return str(path)

    assert main(["verify", saved(FairServer())]) == 0
    assert "round 1: deal verified" in capsys.readouterr().out
    assert main(["verify", saved(FairServer(cheat="loaded"))]) == 1
    assert "deal FAILED" in capsys.readouterr().out
    (tmp_path / "junk").write_text("not json\n")
    assert main(["verify", str(tmp_path / "junk")]) == 2
    assert "line 1 is not JSON" in capsys.readouterr().err
    assert main(["verify", saved(FairServer()), "--lang", "zh-Hant"]) == 0
    assert capsys.readouterr().out == "第 1 局：發牌驗證通過\n檢查過的 1 局發牌都公平\n"
    assert main(["verify", saved(FairServer(cheat="loaded")), "--lang", "zh-Hans"]) == 1
    out = capsys.readouterr().out
    assert "第 1 局：发牌验证失败：发出的牌不是从种子来的" in out and "1 局中有 1 局" in out


def test_the_table_shows_a_mark_for_a_fair_deal_and_a_loud_warning_for_an_unfair_one() -> None:
    from unolan.client.tui.render import deal_mark
    from unolan.client.tui.state import UIState

    state = UIState(name="ann")
    state.on_verdict(Verdict(1, VERIFIED))
    assert "✓" in "".join(text for _, text in deal_mark(state))
    state.on_verdict(Verdict(2, FAILED, "the cards dealt do not follow from the seed ({what} differs)",
                             {"what": "hand"}))
    assert "ROUND 2 WAS NOT DEALT FAIRLY" in "".join(text for _, text in deal_mark(state))
    assert any("NOT dealt" in n.text for n in state.current_notices())
    state.on_verdict(Verdict(3, VERIFIED))  # the alarm stays
    assert "ROUND 2" in "".join(text for _, text in deal_mark(state))


def test_the_servers_fair_deal_takes_each_seats_nonce_once_and_draws_the_missing() -> None:
    from unolan.server.fairness import FairDeal

    deal = FairDeal(1, 3, asked=[0, 2], deadline=5.0)
    assert deal.announce() == {"round": 1, "commitment": commitment(deal.secret, deal.salt)}
    assert deal.offer(None, 1, "x") == "a spectator sends no nonce"
    assert deal.offer(0, 2, "x") == "no nonce is asked for round 2 now"
    assert deal.offer(0, 1, "first") is None and not deal.complete
    assert deal.offer(0, 1, "again") == "seat 0 has sent its nonce for round 1"
    assert deal.offer(2, 1, "third") is None and deal.complete  # seat 1 was not asked
    seed = deal.seal()
    reveal = deal.reveal()
    assert reveal["drawn"] == [1] and reveal["nonces"][0] == "first" and reveal["seed"] == seed
    assert round_seed(reveal["secret"], reveal["nonces"]) == seed
    assert deal.offer(1, 1, "late") == "no nonce is asked for round 1 now"


def test_races_give_a_receipt_per_race_with_every_contender_in_arrival_order() -> None:
    from unolan.server.receipts import Races

    races = Races(window=0.5)
    races.won(1, decided=53, seq=56, now=10.0)
    races.lost(3, 53, "too_late", now=10.003)
    races.lost(2, 53, "bad_play", now=10.004)  # its own mistake: no contender
    races.lost(0, 53, "too_late", now=10.041)
    races.lost(2, 56, "too_late", now=10.05)  # it had seen the winner's events: another race
    races.won(2, decided=56, seq=57, now=10.2)  # no loser: no receipt
    assert races.due(10.4) == [] and races.deadline == 10.5
    (receipt,) = races.due(10.5)
    assert receipt == {"winner": 1, "seq": 56, "contenders": [
        {"seat": 1, "order": 1, "seq": 53, "after": 0, "result": "won"},
        {"seat": 3, "order": 2, "seq": 53, "after": 3, "result": "too_late"},
        {"seat": 0, "order": 3, "seq": 53, "after": 41, "result": "too_late"}]}
    assert races.due(11.0) == [] and races.deadline is None


def test_a_lost_race_says_where_you_came_and_by_how_much() -> None:
    from unolan.client.tui.state import describe

    data = {"winner": 1, "seq": 56, "contenders": [
        {"seat": 1, "order": 1, "seq": 53, "after": 0, "result": "won"},
        {"seat": 3, "order": 2, "seq": 53, "after": 3, "result": "too_late"},
        {"seat": 0, "order": 3, "seq": 53, "after": 41, "result": "too_late"}]}
    names = {0: "ann", 1: "bob", 3: "cy"}.get

    def name_of(seat: int | None) -> str:
        return names(seat, "?") if seat is not None else "?"

    assert describe("receipt", data, name_of, 3) == ("you were second by 3 ms: bob won the race", "error")
    assert describe("receipt", data, name_of, 0)[0] == "you were third by 41 ms: bob won the race"  # type: ignore[index]
    assert describe("receipt", data, name_of, 1)[0] == "you won the race (cy +3 ms, ann +41 ms)"  # type: ignore[index]
    assert describe("receipt", data, name_of, None)[0] == "bob won the race (cy +3 ms, ann +41 ms)"  # type: ignore[index]
    assert describe("receipt", data, name_of, 2) is None  # a player not in the race: not told of it


def test_a_deal_seen_in_part_is_unchecked_never_failed() -> None:
    events = FairServer().round_one(1, NONCES, [])
    verifier = DealVerifier(1, Rules.preset("house").to_dict())
    verifier.sent_nonce(1, NONCES[1])
    for kind, data in events[:3]:  # the commitment, the dealer draw, round_started...
        verifier.feed(kind, json.loads(json.dumps(data)))
    verifier.lost_track()  # ...then a gap, and a snapshot
    for kind, data in events[3:]:
        verdict = verifier.feed(kind, json.loads(json.dumps(data)))
    assert verdict is not None and verdict.status == UNCHECKED
