"""Telegram's `initData`, signed as Telegram signs it (core.telegram.org/bots/webapps, "Validating
data received via the Mini App"), written here independently of aiogram's checker."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any
from urllib.parse import urlencode


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))


def signature(token: str, fields: dict[str, str]) -> str:
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, data_check_string(fields).encode(), hashlib.sha256).hexdigest()


def init_fields(
    user: dict[str, Any], auth_date: int, start_param: str | None = None
) -> dict[str, str]:
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(auth_date),
    }
    if start_param is not None:
        fields["start_param"] = start_param
        fields["chat_type"] = "supergroup"
        fields["chat_instance"] = "-8412345678901234567"
    return fields


def signed(token: str, fields: dict[str, str]) -> str:
    """The query string Telegram hands the page: the fields and their `hash`."""
    return urlencode({**fields, "hash": signature(token, fields)})


def init_data(
    token: str, user: dict[str, Any], auth_date: int, start_param: str | None = None
) -> str:
    return signed(token, init_fields(user, auth_date, start_param))
