import { INestApplicationContext, Logger } from '@nestjs/common';
import { createApp } from '../app';
import { announceServer } from '../database/data-source';
import { AppConfig, buildConfig } from '../config/config';
import { FactsRepository } from '../facts/facts.repository';
import { IngestService } from '../facts/ingest.service';
import { SearchService } from '../search/search.service';
import { SourcesWorker } from '../sources/sources.worker';

export interface ServeOptions {
  host?: string;
  port?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export async function serveCommand(options: ServeOptions): Promise<void> {
  const env = { ...process.env };
  if (options.host) env.FRESHFACTS_HOST = options.host;
  if (options.port) env.PORT = options.port;
  if (options.tlsCert) env.FRESHFACTS_TLS_CERT = options.tlsCert;
  if (options.tlsKey) env.FRESHFACTS_TLS_KEY = options.tlsKey;
  const config = buildConfig(env);
  const app = await createApp(config);
  await app.init();
  const logger = new Logger('serve');
  await seedEmptyStore(app, config);
  const facts = await app.get(FactsRepository).count();
  // The last statements before the port opens, so that no caller (nor /readyz) meets
  // a cold encoder, a cold WASM or a cold connection.
  await app.get(SearchService).warm();
  await app.listen(config.port, config.host);
  if (config.sourcesWorker) app.get(SourcesWorker).start();
  const scheme = config.tlsCertFile ? 'https' : 'http';
  const server = app.getHttpServer() as import('node:net').Server;
  const { port } = server.address() as import('node:net').AddressInfo;
  announceServer(app, `${scheme}://${reachable(config.host)}:${port}`);
  logger.log(`${facts} facts; listening on ${scheme}://${config.host}:${port} (docs at /docs)`);
}

/** An address this machine's command line reaches the server at. */
function reachable(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Loads the seed file (the shipped corpus by default) into a store without facts. */
export async function seedEmptyStore(
  app: INestApplicationContext,
  config: AppConfig,
): Promise<void> {
  if (!config.seedFile || (await app.get(FactsRepository).count()) > 0) return;
  const logger = new Logger('seed');
  logger.log(`empty database: loading ${config.seedFile}`);
  const summary = await app.get(IngestService).ingestFile(config.seedFile);
  logger.log(`loaded ${summary.added} facts (${summary.rejected.length} rejected)`);
}
