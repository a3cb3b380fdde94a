import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { projectPath } from '../config/config';
import { SourceInputError } from './source-input';

/** The shipped source lists; each file's comment header says what it asks. */
export const PRESETS_DIR = projectPath('presets');
export const PRESET_NAMES = ['wikidata', 'news'] as const;

export type Preset =
  | { kind: 'sparql'; name: string; query: string; every: string }
  | { kind: 'feed'; url: string; every: string };

/**
 * The sources of a preset: `wikidata`, the SPARQL queries in presets/wikidata/*.rq;
 * `news`, the feeds listed in presets/news.feeds. Intervals come from each file's
 * `# Every:` line.
 */
export function presetSources(name: string): Preset[] {
  if (name === 'wikidata') return wikidataQueries();
  if (name === 'news') return newsFeeds();
  throw new SourceInputError(`--preset must be one of ${PRESET_NAMES.join(', ')}, got "${name}"`);
}

function wikidataQueries(): Preset[] {
  const folder = join(PRESETS_DIR, 'wikidata');
  return readdirSync(folder)
    .filter((file) => file.endsWith('.rq'))
    .sort()
    .map((file) => {
      const query = readFileSync(join(folder, file), 'utf8');
      return { kind: 'sparql', name: basename(file, '.rq'), query, every: everyOf(query, file) };
    });
}

function newsFeeds(): Preset[] {
  const text = readFileSync(join(PRESETS_DIR, 'news.feeds'), 'utf8');
  const every = everyOf(text, 'news.feeds');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((url) => ({ kind: 'feed', url, every }));
}

/** The interval a preset file asks for in its header (`# Every: 6h`). */
function everyOf(text: string, file: string): string {
  const every = /^#\s*Every:\s*(\S+)/im.exec(text)?.[1];
  if (!every) throw new Error(`preset ${file} has no "# Every:" line`);
  return every;
}
