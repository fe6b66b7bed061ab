"""`/sheet full`: the full sheet, every total, as a PNG document; plain `/sheet` stays the photo
readable in the chat (spec/sheet.md; docs/decisions.md)."""

from __future__ import annotations

import io

from aiogram.methods import SendDocument, SendPhoto
from aiogram.types import BufferedInputFile
from PIL import Image

from tests.bot.factories import ANNA, BORIS, CLARA, DMITRY, ChatDriver
from tests.bot.test_game_flow import DEALS, open_game


async def test_sheet_full_sends_every_total_as_a_png_document(chat: ChatDriver) -> None:
    await open_game(chat, "sochi pool 40")
    for user, line in DEALS:
        await chat.send(user, f"/deal {line}")
    answer = await chat.send(DMITRY, "/sheet full")
    documents = [r for r in answer if isinstance(r, SendDocument)]
    assert len(documents) == 1 and not [r for r in answer if isinstance(r, SendPhoto)]
    document = documents[0].document
    assert isinstance(document, BufferedInputFile) and document.filename == "sheet-1.png"
    image = Image.open(io.BytesIO(document.data))
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", (1010, 1279))
    assert "6" in (documents[0].caption or "")  # the sheet's caption: six deals


async def test_plain_sheet_is_still_the_photo(chat: ChatDriver) -> None:
    await open_game(chat)
    await chat.send(ANNA, f"/deal {DEALS[0][1]}")
    for user in (BORIS, CLARA):
        answer = await chat.send(user, "/sheet")
        assert [r for r in answer if isinstance(r, SendPhoto)]
        assert not [r for r in answer if isinstance(r, SendDocument)]
