import { decodeBody } from '../../src/sources/articles/decode';
import { parsePublished } from '../../src/sources/articles/published';
import { rejectionOf } from '../../src/sources/extraction/proposal-checks';
import { wikidataDay } from '../../src/sources/wikidata/entities';
import { parseInterval } from '../../src/sources/source-input';

describe('publication dates as publishers write them', () => {
  it.each([
    ['2019-11-20T05:52:20-05:00', '2019-11-20', '2019-11-20T10:52:20.000Z'],
    ['Wed, 31 Jan 2018 07:26:05 GMT', '2018-01-31', '2018-01-31T07:26:05.000Z'],
    ['Seg, 24 Set 2018 19:42:40 -0300', '2018-09-24', '2018-09-24T22:42:40.000Z'],
    ['Sat, Dec 16 2023 02:02:33 PM', '2023-12-16', '2023-12-16T14:02:33.000Z'],
    ['Tue, 15 Nov 2022 20:15:04 Z', '2022-11-15', '2022-11-15T20:15:04.000Z'],
    ['20 Nov 2019 08:02 GMT', '2019-11-20', '2019-11-20T08:02:00.000Z'],
    ['Fri, 24 Aug 2012 10:00:00 EST', '2012-08-24', '2012-08-24T15:00:00.000Z'],
  ])('%s', (text, day, at) => {
    expect(parsePublished(text)).toEqual({ day, at: new Date(at) });
  });

  it.each(['', 'yesterday', 'Article 12 of the law', '10:00 PM', 'Monday', '2019-02-30'])(
    'gives no date for %j rather than a guess',
    (text) => expect(parsePublished(text)).toBeUndefined(),
  );
});

describe('text of fetched bodies', () => {
  it('uses the declared charset, else UTF-8 when valid, else Windows-1252', () => {
    const latin1 = Buffer.from('Notícias de São Paulo', 'latin1');
    expect(decodeBody(latin1)).toBe('Notícias de São Paulo');
    expect(decodeBody(Buffer.from('Notícias', 'utf8'))).toBe('Notícias');
    expect(decodeBody(latin1, 'text/xml; charset=ISO-8859-1')).toBe('Notícias de São Paulo');
    const prolog = Buffer.from('<?xml version="1.0" encoding="iso-8859-1"?><a>ção</a>', 'latin1');
    expect(decodeBody(prolog)).toBe('<?xml version="1.0" encoding="iso-8859-1"?><a>ção</a>');
    expect(decodeBody(Buffer.from('\ufeff<rss/>', 'utf8'))).toBe('<rss/>');
  });
});

describe('Wikidata time values', () => {
  it.each([
    [{ time: '+2017-07-01T00:00:00Z', precision: 11 }, '2017-07-01'],
    [{ time: '+2009-00-00T00:00:00Z', precision: 9 }, '2009-01-01'],
    [{ time: '+2009-05-00T00:00:00Z', precision: 10 }, '2009-05-01'],
    [{ time: '+00000001994-01-01T00:00:00Z', precision: 11 }, '1994-01-01'],
    [{ time: '+1718-01-01T00:00:00Z', precision: 9 }, '1718-01-01'],
    [{ time: '+1990-00-00T00:00:00Z', precision: 8 }, undefined],
    [{ time: '-0044-03-15T00:00:00Z', precision: 11 }, undefined],
    [{ time: '+12000-01-01T00:00:00Z', precision: 9 }, undefined],
    ['+2017-07-01', undefined],
  ])('%j is %s', (value, day) => expect(wikidataDay(value)).toBe(day));
});

describe('checks on facts an LLM proposes', () => {
  const TEXT =
    'Jose Mourinho has agreed a deal to replace Mauricio Pochettino as Tottenham manager. ' +
    'Mr. Mourinho was sacked by Manchester United in December 2018.';
  it.each([
    ['Who replaced Mauricio Pochettino as Tottenham manager?', 'Jose Mourinho', undefined],
    ['Which club sacked Jose Mourinho in December 2018?', 'Manchester United', undefined],
    // "Mr." ends no sentence the answer needs.
    ['Who was sacked by Manchester United in December 2018?', 'Mr. Mourinho', undefined],
    ['Who owns Tottenham?', 'Joe Lewis', 'answer not in the text'],
    [
      'Who replaced Mauricio Pochettino?',
      'Jose Mourinho and Daniel Levy',
      'answer not in the text',
    ],
    ['Who did he replace?', 'Mauricio Pochettino', 'not self-contained'],
    ['Who replaced him at Tottenham?', 'Jose Mourinho', 'not self-contained'],
    ['What does the article say about Tottenham?', 'Jose Mourinho', 'not self-contained'],
    ['Who was appointed Tottenham manager this week?', 'Jose Mourinho', 'not self-contained'],
    ['who replaced the manager?', 'Jose Mourinho', 'not self-contained'],
    ['Who manages Arsenal?', 'Jose Mourinho', 'subject not in the text'],
    ['Who replaced Mauricio Pochettino', 'Jose Mourinho', 'not a question'],
    [`Who replaced ${'Mauricio Pochettino '.repeat(12)}?`, 'Jose Mourinho', 'too long'],
    ['Who replaced Mauricio Pochettino?', 'Jose Mourinho '.repeat(10), 'too long'],
  ])('%j → %j: %s', (question, answer, rejection) => {
    expect(rejectionOf({ question, answer }, TEXT)).toBe(rejection);
  });
});

describe('source intervals', () => {
  it('reads durations from a minute to 30 days', () => {
    expect([
      parseInterval('1m'),
      parseInterval('15m'),
      parseInterval('6h'),
      parseInterval('30d'),
    ]).toEqual([60, 900, 21_600, 2_592_000]);
    for (const bad of ['59s', '31d', '15', '1w', '-5m', '']) {
      expect(() => parseInterval(bad)).toThrow(/--every must be a duration/);
    }
  });
});
