import { readFileSync } from 'node:fs';
import { CUTOFFS_FILE, ModelCutoffs } from '../../src/models/model-cutoffs';
import { parseDay } from '../../src/common/dates';

describe('the shipped model cutoff table', () => {
  const table = JSON.parse(readFileSync(CUTOFFS_FILE, 'utf8')) as {
    models: Record<string, string>[];
  };
  const cutoffs = ModelCutoffs.fromFile();

  it('has unique vendor/model ids, real days and a public source for every entry', () => {
    const ids = table.models.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const entry of table.models) {
      expect(entry.id).toMatch(/^[a-z0-9-]+\/[a-z0-9.:-]+$/);
      expect(parseDay(entry.cutoff)).toBe(entry.cutoff);
      expect(['day', 'month', 'year']).toContain(entry.cutoff_precision);
      expect(entry.source).toMatch(/^https:\/\//);
    }
  });

  const cases: [string, string][] = [
    ['openai/gpt-4o', 'openai/gpt-4o'],
    ['OpenAI/GPT-4o', 'openai/gpt-4o'],
    ['openai/gpt-4o-mini:free', 'openai/gpt-4o-mini'],
    ['openai/gpt-4.1-nano-2025-04-14', 'openai/gpt-4.1-nano'],
    ['openai/o1-mini-2024-09-12', 'openai/o1-mini'],
    ['anthropic/claude-3.5-haiku-20241022', 'anthropic/claude-3.5-haiku-20241022'],
    ['anthropic/claude-3.5-haiku-20250101', 'anthropic/claude-3.5-haiku'],
    ['anthropic/claude-3.7-sonnet:thinking', 'anthropic/claude-3.7-sonnet'],
    ['anthropic/claude-3-7-sonnet-20250219', 'anthropic/claude-3.7-sonnet'],
    ['anthropic/claude-4-sonnet-20250522', 'anthropic/claude-sonnet-4'],
    ['anthropic/claude-opus-4.6-fast', 'anthropic/claude-opus-4.6'],
    [
      'google/gemini-2.5-flash-lite-preview-09-2025',
      'google/gemini-2.5-flash-lite-preview-09-2025',
    ],
    ['google/gemini-2.5-pro-exp-03-25', 'google/gemini-2.5-pro'],
    ['meta-llama/llama-3.3-70b-instruct:nitro', 'meta-llama/llama-3.3-70b-instruct'],
    ['gpt-4o', 'openai/gpt-4o'],
  ];
  it.each(cases)('resolves %s to %s', (id, expected) => {
    expect(cutoffs.lookup(id)?.id).toBe(expected);
  });

  it.each([
    '~anthropic/claude-sonnet-latest',
    'openrouter/auto',
    'google/gemini-flash-latest',
    'mistralai/mixtral-8x7b',
    'acme/thing',
    'claude',
  ])('treats %s as unknown rather than guessing', (id) =>
    expect(cutoffs.lookup(id)).toBeUndefined(),
  );

  it('keeps dated Mistral ids, which name distinct models', () => {
    expect(cutoffs.lookup('mistralai/mistral-small-2603')?.id).toBe('mistralai/mistral-small-2603');
  });
});
