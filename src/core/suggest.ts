/**
 * "Did you mean": the known name a mistyped one most likely meant. Used by the quest loader for
 * check types, fields, operators and enum values.
 */

/**
 * The name in `names` closest to `word`, or undefined when none is close enough. A name that
 * differs only in case, `_` or `-` wins (`jsonpath`, `file-exists`, `fileExists`); else the one
 * with the fewest edits (insert, delete, replace, swap two neighbours), at most one edit per
 * three characters of `word` (at least one). On a tie the first in `names` wins.
 */
export function closestName(word: string, names: readonly string[]): string | undefined {
  if (names.includes(word)) return undefined;
  const folded = fold(word);
  const same = names.find((name) => fold(name) === folded);
  if (same !== undefined) return same;
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const name of names) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean X?)`, or nothing when no name is close. */
export function didYouMean(word: string, names: readonly string[]): string {
  const closest = closestName(word, names);
  return closest === undefined ? "" : ` (did you mean ${closest}?)`;
}

function fold(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

/** Edits from `a` to `b`: the optimal string alignment distance (Damerau-Levenshtein, restricted). */
function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number) => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(i - 2, j - 2) + 1);
      }
      d[i * width + j] = value;
    }
  }
  return at(a.length, b.length);
}
