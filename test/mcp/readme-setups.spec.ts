import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

interface ServerEntry {
  command?: string;
  args?: string[];
  url?: string;
  headers?: Record<string, string>;
}

/** The JSON blocks of the README's copy-paste set-ups, parsed as a user's editor would. */
function setUps(): Record<string, ServerEntry>[] {
  const section = README.split('### Copy-paste set-ups')[1].split('\n### ')[0];
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((block) => {
    const config = JSON.parse(block[1]) as {
      mcpServers?: Record<string, ServerEntry>;
      servers?: Record<string, ServerEntry>;
    };
    return config.mcpServers ?? config.servers ?? {};
  });
}

describe('the README’s copy-paste MCP set-ups', () => {
  const servers = setUps().flatMap((entries) => Object.values(entries));

  it('are valid JSON for Claude Desktop, Cursor and VS Code', () => {
    expect(setUps()).toHaveLength(3);
    expect(servers.length).toBeGreaterThanOrEqual(6);
  });

  it('give Cursor and VS Code both the HTTP server and the stdio bridge, Claude Desktop the bridge', () => {
    const [claude, cursor, vscode] = setUps().map((entries) =>
      Object.values(entries).map((server) => (server.command ? 'stdio' : 'http')),
    );
    expect(claude).toEqual(['stdio', 'stdio']);
    expect(cursor).toEqual(['http', 'stdio']);
    expect(vscode).toEqual(['http', 'stdio']);
  });

  it('start bin/freshfacts mcp with options it has, or reach POST /mcp with a bearer key', () => {
    for (const server of servers) {
      if (server.command) {
        expect(server.command).toBe('node');
        const [bin, command, ...options] = server.args ?? [];
        expect(bin).toMatch(/\/bin\/freshfacts$/);
        expect(command).toBe('mcp');
        expect([['--embedded'], ['--url', 'http://127.0.0.1:8080']]).toContainEqual(options);
      } else {
        expect(server.url).toBe('http://127.0.0.1:8080/mcp');
        expect(server.headers?.Authorization).toMatch(/^Bearer /);
      }
    }
  });
});
