// Random choices for storms and fuzzing that can be replayed: every run prints
// its seed, and OPENCOMMS_TEST_SEED=<that seed> makes the same choices again.
import { randomInt } from 'node:crypto';

type Reporter = { diagnostic(message: string): void };

/** The seed for this run: OPENCOMMS_TEST_SEED (decimal or 0x hex), else a fresh one. */
export function testSeed(): number {
  const given = process.env.OPENCOMMS_TEST_SEED?.trim();
  if (!given) return randomInt(0, 2 ** 32);
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`OPENCOMMS_TEST_SEED must be a whole number below 2^32 (decimal or 0x hex), not ${JSON.stringify(given)}`);
  }
  return seed;
}

/**
 * A generator of numbers in [0, 1) (mulberry32) from `seed`, reported on `t`
 * (or stderr) so a failing run can be repeated.
 */
export function seededRandom(what: string, t?: Reporter, seed = testSeed()): () => number {
  const line = `${what}: seed 0x${seed.toString(16)} (OPENCOMMS_TEST_SEED=0x${seed.toString(16)} replays it)`;
  if (t) t.diagnostic(line);
  else process.stderr.write(`${line}\n`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
