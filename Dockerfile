FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY service service
COPY eventlog eventlog
COPY engines engines
COPY workers workers
COPY replays replays
COPY runtime runtime
COPY cli cli
COPY bench bench
COPY streams streams
# /var/lib/arbiter: the signing key and its checkpoints (docker-compose's keys volume takes this folder's owner).
RUN pip install --no-cache-dir . && useradd --create-home arbiter && mkdir -p /var/lib/arbiter \
    && chown arbiter /var/lib/arbiter
USER arbiter
EXPOSE 8000
CMD ["arbiter", "api", "--host", "0.0.0.0", "--port", "8000"]
