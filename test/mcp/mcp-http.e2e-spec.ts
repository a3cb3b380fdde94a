import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import request from 'supertest';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { Clock } from '../../src/billing/clock';
import { UsageRepository } from '../../src/billing/usage.repository';
import { startApp, TestApp } from '../support/app';
import { CATANIA, OTHER } from '../support/corpus';

const MONTH = '2026-11-01';
const QUESTION = 'Who is the head coach of Calcio Catania?';

/** The SDK's own client over Streamable HTTP, as an agent would connect with `key`. */
async function connect(url: string, key?: string, authorization?: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const header = authorization ?? (key ? `Bearer ${key}` : undefined);
  const headers: Record<string, string> = header ? { Authorization: header } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }),
  );
  return client;
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

async function accountOf(t: TestApp, email: string): Promise<string> {
  const [key] = await t.app.get(ApiKeysService).list(email);
  return key.accountId;
}

describe('MCP over Streamable HTTP at POST /mcp', () => {
  let t: TestApp;
  let agent: Client;
  beforeAll(async () => {
    t = await startApp({ facts: [...CATANIA, ...OTHER] });
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-11-15T12:00:00Z'));
    agent = await connect(t.url, t.key);
  });
  afterAll(async () => {
    await agent.close();
    await t.close();
  });

  it('lists search_facts, research_facts and corpus_status, with the endpoints’ rules as JSON Schema', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'search_facts',
      'research_facts',
      'corpus_status',
    ]);
    const [search, research] = tools;
    expect(search.description).toMatch(/training cutoff/);
    expect(search.description).toMatch(/one focused question/);
    expect(search.description).toMatch(/model_id/);
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(
      ['k', 'model_id', 'query', 'timeline', 'true_by_max', 'true_by_min'].sort(),
    );
    expect(search.inputSchema.properties).toMatchObject({
      query: { type: 'string', maxLength: 2000, pattern: '\\S' },
      k: { type: 'integer', default: 20 },
      timeline: { type: 'boolean', default: true },
    });
    expect(Object.keys(research.inputSchema.properties ?? {}).sort()).toEqual(
      ['k', 'model_id', 'query', 'timeline'].sort(),
    );
    expect(search.annotations).toMatchObject({ readOnlyHint: true });

    // The schemas are valid JSON Schema that accept what the endpoint accepts.
    const validator = new AjvJsonSchemaValidator();
    const input = validator.getValidator(search.inputSchema);
    expect(input({ query: QUESTION, k: 500, timeline: false }).valid).toBe(true);
    expect(input({ query: QUESTION, true_by_max: '2024-05-01T12:00:00' }).valid).toBe(true);
    expect(input({ query: '   ' }).valid).toBe(false);
    expect(input({ query: QUESTION, k: 'ten' }).valid).toBe(false);
    expect(input({ k: 10 }).valid).toBe(false);
    const output = validator.getValidator(search.outputSchema!);
    expect(output({ results: [{ ...CATANIA[0] }] }).valid).toBe(true);
    expect(output({ results: [{ ...CATANIA[0], true_by: null }] }).valid).toBe(true);
    expect(output({ results: [{ ...CATANIA[0], sources: [] }] }).valid).toBe(false);
  });

  it('answers search_facts with the facts of POST /v1/search, structured and as a short list', async () => {
    const result = (await agent.callTool({
      name: 'search_facts',
      arguments: { query: QUESTION, k: 10 },
    })) as CallToolResult;
    const endpoint = await request(t.url)
      .post('/v1/search')
      .set('Authorization', `Bearer ${t.key}`)
      .send({ query: QUESTION, k: 10 })
      .expect(200);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ results: endpoint.body.results, match: 'close' });
    expect(text(result).split('\n')).toEqual([
      '3 facts:',
      `- 2011-01-01: Vincenzo Montella (${CATANIA[2].question}) ${CATANIA[2].sources[0]}`,
      `- 2008-01-01: Walter Zenga (${CATANIA[1].question}) ${CATANIA[1].sources[0]}`,
      `- 2006-01-01: Silvio Baldini (${CATANIA[0].question}) ${CATANIA[0].sources[0]}`,
    ]);
  });

  it('tells the model when the facts are only the nearest, not a match', async () => {
    const result = (await agent.callTool({
      name: 'search_facts',
      arguments: { query: 'How do I bake sourdough bread at home?' },
    })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ match: 'nearest' });
    expect(text(result).split('\n')[0]).toMatch(
      /^\d+ facts, none matching the question closely: only the nearest, possibly unrelated:$/,
    );
  });

  it('applies model_id and the date window, and says which cutoff it used', async () => {
    const windowed = (await agent.callTool({
      name: 'search_facts',
      arguments: { query: QUESTION, true_by_min: '2007-01-01', true_by_max: '2009-06-30' },
    })) as CallToolResult;
    expect(windowed.structuredContent).toEqual({ results: [CATANIA[1]], match: 'close' });
    const unknown = (await agent.callTool({
      name: 'search_facts',
      arguments: { query: QUESTION, model_id: 'nobody/no-such-model' },
    })) as CallToolResult;
    expect(unknown.structuredContent).toMatchObject({ model_cutoff: 'unknown' });
    expect(text(unknown)).toMatch(/not in the cutoff table/);
  });

  it('answers research_facts under research_guidance, ignoring a date window', async () => {
    const result = (await agent.callTool({
      name: 'research_facts',
      arguments: { query: QUESTION, true_by_min: '2090-01-01' },
    })) as CallToolResult;
    const facts = (result.structuredContent as { research_guidance: { answer: string }[] })
      .research_guidance;
    expect(facts.map((fact) => fact.answer)).toEqual([
      'Vincenzo Montella',
      'Walter Zenga',
      'Silvio Baldini',
    ]);
  });

  it('counts each answered tool call against the key’s monthly quota, and nothing else', async () => {
    const { key } = await t.app.get(ApiKeysService).create('mcp-quota@example.com');
    const account = await accountOf(t, 'mcp-quota@example.com');
    const usage = t.app.get(UsageRepository);
    const client = await connect(t.url, key);
    try {
      await client.listTools();
      await client.callTool({ name: 'search_facts', arguments: { query: '' } });
      expect(await usage.monthCalls(account, MONTH)).toBe(0);
      await client.callTool({ name: 'search_facts', arguments: { query: QUESTION } });
      await client.callTool({ name: 'research_facts', arguments: { query: QUESTION } });
      expect(await usage.monthCalls(account, MONTH)).toBe(2);
      for (let i = 2; i < 1000; i++) await usage.charge(account, MONTH, '2026-11-15', 1000);
      const refused = (await client.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^Monthly call limit reached: The free plan includes 1,000/);
      expect(text(refused)).toContain(`${t.config.publicUrl}/dashboard/billing`);
      expect(refused._meta?.['freshfacts/problem']).toMatchObject({
        type: '/problems/quota-exceeded',
        status: 402,
      });
      expect(await usage.monthCalls(account, MONTH)).toBe(1000);
    } finally {
      await client.close();
    }
  });

  it('refuses a call with a missing, malformed or revoked key as a tool error', async () => {
    const keys = t.app.get(ApiKeysService);
    const { key } = await keys.create('mcp-revoked@example.com');
    const client = await connect(t.url, key);
    const anonymous = await connect(t.url);
    const basic = await connect(t.url, undefined, 'Basic dGVzdGVyOnNlY3JldA==');
    try {
      const call = { name: 'search_facts', arguments: { query: QUESTION } };
      expect(((await client.callTool(call)) as CallToolResult).isError).toBeFalsy();
      await keys.revoke(key);
      const revoked = (await client.callTool(call)) as CallToolResult;
      expect(revoked.isError).toBe(true);
      expect(text(revoked)).toBe('Invalid API key: The API key is unknown or revoked.');
      const missing = (await anonymous.callTool(call)) as CallToolResult;
      expect(text(missing)).toMatch(/^API key required: Send the header Authorization: Bearer/);
      expect(text((await basic.callTool(call)) as CallToolResult)).toBe(
        'Invalid API key: The Authorization header must be "Bearer <API_KEY>".',
      );
      // Listing tools needs no key: an agent can see what it could call.
      expect((await anonymous.listTools()).tools).toHaveLength(3);
      const status = (await anonymous.callTool({ name: 'corpus_status' })) as CallToolResult;
      expect(text(status)).toMatch(/^API key required/);
    } finally {
      await Promise.all([client.close(), anonymous.close(), basic.close()]);
    }
  });

  it('tells how fresh the store is with corpus_status, without counting a call', async () => {
    const { key } = await t.app.get(ApiKeysService).create('mcp-status@example.com');
    const client = await connect(t.url, key);
    try {
      const result = (await client.callTool({ name: 'corpus_status' })) as CallToolResult;
      expect(result.structuredContent).toEqual({
        facts: CATANIA.length + OTHER.length,
        newest_true_by: '2023-08-23',
        sources: [
          { kind: 'feed', sources: 0, last_success_at: null },
          { kind: 'page', sources: 0, last_success_at: null },
          { kind: 'sparql', sources: 0, last_success_at: null },
          { kind: 'wikidata', sources: 0, last_success_at: null },
        ],
      });
      expect(text(result)).toBe(
        '9 facts; the newest is dated 2023-08-23.\n' +
          'Sources: feed 0 (last success never), page 0 (last success never), ' +
          'sparql 0 (last success never), wikidata 0 (last success never).',
      );
      expect(
        await t.app
          .get(UsageRepository)
          .monthCalls(await accountOf(t, 'mcp-status@example.com'), MONTH),
      ).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('refuses bad arguments with the field at fault, and an unknown tool as a protocol error', async () => {
    const bad = (await agent.callTool({
      name: 'search_facts',
      arguments: { query: QUESTION, k: 'ten', true_by_min: '2024-02-30' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^Invalid arguments: /);
    expect(text(bad)).toContain('k: k must be an integer');
    expect(text(bad)).toContain('true_by_min: true_by_min must be an ISO 8601 date');
    const missing = (await agent.callTool({
      name: 'search_facts',
      arguments: {},
    })) as CallToolResult;
    expect(text(missing)).toContain('query: query must be a string');
    await expect(agent.callTool({ name: 'delete_facts', arguments: {} })).rejects.toThrow(
      /Unknown tool: delete_facts/,
    );
  });

  it('serves two agents at once, each with its own key and its own count', async () => {
    const keys = t.app.get(ApiKeysService);
    const [a, b] = [await keys.create('mcp-a@example.com'), await keys.create('mcp-b@example.com')];
    const [first, second] = await Promise.all([connect(t.url, a.key), connect(t.url, b.key)]);
    try {
      const calls = [first, second].flatMap((client) =>
        [1, 2, 3].map(() =>
          client.callTool({ name: 'search_facts', arguments: { query: QUESTION } }),
        ),
      );
      const results = (await Promise.all(calls)) as CallToolResult[];
      expect(results.every((result) => !result.isError)).toBe(true);
      expect(
        await t.app.get(UsageRepository).monthCalls(await accountOf(t, 'mcp-a@example.com'), MONTH),
      ).toBe(3);
      expect(
        await t.app.get(UsageRepository).monthCalls(await accountOf(t, 'mcp-b@example.com'), MONTH),
      ).toBe(3);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('is stateless: no session id, no stream to open, a request that is not JSON is a parse error', async () => {
    const init = await request(t.url)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '1' },
        },
      })
      .expect(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    expect(init.body.result.serverInfo.name).toBe('freshfacts');
    const stream = await request(t.url).get('/mcp').expect(405);
    expect(stream.headers.allow).toBe('POST');
    expect(stream.body).toMatchObject({ type: '/problems/method-not-allowed', status: 405 });
    const garbage = await request(t.url)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json')
      .send('{not json')
      .expect(400);
    expect(garbage.body.error.code).toBe(-32700);
  });
});
