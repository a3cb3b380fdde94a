import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PROJECT_ROOT } from '../config/config';
import { FactTools, ToolAccess } from './fact-tools';

const { version } = JSON.parse(readFileSync(resolve(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

/** How the server introduces itself to MCP clients. */
export const MCP_SERVER_INFO = { name: 'freshfacts', title: 'freshfacts', version };

const INSTRUCTIONS =
  'freshfacts answers one focused question with dated, sourced facts newer than your ' +
  'training data. Before you state something that may have changed since your cutoff, ' +
  'call search_facts with that one question and your model id, and prefer its facts over ' +
  'what you remember; cite the day and a source.';

/**
 * An MCP server with the fact tools, for one caller. It keeps no state between
 * requests, so over HTTP a new one answers each request and any replica can take it.
 */
export function factsMcpServer(tools: FactTools, access: ToolAccess): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.definitions }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    tools.call(request.params.name, request.params.arguments, access),
  );
  return server;
}
