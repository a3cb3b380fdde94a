import { INestApplicationContext } from '@nestjs/common';
import { AuditRepository } from '../admin/audit.repository';
import { Problem, ProblemError } from '../common/problem';
import { AppConfig, buildConfig } from '../config/config';
import { ADMIN_WAY_OUT, DataDirLock } from '../database/data-dir-lock';
import { UsageError, withContext } from './context';

/** A problem the server answered, printed as the offline command prints its error. */
export class RemoteProblemError extends ProblemError {
  constructor(readonly problem: Problem) {
    super(problem.status, problem.type.replace(/^\/problems\//, ''), problem.title, problem.detail);
  }
}

/** The admin API of the `serve` that holds the embedded data folder. */
export class AdminClient {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  /** The JSON answer of a call; a problem answer is thrown as RemoteProblemError. */
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.url), {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': contentType }),
        },
        body:
          body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    } catch (err) {
      throw new UsageError(
        `the server holding the data folder does not answer at ${this.url} (${(err as Error).message})`,
      );
    }
    let answer: unknown;
    try {
      answer = await response.json();
    } catch {
      throw new UsageError(
        `${this.url} answered ${method} ${path} with ${response.status} and no JSON: is it freshfacts?`,
      );
    }
    if (response.ok) return answer as T;
    throw this.refusal(answer as Problem);
  }

  private refusal(problem: Problem): Error {
    if (problem.status === 401) {
      return new UsageError(
        `the server at ${this.url} refused FRESHFACTS_ADMIN_TOKEN: it is not the server's admin token`,
      );
    }
    if (problem.status === 403) {
      return new UsageError(
        `the server at ${this.url} has no admin token (FRESHFACTS_ADMIN_TOKEN); stop it first`,
      );
    }
    return new RemoteProblemError(problem);
  }
}

/**
 * When a running `serve` holds the embedded data folder: a client of its admin API
 * with the token from the settings; without a token, the refusal that says both ways
 * out. Undefined when nothing holds the folder (or on PostgreSQL): work offline.
 */
export function heldFolderClient(config: AppConfig): AdminClient | undefined {
  if (config.databaseUrl) return undefined;
  const pid = DataDirLock.holder(config.dataDir);
  const server = pid === undefined ? undefined : DataDirLock.server(config.dataDir);
  if (!server || server.pid !== pid) return undefined;
  if (!config.adminToken) {
    throw new UsageError(
      `the embedded database in ${config.dataDir} is in use by process ${pid} (a running ` +
        `\`freshfacts serve\` at ${server.url}). Stop it first, or point DATABASE_URL at a ` +
        'PostgreSQL server that several processes can share.' +
        ADMIN_WAY_OUT,
    );
  }
  return new AdminClient(server.url, config.adminToken);
}

/**
 * Runs a command on the data folder (`offline`, with the service's modules), or through
 * the admin API of the `serve` that holds it (`remote`); both give the same result, so
 * the command prints the same either way.
 */
export async function offlineOrThroughServer<T>(
  offline: (context: INestApplicationContext) => Promise<T>,
  remote: (admin: AdminClient) => Promise<T>,
  config: AppConfig = buildConfig(process.env),
): Promise<T> {
  const admin = heldFolderClient(config);
  return admin ? remote(admin) : withContext(offline, config);
}

/** Records a write of the offline command line in the audit trail (actor `cli`). */
export async function auditCli(
  context: INestApplicationContext,
  action: string,
  target: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await context.get(AuditRepository).record({ action, target, actor: 'cli', detail });
}
