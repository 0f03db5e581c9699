import { performance } from "node:perf_hooks";

export type Timing = { median: number; p90: number; runs: number };

/** Runs `work` a few times to warm up, then `runs` times, and returns the median and p90 in ms. */
export async function measure(
  work: () => unknown,
  runs: number,
  warmup = Math.min(20, runs),
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  return { median: at(0.5), p90: at(0.9), runs };
}

export const ms = (value: number) => (value < 1 ? value.toFixed(3) : value.toFixed(2));

/** The median of some timings already taken (the upper one of an even count's two middles). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
