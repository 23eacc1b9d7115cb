# Ferry API (default target) and the attestation oracle (target `oracle`, docs/oracle.md).
#   docker build -t ferry .                          the API
#   docker build --target oracle -t ferry-oracle .   the oracle; secrets from /vault/secrets when mounted there
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY projections ./projections
COPY bench ./bench
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
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

# The API (the default target: last).
FROM runtime AS api
CMD ["node", "dist/src/main.js"]
