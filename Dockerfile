FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY envfarm envfarm
COPY envs envs
COPY synthesis synthesis
COPY server server
COPY clients clients
RUN pip install --no-cache-dir ./clients . && useradd --create-home envfarm && mkdir -p /data && chown envfarm /data
USER envfarm
# The default catalog is generated once, into the image (about a minute): containers serve at once,
# and replicas share the same catalog instead of each generating it at startup.
RUN envfarm catalog build
ENV ENVFARM_HOST=0.0.0.0 ENVFARM_PORT=8765 ENVFARM_DATA_DIR=/data
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz').status != 200)"
CMD ["envfarm", "serve"]
