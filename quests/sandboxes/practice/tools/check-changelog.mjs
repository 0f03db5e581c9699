// The skill quest's checker: CHANGELOG.md in the house format. Under `## Unreleased` every entry
// is one line `- Added: ...`, `- Fixed: ...` or `- Changed: ...`; the entries that were there stay;
// a new `Fixed` entry names add(); nothing above or below that section changed. Exit 0 when so;
// 1 with the reason otherwise.
import { existsSync, readFileSync } from "node:fs";

const FILE = "CHANGELOG.md";
// The sandbox's CHANGELOG.md as the template has it (quests/sandboxes/practice/CHANGELOG.md).
const HEAD = [
  "# Changelog",
  "",
  "What changed in the practice project, newest first. Each entry is one line under its release:",
  "`- Added: ...`, `- Fixed: ...` or `- Changed: ...`.",
  "",
  "## Unreleased",
];
const KEPT = ["- Added: multiply() in src/calc.js."];
const RELEASED = ["## 0.1.0", "", "- Added: add(), greet() and a todo list."];
const ENTRY = /^- (Added|Fixed|Changed): \S/;

const fail = (why) => {
  console.error(`check-changelog: ${why}`);
  process.exit(1);
};
if (!existsSync(FILE)) fail(`${FILE} is missing`);
const lines = readFileSync(FILE, "utf8").replace(/\r\n/g, "\n").split("\n");
while (lines.at(-1) === "") lines.pop();

if (HEAD.some((line, i) => lines[i] !== line))
  fail(`the top of ${FILE} changed: keep it down to "## Unreleased"`);
const next = lines.findIndex((line, i) => i >= HEAD.length && line.startsWith("## "));
if (next < 0) fail(`${FILE} lost its "## 0.1.0" section`);
const below = lines.slice(next);
if (below.length !== RELEASED.length || below.some((line, i) => line !== RELEASED[i]))
  fail(
    `the released part of ${FILE} (from "${lines[next]}" on) changed: only "## Unreleased" takes new entries`,
  );

const entries = lines.slice(HEAD.length, next).filter((line) => line.trim() !== "");
const wrong = entries.find((line) => !ENTRY.test(line));
if (wrong !== undefined)
  fail(`not in the house format ("- Added|Fixed|Changed: what"): ${JSON.stringify(wrong)}`);
const lost = KEPT.filter((line) => !entries.includes(line));
if (lost.length > 0) fail(`an entry that was under "## Unreleased" is gone: ${lost[0]}`);
const added = entries.filter((line) => !KEPT.includes(line));
if (added.length === 0) fail(`no new entry under "## Unreleased"`);
// add() named any way a writer would: add, add(), `add()`, addition, adding.
if (!added.some((line) => line.startsWith("- Fixed: ") && /\badd(\b|ition\b|ing\b)/i.test(line)))
  fail(
    `no "- Fixed: ..." entry that names add(): found ${added.map((line) => JSON.stringify(line)).join(", ")}`,
  );
console.log(
  `check-changelog: ${FILE} follows the house format, with ${added.length} new entr${added.length === 1 ? "y" : "ies"}`,
);
