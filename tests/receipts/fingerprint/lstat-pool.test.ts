/**
 * lstat shared with a worker thread (src/receipts/fingerprint/lstat-pool.ts): the worker's half
 * is what Pi's thread would have found, and the pool works on without it.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLstatPool,
  type LstatPool,
  lstatInto,
  PARALLEL_FROM,
  STAT_FIELDS,
} from "../../../src/receipts/fingerprint/lstat-pool.ts";
import { makeWorkspace, removeWorkspaces } from "../../support/workspace.ts";

const pools: LstatPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  removeWorkspaces();
});

function manyFiles(count: number): { paths: string[]; gone: string } {
  const files = Object.fromEntries(Array.from({ length: count }, (_, at) => [`f${at}.txt`, `${at}\n`]));
  const workspace = makeWorkspace(files);
  const paths = Object.keys(files).map((name) => join(workspace, name));
  const gone = paths[paths.length - 1] as string;
  rmSync(gone);
  return { paths, gone };
}

/** What lstat says of each path, on this thread alone. */
function onThisThread(paths: readonly string[]): Float64Array {
  const stats = new Float64Array(paths.length * STAT_FIELDS);
  lstatInto(paths, stats, 0, paths.length);
  return stats;
}

describe("the lstat pool", () => {
  it.each([1, 3])(
    "gives the same numbers with %i worker(s) as this thread alone, NaN for a path that is gone",
    async (workers) => {
      const pool = createLstatPool(workers);
      pools.push(pool);
      expect(await pool.started()).toBe(workers);
      const { paths } = manyFiles(PARALLEL_FROM + 1);
      const shared = await pool.lstatAll(paths);
      expect([...shared]).toEqual([...onThisThread(paths)]);
      expect(Number.isNaN(shared[(paths.length - 1) * STAT_FIELDS])).toBe(true);
      expect(shared[0]).toBeGreaterThan(0);
      // The same list again (the worker keeps it), and another list.
      expect([...(await pool.lstatAll(paths))]).toEqual([...onThisThread(paths)]);
      const others = paths.slice(1).reverse();
      expect([...(await pool.lstatAll(others))]).toEqual([...onThisThread(others)]);
    },
  );

  it("works on this thread alone once closed, or with no worker at all (one core)", async () => {
    const pool = createLstatPool();
    pools.push(pool);
    await pool.started();
    await pool.close();
    const alone = createLstatPool(0);
    pools.push(alone);
    expect(await alone.started()).toBe(0);
    const { paths } = manyFiles(PARALLEL_FROM);
    expect([...(await pool.lstatAll(paths))]).toEqual([...onThisThread(paths)]);
    expect([...(await alone.lstatAll(paths))]).toEqual([...onThisThread(paths)]);
  });
});
