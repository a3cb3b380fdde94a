import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FactSearch } from '../../src/facts/ranking.repository';
import { STATIC_RANKING } from '../../src/facts/ranking';
import { rankingStatement, WindowPath } from '../../src/facts/ranking-sql';

/**
 * The ranking statement of each window path is checked in, rendered with fixed inputs,
 * so that every change to the SQL shows in review as a diff of src/facts/sql/*.sql.
 * `npm run render-sql` writes them again (FRESHFACTS_RENDER_SQL=write).
 */
const DIR = join(__dirname, '../../src/facts/sql');
/**
 * Each window path at the scale of a large corpus, and without a window on a corpus
 * whose term budget is at its floor (RankingRepository leaves out the commoner terms'
 * boost there: the shipped corpus, and up to 100k facts).
 */
const VARIANTS: [string, WindowPath, boolean][] = [
  ['none', 'none', true],
  ['scan', 'scan', true],
  ['wide', 'wide', true],
  ['none-unboosted', 'none', false],
];

/** Fixed inputs: a small vector exact in float32, the shipped model's calibration. */
function render(path: WindowPath, boost: boolean): string {
  const search: FactSearch = {
    query: 'Who is the head coach of Calcio Catania?',
    vector: new Float32Array([0.25, -0.5, 0.125]),
    k: 10,
    timeline: true,
    ...(path === 'none' ? {} : { minDay: '2020-01-01', maxDay: '2020-06-30' }),
  };
  const ranking = boost ? STATIC_RANKING : { ...STATIC_RANKING, termBoostShare: 0 };
  const [sql, params] = rankingStatement(search, ranking, path);
  return [
    `-- FactsRepository.search's statement for ${DESCRIPTION[path]}${boost ? '' : ' on a corpus whose term budget is at its floor'},`,
    `-- with the static model's ranking and k = 10. Rendered by`,
    `-- test/facts/ranking-sql.spec.ts: do not edit, run \`npm run render-sql\`.`,
    ...params.map((param, i) => `-- $${i + 1} = ${JSON.stringify(param)}`),
    `${sql.trim()};`,
    '',
  ].join('\n');
}

const DESCRIPTION: Record<WindowPath, string> = {
  none: 'no date window',
  scan: 'a narrow date window (scanned)',
  wide: 'a wide date window (walked through the HNSW graph)',
};

describe('the checked-in ranking statements', () => {
  const write = process.env.FRESHFACTS_RENDER_SQL === 'write';

  it.each(VARIANTS)('match the statement rendered now (%s)', (name, path, boost) => {
    const file = join(DIR, `search-${name}.sql`);
    const rendered = render(path, boost);
    if (write) {
      mkdirSync(DIR, { recursive: true });
      writeFileSync(file, rendered);
    }
    let stored = '';
    try {
      stored = readFileSync(file, 'utf8');
    } catch {
      // A missing file fails below, with the same advice as a stale one.
    }
    if (stored !== rendered) {
      throw new Error(
        `src/facts/sql/search-${name}.sql is stale: the ranking SQL changed. Run ` +
          `\`npm run render-sql\`, read \`git diff src/facts/sql\` and commit it with the change.`,
      );
    }
  });
});
