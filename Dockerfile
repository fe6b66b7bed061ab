# The bot in a container: `docker build -t prefbot .` then
# `docker run --env-file .env -v prefbot-data:/data prefbot`. The database lives on the /data volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/prefbot.sqlite3

WORKDIR /app
COPY pyproject.toml requirements.lock ./
COPY scoring ./scoring
COPY bot ./bot
COPY handlers ./handlers
COPY locales ./locales
# Every version from the lock, as `make run` installs them (the dev tools in it are not asked for).
RUN pip install -c requirements.lock --upgrade pip setuptools \
    && pip install -c requirements.lock --no-build-isolation . \
    && useradd --create-home --uid 10001 prefbot \
    && mkdir -p /data \
    && chown prefbot:prefbot /data

USER prefbot
# The web listener (webhook mode, the Mini App, /healthz) when WEB_LISTEN, WEBHOOK_URL or MINIAPP_LINK is set.
EXPOSE 8080
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
