/**
 * A lookup table of ASCII characters: `table[code] === 1` for each character of
 * `chars`. Module-level tables are made with it, under a pure annotation, so that a
 * bundler drops the table (and the module's other unused code) when nothing uses it;
 * a table filled by a top-level loop is a side effect no bundler may remove.
 */
export function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}
