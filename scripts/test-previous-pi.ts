/**
 * `npm run test:previous-pi`: every play of the built-in pack in the previous minor's Pi (the dev
 * dependency `pi-previous`, src/core/pi-versions.ts), as `npm test` plays them in the newest:
 * `pi-quests test quests/ --strict` with `PI_QUESTS_PI` naming that Pi. `npm test` plays only a
 * part of the pack there (tests/quests/solutions-previous-pi.test.ts); this is the whole, which
 * takes several minutes, for CI when time allows (`.ci/run` with PI_QUESTS_CI_PREVIOUS_PI=full)
 * and before a release. Further arguments go to `pi-quests test` (`--jobs 1`, `--quest fork`).
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { PI_PREVIOUS } from "./pi-rpc.ts";

const REPO = resolve(import.meta.dirname, "..");
const started = Date.now();
const test = spawn(
  process.execPath,
  [join(REPO, "bin/pi-quests.js"), "test", join(REPO, "quests"), "--strict", ...process.argv.slice(2)],
  { cwd: REPO, stdio: "inherit", env: { ...process.env, PI_QUESTS_PI: PI_PREVIOUS } },
);
test.on("exit", (code, signal) => {
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stderr.write(`test:previous-pi: the built-in pack in ${PI_PREVIOUS}, ${minutes} min\n`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
