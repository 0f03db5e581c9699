/**
 * `npm start`: the real Pi with pi-quests, for a learner who has a model configured in Pi. Pi
 * runs in a practice folder (the first argument, else ~/pi-quests-practice, made if missing),
 * since quests with a sandbox set up an empty folder and never touch a folder with files in it.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { EXTENSION, PI } from "./pi-rpc.ts";

const folder = resolve(process.argv[2] ?? join(homedir(), "pi-quests-practice"));
mkdirSync(folder, { recursive: true });
process.stdout.write(`Starting pi with pi-quests in ${folder}\n`);
const pi = spawn(process.execPath, [PI, "-e", EXTENSION, ...process.argv.slice(3)], {
  cwd: folder,
  stdio: "inherit",
});
pi.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0);
});
