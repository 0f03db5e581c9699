/**
 * What runs read from the pinned baseline: its file list and manifests, the listing the run's
 * fingerprint compares with, and the texts the protection planner follows. The baseline never
 * changes, so each is read once, at the first run that needs it; a failed read is tried again.
 */
import { posix } from "node:path";
import { type GitRunner, splitNul } from "../probes/git-runner.ts";
import { readBaselineTexts } from "./baseline-content.ts";
import { type BaselineListing, baselineListingOnce } from "./run-fingerprint.ts";

type Answer<T> = ({ ok: true } & T) | { ok: false; message: string };

export type BaselineTree = {
  files: readonly string[];
  /** A package.json of the baseline, parsed (undefined when it is not JSON). */
  manifest(path: string): Record<string, unknown> | undefined;
  /** A package.json of the baseline, as git stores it. */
  manifestBytes(path: string): Buffer | undefined;
};

export type BaselineFacts = {
  tree(): Promise<Answer<{ tree: BaselineTree }>>;
  listing(): Promise<Answer<{ listing: BaselineListing }>>;
  /** Read with the run's git (its drivers pinned). */
  texts(git: GitRunner): Promise<Answer<{ texts: ReadonlyMap<string, string> }>>;
  /** Every package.json of the baseline, parsed or not (none before the tree is read). */
  manifestPaths(): string[];
};

export function baselineFacts(git: GitRunner, repositoryRoot: string, baseline: string): BaselineFacts {
  let files: string[] | undefined;
  let texts: Map<string, string> | undefined;
  const manifests = new Map<string, Record<string, unknown> | undefined>();
  const manifestBytes = new Map<string, Buffer>();
  const tree: BaselineTree = {
    get files() {
      return files ?? [];
    },
    manifest: (path) => manifests.get(path),
    manifestBytes: (path) => manifestBytes.get(path),
  };

  const readTree = async (): Promise<Answer<{ tree: BaselineTree }>> => {
    if (files) return { ok: true, tree };
    const listed = await git(["ls-tree", "-r", "-z", "--name-only", "--full-tree", baseline], {
      cwd: repositoryRoot,
    });
    if (!listed.ok) return listed;
    files = splitNul(listed.stdout);
    for (const path of files.filter((file) => posix.basename(file) === "package.json")) {
      const shown = await git(["show", `${baseline}:${path}`], { cwd: repositoryRoot });
      if (shown.ok) manifestBytes.set(path, shown.stdout);
      try {
        manifests.set(path, shown.ok ? JSON.parse(shown.stdout.toString("utf8")) : undefined);
      } catch {
        manifests.set(path, undefined);
      }
    }
    return { ok: true, tree };
  };

  const readTexts = async (runGit: GitRunner): Promise<Answer<{ texts: ReadonlyMap<string, string> }>> => {
    if (texts) return { ok: true, texts };
    const read = await readBaselineTexts(runGit, repositoryRoot, baseline);
    if (!read.ok) return read;
    texts = read.texts;
    return { ok: true, texts };
  };

  return {
    tree: readTree,
    listing: baselineListingOnce(git, repositoryRoot, baseline),
    texts: readTexts,
    manifestPaths: () => [...manifests.keys()],
  };
}
