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

/** A block line's command: the line without its trailing `# comment`. */
export function commandOf(line: string): string {
  return line.replace(/\s+#\s.*$/, "").trim();
}
