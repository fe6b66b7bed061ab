"""aiogram glue the routers use: middlewares, keyboards and callback data, the reply, the FSM storage."""
