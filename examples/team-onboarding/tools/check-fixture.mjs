// The checker of check-fixture: passes when the workspace (the task verifier's worktree at the
// baseline, with the learner's changes) adds a bad-input fixture that would pass the repository's
// own rules (tests/cli/bad-input.test.ts, tests/verifier/checks/registry.test.ts):
// fixtures/bad/quests/<type-with-dashes>-<name>.yaml whose first check has that type, whose first
// line is `# expect: LINE:COL text`, that `pi-quests lint` reports at that line and column with
// that text, and whose text no fixture of the baseline expects already (a new mistake).
// It runs pi-quests in a process of its own and judges what comes back here.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const DIR = "fixtures/bad/quests";
const TYPES = [
  "event",
  "file_exists",
  "json_path",
  "yaml_path",
  "command",
  "git",
  "mcp_handshake",
  "skill_valid",
  "confirm",
  "review",
];
const EXPECT = /^# expect: (\d+):(\d+) (.+)$/;

const added = execFileSync("git", ["ls-files", "--others", "--exclude-standard", "--", DIR], {
  encoding: "utf8",
})
  .split("\n")
  .filter((path) => path.endsWith(".yaml"));
if (added.length === 0) fail(`no new fixture in ${DIR}/`);

const known = new Set(
  readdirSync(DIR)
    .map((name) => `${DIR}/${name}`)
    .filter((path) => path.endsWith(".yaml") && !added.includes(path))
    .map((path) => EXPECT.exec(readFileSync(path, "utf8").split("\n")[0] ?? "")?.[3]?.trim()),
);

const problems = added.map(problemOf);
const good = added.filter((_, i) => problems[i] === undefined);
if (good.length === 0) fail(problems.join("\n"));
console.log(`a new fixture that lint reports as it expects: ${good.join(", ")}`);

function problemOf(path) {
  const name = path.slice(DIR.length + 1, -".yaml".length);
  const type = TYPES.toSorted((a, b) => b.length - a.length).find((t) =>
    name.startsWith(`${t.replaceAll("_", "-")}-`),
  );
  if (!type) return `${path}: the name starts with no check type (<type-with-dashes>-<name>.yaml)`;
  const text = readFileSync(path, "utf8");
  const first = /^checks:\s*\n\s*-\s*type:\s*([a-z_]+)/m.exec(text)?.[1];
  if (first !== type) return `${path}: its first check's type is ${first ?? "not found"}, not ${type}`;
  const expect = EXPECT.exec(text.split("\n")[0] ?? "");
  if (!expect) return `${path}: its first line is not "# expect: LINE:COL text"`;
  const [, line, column, said] = expect;
  if (known.has(said.trim()))
    return `${path}: another fixture expects "${said.trim()}" already: make a new mistake`;
  const lint = spawnSync(process.execPath, ["bin/pi-quests.js", "lint", path], { encoding: "utf8" });
  const reported = lint.stderr.split("\n")[0] ?? "";
  if (
    lint.status !== 3 ||
    !reported.startsWith(`${resolve(path)}:${line}:${column}: `) ||
    !reported.includes(said.trim())
  )
    return `${path}: lint says "${reported}" (exit ${lint.status}), not ${line}:${column} ${said.trim()}`;
  return undefined;
}

function fail(message) {
  console.log(message);
  process.exit(1);
}
