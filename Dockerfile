# The bot in a container:
#   docker build -t prefbot .                              (--build-arg EXTRAS=redis: with Redis)
#   docker run --env-file .env -v prefbot-data:/data prefbot
# The SQLite database lives on the /data volume (DATABASE_PATH below; .env.example leaves it to
# the image). README "Back up and restore" and "Operate" say how to keep it and watch it.
FROM python:3.11-slim

# Optional extras of pyproject.toml to install, e.g. redis (REDIS_URL: the /deal steps in Redis).
ARG EXTRAS=""

# MALLOC_MMAP_THRESHOLD_: glibc's threshold for blocks of their own fixed at 128 KB, so that a long
# game's snapshot (a pickle of a few MB, written every few deals) does not raise it and leave the
# heap fragmented: a game at deal #5000 then costs the bot 19 MB over #100 rather than 26
# (docs/benchmarks.md, "Many groups").
ENV PYTHONDONTWRITEBYTECODE=1 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/prefbot.sqlite3 \
    WEB_LISTEN=0.0.0.0:8080

WORKDIR /app

# The dependencies in a layer of their own, before the sources: every version from the lock, as
# `make run` installs them (the dev tools in it are not asked for). A change of the code reuses
# this layer; a change of pyproject.toml or the lock rebuilds it.
COPY pyproject.toml requirements.lock ./
RUN pip install -c requirements.lock --upgrade pip setuptools \
    && python -c 'import sys, tomllib; project = tomllib.load(open("pyproject.toml", "rb"))["project"]; extras = [e for a in sys.argv[1:] for e in a.replace(",", " ").split()]; print("\n".join(project["dependencies"] + [d for e in extras for d in project["optional-dependencies"][e]]))' "$EXTRAS" > /tmp/requirements.txt \
    && pip install -c requirements.lock -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY scoring ./scoring
COPY bot ./bot
COPY handlers ./handlers
COPY locales ./locales
RUN pip install --no-deps --no-build-isolation . \
    && rm -rf build ./*.egg-info \
    && useradd --create-home --uid 10001 --user-group prefbot \
    && mkdir -p /data \
    && chown 10001:10001 /data

# A numeric user: a Kubernetes runAsNonRoot check can tell it is not root without the image's
# /etc/passwd.
USER 10001:10001
# The web listener: /healthz (the health check below), the Mini App, the webhook's path.
EXPOSE 8080
VOLUME ["/data"]
# 200 when the database answers and the poller (or webhook), the sender and the vote clock beat
# lately; 503 names what is stale (README "Operate"). The slim image has no curl: Python asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = os.environ.get('WEB_LISTEN', ':8080').rpartition(':')[2]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]
CMD ["python", "-m", "bot"]
