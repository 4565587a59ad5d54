"""The languages: the catalogs are complete, the language is chosen as documented, the UI
switches while it runs, and wide text keeps the table's columns in place."""

from __future__ import annotations

import gettext
import importlib.util
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.utils import get_cwidth
from test_tui import BASIC, Table, assert_tiles_hold, lobby, table
from unolan.client import i18n
from unolan.client.tui.state import describe
from unolan.protocol import ERROR_CODES
from unolan.server.limits import DEFAULT_PORT

from unolan import cli

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("zh_Hant", "zh_Hans")


def load_catalogs_tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "tools" / "catalogs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped(lang: str) -> gettext.GNUTranslations:
    """The compiled catalog the package ships (what a player's uno reads)."""
    translation = gettext.translation(i18n.DOMAIN, i18n.LOCALE_DIR, [lang])
    assert isinstance(translation, gettext.GNUTranslations)
    return translation


# -- the catalogs ---------------------------------------------------------------------------


def test_every_string_in_the_code_has_a_translation_in_every_catalog() -> None:
    """No English left in Chinese: each string marked in the code (and each engine word the
    form shows) has a non-empty, non-fuzzy entry in each .po."""
    tool = load_catalogs_tool()
    wanted = {m for m, *_ in (*tool.code_messages(), *tool.engine_messages())}
    assert "Wild Draw Four" in wanted and "penalty cards may be stacked to pass the summed penalty on" in wanted
    assert tool.missing() == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_shipped_mo_is_compiled_from_the_po(lang: str) -> None:
    """Each translation of the .po is in the .mo the package ships, word for word (a .po
    edited without `python tools/catalogs.py compile` fails here)."""
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "unolan.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    mo = shipped(lang)
    checked = 0
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            assert mo.ngettext(message.id[0], message.id[1], 1) == message.string[0]
        elif message.context:
            assert mo.pgettext(message.context, message.id) == message.string
        else:
            assert mo.gettext(message.id) == message.string, message.id
        checked += 1
    assert checked > 400


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_code_has_words_in_every_language(lang: str) -> None:
    assert set(i18n.ERROR_TEXTS) == set(ERROR_CODES)
    mo = shipped(lang)
    for code, words in i18n.ERROR_TEXTS.items():
        translated = mo.gettext(words)
        assert translated != words and translated.strip(), (lang, code)


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sr]|%s")


@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_the_placeholders(lang: str) -> None:
    """A translation fills the same {names} and %(names)s as its English, or it would raise
    (or drop a value) when formatted."""
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "unolan.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    for message in catalog:
        if not message.id:
            continue
        english = message.id[-1] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert sorted(_PLACEHOLDER.findall(text)) == sorted(_PLACEHOLDER.findall(english)), english


def test_the_card_and_rule_names_are_the_rule_pages() -> None:
    names = {"Skip": ("跳過", "跳过"), "Reverse": ("翻轉", "翻转"), "Draw Two": ("+2", "+2"),
             "Wild Draw Four": ("王牌 +4", "王牌 +4"), "jump in": ("搶", "抢")}
    for english, (hant, hans) in names.items():
        assert hant in shipped("zh_Hant").gettext(english)
        assert hans in shipped("zh_Hans").gettext(english)
    assert "萬能牌" in shipped("zh_Hant").gettext("Wild") and "变色" in shipped("zh_Hans").gettext("Wild")
    assert "質疑" in shipped("zh_Hant").gettext("challenge a Wild Draw Four")
    assert "喊 UNO" in shipped("zh_Hant").gettext("ONE CARD: press u to call UNO!")


# -- choosing the language ------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "expected"), [
    ("zh-Hant", "zh_Hant"), ("zh_TW", "zh_Hant"), ("zh-HK", "zh_Hant"), ("zh-Hant-TW", "zh_Hant"),
    ("zh-Hans", "zh_Hans"), ("zh_CN.UTF-8", "zh_Hans"), ("zh", "zh_Hans"), ("en", "en"),
    ("en_GB", "en"),
])
def test_lang_names_a_language_as_people_write_it(lang: str, expected: str) -> None:
    assert i18n.language_from(lang, environ={"LC_ALL": "zh_TW.UTF-8"}) == expected


def test_an_unknown_lang_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.language_from("fr", environ={})


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LC_ALL": "zh_TW.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_Hant"),
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "zh_TW.UTF-8"}, "zh_Hans"),
    ({"LANG": "zh_TW.UTF-8"}, "zh_Hant"),
    ({"LC_ALL": "", "LANG": "zh_HK.UTF-8"}, "zh_Hant"),  # set but empty: the next one
    ({"LC_ALL": "fr_FR.UTF-8", "LANG": "zh_TW.UTF-8"}, "en"),  # a language we do not have
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
])
def test_without_lang_the_locale_variables_decide(environ: dict[str, str], expected: str) -> None:
    assert i18n.language_from(None, environ=environ) == expected


