"""Pure presentation, no aiogram: the chat's texts (i18n, views) and the step-by-step entry."""
