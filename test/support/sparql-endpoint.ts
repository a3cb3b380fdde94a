import { readdirSync, readFileSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PRESETS_DIR } from '../../src/sources/presets';
import { UPSTREAM_DIR } from './upstream';

/**
 * The captured entities name statement values (office holders, offices) by Q-id only.
 * These are their real English labels; each statement's start date pins down who it is.
 * Values missing here (Kazakhstan's and Algeria's heads of government, the UK's monarchy
 * as an office) have no label, and a query's `rdfs:label` pattern then drops the row.
 */
export const VALUE_LABELS: Record<string, string> = {
  Q10287: 'Manuel Valls',
  Q157: 'François Hollande',
  Q264766: 'Theresa May',
  Q9682: 'Elizabeth II',
  Q2621730: 'Jüri Ratas',
  Q12366816: 'Kersti Kaljulaid',
  Q57701: 'Dean Barrow',
  Q57308: 'Abdelaziz Bouteflika',
  Q950958: 'Charles Michel',
  Q155004: 'Philippe of Belgium',
  Q102844: 'Michael Müller',
  Q334155: 'Sadiq Khan',
  Q14211: 'Prime Minister of the United Kingdom',
  Q191954: 'President of France',
  Q1587677: 'Prime Minister of France',
  Q737115: 'Prime Minister of Estonia',
  Q890005: 'President of Estonia',
  Q213107: 'Prime Minister of Belgium',
};

/** A SPARQL JSON results binding row. */
export type Row = Record<string, { type: string; value: string; datatype?: string }>;
export type Misbehaviour = 'malformed' | 'not-json-type' | 'stall' | 'throttle' | 'huge';

interface Snak {
  snaktype?: string;
  datavalue?: { value?: unknown };
}
interface Statement {
  mainsnak: Snak;
  rank?: string;
  qualifiers?: Record<string, Snak[]>;
}
interface Entity {
  id: string;
  labels?: Record<string, { value: string }>;
  claims?: Record<string, Statement[]>;
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const THE =
  /^(United |Republic |Kingdom |Democratic |Central African|Dominican|Czech Republic|Netherlands|Philippines|Bahamas|Gambia|Maldives|Marshall Islands|Solomon Islands|Comoros|Seychelles)/;

/**
 * A stand-in for Wikidata's SPARQL endpoint on a loopback port, whose answers are made
 * from the real captured Wikidata entities in test/fixtures/upstream/wikidata (their
 * English labels, statements, ranks and qualifier dates). It cannot run SPARQL: it knows
 * each shipped preset by its text (presets/wikidata/NAME.rq) and answers it with the rows
 * that query selects from those entities, in the SPARQL 1.1 JSON results format. Any other
 * query goes to `custom` (400 without one). `misbehave` makes every answer fail one way.
 */
export class SparqlEndpoint {
  readonly seen: { method: string; headers: IncomingMessage['headers']; query: string }[] = [];
  custom?: (query: string) => Row[];
  misbehave?: Misbehaviour;
  /** Most queries it was answering at once. */
  maxInFlight = 0;
  private inFlight = 0;
  private readonly presets = new Map<string, string>();
  private readonly entities = CAPTURED;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  url = '';

  constructor() {
    const folder = join(PRESETS_DIR, 'wikidata');
    for (const file of readdirSync(folder)) {
      this.presets.set(readFileSync(join(folder, file), 'utf8'), file.replace(/\.rq$/, ''));
    }
  }

