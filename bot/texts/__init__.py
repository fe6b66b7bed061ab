"""Pure presentation: the chat's texts and the deal step machine, no aiogram."""
