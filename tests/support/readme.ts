/** The README's command blocks, read as a reader reads them, so a test runs what the README says. */

/** The text under `## heading`, up to the next `## ` heading. */
function sectionOf(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const next = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}

/** The body of the first ```lang block under `## heading`, as written. */
function fencedBlock(markdown: string, heading: string, lang: string): string {
  const block = new RegExp(`\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(sectionOf(markdown, heading));
  if (!block?.[1]) throw new Error(`"## ${heading}" has no \`\`\`${lang} block`);
  return block[1];
}

/** The lines of the first ```sh block under `## heading`, as written (comments kept). */
export function commandBlock(readme: string, heading: string): string[] {
  return fencedBlock(readme, heading, "sh").split("\n");
}

/** The first ```text block under `## heading`, as written: what the README shows a program printing. */
export function textBlock(readme: string, heading: string): string {
  return fencedBlock(readme, heading, "text");
}

/** A block line's command: the line without its trailing `# comment`. */
export function commandOf(line: string): string {
  return line.replace(/\s+#\s.*$/, "").trim();
}

/** A fenced block of a Markdown page: a file it shows (```lang file=PATH) or shell commands (```sh). */
export type DocBlock = { kind: "file"; path: string; content: string } | { kind: "sh"; lines: string[] };

/**
 * The page's ```sh blocks and its file blocks (```yaml file=my-pack/q.yaml), in the order a
 * reader meets them; `section` limits them to one `## heading` (up to the next `## `).
 */
export function docBlocks(markdown: string, section?: string): DocBlock[] {
  const text = section === undefined ? markdown : sectionOf(markdown, section);
  const blocks: DocBlock[] = [];
  for (const match of text.matchAll(/\n```(\w+)([^\n]*)\n([\s\S]*?)\n```\n/g)) {
    const [, lang, info = "", body = ""] = match;
    const path = /\bfile=(\S+)/.exec(info)?.[1];
    if (path !== undefined) blocks.push({ kind: "file", path, content: `${body}\n` });
    else if (lang === "sh") blocks.push({ kind: "sh", lines: body.split("\n") });
  }
  return blocks;
}
