/** "Did you mean …?": the closest candidate to a misspelt word, by edit distance. */

/** Damerau–Levenshtein distance (optimal string alignment), so a swapped pair costs one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  const at = (i: number, j: number) => d[i * cols + j]!;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate closest to `word`, compared without case, if it is close enough to be a plausible
 * misspelling (at most a third of the word's length, and at least one edit, allowed).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  const list = [...candidates];
  // A word that is the start or the end of exactly one candidate ("index" for "indexes", "policies"
  // for "authPolicies") is a truncation.
  const extended = list.filter((c) => c !== word && lower.length >= 3 && (c.toLowerCase().startsWith(lower) || c.toLowerCase().endsWith(lower)));
  if (extended.length === 1) return extended[0];
  for (const candidate of list) {
    if (candidate === word) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `Did you mean "x"?` or undefined. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const match = closest(word, candidates);
  return match === undefined ? undefined : `Did you mean "${match}"?`;
}
