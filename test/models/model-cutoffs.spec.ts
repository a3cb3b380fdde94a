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

  // One example of each form an agent sends, and the entry it must reach.
  const forms: [string, string, string][] = [
    ['the table id', 'openai/gpt-4o', 'openai/gpt-4o'],
    ['any case', 'OpenAI/GPT-4o', 'openai/gpt-4o'],
    ['a bare vendor id', 'gpt-4o', 'openai/gpt-4o'],
    ['a dated snapshot YYYY-MM-DD', 'openai/gpt-4.1-nano-2025-04-14', 'openai/gpt-4.1-nano'],
    ['a bare dated snapshot YYYY-MM-DD', 'o1-mini-2024-09-12', 'openai/o1-mini'],
    ['a dated snapshot YYYYMMDD', 'claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4.5'],
    [
      'a dated snapshot listed itself',
      'claude-3-5-haiku-20241022',
      'anthropic/claude-3.5-haiku-20241022',
    ],
    [
      'an unlisted snapshot of a listed model',
      'anthropic/claude-3.5-haiku-20250101',
      'anthropic/claude-3.5-haiku',
    ],
    [
      'version-first Claude with hyphens',
      'claude-3-5-sonnet-20241022',
      'anthropic/claude-3.5-sonnet',
    ],
    [
      'version-first Claude with dots',
      'anthropic/claude-3.7-sonnet',
      'anthropic/claude-3.7-sonnet',
    ],
    [
      'hyphens for dots in a vendor/model id',
      'anthropic/claude-sonnet-4-5',
      'anthropic/claude-sonnet-4.5',
    ],
    [
      'hyphens for dots in a Llama version',
      'meta-llama/llama-3-1-8b-instruct',
      'meta-llama/llama-3.1-8b-instruct',
    ],
    [
      'OpenRouter’s version-first slug',
      'anthropic/claude-4-sonnet-20250522',
      'anthropic/claude-sonnet-4',
    ],
    [
      'OpenRouter’s hyphenated slug',
      'anthropic/claude-3-7-sonnet-20250219',
      'anthropic/claude-3.7-sonnet',
    ],
    ['Anthropic alias of a .0 release', 'claude-sonnet-4-0', 'anthropic/claude-sonnet-4'],
    ['the same alias with a dot', 'anthropic/claude-opus-4.0', 'anthropic/claude-opus-4'],
    [':free', 'openai/gpt-4o-mini:free', 'openai/gpt-4o-mini'],
    [':thinking', 'anthropic/claude-3.7-sonnet:thinking', 'anthropic/claude-3.7-sonnet'],
    [
      ':nitro (routing)',
      'meta-llama/llama-3.3-70b-instruct:nitro',
      'meta-llama/llama-3.3-70b-instruct',
    ],
    ['Anthropic fast mode', 'anthropic/claude-opus-4.6-fast', 'anthropic/claude-opus-4.6'],
    ['Bedrock -v1:0', 'anthropic.claude-3-haiku-20240307-v1:0', 'anthropic/claude-3-haiku'],
    ['Bedrock -v2:0', 'anthropic.claude-3-5-sonnet-20241022-v2:0', 'anthropic/claude-3.5-sonnet'],
    [
      'Bedrock cross-region us.',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'anthropic/claude-sonnet-4.5',
    ],
    [
      'Bedrock global. without a date',
      'global.anthropic.claude-opus-4-6-v1',
      'anthropic/claude-opus-4.6',
    ],
    ['Bedrock Llama', 'meta.llama3-1-70b-instruct-v1:0', 'meta-llama/llama-3.1-70b-instruct'],
    [
      'Llama 4 by its weights',
      'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
      'meta-llama/llama-4-maverick',
    ],
    ['Bedrock Llama 4', 'us.meta.llama4-scout-17b-instruct-v1:0', 'meta-llama/llama-4-scout'],
    ['Bedrock gpt-oss', 'openai.gpt-oss-120b-1:0', 'openai/gpt-oss-120b'],
    ['Bedrock Claude 2.1 (-v2:1)', 'anthropic.claude-v2:1', 'anthropic/claude-2.1'],
    ['Bedrock Claude 2.0 (-v2)', 'anthropic.claude-v2', 'anthropic/claude-2.0'],
    [
      'Bedrock Claude Instant (-instant-v1)',
      'anthropic.claude-instant-v1',
      'anthropic/claude-instant-1',
    ],
    [
      'Bedrock Claude 2 with a provisioned context size',
      'anthropic.claude-v2:1:200k',
      'anthropic/claude-2.1',
    ],
    ['LiteLLM bedrock/ Claude 2.1', 'bedrock/anthropic.claude-v2:1', 'anthropic/claude-2.1'],
    [
      'LiteLLM bedrock/',
      'bedrock/us.anthropic.claude-3-7-sonnet-20250219-v1:0',
      'anthropic/claude-3.7-sonnet',
    ],
    [
      'LiteLLM bedrock/converse/',
      'bedrock/converse/anthropic.claude-opus-4-1-20250805-v1:0',
      'anthropic/claude-opus-4.1',
    ],
    ['Vertex AI @date', 'claude-sonnet-4-5@20250929', 'anthropic/claude-sonnet-4.5'],
    ['Vertex AI v2@date', 'claude-3-5-sonnet-v2@20241022', 'anthropic/claude-3.5-sonnet'],
    ['LiteLLM vertex_ai/', 'vertex_ai/claude-opus-4-5@20251101', 'anthropic/claude-opus-4.5'],
    ['LiteLLM vertex_ai/ Gemini', 'vertex_ai/gemini-2.5-pro', 'google/gemini-2.5-pro'],
    [
      'Vertex AI resource name',
      'publishers/google/models/gemini-2.5-flash',
      'google/gemini-2.5-flash',
    ],
    ['Gemini API resource name', 'models/gemini-2.5-flash-lite', 'google/gemini-2.5-flash-lite'],
    ['LiteLLM gemini/', 'gemini/gemini-2.5-pro-preview-06-05', 'google/gemini-2.5-pro-preview'],
    ['Google -exp date', 'google/gemini-2.5-pro-exp-03-25', 'google/gemini-2.5-pro'],
    [
      'Google preview month',
      'google/gemini-2.5-flash-lite-preview-09-2025',
      'google/gemini-2.5-flash-lite-preview-09-2025',
    ],
    ['Google version -002, vendor order', 'gemini-1.5-pro-002', 'google/gemini-pro-1.5'],
    ['Google stable alias of -001', 'gemini-2.0-flash', 'google/gemini-2.0-flash-001'],
    [
      'LiteLLM openrouter/',
      'openrouter/anthropic/claude-sonnet-4.5',
      'anthropic/claude-sonnet-4.5',
    ],
    [
      'LiteLLM anthropic/ with a date',
      'anthropic/claude-sonnet-4-20250514',
      'anthropic/claude-sonnet-4',
    ],
    ['LiteLLM openai/ with a date', 'openai/gpt-5-2025-08-07', 'openai/gpt-5'],
    ['OpenAI legacy snapshot -MMDD', 'gpt-4-0613', 'openai/gpt-4'],
    [
      'OpenAI legacy snapshot -MMDD, vendor id',
      'openai/gpt-3.5-turbo-0301',
      'openai/gpt-3.5-turbo',
    ],
    ['OpenAI legacy 16k snapshot -MMDD', 'gpt-3.5-turbo-16k-0613', 'openai/gpt-3.5-turbo-16k'],
    ['OpenAI legacy 32k snapshot -MMDD', 'gpt-4-32k-0314', 'openai/gpt-4-32k'],
    ['LiteLLM azure/', 'azure/gpt-4.1-mini', 'openai/gpt-4.1-mini'],
    ['LiteLLM xai/', 'xai/grok-3-mini', 'x-ai/grok-3-mini'],
    ['LiteLLM mistral/', 'mistral/mistral-small-2603', 'mistralai/mistral-small-2603'],
    [
      'Mistral API -YYMM of a release listed by its weights',
      'mistral-small-2503',
      'mistralai/mistral-small-3.1-24b-instruct',
    ],
    [
      'Mistral weights with their -YYMM',
      'mistralai/Mistral-Small-3.2-24B-Instruct-2506',
      'mistralai/mistral-small-3.2-24b-instruct',
    ],
    ['LiteLLM meta/', 'meta/llama-3.3-70b-instruct', 'meta-llama/llama-3.3-70b-instruct'],
    [
      'Mistral NeMo by its weights',
      'mistralai/Mistral-Nemo-Instruct-2407',
      'mistralai/mistral-nemo',
    ],
    ['Mistral API name of NeMo', 'open-mistral-nemo', 'mistralai/mistral-nemo'],
    [
      'NVIDIA weights with the vendor in the name',
      'nvidia/NVIDIA-Nemotron-Nano-9B-v2',
      'nvidia/nemotron-nano-9b-v2',
    ],
    ['a bare Nemotron id', 'nemotron-nano-9b-v2', 'nvidia/nemotron-nano-9b-v2'],
    ['Phi weights name', 'microsoft/Phi-4-mini-instruct', 'microsoft/phi-4-mini-instruct'],
    ['LiteLLM azure_ai/ Phi', 'azure_ai/Phi-4-reasoning', 'microsoft/phi-4-reasoning'],
    ['a bare Gemma 3 1B id', 'gemma-3-1b-it', 'google/gemma-3-1b-it'],
    ['LiteLLM litellm_proxy/', 'litellm_proxy/gpt-4o', 'openai/gpt-4o'],
    ['xAI snapshot -MMDD', 'grok-4-0709', 'x-ai/grok-4'],
    ['xAI reasoning mode, hyphenated version', 'grok-4-1-fast-reasoning', 'x-ai/grok-4.1-fast'],
    ['a listed -latest alias', 'openai/chatgpt-4o-latest', 'openai/chatgpt-4o-latest'],
    ['spaces around', '  gpt-4o  ', 'openai/gpt-4o'],
  ];
  it.each(forms)('resolves %s: %s → %s', (_form, id, expected) => {
    expect(cutoffs.lookup(id)?.id).toBe(expected);
  });

  it.each([
    // Moving aliases: their target changes, so their cutoff is unknown.
    '~anthropic/claude-sonnet-latest',
    'openrouter/auto',
    'openrouter/free',
    'claude-3-5-sonnet-latest',
    'google/gemini-flash-latest',
    // Models of a listed family that the table does not list: never a neighbour's cutoff.
    'anthropic/claude-sonnet-4.7',
    'claude-sonnet-4-7-20270101',
    'claude-haiku-4-6',
    // A .0 alias of a version the table does not list.
    'claude-haiku-4-0',
    'claude-sonnet-3-0',
    'openai/gpt-5.1-mini',
    'gpt-5.7',
    'gpt-4o-mini-tts',
    'google/gemini-3-pro',
    'gemini-1.0-pro',
    'grok-5',
    'mistralai/mistral-small-2409',
    'mistralai/mixtral-8x7b',
    'meta.llama3-2-11b-instruct-v1:0',
    'meta-llama/llama-4-behemoth-288b-16e-instruct',
    'us.amazon.nova-pro-v1:0',
    // Claude 1.x on Bedrock: no table entry, and never Claude 2's.
    'anthropic.claude-v1',
    // Neighbours of new entries that have no published date of their own (or another one).
    'nvidia/nemotron-nano-9b-v2-base',
    'microsoft/phi-4-multimodal-instruct',
    'mistralai/mistral-nemo-base-2407',
    'open-mixtral-8x7b',
    'google/gemma-2-9b-it',
    'deepseek/deepseek-v3.2',
    // Hosts whose names are their own, and names of no vendor.
    'groq/llama-3.3-70b-versatile',
    'together_ai/meta-llama/llama-3.3-70b-instruct-turbo',
    'acme/thing',
    'acme/gpt-4o',
    'constructor/gpt-4o',
    '__proto__.claude-3-haiku-20240307-v1:0',
    'claude',
    'gpt',
    '',
  ])('treats %p as unknown rather than guessing', (id) =>
    expect(cutoffs.lookup(id)).toBeUndefined(),
  );

  it('resolves every listed model, in every form agents send it, to its own entry', () => {
    for (const { id } of table.models.filter((entry) => !entry.id.endsWith('-latest'))) {
      const [vendor, model] = id.split('/');
      const hyphens = model.replace(/(\d)\.(\d)/g, '$1-$2');
      const forms = [
        model,
        hyphens,
        `${hyphens}-20991231`,
        `${vendor}/${hyphens}`,
        `${id}:free`,
        `${id}-2099-12-31`,
        `openrouter/${id}`,
      ];
      for (const form of forms) expect([form, cutoffs.lookup(form)?.id]).toEqual([form, id]);
    }
  });

  it('keeps dated Mistral ids, which name distinct models', () => {
    expect(cutoffs.lookup('mistralai/mistral-small-2603')?.id).toBe('mistralai/mistral-small-2603');
    expect(cutoffs.lookup('mistral-small-2603')?.id).toBe('mistralai/mistral-small-2603');
    expect(cutoffs.lookup('mistral-small-2501')?.id).toBe(
      'mistralai/mistral-small-24b-instruct-2501',
    );
    expect(cutoffs.lookup('mistral-small-2506')?.id).toBe(
      'mistralai/mistral-small-3.2-24b-instruct',
    );
  });

  it('tells apart neighbours of one family', () => {
    const pairs: [string, string][] = [
      ['gpt-4o-mini-2024-07-18', 'openai/gpt-4o-mini-2024-07-18'],
      ['gpt-4.1-mini-2025-04-14', 'openai/gpt-4.1-mini'],
      ['o3-mini-2025-01-31', 'openai/o3-mini'],
      ['claude-3-haiku-20240307', 'anthropic/claude-3-haiku'],
      ['claude-opus-4-20250514', 'anthropic/claude-opus-4'],
      ['claude-opus-4-1-20250805', 'anthropic/claude-opus-4.1'],
      ['gemini-2.0-flash-lite', 'google/gemini-2.0-flash-lite-001'],
      ['meta-llama/llama-3.2-3b-instruct', 'meta-llama/llama-3.2-3b-instruct'],
      ['gpt-4-0314', 'openai/gpt-4-0314'],
      ['gpt-4-32k', 'openai/gpt-4-32k'],
      // A listed -MMDD snapshot is its own entry before the legacy rule applies.
      ['gpt-3.5-turbo-0613', 'openai/gpt-3.5-turbo-0613'],
      ['gpt-3.5-turbo-1106', 'openai/gpt-3.5-turbo-1106'],
      ['phi-4-reasoning', 'microsoft/phi-4-reasoning'],
      ['phi-4-reasoning-plus', 'microsoft/phi-4-reasoning-plus'],
      ['phi-4', 'microsoft/phi-4'],
      ['anthropic.claude-v2', 'anthropic/claude-2.0'],
      ['anthropic.claude-v2:1', 'anthropic/claude-2.1'],
    ];
    for (const [id, expected] of pairs)
      expect([id, cutoffs.lookup(id)?.id]).toEqual([id, expected]);
  });
});
