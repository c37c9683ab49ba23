# syntax=docker/dockerfile:1

# Build stage: the full dependency tree (TypeScript and the type packages are devDependencies).
FROM node:20-slim AS build
WORKDIR /app
# The manifests alone first, so the dependency layer is reused while only the source changes.
# npm install, not npm ci: the lockfile honours its versions either way, but npm ci refuses a
# lockfile that lacks other platforms' optional packages, as one written from a registry mirror
# without them does (see .ci/run).
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY console ./console
RUN npm run build

# Runtime stage: production dependencies and the compiled service only.
FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
# dist/scripts (the bench) needs devDependencies and is not part of the service.
COPY --from=build /app/dist/src ./dist/src
# The agent console, static files the service serves at /.
COPY --from=build /app/dist/console ./dist/console
# The files stay root-owned and read-only to the process. It writes only under DATA_DIR
# (production requires DATABASE_URL, so no embedded database there; the send journal, the
# channel's answers not yet recorded, is kept there across a restart of the process).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# The slim image has no curl or wget; Node 20 has fetch. Liveness only: readiness of the
# instance is GET /api/health/ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# A heap cap: without it V8 lets garbage grow to about 350 MB of RSS under load before a full
# collection; with it the service peaks under 200 MB at the same throughput (docs/performance.md,
# "Memory"). Raise it with the container's memory limit if a workload needs more live heap.
ENV NODE_OPTIONS=--max-old-space-size=256
CMD ["node", "dist/src/main.js"]
