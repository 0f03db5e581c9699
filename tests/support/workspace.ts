import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const created: string[] = [];

/** A fresh folder with the given files; `copy` copies a template folder in first. */
export function makeWorkspace(
  files: Record<string, string | Buffer> = {},
  options: { copy?: string } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), "pi-quests-ws-"));
  created.push(dir);
  if (options.copy) cpSync(options.copy, dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/** Runs git in a test repository with a fixed identity and no signing. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync(
    "git",
    [
      "-c",
      "user.name=Learner",
      "-c",
      "user.email=learner@example.com",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** Makes `dir` a git repository with everything in it committed as the baseline. */
export function commitAll(dir: string, message = "baseline"): string {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", message);
  return git(dir, "rev-parse", "HEAD").trim();
}

export function removeWorkspaces(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
