/**
 * The per-file sections of a patch `git diff --no-renames` wrote: where each starts and ends,
 * and the path it changes. A section starts at a `diff --git a/P b/P` line; no other line of a
 * patch can start that way (hunk lines start with a space, `+`, `-` or `\`, and binary
 * literals with a length letter followed by base85, which has no space).
 */

export type PatchSection = { path: string; start: number; end: number };

const HEADER = Buffer.from("diff --git ");

export function patchSections(
  patch: Buffer,
): { ok: true; sections: PatchSection[] } | { ok: false; message: string } {
  const starts: number[] = [];
  for (let at = patch.indexOf(HEADER); at !== -1; at = patch.indexOf(HEADER, at + 1)) {
    if (at === 0 || patch[at - 1] === 10) starts.push(at);
  }
  if (patch.length > 0 && starts[0] !== 0)
    return { ok: false, message: "the patch does not start with a `diff --git` header" };
  const sections: PatchSection[] = [];
  for (const [i, start] of starts.entries()) {
    const lineEnd = patch.indexOf(10, start);
    const names = patch.subarray(start + HEADER.length, lineEnd === -1 ? patch.length : lineEnd);
    const path = pathOfHeader(names);
    if (path === undefined)
      return {
        ok: false,
        message: `cannot read the path in the patch header "${patch.subarray(start, lineEnd).toString("utf8")}"`,
      };
    sections.push({ path, start, end: starts[i + 1] ?? patch.length });
  }
  return { ok: true, sections };
}

/** `a/P b/P` (renames are off, so both sides name one path), each side C-quoted when git quoted it. */
function pathOfHeader(names: Buffer): string | undefined {
  if (names[0] === 0x22) {
    const first = unquote(names, 0);
    if (!first) return undefined;
    const second = names[first.end] === 0x20 ? unquote(names, first.end + 1) : undefined;
    if (!second || second.end !== names.length) return undefined;
    const a = first.bytes.toString("utf8");
    const b = second.bytes.toString("utf8");
    return a.startsWith("a/") && b === `b/${a.slice(2)}` ? a.slice(2) : undefined;
  }
  // Unquoted: `a/` + P + ` b/` + P, so P is (length - 5) / 2 bytes long.
  const length = (names.length - 5) / 2;
  if (!Number.isInteger(length) || length < 1) return undefined;
  const path = names.subarray(2, 2 + length);
  const expected = Buffer.concat([Buffer.from("a/"), path, Buffer.from(" b/"), path]);
  return expected.equals(names) ? path.toString("utf8") : undefined;
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 0x22,
  "\\": 0x5c,
};

/** A C-quoted string starting at `from` (the opening quote): its bytes, and where it ended. */
function unquote(text: Buffer, from: number): { bytes: Buffer; end: number } | undefined {
  const bytes: number[] = [];
  for (let at = from + 1; at < text.length; at++) {
    const byte = text[at] as number;
    if (byte === 0x22) return { bytes: Buffer.from(bytes), end: at + 1 };
    if (byte !== 0x5c) {
      bytes.push(byte);
      continue;
    }
    const next = String.fromCharCode(text[at + 1] ?? 0);
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(text.subarray(at + 1, at + 4).toString("latin1"), 8));
      at += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next] as number);
      at += 1;
    } else return undefined;
  }
  return undefined;
}