  async start(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sparql`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  /** The rows the stand-in answers a preset with. */
  rowsOf(preset: string): Row[] {
    const generate = GENERATORS[preset];
    if (!generate) throw new Error(`no generator for preset ${preset}`);
    return generate(this.entities);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const query = new URLSearchParams(body).get('query') ?? '';
    this.seen.push({ method: req.method ?? '', headers: req.headers, query });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => this.inFlight--);
    const preset = this.presets.get(query);
    if (!preset && !this.custom) return void res.writeHead(400).end('MalformedQueryException');
    const rows = preset ? this.rowsOf(preset) : (this.custom?.(query) ?? []);
    // Wikidata answers slowly; a little delay lets overlapping queries show.
    await new Promise((done) => setTimeout(done, 20));
    this.answer(res, rows);
  }

  private answer(res: ServerResponse, rows: Row[]): void {
    const type = { 'content-type': 'application/sparql-results+json;charset=utf-8' };
    const head =
      '{"head":{"vars":["question","answer","true_by","source"]},"results":{"bindings":[';
    const text = rows.map((row) => JSON.stringify(row)).join(',');
    switch (this.misbehave) {
      case 'throttle':
        return void res.writeHead(429, { 'retry-after': '120' }).end('Too Many Requests');
      case 'malformed':
        // Cut off mid-row, as a dropped connection or a server-side timeout leaves it.
        return void res.writeHead(200, type).end(head + text.slice(0, text.length / 2));
      case 'not-json-type':
        return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>busy</html>');
      case 'stall':
        // Good rows, then nothing more until the client gives up.
        return void res.writeHead(200, type).write(head + text);
      case 'huge':
        return this.stream(res, head, rows);
      default:
        res.writeHead(200, type).end(`${head}${text}]}}`);
    }
  }

  /** Valid rows without end (no length declared) until the client stops reading. */
  private stream(res: ServerResponse, head: string, rows: Row[]): void {
    res.writeHead(200, { 'content-type': 'application/sparql-results+json' });
    res.write(head);
    let n = 0;
    const push = () => {
      while (!res.destroyed && n < 1_000_000) {
        const row = { ...rows[n % rows.length], true_by: dateTime(`+${1000 + (n % 999)}-01-01`) };
        if (!res.write(`${n++ ? ',' : ''}${JSON.stringify(row)}`))
          return void res.once('drain', push);
      }
      res.end(']}}');
    };
    push();
  }
}

type Generator = (entities: Entity[]) => Row[];

const GENERATORS: Record<string, Generator> = {
  'heads-of-state': holders(sovereign, 'P35', (e) => `Who is the head of state of ${the(e)}?`),
  'heads-of-government': holders(
    sovereign,
    'P6',
    (e) => `Who is the head of government of ${the(e)}?`,
  ),
  'state-offices': (entities) =>
    entities.filter(sovereign).flatMap((country) =>
      [
        ['P1906', 'P35'],
        ['P1313', 'P6'],
      ].flatMap(([officeProperty, holderProperty]) =>
        statements(country, officeProperty).flatMap((office) => {
          const name = labelOf(itemOf(office));
          if (!name) return [];
          return holders(sovereign, holderProperty, () => `Who is the ${name}?`)([country]);
        }),
      ),
    ),
  'country-population': populations(sovereign, (e) => `What is the population of ${the(e)}?`),
  'city-population': populations(millionCity, (e) => `What is the population of ${label(e)}?`),
  'city-mayors': holders(millionCity, 'P6', (e) => `Who is the mayor of ${label(e)}?`),
  // None of the captured entities is such a company, club, software, or central bank.
  'company-ceos': holders(
    (e) => amount(e, 'P1128') >= 50_000,
    'P169',
    () => '',
  ),
  'football-head-coaches': holders(
    (e) => ['Q9448', 'Q324867', 'Q82595', 'Q15804', 'Q13394'].some((id) => is(e, 'P118', id)),
    'P286',
    () => '',
  ),
  'software-releases': () => [],
  'central-bank-governors': holders(
    (e) => is(e, 'P31', 'Q66344'),
    'P1037',
    () => '',
  ),
};

/** Current, not deprecated statements of `property` whose value has an English label. */
function holders(
  subjects: (e: Entity) => boolean,
  property: string,
  question: (e: Entity) => string,
): Generator {
  return (entities) =>
    entities.filter(subjects).flatMap((entity) =>
      statements(entity, property)
        .filter((statement) => !ended(statement))
        .flatMap((statement) => {
          const answer = labelOf(itemOf(statement));
          if (!answer) return [];
          const start = timeOf(statement, 'P580');
          return [
            row(entity, question(entity), literal(answer), start ? dateTime(start) : undefined),
          ];
        }),
    );
}

/** Population statements with a point in time from 2000 on, as decimals. */
function populations(subjects: (e: Entity) => boolean, question: (e: Entity) => string): Generator {
  return (entities) =>
    entities.filter(subjects).flatMap((entity) =>
      statements(entity, 'P1082').flatMap((statement) => {
        const when = timeOf(statement, 'P585');
        const value = statement.mainsnak.datavalue?.value as { amount?: string } | undefined;
        if (!when || Number(when.slice(1, 5)) < 2000 || !value?.amount) return [];
        const answer = {
          type: 'literal',
          datatype: `${XSD}decimal`,
          value: value.amount.replace(/^\+/, ''),
        };
        return [row(entity, question(entity), answer, dateTime(when))];
      }),
    );
}

function row(entity: Entity, question: string, answer: Row[string], trueBy?: Row[string]): Row {
  return {
    question: literal(question),
    answer,
    ...(trueBy ? { true_by: trueBy } : {}),
    source: { type: 'uri', value: `https://www.wikidata.org/wiki/${entity.id}` },
  };
}

