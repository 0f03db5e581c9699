// The first-extension quest's checker: loads `.pi/extensions/word-count.ts` with Pi's own
// extension loader (Pi's SDK found by pi-sdk-hook.mjs), takes the tool it registers as
// `word_count`, runs it on two files of words it makes up (spaces, line breaks, a tab), and wants
// the right count in the tool's text each time, among at most three numbers: a tool that answers
// every number (or a long list of guesses) has the count in its text without counting. Exit 0
// when so; 1 with the reason otherwise.
import { spawnSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const EXTENSION = ".pi/extensions/word-count.ts";
const HOOK = join(import.meta.dirname, "pi-sdk-hook.mjs");
const fail = (why) => {
  console.error(`check-word-count: ${why}`);
  process.exit(1);
};
if (!existsSync(EXTENSION)) fail(`${EXTENSION} is missing`);

const gaps = [" ", " ", " ", "  ", "\n", "\n\n", "\t"];
// Two files of different lengths: the tool must find each count.
const first = randomInt(40, 400);
const counts = [first, first + randomInt(1, 200)];
const dir = mkdtempSync(join(tmpdir(), "check-word-count-"));
counts.forEach((count, n) => {
  const words = Array.from({ length: count }, () => randomBytes(3).toString("hex"));
  const text = `${words.map((word, i) => (i === 0 ? word : `${gaps[i % gaps.length]}${word}`)).join("")}\n`;
  writeFileSync(join(dir, `words${n + 1}.txt`), text);
});
// An honest answer may name a few numbers (words, lines); a list of guesses is not a count.
const MOST_NUMBERS = 3;

// Runs in a child so Pi's SDK comes through the hook; Pi's own loader loads the extension, as
// Pi does at /reload. Prints the tool's text for each file, in order.
const probe = `
  import { discoverAndLoadExtensions } from "@earendil-works/pi-coding-agent";
  const [extension, ...files] = process.argv.slice(1);
  const loaded = await discoverAndLoadExtensions([extension], process.cwd(), process.cwd());
  if (loaded.errors.length > 0) throw new Error("Pi could not load the extension: " + loaded.errors[0].error.split("\\n")[0]);
  const tools = loaded.extensions.flatMap((extension) => [...extension.tools.values()]).map((tool) => tool.definition);
  const tool = tools.find((tool) => tool.name === "word_count");
  if (!tool) throw new Error("the extension registers no tool named word_count (it registers: " + (tools.map((tool) => tool.name).join(", ") || "none") + ")");
  const ctx = { cwd: process.cwd(), hasUI: false, ui: new Proxy({}, { get: () => () => undefined }) };
  const said = [];
  for (const [n, path] of files.entries()) {
    const result = await tool.execute("check-" + (n + 1), { path }, new AbortController().signal, () => {}, ctx);
    said.push((result?.content ?? []).filter((part) => part.type === "text").map((part) => part.text).join("\\n"));
  }
  process.stdout.write(JSON.stringify(said));`;
try {
  const files = counts.map((_, n) => `words${n + 1}.txt`);
  const run = spawnSync(
    process.execPath,
    ["--import", HOOK, "--input-type=module", "-e", probe, resolve(EXTENSION), ...files],
    { cwd: dir, encoding: "utf8", timeout: 30_000 },
  );
  if (run.status !== 0) {
    const why =
      (run.stderr || "").split("\n").find((line) => /^\w*Error\b[^(]*: /.test(line)) ?? run.stderr.trim();
    fail(`word_count did not run on a test file: ${why}`);
  }
  const said = JSON.parse(run.stdout);
  counts.forEach((count, n) => {
    const text = String(said[n] ?? "");
    const numbers = text.match(/\d+/g) ?? [];
    const shown = JSON.stringify(text.slice(0, 200));
    if (!numbers.includes(String(count)))
      fail(
        `${files[n]} has ${count} words (separated by spaces, line breaks and a tab); word_count said ${shown}`,
      );
    if (numbers.length > MOST_NUMBERS)
      fail(
        `word_count said ${numbers.length} numbers for ${files[n]} (${shown}): answer with its count, not a list of guesses`,
      );
  });
  console.log(`check-word-count: word_count counted ${counts.join(" and ")} words right`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
