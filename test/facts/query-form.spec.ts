import { namesPredecessor, queryForm } from '../../src/facts/query-form';

describe("a query's form", () => {
  it('asks for a predecessor when its words point at one', () => {
    expect(queryForm('Who was UK prime minister before the present one?').previous).toBe(true);
    expect(queryForm("Who was Boeing's previous CEO?").previous).toBe(true);
    expect(queryForm('Who is the current prime minister of the UK?').previous).toBe(false);
  });

  it('reads "formerly" before a name as an old name of the subject, not a predecessor', () => {
    expect(queryForm('Who is the CEO of X, formerly Twitter?').previous).toBe(false);
    expect(namesPredecessor('Who is the CEO of X (formerly Twitter)?')).toBe(false);
    expect(namesPredecessor('Who was formerly the CEO of X?')).toBe(true);
    expect(namesPredecessor('Which company, previously led by Jack Dorsey, did X buy?')).toBe(true);
  });

  it('picks the words that name things: capitals after the first word, acronyms, numbers after them', () => {
    expect(queryForm("Who is Boeing's chief executive?").names).toBe("Boeing's");
    expect(queryForm('What was the subsidiary of RTVE?').names).toBe('RTVE');
    expect(queryForm('What was the terminus of Line 15?').names).toBe('Line 15');
    expect(queryForm('NFL team name slur').names).toBe('NFL');
    expect(queryForm('Who won the election in 2024?').names).toBe('');
  });

  it('tells keywords from questions', () => {
    expect(queryForm('Which country won Eurovision 2023?').keywords).toBe(false);
    expect(queryForm('Eurovision 2023 winner country').keywords).toBe(true);
    expect(queryForm('Eurovision 2023 winner?').keywords).toBe(false);
  });
});