def test_uno_help_speaks_the_chosen_language(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit):
        cli.main(["join", "--help", "--lang", "zh-Hant"])
    out = capsys.readouterr().out
    assert out.startswith("用法：uno join") and "你在牌桌上的名字" in out and "選項" in out
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    out = capsys.readouterr().out
    assert "其他座位的电脑玩家数" in out and "显示这份说明后结束" in out


@pytest.mark.parametrize(("command", "words"), [
    (["verify"], "'uno join --record FILE' 寫下的檔案"),
    (["replay"], "從座位 N 的視角開始"),
    (["join"], "之後可用 'uno verify FILE' 再檢查發牌"),
])
def test_the_fair_deal_and_history_commands_help_in_chinese(
        command: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main([*command, "--help", "--lang", "zh-Hant"])
    assert words in capsys.readouterr().out


def test_uno_host_help_speaks_the_chosen_language(capsys: pytest.CaptureFixture[str]) -> None:
    """The server's command has its words from the app shell (the server imports no
    catalog), placeholders filled."""
    with pytest.raises(SystemExit):
        cli.main(["host", "--help", "--lang", "zh-Hant"])
    out = capsys.readouterr().out
    assert out.startswith("用法：uno host") and "執行 UNO 遊戲伺服器" in out and "要監聽的位址" in out
    assert f"TCP 埠（預設 {DEFAULT_PORT}；" in out and f"只在本機提供服務，埠 {DEFAULT_PORT}" in out
    assert "address to listen on" not in out and "examples:" not in out
    with pytest.raises(SystemExit):
        cli.main(["--help", "--lang", "zh-Hans"])  # each command's summary
    out = capsys.readouterr().out
    assert "运行游戏服务器" in out and "比赛记录里每位玩家的成绩" in out and "抢先凭证" in out
    with pytest.raises(SystemExit):
        cli.main(["stats", "--help", "--lang", "zh-Hans"])
    assert "漏喊 UNO 的次数" in capsys.readouterr().out


def test_a_mistake_on_the_command_line_is_told_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--lang=zh-Hant", "play", "--bots", "12"])
    assert exited.value.code == 2
    err = capsys.readouterr().err  # one line: no usage block above it
    assert err.count("\n") == 1 and "無效的選擇" in err and "請看 'uno play --help'" in err
    with pytest.raises(SystemExit) as exited:
        cli.main(["play", "--lang", "fr"])
    assert exited.value.code == 2
    assert "unknown language 'fr'" in capsys.readouterr().err


# -- the running UI ---------------------------------------------------------------------------


def test_the_help_overlay_switches_the_language_of_every_screen() -> None:
    with table(BASIC) as t:
        assert "Your turn" in t.screen()
        t.press("?")
        assert "language: English → 繁體中文" in t.screen()
        t.press("L")
        screen = t.screen()
        assert i18n.language() == "zh_Hant" and "語言：繁體中文 → 简体中文" in screen
        t.press("esc")
        screen = t.screen()
        assert "輪到你" in screen and "順時針" in screen and "Your turn" not in screen
        t.press("?", "L", "esc")
        assert "轮到你" in t.screen() and i18n.language() == "zh_Hans"
        t.press("?", "L", "esc")
        assert "Your turn" in t.screen() and i18n.language() == "en"


def test_a_server_refusal_is_shown_in_the_players_language() -> None:
    """The server's message is English; in Chinese the code's words are shown instead."""
    i18n.set_language("zh_Hant")
    with table(BASIC) as t:
        t.state.on_error("not_host", "only the host may do this")
        t.state.on_error("room_full", "room k3f9 has no free seat")
        screen = t.screen()
        assert "只有房主可以這樣做" in screen and "沒有空位" in screen
        assert "only the host" not in screen and "free seat" not in screen


def test_a_start_refused_for_an_empty_seat_does_not_say_someone_is_not_ready() -> None:
    """``not_ready`` is the server's code for both an empty seat and a player not ready:
    in Chinese its words name both (they said only "someone is not ready")."""
    for language, words in (("zh_Hant", "還有空位，或有人沒準備好"), ("zh_Hans", "还有空位，或有人没准备好")):
        i18n.set_language(language)
        assert i18n.error_text("not_ready", "seat 3 is empty: wait for a player or add a bot") == words
    i18n.set_language("en")
    assert i18n.error_text("not_ready", "seat 3 is empty: wait") == "seat 3 is empty: wait"


def test_an_engine_refusal_is_shown_in_the_players_language() -> None:
    i18n.set_language("zh_Hans")
    with table(BASIC) as t:  # G7 does not match R3
        t.press("3", "enter")
        screen = t.screen()
        assert "[G7] 不能出在 [R3]（红色）上" in screen and "does not match" not in screen


def test_log_lines_in_chinese() -> None:
    i18n.set_language("zh_Hant")
    def name_of(seat: int | None) -> str:
        return {0: "你", 1: "bob"}.get(seat, "?")  # type: ignore[arg-type]
    assert describe("skipped", {"seat": 1}, name_of, 0) == ("bob被跳過", "")
    assert describe("skipped", {"seat": 0}, name_of, 0) == ("你被跳過", "")
    assert describe("drew", {"seat": 1, "count": 2, "reason": "penalty"}, name_of, 0) == (
        "bob摸了 2 張牌 (罰牌)", "")
    assert describe("played", {"seat": 1, "cards": ["W4"], "color": "G"}, name_of, 0) == (
        "bob出了 [W4] → 綠色", "")


def test_a_race_receipt_in_chinese_says_where_you_came() -> None:
    i18n.set_language("zh_Hant")
    data = {"winner": 1, "seq": 56, "contenders": [
        {"seat": 1, "order": 1, "seq": 53, "after": 0, "result": "won"},
        {"seat": 3, "order": 2, "seq": 53, "after": 3, "result": "too_late"},
        {"seat": 0, "order": 12, "seq": 53, "after": 41, "result": "too_late"}]}

    def name_of(seat: int | None) -> str:
        return {1: "小明", 3: "cy", 0: "ann"}.get(seat, "?")  # type: ignore[arg-type]
    assert describe("receipt", data, name_of, 3) == ("你是第二個到的，慢了 3 毫秒：小明搶先了", "error")
    assert describe("receipt", data, name_of, 0) == ("你是第 12個到的，慢了 41 毫秒：小明搶先了", "error")
    assert describe("receipt", data, name_of, 1) == ("你搶先了（cy +3 毫秒、ann +41 毫秒）", "jump")
    i18n.set_language("zh_Hans")
    assert describe("receipt", data, name_of, None) == ("小明抢先了（cy +3 毫秒、ann +41 毫秒）", "jump")  # watching


def test_the_deal_check_in_chinese_fits_the_header_and_is_said_again_in_english() -> None:
    from unolan.client.tui.render import deal_mark, header
    from unolan.client.verify import FAILED, UNCHECKED, VERIFIED, Verdict

    i18n.set_language("zh_Hant")
    with table(BASIC) as t:
        t.state.on_verdict(Verdict(1, VERIFIED))
        assert deal_mark(t.state) == [("class:header.fair", "✓ 公平發牌 ")]
        assert t.state.log[-1] == ("✓ 第 1 局：發牌經驗證是公平的", "info")
        t.state.on_verdict(Verdict(2, FAILED, "the cards dealt do not follow from the seed ({what} differs)",
                                   {"what": "hand"}))
        t.state.on_verdict(Verdict(3, UNCHECKED, "this client did not see the round's commitment: "
                                              "it came before the client joined or rejoined"))
        assert deal_mark(t.state) == [("class:header.alarm", " ⚠ 第 2 局發牌不公正 ")]
        warning = "警告：第 2 局的發牌和伺服器的承諾不符：發出的牌不是從種子來的（hand 不同）"
        assert [text for text, _ in t.state.log][-2:] == [warning, "第 3 局：無法檢查發牌（這個用戶端沒有收到本局的承諾：承諾在它加入或重新加入之前就發出了）"]
        assert any(n.text == warning for n in t.state.current_notices())
        t.state.room = {"name": "星期五的牌局"}
        line = header(t.state, 80)
        assert sum(get_cwidth(text) for _, text in line) <= 80 and "● 已連線" in [text for _, text in line]
        rows = cells(t)
        assert "⚠ 第 2 局發牌不公正 · ● 已連線" in "".join(rows[0])  # drawn whole in 80 cells
        t.press("?", "L", "L", "esc")  # to English: the log's verdicts are said again
        assert i18n.language() == "en"
        assert [text for text, _ in t.state.log][-3:] == [
            "✓ round 1: the deal is verified fair",
            "WARNING: round 2 was NOT dealt as the server committed: the cards dealt do not "
            "follow from the seed (hand differs)",
            "round 3: the deal could not be checked (this client did not see the round's "
            "commitment: it came before the client joined or rejoined)"]


def test_the_lobby_and_the_create_form_in_chinese() -> None:
    i18n.set_language("zh_Hant")
    with lobby() as t:
        screen = t.screen()
        assert "2/4 位玩家" in screen and "家規" in screen and "已開始" in screen
        t.press("c")
        screen = t.screen()
        assert "開房間" in screen and "規則套組" in screen


# -- wide text keeps the columns --------------------------------------------------------------


def cells(t: Table, width: int = 80, height: int = 24) -> list[list[str]]:
    """The screen as cells: a wide character in its first cell, "" in the one it covers."""
    t.app.render_counter += 1
    screen = Screen()
    t.app.layout.container.write_to_screen(
        screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None)
    screen.draw_all_floats()
    rows = []
    for y in range(height):
        row, x = [], 0
        while x < width:
            char = screen.data_buffer[y][x].char
            row.append(char)
            if get_cwidth(char) == 2:
                row.append("")
                x += 1
            x += 1
        rows.append(row[:width])
    return rows


def column_of(row: list[str], text: str) -> int:
    """The cell where ``text`` starts in ``row`` (-1: not there)."""
    line = "".join(c if c else "\0" for c in row)
    return line.find(text)


@pytest.mark.parametrize("lang", ["en", "zh_Hant", "zh_Hans"])
def test_the_players_columns_stay_in_place_with_wide_names_and_words(lang: str) -> None:
    """CJK names and words take two cells each: every seat's tile keeps its shape (its
    fan of card backs under its name) and the log's border stays in one column, at 80x24."""
    i18n.set_language(lang)
    with table("hand 0: R5 G7; hand 1: B1 B2 B3; hand 2: YS R9 R1 R2 R3 R4 R5 R6 R7 R8; "
               "hand 3: G1; discard: Y3 R3") as t:
        t.state.names.update({1: "小明", 2: "王大明的電腦", 3: "bob"})
        t.state.bots.add(2)
        rows = t.screen().splitlines()
        assert_tiles_hold(rows, [1, 2, 3])
        for name in ("小明", "王大", "bob", i18n._("bot")):  # a long name cut to its tile
            assert any(name in row for row in rows), name  # every seat drawn, the bot marked


def test_chinese_lines_wrap_between_characters_and_never_inside_a_card() -> None:
    from unolan.client.tui.render import wrap

    lines = wrap("你在託管：伺服器替你出牌（b 拿回座位）一二三四五六七八九十", 20)
    assert "".join(line.strip() for line in lines).replace(" ", "") == \
        "你在託管：伺服器替你出牌（b拿回座位）一二三四五六七八九十"  # nothing cut
    assert all(get_cwidth(line) <= 20 for line in lines)
    lines = wrap("bot-2出了 [B8] [R8] → 藍色", 14)
    assert all(get_cwidth(line) <= 14 for line in lines) and "[B8]" in "".join(lines)
    assert not any(line.rstrip().endswith("[") for line in lines)
    assert wrap("a b", 10) == ("a b",) and wrap("hello world", 5) == ("hello", "  wo…")


def test_docs_rules_names_each_option_and_preset_as_the_catalogs_do() -> None:
    from unolan.engine import OPTIONS, PRESETS

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    hant, hans = shipped("zh_Hant"), shipped("zh_Hans")
    for option in OPTIONS:
        label = option.name.replace("_", " ")
        row = next(line for line in text.splitlines() if line.startswith(f"| `{option.name}` |"))
        assert row.endswith(f"| {hant.gettext(label)} / {hans.gettext(label)} |"), option.name
    for preset in PRESETS:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{preset}` |"))
        words = f"{hant.pgettext(i18n.RULE_WORD, preset)} / {hans.pgettext(i18n.RULE_WORD, preset)}"
        assert row.endswith(f"| {words} |"), preset


@pytest.mark.slow
def test_a_wheel_ships_the_compiled_catalogs(tmp_path: Path) -> None:
    """A non-editable install has the catalogs too: the wheel the package builds holds each
    language's .mo under unolan/client/locale."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("unolan-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for lang in LANGS:
        assert f"unolan/client/locale/{lang}/LC_MESSAGES/unolan.mo" in names


def test_the_log_is_said_again_in_the_new_language() -> None:
    with table(BASIC) as t:
        t.state.on_event("skipped", {"seat": 1})
        t.state.on_event("skipped", {"seat": 0})
        t.state.add_log("a line written as it is", "info")
        assert [text for text, _ in t.state.log][-3:] == [
            "bob is skipped", "you are skipped", "a line written as it is"]
        t.state.names[1] = "someone else"  # later names do not rewrite what was said
        t.press("?", "L", "esc")
        assert [text for text, _ in t.state.log][-3:] == [
            "bob被跳過", "你被跳過", "a line written as it is"]
        assert "bob被跳過" in t.screen()
