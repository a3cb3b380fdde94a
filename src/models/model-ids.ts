/**
 * The ids an agent may send for one model, rewritten towards the table's
 * `<vendor>/<model>` form. Each rewrite removes only what does not change the
 * weights (a gateway's prefix, a snapshot date, a routing variant) or spells the same
 * name another way; a rewrite that could name another model is left out, because a
 * wrong cutoff hides facts where an unknown one only shows a few too many.
 */

// Moving aliases change target over time: their cutoff is unknown, never guessed.
const MOVING_ALIAS = /^~|^openrouter\/[^/]+$|-latest(?::[^/]*)?$/;

/** Prefixes of gateways and SDKs (LiteLLM's `provider/`, Google's resource names). */
const GATEWAY_PREFIXES = [
  /^openrouter\//,
  /^litellm_proxy\//,
  /^bedrock\/(?:converse\/|invoke\/)?/,
  /^vertex_ai(?:_beta)?\//,
  /^gemini\//,
  /^azure(?:_ai)?\//,
  /^xai\//,
  /^models\//,
  /^projects\/[^/]+\/locations\/[^/]+\//,
];

/** Vendors of the table under the names that gateways give them. */
const VENDOR_NAMES = new Map<string, string>([
  ['anthropic', 'anthropic'],
  ['openai', 'openai'],
  ['google', 'google'],
  ['meta', 'meta-llama'],
  ['meta-llama', 'meta-llama'],
  ['mistral', 'mistralai'],
  ['mistralai', 'mistralai'],
  ['xai', 'x-ai'],
  ['x-ai', 'x-ai'],
  ['deepseek', 'deepseek'],
  ['qwen', 'qwen'],
  ['microsoft', 'microsoft'],
  ['nvidia', 'nvidia'],
]);

/** Whose model a bare id (`claude-…`, `gpt-…`) is, by the vendor's own naming. */
const FAMILIES: [RegExp, string][] = [
  [/^claude-/, 'anthropic'],
  [/^(?:gpt-|chatgpt-|o\d(?:-|$)|codex-)/, 'openai'],
  [/^(?:gemini-|gemma-|palm-)/, 'google'],
  [/^grok-/, 'x-ai'],
  [/^llama-?\d/, 'meta-llama'],
  [/^(?:open-)?(?:mistral|mixtral|ministral|devstral)-/, 'mistralai'],
  [/^deepseek-/, 'deepseek'],
  [/^phi-/, 'microsoft'],
  [/^qwen/, 'qwen'],
  [/^(?:nvidia-)?nemotron-/, 'nvidia'],
];

/** Amazon Bedrock: `[region.]vendor.model[-vN[:M]]`, e.g. `us.anthropic.claude-…-v1:0`. */
const BEDROCK = /^(?:(?:us|eu|apac|global|jp|au|ca|us-gov)\.)?([a-z]+)\.([a-z][^./]*)$/;

/** Candidate table ids for `modelId`, most literal first. */
export function* candidateIds(modelId: string): Generator<string> {
  const id = modelId.trim().toLowerCase();
  yield id;
  if (MOVING_ALIAS.test(id)) return;
  const named = withVendor(withoutGateway(id));
  if (!named || MOVING_ALIAS.test(named)) return;
  const seen = new Set<string>([id]);
  for (const candidate of spellings(named)) {
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    yield candidate;
  }
}

