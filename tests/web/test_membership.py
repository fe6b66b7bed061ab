"""Who may see a game besides its players: members of its chat, asked of Telegram with
getChatMember and cached briefly (issue 15, Deliver 3)."""

from __future__ import annotations

from aiogram.methods import GetChatMember

from bot.web.auth import Membership
from tests.bot.factories import DMITRY, GROUP_ID
from tests.bot.mocked_bot import MockedBot
from tests.web.conftest import member_answer


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def asked(bot: MockedBot) -> int:
    return sum(isinstance(r, GetChatMember) for r in bot.requests)


async def test_members_admins_and_the_creator_are_members_the_left_and_kicked_are_not() -> None:
    for status, member in (
        ("creator", True),
        ("administrator", True),
        ("member", True),
        ("left", False),
        ("kicked", False),
    ):
        bot = MockedBot()
        result = {"status": status, "user": DMITRY.raw()}
        if status == "creator":
            result["is_anonymous"] = False
        if status == "administrator":
            result.update(dict.fromkeys(ADMIN_RIGHTS, False))
        if status == "kicked":
            result["until_date"] = 0
        bot.add_result_for(GetChatMember, ok=True, result=result)
        assert await Membership(bot).is_member(GROUP_ID, DMITRY.id) is member, status


async def test_a_restricted_user_counts_only_while_in_the_chat() -> None:
    for inside in (True, False):
        bot = MockedBot()
        rights = dict.fromkeys(RESTRICTED_RIGHTS, False)
        result = {"status": "restricted", "user": DMITRY.raw(), "is_member": inside, **rights}
        bot.add_result_for(GetChatMember, ok=True, result={**result, "until_date": 0})
        assert await Membership(bot).is_member(GROUP_ID, DMITRY.id) is inside


async def test_telegram_is_asked_again_only_after_the_answer_expires() -> None:
    bot, ticks = MockedBot(), Ticks()
    membership = Membership(bot, ttl=60, clock=ticks)
    member_answer(bot, DMITRY)
    assert await membership.is_member(GROUP_ID, DMITRY.id)
    ticks.now += 59
    assert await membership.is_member(GROUP_ID, DMITRY.id) and asked(bot) == 1
    ticks.now += 2
    member_answer(bot, DMITRY, "left")
    assert not await membership.is_member(GROUP_ID, DMITRY.id) and asked(bot) == 2


async def test_an_error_from_telegram_means_not_a_member_and_a_private_chat_is_the_users() -> None:
    bot = MockedBot()
    bot.add_result_for(
        GetChatMember, ok=False, description="Bad Request: PARTICIPANT_ID_INVALID", error_code=400
    )
    membership = Membership(bot)
    assert not await membership.is_member(GROUP_ID, DMITRY.id)
    assert await membership.is_member(DMITRY.id, DMITRY.id) and asked(bot) == 1


ADMIN_RIGHTS = (
    "can_be_edited",
    "is_anonymous",
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_send_welcome_messages",
)
RESTRICTED_RIGHTS = (
    "can_send_messages",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_react_to_messages",
    "can_edit_tag",
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_manage_topics",
)
