import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { UsageRepository } from '../../src/billing/usage.repository';
import { monthOf } from '../../src/billing/clock';
import { startApp, TestApp } from '../support/app';
import { run } from '../support/cli';
import { CATANIA, OTHER } from '../support/corpus';

// The command-line tool as a desktop agent starts it (built into dist/ by the test script).
const BIN = join(__dirname, '..', '..', 'bin', 'freshfacts');
const QUESTION = 'Who is the head coach of Calcio Catania?';

/** The SDK's own client, starting `bin/freshfacts ARGS` as its stdio server. */
async function spawnAgent(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'desktop-agent', version: '1.0.0' });
  const environment = { ...(process.env as Record<string, string>), NODE_OPTIONS: '', ...env };
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, ...args],
      env: environment,
      stderr: 'pipe',
    }),
  );
  return client;
}

function text(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function answers(result: CallToolResult): string[] {
  return (result.structuredContent as { results: { answer: string }[] }).results.map(
    (fact) => fact.answer,
  );
}

describe('bin/freshfacts mcp: the stdio bridge to a running service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ facts: [...CATANIA, ...OTHER] });
  });
  afterAll(() => t.close());

  const monthCalls = async (email: string) => {
    const [key] = await t.app.get(ApiKeysService).list(email);
    return t.app.get(UsageRepository).monthCalls(key.accountId, monthOf(new Date()));
  };

  it('lists the service’s tools and answers search_facts, counting the call against the key', async () => {
    const { key } = await t.app.get(ApiKeysService).create('stdio@example.com');
    const agent = await spawnAgent(['mcp', '--url', t.url, '--key', key]);
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'search_facts',
        'research_facts',
        'corpus_status',
      ]);
      expect(tools[0].inputSchema.required).toEqual(['query']);
      expect(agent.getServerVersion()?.name).toBe('freshfacts');
      const result = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION },
      })) as CallToolResult;
      expect(answers(result)).toEqual(['Vincenzo Montella', 'Walter Zenga', 'Silvio Baldini']);
      expect(text(result)).toMatch(/^3 facts:\n- 2011-01-01: Vincenzo Montella/);
      const research = (await agent.callTool({
        name: 'research_facts',
        arguments: { query: QUESTION },
      })) as CallToolResult;
      expect(research.structuredContent).toHaveProperty('research_guidance');
      expect(await monthCalls('stdio@example.com')).toBe(2);
    } finally {
      await agent.close();
    }
  });

  it('takes the key from FRESHFACTS_API_KEY and passes on a revoked key’s and a bad argument’s refusals', async () => {
    const keys = t.app.get(ApiKeysService);
    const { key } = await keys.create('stdio-revoked@example.com');
    const agent = await spawnAgent(['mcp', '--url', `${t.url}/mcp`], { FRESHFACTS_API_KEY: key });
    try {
      const bad = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION, timeline: 'yes' },
      })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(text(bad)).toBe('Invalid arguments: timeline: timeline must be true or false');
      await keys.revoke(key);
      const revoked = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION },
      })) as CallToolResult;
      expect(revoked.isError).toBe(true);
      expect(text(revoked)).toBe('Invalid API key: The API key is unknown or revoked.');
      expect(await monthCalls('stdio-revoked@example.com')).toBe(0);
    } finally {
      await agent.close();
    }
  });

  it('passes on corpus_status unmetered, and the quota refusal with the billing page', async () => {
    const { key } = await t.app.get(ApiKeysService).create('stdio-quota@example.com');
    const [{ accountId }] = await t.app.get(ApiKeysService).list('stdio-quota@example.com');
    const agent = await spawnAgent(['mcp', '--url', t.url, '--key', key]);
    try {
      const status = (await agent.callTool({ name: 'corpus_status' })) as CallToolResult;
      expect(status.isError).toBeFalsy();
      expect(status.structuredContent).toMatchObject({ facts: 9, newest_true_by: '2023-08-23' });
      expect(await monthCalls('stdio-quota@example.com')).toBe(0);
      const now = new Date();
      const usage = t.app.get(UsageRepository);
      for (let i = 0; i < 1000; i++) {
        await usage.charge(accountId, monthOf(now), now.toISOString().slice(0, 10), 1000);
      }
      const refused = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^Monthly call limit reached: /);
      expect(text(refused)).toContain(`${t.config.publicUrl}/dashboard/billing`);
      expect(await monthCalls('stdio-quota@example.com')).toBe(1000);
    } finally {
      await agent.close();
    }
  });

  it('runs two bridges at once', async () => {
    const agents = await Promise.all([
      spawnAgent(['mcp', '--url', t.url, '--key', t.key]),
      spawnAgent(['mcp', '--url', t.url, '--key', t.key]),
    ]);
    try {
      const results = (await Promise.all(
        agents.map((agent) =>
          agent.callTool({
            name: 'search_facts',
            arguments: { query: 'Who hosted the 2022 FIFA World Cup?' },
          }),
        ),
      )) as CallToolResult[];
      expect(results.map((result) => answers(result)[0])).toEqual(['Qatar', 'Qatar']);
    } finally {
      await Promise.all(agents.map((agent) => agent.close()));
    }
  });

  it('refuses to start without a key or an address, saying what to give', async () => {
    const env = { FRESHFACTS_API_KEY: '' };
    const noKey = await run(['mcp', '--url', t.url], env).done;
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain('give --key KEY or set FRESHFACTS_API_KEY');
    const nothing = await run(['mcp'], env).done;
    expect(nothing.err).toContain('give --url URL of a freshfacts service, or --embedded');
    const both = await run(['mcp', '--embedded', '--url', t.url], env).done;
    expect(both.err).toContain('--embedded takes no --url or --key');
  });
});

describe('bin/freshfacts mcp --embedded: the tools straight from a data folder', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'freshfacts-mcp-'));
    env = { FRESHFACTS_DATA_DIR: join(dir, 'data'), FRESHFACTS_SEED_FILE: '' };
    const file = join(dir, 'facts.jsonl');
    writeFileSync(file, [...CATANIA, ...OTHER].map((fact) => JSON.stringify(fact)).join('\n'));
    const ingest = await run(['ingest', file], env).done;
    expect(ingest.code).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers the tools without HTTP or key, and refuses a bad argument with its field', async () => {
    const agent = await spawnAgent(['mcp', '--embedded'], env);
    try {
      expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual([
        'search_facts',
        'research_facts',
        'corpus_status',
      ]);
      const status = (await agent.callTool({ name: 'corpus_status' })) as CallToolResult;
      expect(status.structuredContent).toMatchObject({ facts: 9, newest_true_by: '2023-08-23' });
      const result = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION, true_by_max: '2009-12-31' },
      })) as CallToolResult;
      expect(answers(result)).toEqual(['Walter Zenga', 'Silvio Baldini']);
      const research = (await agent.callTool({
        name: 'research_facts',
        arguments: { query: QUESTION, k: 10 },
      })) as CallToolResult;
      expect(research.isError).toBeFalsy();
      const bad = (await agent.callTool({
        name: 'search_facts',
        arguments: { query: QUESTION, true_by_min: '2024-01-01', true_by_max: '2023-01-01' },
      })) as CallToolResult;
      expect(text(bad)).toBe(
        'Invalid arguments: true_by_max: true_by_max must be later than true_by_min',
      );
    } finally {
      await agent.close();
    }
  });
});
