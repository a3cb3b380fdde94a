import {
  BeforeApplicationShutdown,
  Controller,
  Get,
  HttpCode,
  Inject,
  Injectable,
  Module,
  Res,
} from '@nestjs/common';
import { ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { SchemaRepository } from '../database/schema.repository';
import { EMBEDDER, Embedder } from '../embeddings/embedder';
import { EmbeddingsModule } from '../embeddings/embeddings.module';

const PROBE_TIMEOUT_MS = 2000;

/**
 * Knows when the replica is shutting down: from then on each connection is closed
 * as soon as its response is sent, so that the server drains in the time of its
 * slowest call rather than of the keep-alive timeout.
 */
@Injectable()
export class Lifecycle implements BeforeApplicationShutdown {
  draining = false;

  beforeApplicationShutdown(): void {
    this.draining = true;
  }

  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      res.on('finish', () => {
        if (this.draining) req.socket.end();
      });
      next();
    };
  }
}

interface Readiness {
  status: 'ready' | 'unready';
  checks: { database: string; migrations: string; embedder: string; shutdown?: string };
}

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    private readonly schema: SchemaRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Answers while the process is alive and serving HTTP. */
  @Get('healthz')
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  alive(): { status: string } {
    return { status: 'ok' };
  }

  /**
   * Whether this replica can answer searches now: the database answers, its schema
   * is this version's, and the embedder is loaded. A load balancer sends traffic only
   * to ready replicas.
   */
  @Get('readyz')
  @HttpCode(200)
  @ApiOkResponse({
    schema: {
      example: { status: 'ready', checks: { database: 'ok', migrations: 'ok', embedder: 'ok' } },
    },
  })
  @ApiResponse({ status: 503, description: 'Not ready; `checks` says which part is not.' })
  async ready(@Res({ passthrough: true }) res: Response): Promise<Readiness> {
    const checks: Readiness['checks'] = { database: 'ok', migrations: 'ok', embedder: 'ok' };
    if (this.lifecycle.draining) checks.shutdown = 'draining';
    try {
      await withTimeout(this.schema.ping());
      if (await withTimeout(this.schema.hasPendingMigrations())) checks.migrations = 'pending';
    } catch (err) {
      checks.database = `unreachable: ${(err as Error).message}`;
      checks.migrations = 'unknown';
    }
    if (!this.embedder.ready) checks.embedder = 'loading';
    const ready = Object.values(checks).every((check) => check === 'ok');
    res.status(ready ? 200 : 503).set('Cache-Control', 'no-store');
    return { status: ready ? 'ready' : 'unready', checks };
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer in ${PROBE_TIMEOUT_MS} ms`)),
      PROBE_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@Module({
  imports: [EmbeddingsModule],
  controllers: [HealthController],
  providers: [Lifecycle, SchemaRepository],
  exports: [Lifecycle],
})
export class HealthModule {}
