# freshfacts API image: `docker compose up` builds it (see docker-compose.yml).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dependencies first, for the layer cache; the build needs the source.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
# The service alone: tools/ (bench, distillation) needs the dev dependencies and stays out.
RUN npm run build:service

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; argon2 and the encoder ship their binaries in the packages.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
# What the service reads at run time: RUNTIME_FOLDERS in src/config/config.ts
# (test/deploy/image.spec.ts starts this layout and asks it a search).
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY corpus ./corpus
COPY models ./models
COPY presets ./presets
COPY views ./views
COPY public ./public
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "bin/freshfacts", "serve", "--host", "0.0.0.0", "--port", "8080"]
