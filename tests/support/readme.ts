/** The README's command blocks, read as a reader reads them, so a test runs what the README says. */

/** The lines of the first ```sh block under `## heading`, as written (comments kept). */
export function commandBlock(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const next = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(section);
  if (!block?.[1]) throw new Error(`"## ${heading}" has no \`\`\`sh block`);
  return block[1].split("\n");
}

/** The first ```text block under `## heading`, as written: what the README shows a program printing. */
export function textBlock(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const next = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  const block = /\n```text\n([\s\S]*?)\n```\n/.exec(section);
  if (!block?.[1]) throw new Error(`"## ${heading}" has no \`\`\`text block`);
  return block[1];
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
  let text = markdown;
  if (section !== undefined) {
    const start = markdown.indexOf(`\n## ${section}\n`);
    if (start < 0) throw new Error(`no "## ${section}" section`);
    const next = markdown.indexOf("\n## ", start + 1);
    text = markdown.slice(start, next < 0 ? undefined : next);
  }
  const blocks: DocBlock[] = [];
  for (const match of text.matchAll(/\n```(\w+)([^\n]*)\n([\s\S]*?)\n```\n/g)) {
    const [, lang, info = "", body = ""] = match;
    const path = /\bfile=(\S+)/.exec(info)?.[1];
    if (path !== undefined) blocks.push({ kind: "file", path, content: `${body}\n` });
    else if (lang === "sh") blocks.push({ kind: "sh", lines: body.split("\n") });
  }
  return blocks;
}
