import { All, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { ProblemError } from '../common/problem';
import { FactTools } from './fact-tools';
import { factsMcpServer } from './mcp-server';

export class McpMethodNotAllowedError extends ProblemError {
  constructor(method: string) {
    super(
      405,
      'method-not-allowed',
      'Method not allowed',
      `The MCP endpoint is stateless: it answers POST only, not ${method} (no SSE stream, no session).`,
      {},
      { Allow: 'POST' },
    );
  }
}

/** MCP over Streamable HTTP, stateless: each POST is answered on its own, with JSON. */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly tools: FactTools) {}

  @Post()
  async post(@Req() req: Request, @Res() res: Response): Promise<void> {
    const server = factsMcpServer(this.tools, {
      authorization: req.headers.authorization,
      response: res,
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void server.close());
    await server.connect(transport);
    // The body is already parsed (a body that is not JSON is answered as a JSON-RPC parse error).
    await transport.handleRequest(req, res, req.body);
  }

  @All()
  other(@Req() req: Request): never {
    throw new McpMethodNotAllowedError(req.method);
  }
}
