# syntax=docker/dockerfile:1
# Multi-stage build: dependencies and build in one stage, a slim non-root runtime in the other.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY scripts/prisma.mjs ./scripts/prisma.mjs
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data MALLOC_ARENA_MAX=2
WORKDIR /app
RUN groupadd --system app && useradd --system --gid app --home /app app && mkdir -p /data && chown app:app /data
COPY --from=build --chown=app:app /app/node_modules ./node_modules
COPY --from=build --chown=app:app /app/build ./build
COPY --from=build --chown=app:app /app/public ./public
COPY --from=build --chown=app:app /app/prisma ./prisma
COPY --from=build --chown=app:app /app/content ./content
COPY --from=build --chown=app:app /app/prisma.config.ts /app/package.json ./
COPY --from=build --chown=app:app /app/scripts/prisma.mjs ./scripts/prisma.mjs
USER app
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# build/server.js is the HTTP server (headers, cross-site refusal, body limits) bundled by
# `npm run build`. Migrations run as a release step before the server starts (safe with several servers:
# prisma migrate deploy takes an advisory lock).
CMD ["sh", "-c", "node scripts/prisma.mjs migrate deploy && exec node --max-semi-space-size=4 --heap-growing-percent=150 build/server.js build/server/index.js"]
