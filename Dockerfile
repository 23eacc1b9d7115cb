# Ferry API (default target) and the attestation oracle (target `oracle`, docs/oracle.md).
#   docker build -t ferry .                          the API
#   docker build --target oracle -t ferry-oracle .   the oracle; secrets from /vault/secrets when mounted there
# Node 22 (LTS): Node 20 reached end of life in April 2026. The code also runs on Node 20 (CI; docs/decisions/0019).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
COPY bench ./bench
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim AS runtime
WORKDIR /app
# Production by default: the image never falls back to development settings (devnet keys, loopback webhooks). Start-up
# stops, naming the variable, until production's required settings are given (docs/operations.md).
ENV NODE_ENV=production ENVIRONMENT=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY configs ./configs
# Embedded storage and the generated development secret live in ./data; production sets DATABASE_URL and secrets.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000

# The oracle: port HTTP_PORT, then PORT, then 3000. Its entry point reads /vault/secrets (VAULT_SECRETS_DIR) itself,
# so a secret manager's agent can write ECDSA_PRIVATE_KEY or AWS credentials there instead of the environment.
FROM runtime AS oracle
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||process.env.PORT||3000)+'/lives/v1').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/oracle/main.js"]

# The API (the default target: last). Liveness on /health/live; /health is readiness (503 during a rebuild).
# The CLI in the image: docker compose exec api node dist/src/cli/main.js <command>.
FROM runtime AS api
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/src/main.js"]
