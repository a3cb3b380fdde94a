import { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AppModule } from '../app.module';
import { buildConfig } from '../config/config';
import { FactTools } from '../mcp/fact-tools';
import { factsMcpServer, MCP_SERVER_INFO } from '../mcp/mcp-server';
import { UsageError } from './context';
import { seedEmptyStore } from './serve.command';

export interface McpOptions {
  url?: string;
  key?: string;
  embedded?: boolean;
}

/**
 * The fact tools over stdio, for desktop agents: a bridge to a running service's
 * POST /mcp, or (`--embedded`) straight from the local data folder. Stdout carries
 * the protocol only; anything else goes to stderr.
 */
export async function mcpCommand(options: McpOptions): Promise<void> {
  if (options.embedded) {
    if (options.url || options.key) throw new UsageError('--embedded takes no --url or --key');
    return serveEmbedded();
  }
  if (!options.url) throw new UsageError('give --url URL of a freshfacts service, or --embedded');
  const key = options.key ?? buildConfig(process.env).mcpApiKey;
  if (!key) throw new UsageError('give --key KEY or set FRESHFACTS_API_KEY');
  return bridge(endpointOf(options.url), key);
}

async function bridge(endpoint: URL, key: string): Promise<void> {
  const remote = new Client({ name: 'freshfacts-stdio-bridge', version: MCP_SERVER_INFO.version });
  await remote
    .connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    )
    .catch((err: Error) => {
      throw new UsageError(`cannot reach ${endpoint.href}: ${err.message}`);
    });
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: remote.getInstructions(),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request) => remote.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    remote.callTool(request.params).catch((err: Error) => unreachable(endpoint, err)),
  );
  await serveStdio(server, () => remote.close());
}

// The model should learn that the service, not its question, is at fault.
function unreachable(endpoint: URL, err: Error): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `freshfacts at ${endpoint.href} failed: ${err.message}` }],
  };
}

async function serveEmbedded(): Promise<void> {
  const config = buildConfig(process.env);
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), {
    logger: new StderrLogger(),
    abortOnError: false,
  });
  await seedEmptyStore(context, config);
  await serveStdio(factsMcpServer(context.get(FactTools), 'local'), () => context.close());
}

async function serveStdio(server: Server, release: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve));
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
  await release();
}

function endpointOf(url: string): URL {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new UsageError(`--url must be a URL such as http://127.0.0.1:8080, got "${url}"`);
  }
  if (!/^https?:$/.test(base.protocol)) throw new UsageError('--url must be http(s)');
  const path = base.pathname.replace(/\/+$/, '');
  // The service's address, or its MCP endpoint itself.
  base.pathname = path.endsWith('/mcp') ? path : `${path}/mcp`;
  return base;
}

/**
 * Nest's warnings and errors, kept off stdout, which belongs to the protocol. Its
 * start-up lines are left out: desktop agents keep a server's stderr as their log.
 */
class StderrLogger implements LoggerService {
  log(): void {}
  error(message: unknown): void {
    this.write('error', message);
  }
  warn(message: unknown): void {
    this.write('warn', message);
  }
  private write(level: string, message: unknown): void {
    process.stderr.write(`freshfacts mcp [${level}] ${String(message)}\n`);
  }
}
