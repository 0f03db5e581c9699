// The first-extension quest's checker: loads the project's extensions (.pi/extensions/, with Pi's
// own loader, as Pi does at /reload), takes the tool registered as `word_count`, runs it on two
// files of words it makes up (spaces, line breaks, a tab), and wants the right count in the tool's
// text each time, among a few numbers at most: a tool that answers every number (or a long list
// of guesses) has the count in its text without counting. The file's own name and path are left
// out before the numbers are read, so a tool that echoes the path is judged on what it says.
// The tool's file parameter may have any name when it is its only text parameter. Exit 0 when
// it counts right; 1 with the reason otherwise.
import { randomBytes, randomInt } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askExtensions, CONTEXT_SOURCE, ERRORS_SOURCE, EXTENSIONS } from "./load-extensions.mjs";

const fail = (why) => {
  console.error(`check-word-count: ${why}`);
  process.exit(1);
};
if (!existsSync(EXTENSIONS)) fail(`${EXTENSIONS} is missing: write the extension there`);

const gaps = [" ", " ", " ", "  ", "\n", "\n\n", "\t"];
// Two files of different lengths: the tool must find each count.
const first = randomInt(40, 400);
const counts = [first, first + randomInt(1, 200)];
const files = ["words.txt", "more-words.txt"];
const dir = realpathSync(mkdtempSync(join(tmpdir(), "check-word-count-")));
counts.forEach((count, n) => {
  const words = Array.from({ length: count }, () => randomBytes(3).toString("hex"));
  const text = `${words.map((word, i) => (i === 0 ? word : `${gaps[i % gaps.length]}${word}`)).join("")}\n`;
  writeFileSync(join(dir, files[n]), text);
});
// An honest answer may name a few numbers (words, lines, characters); a list of guesses is not a count.
const MOST_NUMBERS = 6;

// Runs in the child: the tool's text for each file, in order, or why it could not run.
const ask = `
  const tools = loaded.extensions.flatMap((extension) => [...extension.tools.values()]).map((tool) => tool.definition);
  const tool = tools.find((tool) => tool.name === "word_count");
  if (!tool) {
    const errors = ${ERRORS_SOURCE};
    return { error: errors.length > 0
      ? "Pi could not load the extension: " + errors[0]
      : "no extension in ${EXTENSIONS} registers a tool named word_count (tools registered: " + (tools.map((tool) => tool.name).join(", ") || "none") + ")" };
  }
  const properties = tool.parameters?.properties ?? {};
  const texts = Object.keys(properties).filter((name) => properties[name]?.type === "string");
  const param = "path" in properties ? "path" : texts.length === 1 ? texts[0] : undefined;
  if (!param) return { error: "word_count takes no path parameter (its parameters: " + (Object.keys(properties).join(", ") || "none") + ")" };
  const said = [];
  for (const [n, path] of args.files.entries()) {
    const result = await tool.execute("check-" + (n + 1), { [param]: path }, new AbortController().signal, () => {}, ${CONTEXT_SOURCE});
    said.push((result?.content ?? []).filter((part) => part.type === "text").map((part) => part.text).join("\\n"));
  }
  return { said };`;

try {
  const answer = askExtensions(ask, { files }, dir);
  if (answer.error) fail(`word_count did not run on a test file: ${answer.error}`);
  counts.forEach((count, n) => {
    const text = String(answer.said?.[n] ?? "");
    // The file's path as the tool may echo it, longest first, is not part of its answer.
    const spoken = [join(dir, files[n]), files[n]].reduce((rest, path) => rest.split(path).join(" "), text);
    const numbers = spoken.match(/\d+/g) ?? [];
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
