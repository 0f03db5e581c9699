/**
 * The globs of `editable`: relative, `/`-separated, with three special forms. `*` is any run of
 * characters inside one name, `?` one character inside one name, and a `**` name any number of
 * names (none included). A glob that matches a folder covers everything below it, so `src`,
 * `src/` and `src/**` all mean the whole folder. Every other character is itself (`[`, `{`
 * and `!` included), and a leading dot is matched like any other character.
 */

/** Why a glob cannot be used, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  if (glob.trim() === "") return "a glob must not be empty";
  if (glob.includes("\\")) return `${glob} has a backslash; separate folders with /`;
  if (glob.startsWith("/") || /^[A-Za-z]:/.test(glob))
    return `${glob} is an absolute path; editable paths are relative to the quest workspace`;
  if (glob.includes("\0")) return `${glob} has a NUL character`;
  if (globNames(glob).includes(".."))
    return `${glob} goes up through ..; editable paths stay inside the quest workspace`;
  if (globNames(glob).length === 0) return `${glob} names no path`;
  return undefined;
}

/** The names of a glob, without empty ones and `.` (a leading `./` or a trailing `/`). */
function globNames(glob: string): string[] {
  return glob.split("/").filter((name) => name !== "" && name !== ".");
}

/** One name of a glob as a regular expression over one name of a path. */
function nameExpression(name: string): RegExp {
  let source = "";
  for (const char of name) {
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

type CompiledName = { kind: "any_depth" } | { kind: "name"; test: RegExp };

/**
 * A matcher for a list of globs (each already accepted by globProblem): true when a
 * `/`-separated relative path matches one of them or lies below a folder one of them matches.
 */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const compiled: CompiledName[][] = globs.map((glob) =>
    globNames(glob).map((name) =>
      name === "**" ? { kind: "any_depth" } : { kind: "name", test: nameExpression(name) },
    ),
  );
  return (path) => {
    const names = path.split("/").filter((name) => name !== "" && name !== ".");
    return compiled.some((glob) => coversPrefix(glob, names));
  };
}

/**
 * Whether the glob matches the path or one of its folders. Dynamic programming over (glob
 * position, path position): at most (glob names + 1) × (path names + 1) steps, whatever the
 * glob, so a quest's `**` cannot make this slow.
 */
function coversPrefix(glob: readonly CompiledName[], names: readonly string[]): boolean {
  // reachable[j]: the glob names read so far can match exactly the first j path names.
  let reachable = names.map(() => false).concat(false);
  reachable[0] = true;
  for (const part of glob) {
    const next = names.map(() => false).concat(false);
    for (let j = 0; j <= names.length; j++) {
      if (!reachable[j]) continue;
      if (part.kind === "any_depth") {
        for (let k = j; k <= names.length; k++) next[k] = true;
        break;
      }
      const name = names[j];
      if (name !== undefined && part.test.test(name)) next[j + 1] = true;
    }
    reachable = next;
  }
  // A match of the whole path, or of a folder above it (then everything below is covered).
  return reachable.some((hit, j) => hit && j > 0);
}
