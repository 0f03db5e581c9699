import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { importProblem, importsOf, layerViolations, loadedWith } from "../../scripts/layers.ts";

const repo = join(import.meta.dirname, "../..");

/** A throwaway repository whose src/ holds `files`. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "pi-quests-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the layer rule", () => {
  it("holds for this repository's src/", () => {
    expect(layerViolations(repo)).toEqual([]);
  });

  it("fails on core importing the extension, and names the file and line", () => {
    const root = tree({
      "src/core/model.ts": 'export const a = 1;\nimport type { X } from "../extension/controller.ts";\n',
      "src/extension/controller.ts": "export type X = number;\n",
    });
    expect(layerViolations(root)).toEqual([
      {
        file: "src/core/model.ts",
        line: 2,
        message:
          "src/core imports src/extension (../extension/controller.ts), a layer above it: a layer imports only the ones below it",
      },
    ]);
  });

  it("fails on the engine importing a Node adapter, a dynamic import too", () => {
    const root = tree({
      "src/verifier/checks/git.ts": 'export const load = () => import("../../probes/git.ts");\n',
      "src/probes/git.ts": "export {};\n",
    });
    expect(layerViolations(root).map((v) => v.message)).toEqual([
      "src/verifier imports src/probes (../../probes/git.ts), a layer above it: a layer imports only the ones below it",
    ]);
  });

  it("lets a layer import the ones below it and its own folder", () => {
    expect(importProblem("src/extension/hud.ts", site("../verifier/results.ts"))).toBeUndefined();
    expect(importProblem("src/verifier/checks/event.ts", site("../event-index.ts"))).toBeUndefined();
    expect(
      importProblem("src/task-verifier/verifier.ts", site("../receipts/fingerprint.ts")),
    ).toBeUndefined();
  });

  it("keeps the edges apart: the CLI does not import the extension", () => {
    expect(importProblem("src/cli/check.ts", site("../extension/pinned-quest.ts"))).toBe(
      "src/cli imports src/extension (../extension/pinned-quest.ts), a sibling layer: a layer imports only the ones below it",
    );
  });

  it("refuses a folder the table does not place", () => {
    expect(importProblem("src/core/a.ts", site("../misc/b.ts"))).toBe(
      "imports src/misc, which is not in the layer table of scripts/layers.ts",
    );
  });

  it("lets only the Pi host and the play controls import Pi at run time; types anywhere", () => {
    const pi = "@earendil-works/pi-coding-agent";
    expect(importProblem("src/runtime/pi-host.ts", site(pi))).toBeUndefined();
    expect(importProblem("src/extension/play-controls.ts", site(pi))).toBeUndefined();
    expect(
      importProblem("src/extension/scripted-model.ts", site("@earendil-works/pi-ai/compat", true)),
    ).toBeUndefined();
    expect(importProblem("src/events/translator.ts", site(pi, true))).toBeUndefined();
    const only =
      "only src/runtime/pi-host.ts and src/extension/play-controls.ts may (import its types with `import type`)";
    // The scripted model takes pi-ai from the running Pi: by name it could be another copy.
    expect(importProblem("src/extension/scripted-model.ts", site("@earendil-works/pi-ai/compat"))).toBe(
      `imports @earendil-works/pi-ai/compat at run time; ${only}`,
    );
    // Where Pi is imported in an installed package, its names do not resolve: the entry, the
    // skill probe and the reviewer get Pi's functions from the host.
    for (const file of ["src/extension/index.ts", "src/probes/skill.ts", "src/probes/review-session.ts"])
      expect(importProblem(file, site(pi))).toBe(`imports ${pi} at run time; ${only}`);
    expect(importProblem("src/extension/index.ts", site("@earendil-works/pi-tui"))).toBe(
      `imports @earendil-works/pi-tui at run time; ${only}`,
    );
    expect(importProblem("src/cli/plays/pi-rpc.ts", site("@earendil-works/pi-ai/compat"))).toMatch(
      /^imports @earendil-works\/pi-ai\/compat at run time; only /,
    );
  });
});

describe("importsOf", () => {
  it("finds every kind of import with its line, and which are type-only", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      'export { c } from "./c.ts";',
      'export type { D } from "./d.ts";',
      'export * from "./e.ts";',
      'const f = await import("./f.ts");',
      'import { type G } from "./g.ts";',
      'const h = "./not-an-import.ts";',
    ].join("\n");
    expect(importsOf("src/core/x.ts", text)).toEqual([
      { specifier: "./a.ts", line: 1, typeOnly: false, dynamic: false },
      { specifier: "./b.ts", line: 2, typeOnly: true, dynamic: false },
      { specifier: "./c.ts", line: 3, typeOnly: false, dynamic: false },
      { specifier: "./d.ts", line: 4, typeOnly: true, dynamic: false },
      { specifier: "./e.ts", line: 5, typeOnly: false, dynamic: false },
      { specifier: "./f.ts", line: 6, typeOnly: false, dynamic: true },
      { specifier: "./g.ts", line: 7, typeOnly: true, dynamic: false },
    ]);
  });
});

function site(specifier: string, typeOnly = false) {
  return { specifier, line: 1, typeOnly, dynamic: false };
}

describe("what the extension's entry loads while Pi starts", () => {
  // The engine, zod and yaml wait for the first quest (session.ts is imported dynamically), and
  // nothing of Pi is imported by name, so Pi's loader can import the built entry natively where
  // Pi's names do not resolve (an installed package). docs/benchmarks.md has the start figures.
  it("is Node's alone: no package of Pi's, no schema or query library", () => {
    const { packages } = loadedWith(join(repo, "src/extension/index.ts"));
    expect(packages.filter((name) => !name.startsWith("node:"))).toEqual([]);
  });
});
