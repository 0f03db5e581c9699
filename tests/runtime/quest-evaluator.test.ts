/**
 * Who judges an evaluator's reviews: the real folder of Pi's package and the real file its SDK
 * was imported from. A review's receipt answers only for the same judge
 * (tests/runtime/reviewer.test.ts), so a fake SDK the agent placed inside Pi's own folder is
 * another judge than the learner's Pi.
 */
import { realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reviewerOf } from "../../src/runtime/quest-evaluator.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

describe("the judge of an evaluator's reviews", () => {
  it("is Pi's folder and its SDK file: another SDK file in Pi's own folder is another judge", async () => {
    const pi = realpathSync(makeWorkspace({ "dist/bundle/index.js": "", "dist/evil/index.js": "" }));
    const real = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/bundle/index.js") });
    const planted = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/evil/index.js") });
    expect(real).toBeDefined();
    expect(planted).not.toBe(real);
    expect(await reviewerOf({ piPackage: pi })).not.toBe(real);
  });

  it("is the same through links to the same files, and none when nothing of Pi is known", async () => {
    const pi = realpathSync(makeWorkspace({ "dist/bundle/index.js": "" }));
    const links = makeWorkspace();
    symlinkSync(pi, join(links, "pi"));
    const direct = await reviewerOf({ piPackage: pi, piSdkFile: join(pi, "dist/bundle/index.js") });
    const linked = await reviewerOf({
      piPackage: join(links, "pi"),
      piSdkFile: join(links, "pi", "dist/bundle/index.js"),
    });
    expect(linked).toBe(direct);
    expect(await reviewerOf({})).toBeUndefined();
  });
});
