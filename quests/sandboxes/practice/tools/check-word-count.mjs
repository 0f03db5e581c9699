// The first-extension quest's checker: loads `.pi/extensions/word-count.ts` with Pi's own
// extension loader (Pi's SDK found by pi-sdk-hook.mjs), takes the tool it registers as
// `word_count`, runs it on a file of words it makes up (spaces, line breaks, a tab), and wants
// the right count in the tool's text. Exit 0 when so; 1 with the reason otherwise.
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

const count = randomInt(40, 400);
const gaps = [" ", " ", " ", "  ", "\n", "\n\n", "\t"];
const words = Array.from({ length: count }, () => randomBytes(3).toString("hex"));
const text = `${words.map((word, i) => (i === 0 ? word : `${gaps[i % gaps.length]}${word}`)).join("")}\n`;
const dir = mkdtempSync(join(tmpdir(), "check-word-count-"));
writeFileSync(join(dir, "words.txt"), text);

// Runs in a child so Pi's SDK comes through the hook; Pi's own loader loads the extension, as
// Pi does at /reload. Prints the tool's text.
const probe = `
  import { discoverAndLoadExtensions } from "@earendil-works/pi-coding-agent";
  const loaded = await discoverAndLoadExtensions([process.argv[1]], process.cwd(), process.cwd());
  if (loaded.errors.length > 0) throw new Error("Pi could not load the extension: " + loaded.errors[0].error.split("\\n")[0]);
  const tools = loaded.extensions.flatMap((extension) => [...extension.tools.values()]).map((tool) => tool.definition);
  const tool = tools.find((tool) => tool.name === "word_count");
  if (!tool) throw new Error("the extension registers no tool named word_count (it registers: " + (tools.map((tool) => tool.name).join(", ") || "none") + ")");
  const ctx = { cwd: process.cwd(), hasUI: false, ui: new Proxy({}, { get: () => () => undefined }) };
  const result = await tool.execute("check-1", { path: "words.txt" }, new AbortController().signal, () => {}, ctx);
  const texts = (result?.content ?? []).filter((part) => part.type === "text").map((part) => part.text);
  process.stdout.write(JSON.stringify(texts));`;
try {
  const run = spawnSync(
    process.execPath,
    ["--import", HOOK, "--input-type=module", "-e", probe, resolve(EXTENSION)],
    { cwd: dir, encoding: "utf8", timeout: 30_000 },
  );
  if (run.status !== 0) {
    const why =
      (run.stderr || "").split("\n").find((line) => /^\w*Error\b[^(]*: /.test(line)) ?? run.stderr.trim();
    fail(`word_count did not run on a test file: ${why}`);
  }
  const said = JSON.parse(run.stdout).join("\n");
  if (!new RegExp(`(^|\\D)${count}(\\D|$)`).test(said))
    fail(
      `the test file has ${count} words (separated by spaces, line breaks and a tab); word_count said ${JSON.stringify(said.slice(0, 200))}`,
    );
  console.log(`check-word-count: word_count counted ${count} words right`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