function literal(value: string): Row[string] {
  return { type: 'literal', value };
}

/** Wikidata's `+2009-00-00T00:00:00Z` (year precision) as WDQS prints it: `2009-01-01T00:00:00Z`. */
function dateTime(time: string): Row[string] {
  const [, year, month, day] = /^\+?0*(\d+)-(\d\d)-(\d\d)/.exec(time) ?? [];
  const value = `${year.padStart(4, '0')}-${month === '00' ? '01' : month}-${day === '00' ? '01' : day}T00:00:00Z`;
  return { type: 'literal', datatype: `${XSD}dateTime`, value };
}

function sovereign(e: Entity): boolean {
  return is(e, 'P31', 'Q3624078') && statements(e, 'P576').length === 0;
}

function millionCity(e: Entity): boolean {
  return is(e, 'P31', 'Q1637706');
}

function statements(e: Entity, property: string): Statement[] {
  return (e.claims?.[property] ?? []).filter((s) => s.rank !== 'deprecated');
}

function is(e: Entity, property: string, id: string): boolean {
  return statements(e, property).some((s) => itemOf(s) === id);
}

function amount(e: Entity, property: string): number {
  const value = statements(e, property)[0]?.mainsnak.datavalue?.value as { amount?: string };
  return Number(value?.amount ?? 0);
}

function ended(statement: Statement): boolean {
  const end = timeOf(statement, 'P582');
  return end !== undefined && new Date(end.replace(/^\+/, '')) <= new Date();
}

function timeOf(statement: Statement, qualifier: string): string | undefined {
  const value = statement.qualifiers?.[qualifier]?.[0]?.datavalue?.value as { time?: string };
  return value?.time;
}

function itemOf(statement: Statement): string | undefined {
  const value = statement.mainsnak.datavalue?.value as { id?: string; 'numeric-id'?: number };
  return value?.id ?? (value?.['numeric-id'] ? `Q${value['numeric-id']}` : undefined);
}

function labelOf(id: string | undefined): string | undefined {
  return id ? (VALUE_LABELS[id] ?? ENTITY_LABELS.get(id)) : undefined;
}

function label(e: Entity): string {
  return e.labels?.en?.value ?? e.id;
}

function the(e: Entity): string {
  return THE.test(label(e)) ? `the ${label(e)}` : label(e);
}

/** Every captured entity (dump lines and entity documents), with an English label. */
function capturedEntities(): Entity[] {
  const root = join(UPSTREAM_DIR, 'wikidata');
  const entities: Entity[] = [];
  for (const folder of ['dump-2017-03', 'entitydata']) {
    for (const file of readdirSync(join(root, folder))) {
      const json = JSON.parse(readFileSync(join(root, folder, file), 'utf8')) as
        Entity | { entities: Record<string, Entity> };
      entities.push(...('entities' in json ? Object.values(json.entities) : [json]));
    }
  }
  return entities.filter((e) => e.labels?.en?.value);
}

const CAPTURED = capturedEntities();
const ENTITY_LABELS = new Map(CAPTURED.map((e) => [e.id, label(e)]));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
  });
}
