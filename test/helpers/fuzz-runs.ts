// How many inputs a fuzz property tries: a small seeded run inside `npm test`, as many as
// FUZZ_RUNS asks for in a long run outside it (scripts/fuzz.mjs). FUZZ_SEED replays a failure.
export function fuzzRuns(defaultRuns: number): number {
  const raw = process.env['FUZZ_RUNS'];
  if (raw === undefined || raw === '') return defaultRuns;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`FUZZ_RUNS must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** fast-check parameters: the run count above and a fixed seed unless FUZZ_SEED says otherwise. */
export function fuzzParams(defaultRuns: number): { numRuns: number; seed: number } {
  const raw = process.env['FUZZ_SEED'];
  const seed = raw === undefined || raw === '' ? 20261123 : Number(raw);
  if (!Number.isSafeInteger(seed))
    throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return { numRuns: fuzzRuns(defaultRuns), seed };
}
