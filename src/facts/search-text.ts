// Letters that Unicode does not decompose into a base letter and a mark.
const LETTERS: Record<string, string> = {
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ß: 'ss',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'Th',
  ð: 'd',
  Ð: 'D',
  ı: 'i',
};

/**
 * The text that full-text search sees, for facts and queries alike: accents and
 * ligatures folded (Hülkenberg, Hulkenberg) and typographic apostrophes made plain,
 * so that PostgreSQL's `english` parser keeps "Egypt’s" one word.
 */
export function searchText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[øØæÆœŒßđĐłŁþÞðÐı]/g, (letter) => LETTERS[letter])
    .replace(/[\u2018\u2019\u02bc]/g, "'");
}
