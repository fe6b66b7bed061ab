"""Telegram's signed initData (issue 15, Deliver 3): what passes, what is 401, and the start
parameter that names a game without letting anyone guess another."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.web.auth import (
    AuthError,
    authenticate,
    check_init_data,
    game_of,
    header_init_data,
    start_param,
)
from tests.web.signing import init_data, init_fields, signed

TOKEN = "42:TEST"
NOW = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)
ANNA = {"id": 1001, "first_name": "Anna", "username": "anna_p", "language_code": "ru"}


def fresh(token: str = TOKEN, age: timedelta = timedelta(minutes=5)) -> str:
    return init_data(token, ANNA, int((NOW - age).timestamp()), "g7_x")


def refused(token: str, data: str) -> AuthError:
    with pytest.raises(AuthError) as caught:
        check_init_data(token, data, NOW)
    return caught.value


def test_init_data_signed_with_the_bot_token_passes_and_names_the_user() -> None:
    data = check_init_data(TOKEN, fresh(), NOW)
    assert data.user is not None
    assert (data.user.id, data.user.username, data.user.language_code) == (1001, "anna_p", "ru")
    assert data.start_param == "g7_x"


def test_a_changed_field_breaks_the_signature() -> None:
    fields = dict(parse_qsl(fresh()))
    fields["user"] = fields["user"].replace("1001", "1002")  # someone else's id, same hash
    error = refused(TOKEN, urlencode(fields))
    assert (error.status, error.code) == (401, "auth-forged")


def test_init_data_signed_with_another_token_fails() -> None:
    error = refused(TOKEN, fresh(token="43:OTHER"))
    assert (error.status, error.code) == (401, "auth-forged")


def test_an_auth_date_older_than_24_hours_is_stale() -> None:
    error = refused(TOKEN, fresh(age=timedelta(hours=24, seconds=1)))
    assert (error.status, error.code) == (401, "auth-stale")
    assert check_init_data(TOKEN, fresh(age=timedelta(hours=23, minutes=59)), NOW).user


def test_data_without_a_hash_or_without_a_user_is_refused() -> None:
    fields = init_fields(ANNA, int(NOW.timestamp()))
    assert refused(TOKEN, urlencode(fields)).status == 401
    del fields["user"]
    assert refused(TOKEN, signed(TOKEN, fields)).code == "auth-forged"


def test_the_header_must_be_tma_with_data() -> None:
    for header in (None, "", "tma", "tma   ", "Bearer abc"):
        with pytest.raises(AuthError) as caught:
            header_init_data(header)
        assert (caught.value.status, caught.value.code) == (401, "auth-missing")
    assert header_init_data("tma a=1&b=2") == "a=1&b=2"


def test_authenticate_reads_the_header_and_returns_the_user() -> None:
    user = authenticate(TOKEN, f"tma {fresh()}", NOW)
    assert (user.id, user.first_name, user.username) == (1001, "Anna", "anna_p")


def test_a_start_parameter_names_its_game_and_no_other() -> None:
    param = start_param(TOKEN, 7)
    assert game_of(TOKEN, param) == 7
    assert len(param) <= 64 and all(c.isalnum() or c in "_-" for c in param)
    forged = param.replace("g7_", "g8_")
    for bad in (forged, "g7", "7", "", None, start_param("43:OTHER", 7)):
        with pytest.raises(AuthError) as caught:
            game_of(TOKEN, bad)
        assert (caught.value.status, caught.value.code) == (403, "game-unknown")
