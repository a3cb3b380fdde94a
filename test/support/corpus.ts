/** A tiny dated corpus whose expected rankings can be worked out by hand. */
export const CATANIA = [
  fact(
    'Who was the head coach of the team Calcio Catania from 2006 to 2008?',
    'Silvio Baldini',
    '2006-01-01',
  ),
  fact(
    'Who was the head coach of the team Calcio Catania from 2008 to 2009?',
    'Walter Zenga',
    '2008-01-01',
  ),
  fact(
    'Who was the head coach of the team Calcio Catania from 2011 to 2012?',
    'Vincenzo Montella',
    '2011-01-01',
  ),
];

export const OTHER = [
  fact(
    'Who was the head coach of the team Real Madrid from 2019 to 2021?',
    'Zinedine Zidane',
    '2019-01-01',
  ),
  fact('Which country hosted the 2022 FIFA World Cup?', 'Qatar', '2022-11-20'),
  fact('Which company bought Twitter in October 2022?', 'X Holdings (Elon Musk)', '2022-10-28'),
  fact('What is the capital city of Australia?', 'Canberra', null),
  fact('Who painted the Mona Lisa?', 'Leonardo da Vinci', null),
  fact(
    'Which spacecraft landed on the Moon near its south pole in August 2023?',
    'Chandrayaan-3',
    '2023-08-23',
  ),
];

export function fact(
  question: string,
  answer: string,
  true_by: string | null,
  source = 'https://example.org/',
) {
  return { question, answer, true_by, sources: [`${source}${encodeURIComponent(answer)}`] };
}

/** `n` distinct facts about numbered football matches, dated through 2020. */
export function matches(n: number, year = 2020) {
  return Array.from({ length: n }, (_, i) => {
    const day = `${year}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
    return fact(
      `What was the final score of league match number ${i + 1} of the season?`,
      `${i % 5}-${(i * 7) % 4}`,
      day,
      `https://example.org/m${i}/`,
    );
  });
}
