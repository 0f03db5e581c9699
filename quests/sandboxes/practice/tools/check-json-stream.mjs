// The print-and-json quest's checker: `node tools/check-json-stream.mjs SCRIPT STREAM`.
// Passes when SCRIPT runs `pi` in JSON print mode into STREAM, and STREAM is what such a run
// prints: a session header, then one run's events, every line JSON, and a session of that id
// that Pi saved in its agent folder (so a stream written by hand does not pass). Exit 0 when it
// does; 1 with the reason otherwise.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const [script = "scripts/ask-pi.sh", stream = "pi-run.jsonl"] = process.argv.slice(2);
const fail = (why) => {
  console.error(`check-json-stream: ${why}`);
  process.exit(1);
};

// 1. The script: a line that is not a comment runs pi with --mode json and -p, into the stream.
if (!existsSync(script)) fail(`${script} is missing`);
const runsPi = readFileSync(script, "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith("#"))
  .some(
    (line) =>
      /(^|[\s;&|(])pi\s/.test(line) &&
      /--mode[\s=]json\b/.test(line) &&
      /(\s-p\b|--print\b)/.test(line) &&
      line.includes(stream),
  );
if (!runsPi) fail(`${script} has no line that runs \`pi --mode json -p ...\` into ${stream}`);

// 2. The stream: JSON lines, a session header first, one run from agent_start to its end.
if (!existsSync(stream)) fail(`${stream} is missing: run the script`);
const lines = readFileSync(stream, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "");
const records = lines.map((line, i) => {
  try {
    return JSON.parse(line);
  } catch {
    return fail(`${stream}:${i + 1} is not JSON`);
  }
});
const [header] = records;
if (header?.type !== "session" || typeof header.id !== "string" || typeof header.cwd !== "string")
  fail(`${stream} does not start with a session header ({"type":"session","id":...,"cwd":...})`);
const types = records.map((record) => record?.type);
const start = types.indexOf("agent_start");
const end = types.lastIndexOf("agent_end");
if (start < 0 || end < start) fail(`${stream} has no whole run (agent_start ... agent_end)`);
const ended = (role) =>
  records.some((record) => record.type === "message_end" && record.message?.role === role);
if (!ended("user") || !ended("assistant"))
  fail(`${stream} has no prompt and answer (message_end of a user and an assistant message)`);

// 3. Pi saved that session: a stream typed by hand has an id no session of Pi's has.
const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
const sessions = join(agentDir, "sessions");
const saved =
  existsSync(sessions) &&
  readdirSync(sessions, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .some((entry) =>
      readdirSync(join(sessions, entry.name)).some((file) => file.endsWith(`_${header.id}.jsonl`)),
    );
if (!saved)
  fail(
    `Pi saved no session ${header.id} in ${sessions}: was ${stream} written by Pi (without --no-session)?`,
  );

console.log(
  `check-json-stream: ${script} runs pi in JSON mode; ${stream} holds session ${header.id}, ${records.length} events`,
);
