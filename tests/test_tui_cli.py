"""`uno play --rules` takes what the rest of the project calls a rule set: a preset and options."""

from __future__ import annotations

import pytest

from unolan.cli import build_parser


def test_uno_play_takes_a_preset_with_options() -> None:
    args = build_parser().parse_args(["play", "--rules", "party stacking=same"])
    assert args.rules.preset_name == "party"
    assert args.rules.changes() == {"stacking": "same"}
    assert build_parser().parse_args(["play"]).rules.preset_name == "house"


def test_uno_play_refuses_an_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--rules", "house bogus=1"])
    assert "unknown option 'bogus'" in capsys.readouterr().err
