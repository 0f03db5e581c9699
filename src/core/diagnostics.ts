/** A problem in an input file, located for a person: `file:line:column: message`. */
export type Diagnostic = {
  file: string;
  /** 1-based; 0 when the problem concerns the whole file. */
  line: number;
  /** 1-based; 0 when the problem concerns the whole file. */
  column: number;
  message: string;
};

export type Loaded<T> = { ok: true; value: T } | { ok: false; diagnostics: Diagnostic[] };

export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where =
    diagnostic.line > 0 ? `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}` : diagnostic.file;
  return `${where}: ${diagnostic.message}`;
}

/** A readable message for a file system error, without a stack. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a folder, not a file";
    case "ENOTDIR":
      return "a part of the path is not a folder";
    default:
      return (error as Error | undefined)?.message ?? String(error);
  }
}
