// The print-and-json quest's checker, in two parts:
// `node tools/check-json-stream.mjs script SCRIPT STREAM`: runs SCRIPT with bash, with a `pi` of
//   the checker's first on PATH, in a copy of the project (the check's own files stay as they
//   were given), and wants that pi run in JSON print mode (`--mode json` and `-p`, as Pi reads
//   them) and what it printed, a stream with a session id the checker made up, in STREAM. However
//   the script is written (a variable for the file, a command over several lines, a function),
//   only what it does counts.
// `node tools/check-json-stream.mjs stream STREAM`: STREAM is what a run of `pi --mode json -p`
//   prints: a session header, then one run's events, every line JSON, and Pi saved a session of
//   that id in its agent folder (a stream typed by hand has an id no session of Pi's has).
// Exit 0 when so; 1 with the reason otherwise.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";

const [part, ...args] = process.argv.slice(2);

/**
 * `--mode json` and `-p` (or `--print`) as Pi's own argument parser reads them (`--mode=json` is
 * not). The checker's pi runs the same function (its text is written into it).
 */
const isJsonPrint = (args) =>
  args.some((arg, i) => arg === "--mode" && args[i + 1] === "json") &&
  args.some((arg) => arg === "-p" || arg === "--print");
const fail = (why) => {
  console.error(`check-json-stream: ${why}`);
  process.exit(1);
};

/** The records of a JSON-lines stream, or the reason it is not one. */
function readStream(stream) {
  if (!existsSync(stream)) return { problem: `${stream} is missing: run the script` };
  const lines = readFileSync(stream, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const records = [];
  for (const [i, line] of lines.entries()) {
    try {
      records.push(JSON.parse(line));
    } catch {
      return { problem: `${stream}:${i + 1} is not JSON` };
    }
  }
  const [header] = records;
  if (header?.type !== "session" || typeof header.id !== "string")
    return { problem: `${stream} does not start with a session header ({"type":"session","id":...})` };
  return { records, header };
}

function checkScript(script = "scripts/ask-pi.sh", stream = "pi-run.jsonl") {
  if (!existsSync(script)) fail(`${script} is missing`);
  const bin = mkdtempSync(join(tmpdir(), "check-json-stream-"));
  const project = mkdtempSync(join(tmpdir(), "check-json-stream-project-"));
  const session = randomUUID();
  const calls = join(bin, "calls.jsonl");
  try {
    // The script runs in a copy: what it writes never changes the files the check was given.
    cpSync(".", project, {
      recursive: true,
      filter: (source) => !/(^|\/)(\.git|node_modules)$/.test(source),
    });
    // The checker's pi: says what it was asked, and prints a stream only in JSON print mode.
    const stub = join(bin, "pi.mjs");
    writeFileSync(
      stub,
      `import { appendFileSync } from "node:fs";
       const args = process.argv.slice(2);
       appendFileSync(${JSON.stringify(calls)}, JSON.stringify(args) + "\\n");
       const line = (record) => process.stdout.write(JSON.stringify(record) + "\\n");
       if ((${isJsonPrint.toString()})(args)) {
         line({ type: "session", version: 3, id: ${JSON.stringify(session)}, timestamp: new Date().toISOString(), cwd: process.cwd() });
         line({ type: "agent_start" });
         line({ type: "message_end", message: { role: "user", content: [{ type: "text", text: args.at(-1) }] } });
         line({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text: "A summary." }] } });
         line({ type: "agent_end", messages: [] });
       } else process.stdout.write("A summary.\\n");`,
    );
    writeFileSync(
      join(bin, "pi"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(stub)} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const run = spawnSync("bash", [script], {
      cwd: project,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` },
    });
    if (run.error) fail(`bash ${script} could not run: ${run.error.message}`);
    const asked = existsSync(calls)
      ? readFileSync(calls, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    if (asked.length === 0)
      fail(
        `bash ${script} never ran pi (exit ${run.status}: ${(run.stderr || run.stdout).trim().split("\n").at(-1) ?? ""})`,
      );
    const jsonPrint = asked.find(isJsonPrint);
    if (!jsonPrint)
      fail(
        `${script} runs pi, but not in JSON print mode: it ran pi ${asked.map((args) => args.join(" ")).join("; ")}`,
      );
    if (run.status !== 0)
      fail(`bash ${script} exited ${run.status}: ${(run.stderr || "").trim().split("\n").at(-1) ?? ""}`);
    const written = readStream(join(project, stream));
    if (written.problem || written.header.id !== session)
      fail(
        `${script} ran pi --mode json -p, but its stream did not end up in ${stream}: redirect pi's output there (> ${stream})`,
      );
    console.log(`check-json-stream: ${script} runs pi --mode json -p into ${stream}`);
  } finally {
    rmSync(bin, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}

function checkStream(stream = "pi-run.jsonl") {
  const read = readStream(stream);
  if (read.problem) fail(read.problem);
  const { records, header } = read;
  const types = records.map((record) => record?.type);
  const start = types.indexOf("agent_start");
  const end = types.lastIndexOf("agent_end");
  if (start < 0 || end < start) fail(`${stream} has no whole run (agent_start ... agent_end)`);
  const ended = (role) =>
    records.some((record) => record.type === "message_end" && record.message?.role === role);
  if (!ended("user") || !ended("assistant"))
    fail(`${stream} has no prompt and answer (message_end of a user and an assistant message)`);
  // Pi saved that session, with the run's messages: a stream typed by hand has an id no session of
  // Pi's has, and one that borrows a saved session's id has other messages than it.
  const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
  const sessions = join(agentDir, "sessions");
  const saved = savedSession(sessions, header.id);
  if (!saved)
    fail(
      `Pi saved no session ${header.id} in ${sessions}: was ${stream} written by Pi (without --no-session)?`,
    );
  const streamed = messagesOf(
    records.filter((record) => record.type === "message_end").map((record) => record.message),
  );
  const kept = messagesOf(saved.filter((entry) => entry.type === "message").map((entry) => entry.message));
  if (JSON.stringify(streamed) !== JSON.stringify(kept))
    fail(
      `${stream} names session ${header.id}, but its messages are not the ones Pi saved for that session: that run did not write it`,
    );
  console.log(
    `check-json-stream: ${stream} holds session ${header.id}, ${records.length} events, saved by Pi`,
  );
}

/** The entries of the session file Pi saved with this id, if there is one. */
function savedSession(sessions, id) {
  if (!existsSync(sessions)) return undefined;
  for (const folder of readdirSync(sessions, { withFileTypes: true }).filter((entry) =>
    entry.isDirectory(),
  )) {
    const file = readdirSync(join(sessions, folder.name)).find((name) => name.endsWith(`_${id}.jsonl`));
    if (!file) continue;
    return readFileSync(join(sessions, folder.name, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .flatMap((line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [];
        }
      });
  }
  return undefined;
}

/** The user's and the assistant's messages as role and text, in order. */
function messagesOf(messages) {
  const text = (content) =>
    typeof content === "string"
      ? content
      : (content ?? [])
          .filter((part) => part?.type === "text")
          .map((part) => part.text)
          .join("\n");
  return messages
    .filter((message) => message?.role === "user" || message?.role === "assistant")
    .map((message) => [message.role, text(message.content)]);
}

if (part === "script") checkScript(...args);
else if (part === "stream") checkStream(...args);
else fail("usage: check-json-stream.mjs script SCRIPT STREAM | stream STREAM");
