/**
 * Option-name checking for the factories that take configuration objects
 * (`createVerifier`, `verifyRequest`, `DirectoryClient`, …): a misspelt option
 * (`nonse`, `allow.loopbak`) is a configuration mistake that would otherwise be
 * ignored silently and leave a default (often the permissive one) in force.
 */

/**
 * Throws a TypeError naming the first own enumerable property of `options` that is
 * not in `known`, with the closest known name as a suggestion.
 *
 * @param where how the object is named in messages, e.g. `createVerifier options` or `options.nonce`.
 */
export function checkOptionNames(options: object, known: readonly string[], where: string): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const suggestion = closest(name, known);
    throw new TypeError(`${where}: unknown option "${name}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`);
  }
}

/** The known name within a small edit distance of `name` (case-insensitive), if any. */
function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions and
 * adjacent transpositions), giving up at `limit`. Names are short: O(n·m) is fine,
 * and a name longer than 64 characters is never a typo worth suggesting for.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (a.length > 64 || b.length > 64 || Math.abs(a.length - b.length) >= limit) return limit;
  const m = b.length;
  let prevPrev = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let row = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        v = Math.min(v, prevPrev[j - 2]! + 1);
      }
      row[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= limit) return limit;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return Math.min(prev[m]!, limit);
}