function withoutGateway(id: string): string {
  let rest = id;
  for (let changed = true; changed;) {
    changed = false;
    for (const prefix of GATEWAY_PREFIXES) {
      if (!prefix.test(rest)) continue;
      rest = rest.replace(prefix, '');
      changed = true;
    }
  }
  // Vertex AI's resource names: publishers/anthropic/models/claude-…
  return rest.replace(/^publishers\/([^/]+)\/models\//, '$1/');
}

/** `vendor/model` in the table's vendor names, or undefined when the vendor is unknowable. */
function withVendor(id: string): string | undefined {
  const slash = id.indexOf('/');
  if (slash >= 0) {
    const vendor = VENDOR_NAMES.get(id.slice(0, slash));
    const model = id.slice(slash + 1);
    // An unknown vendor keeps its name: the table may list it, a neighbour must not match.
    return vendor ? `${vendor}/${model}` : id;
  }
  const bedrock = BEDROCK.exec(id);
  const bedrockVendor = bedrock && VENDOR_NAMES.get(bedrock[1]);
  if (bedrock && bedrockVendor) {
    const legacy = bedrockVendor === 'anthropic' ? bedrockLegacyClaude(bedrock[2]) : undefined;
    if (legacy) return `anthropic/${legacy}`;
    const model = bedrock[2].replace(/-v\d+(?::\d+)?$|-\d+:\d+$/, '');
    return `${bedrockVendor}/${model.replace(/^llama(\d)/, 'llama-$1')}`;
  }
  const family = FAMILIES.find(([pattern]) => pattern.test(id));
  return family ? `${family[1]}/${id}` : undefined;
}

/**
 * Bedrock's ids of Claude 2 and Claude Instant put the version in -vN[:M] (and a
 * provisioned context size after it): claude-v2:1 is Claude 2.1, claude-v2 is 2.0,
 * claude-instant-v1 is Claude Instant 1. Anything else is left to the general rule.
 */
function bedrockLegacyClaude(model: string): string | undefined {
  const m = /^claude-(instant-)?v(\d+)(?::(\d+))?(?::\d+k)?$/.exec(model);
  if (!m) return undefined;
  return m[1] ? `claude-instant-${m[2]}` : `claude-${m[2]}.${m[3] ?? '0'}`;
}

/** The same model spelled as the table may list it. */
function* spellings(named: string): Generator<string> {
  const [vendor, model] = [named.slice(0, named.indexOf('/')), named.slice(named.indexOf('/') + 1)];
  for (const base of undated(vendor, model)) {
    for (const spelt of dotted(base)) {
      yield `${vendor}/${spelt}`;
      yield* reordered(vendor, spelt);
    }
  }
}

/** The id as sent (without variant), then without its snapshot date or version suffix. */
function* undated(vendor: string, model: string): Generator<string> {
  // Vertex AI writes the snapshot after an @: claude-sonnet-4-5@20250929, gemini-1.0-pro@001.
  const plain = model.replace(/:[^/]*$/, '').replace(/@/, '-');
  const fast = vendor === 'anthropic' ? plain.replace(/-fast$/, '') : plain;
  const bases = [plain, fast];
  for (const base of new Set(bases)) {
    yield base;
    for (const suffix of snapshotSuffixes(vendor)) {
      if (!suffix.test(base)) continue;
      const stripped = base.replace(suffix, '');
      yield stripped;
      // Claude 3.5 Sonnet's second release: claude-3-5-sonnet-v2@20241022.
      if (vendor === 'anthropic') yield stripped.replace(/-v\d$/, '');
    }
  }
}

function snapshotSuffixes(vendor: string): RegExp[] {
  const dated = [/-\d{4}-\d{2}-\d{2}$/, /-\d{8}$/];
  if (vendor === 'google') {
    // Preview and experimental dates; stable versions such as -001.
    return [
      ...dated,
      /(?<=-(?:preview|exp))-\d{2}-\d{2,4}$/,
      /-(?:preview|exp)-\d{2}-\d{2,4}$/,
      /-\d{3}$/,
    ];
  }
  // OpenAI's legacy snapshots end in -MMDD: gpt-4-0613, gpt-3.5-turbo-0301.
  if (vendor === 'openai') return [...dated, /-(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/];
  // xAI: grok-4-0709 is the snapshot of grok-4; -reasoning/-non-reasoning pick a mode.
  if (vendor === 'x-ai') return [...dated, /-\d{4}$/, /-(?:non-)?reasoning$/];
  // Mistral's -YYMM names a distinct model (mistral-small-2603 is Small 4): kept.
  return dated;
}

/** Version numbers with a hyphen for the dot (claude-sonnet-4-5, llama-3-1-8b) as dots. */
function* dotted(model: string): Generator<string> {
  yield model;
  // Only a one-digit part after the hyphen, then a separator: -4-5 is 4.5, -4-32k and
  // -4-0613 are not versions.
  const spelt = model.replace(/(\d)-(\d)(?=$|-)/g, '$1.$2');
  if (spelt !== model) yield spelt;
}

/**
 * Mistral's API names its Small releases by -YYMM alone; the table lists them under
 * their weights' names (Mistral-Small-3.1-24B-Instruct-2503 is mistral-small-2503), and
 * Mistral NeMo under OpenRouter's mistral-nemo.
 */
const MISTRAL_RELEASES = new Map<string, string>([
  ['mistral-small-2501', 'mistral-small-24b-instruct-2501'],
  ['mistral-small-2503', 'mistral-small-3.1-24b-instruct'],
  ['mistral-small-3.1-24b-instruct-2503', 'mistral-small-3.1-24b-instruct'],
  ['mistral-small-2506', 'mistral-small-3.2-24b-instruct'],
  ['mistral-small-3.2-24b-instruct-2506', 'mistral-small-3.2-24b-instruct'],
  // Mistral NeMo: its weights (Mistral-Nemo-Instruct-2407) and the API's open-mistral-nemo.
  ['mistral-nemo-instruct-2407', 'mistral-nemo'],
  ['open-mistral-nemo', 'mistral-nemo'],
  ['open-mistral-nemo-2407', 'mistral-nemo'],
]);

/** Table spellings that order the words differently from the vendor's own id. */
function* reordered(vendor: string, model: string): Generator<string> {
  const release = vendor === 'mistralai' ? MISTRAL_RELEASES.get(model) : undefined;
  if (release) yield `mistralai/${release}`;
  // NVIDIA's weights carry the vendor in the name: NVIDIA-Nemotron-Nano-9B-v2.
  if (vendor === 'nvidia' && model.startsWith('nvidia-')) yield `nvidia/${model.slice(7)}`;
  if (vendor === 'meta-llama') {
    // Llama 4 by its weights' names (llama-4-maverick-17b-128e-instruct[-fp8]) or Bedrock's.
    const m = /^llama-4-(scout|maverick)-17b(?:-(?:16|128)e)?-instruct(?:-fp8)?$/.exec(model);
    if (m) yield `meta-llama/llama-4-${m[1]}`;
  }
  if (vendor === 'anthropic') {
    // OpenRouter's slugs put the version first (claude-4-sonnet, claude-3-7-sonnet).
    const m = /^claude-(\d+(?:\.\d+)?)-([a-z]+)$/.exec(model);
    if (m) yield `anthropic/claude-${m[2]}-${m[1]}`;
    const n = /^claude-([a-z]+)-(\d+(?:\.\d+)?)$/.exec(model);
    if (n) yield `anthropic/claude-${n[2]}-${n[1]}`;
    // Anthropic's own aliases of a .0 release: claude-sonnet-4-0 is claude-sonnet-4.
    const zero = /^claude-([a-z]+)-(\d+)\.0$/.exec(model);
    if (zero) yield `anthropic/claude-${zero[1]}-${zero[2]}`;
  }
  if (vendor === 'google') {
    // OpenRouter lists Gemini 1.x as gemini-pro-1.5; Google's stable alias gemini-2.0-flash
    // points at gemini-2.0-flash-001, the table's entry.
    const m = /^gemini-(1\.\d)-(pro|flash)$/.exec(model);
    if (m) yield `google/gemini-${m[2]}-${m[1]}`;
    if (/^gemini-\d\.\d-flash(?:-lite)?$/.test(model)) yield `google/${model}-001`;
  }
}
