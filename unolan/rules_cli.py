"""``uno rules``: load a position, apply actions, print the events and the new position.

This is how rule scenarios and bug reports are written: a position in the notation of
docs/notation.md plus a list of actions, run through the real engine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from unolan.client.i18n import N_, _
from unolan.engine import (
    OPTIONS,
    PRESETS,
    Game,
    IllegalAction,
    NotationError,
    Rules,
    RulesError,
    parse_actions,
    parse_position,
)

EPILOG = N_("""\
examples:
  uno rules --new --players 3 --seed 7                 deal a new game and print it
  uno rules table.txt -a "1 play R5" -a "2 draw"       apply two actions to a saved position
  uno rules --position "hand 0: R5 G7; hand 1: B1; discard: R3; turn: 0" -a "0 play R5 uno"
  uno rules --options                                  list every rule option
""")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rules",
        help=_("apply actions to a position and print what happens (rule scenarios, bug reports)"),
        description=_("Load a position (docs/notation.md), apply actions, and print each "
                      "action's events and the resulting position: how rule scenarios and bug "
                      "reports are written."),
        epilog=_(EPILOG),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", help=_("a position file (docs/notation.md); '-' reads stdin"))
    parser.add_argument("--position", help=_("a position given inline, lines separated by ';'"))
    parser.add_argument("--new", action="store_true", help=_("deal a new game instead of loading one"))
    parser.add_argument("--rules", default="house", help=_("rules for --new: a preset and options, "
                                                          "e.g. 'party stacking=same' (default: house)"))
    parser.add_argument("--players", type=int, default=4, help=_("players for --new (2-10, default 4)"))
    parser.add_argument("--seed", default="0", help=_("seed for --new (default 0)"))
    parser.add_argument("-a", "--action", action="append", default=[], metavar="ACTION",
                        help=_("an action such as '1 play R5' (repeatable; ';' separates several)"))
    parser.add_argument("--actions-file", help=_("a file of actions, one per line"))
    parser.add_argument("--view", type=int, metavar="SEAT", help=_("also print what SEAT may see"))
    parser.add_argument("--quiet", action="store_true", help=_("print only the final position"))
    parser.add_argument("--options", action="store_true", help=_("list every rule option and preset"))
    parser.set_defaults(run=run)


def _load(args: argparse.Namespace) -> Game:
    if args.new:
        seed = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
        return Game(Rules.parse(args.rules), players=args.players, seed=seed)
    if args.position:
        text = args.position
    elif args.file == "-":
        text = sys.stdin.read()
    elif args.file:
        text = Path(args.file).read_text(encoding="utf-8")
    else:
        raise NotationError(_("give a position file, --position TEXT, or --new"))
    return parse_position(text)


def _print_options() -> int:
    print(_("presets:") + " " + ", ".join(PRESETS))
    for option in OPTIONS:
        default = option.format(option.default)
        print(f"  {option.name:22} {option.describe():34} " + _("default") + f" {default:14} "
              + _(option.meaning))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.options:
        return _print_options()
    try:
        game = _load(args)
        text = "\n".join(args.action)
        if args.actions_file:
            text += "\n" + Path(args.actions_file).read_text(encoding="utf-8")
        actions = parse_actions(text)
    except (NotationError, RulesError, OSError, ValueError) as exc:
        print(f"uno rules: {exc}", file=sys.stderr)
        return 2
    if args.new and not args.quiet:
        for event in game.start_events:
            print(event)
    for action in actions:
        try:
            events = game.apply(action)
        except IllegalAction as exc:
            print("uno rules: " + _("illegal action {action}: {reason}").format(
                action=action, reason=exc.reason), file=sys.stderr)
            print(exc.position, file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"> {action}")
            for event in events:
                print(f"  {event}")
    print(game.position())
    if args.view is not None:
        print("\n" + _("view of seat {seat}:").format(seat=args.view))
        for key, value in game.view(args.view).to_dict().items():
            if key != "rules":
                print(f"  {key}: {value}")
    return 0
