/**
 * `--reporter junit`, parsed back with an XML parser: the counts, one testcase a play named
 * QUEST/PLAY, failure for a wrong outcome, error for an error, a skipped QUEST/pass for an
 * unproven quest, the result in system-out, no control characters, and `]]>` intact.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { formatJunitReport } from "../../../src/cli/plays/report-junit.ts";
import { ALL_OK, MIXED, SHARD_2_OF_3 } from "./sample-reports.ts";

type Attrs = Record<string, string>;
type TestCase = Attrs & {
  failure?: Attrs;
  error?: Attrs;
  skipped?: unknown;
  "system-out"?: string;
};
type Suite = Attrs & { testcase: TestCase[]; properties?: { property: Attrs[] } };
type Parsed = { testsuites: Attrs & { testsuite: Suite[] } };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => ["testsuite", "testcase", "property"].includes(name),
});

async function parsed(report = MIXED): Promise<{ xml: string; root: Parsed["testsuites"]; suite: Suite }> {
  const xml = await formatJunitReport(report);
  expect(XMLValidator.validate(xml)).toBe(true);
  const root = (parser.parse(xml) as Parsed).testsuites;
  const suite = root.testsuite[0];
  if (!suite) throw new Error("no testsuite");
  return { xml, root, suite };
}

/** The control characters in a text but tab, line feed and carriage return (XML allows those). */
const controlCharacters = (text: string): string[] =>
  [...text].filter((c) => {
    const code = c.codePointAt(0) ?? 0;
    return (code < 0x20 && !"\t\n\r".includes(c)) || (code >= 0x7f && code <= 0x9f);
  });

const byName = (suite: Suite, name: string): TestCase => {
  const found = suite.testcase.find((c) => c.name === name);
  if (!found) throw new Error(`no testcase ${name}`);
  return found;
};

describe("the JUnit reporter", () => {
  it("counts the plays and the unproven quest: two failures, one error, one skipped", async () => {
    const { root, suite } = await parsed();
    for (const counts of [root, suite]) {
      expect(counts).toMatchObject({ tests: "5", failures: "2", errors: "1", skipped: "1" });
    }
    expect(suite.name).toBe("pi-quests test quests");
    expect(suite.properties?.property).toEqual([{ name: "pi.version", value: "1.6.0" }]);
  });

  it("has one testcase a play, named QUEST/PLAY in the quest's class, in pack order", async () => {
    const { suite } = await parsed();
    expect(suite.testcase.map((c) => [c.classname, c.name, c.time])).toEqual([
      ["first-prompt", "first-prompt/pass", "1.234"],
      ["first-file", "first-file/pass", "2.051"],
      ["first-file", "first-file/fail-claim", "1.89"],
      ["first-commit", "first-commit/fail-uncommitted", "45"],
      ["first-skill", "first-skill/pass", undefined],
    ]);
  });

  it("makes a wrong outcome a failure, an error outcome an error, and an ok play neither", async () => {
    const { suite } = await parsed();
    const ok = byName(suite, "first-prompt/pass");
    expect(ok.failure).toBeUndefined();
    expect(ok.error).toBeUndefined();
    expect(byName(suite, "first-file/pass").failure).toEqual({
      message: "first-file did not complete: says-hello failed",
      type: "wrong-outcome",
    });
    expect(byName(suite, "first-file/fail-claim").failure?.type).toBe("wrong-outcome");
    const error = byName(suite, "first-commit/fail-uncommitted");
    expect(error.failure).toBeUndefined();
    expect(error.error).toEqual({
      message: 'the play ran out of model replies at step 2 (prompt "commit it")',
      type: "play-error",
    });
  });

  it("skips an unproven quest's QUEST/pass, and fails it with --strict", async () => {
    const skipped = byName((await parsed()).suite, "first-skill/pass");
    expect(skipped).toHaveProperty("skipped");
    expect(skipped["system-out"]).toBe("unproven: no solutions/first-skill/pass.yaml");
    const { root, suite } = await parsed({ ...MIXED, strict: true });
    expect(root).toMatchObject({ tests: "5", failures: "3", errors: "1", skipped: "0" });
    expect(byName(suite, "first-skill/pass").failure).toEqual({
      message: "unproven: no solutions/first-skill/pass.yaml",
      type: "unproven",
    });
  });

  it("puts the quest's result in system-out, without control characters, with ]]> intact", async () => {
    const { xml, suite } = await parsed();
    const out = byName(suite, "first-file/pass")["system-out"];
    expect(out).toBe(
      [
        "expected complete, got not complete",
        "first-file did not complete: says-hello failed",
        "first-file: last result",
        "  [pass] wrote-it (Pi wrote hello.txt with its write tool): matching tool_result event at seq 6",
        "  [pass] file-there (hello.txt exists): hello.txt is a file",
        "  [FAIL] says-hello (hello.txt says hello): exit code 1, expected = 0",
        "      last 1 line(s) of output:",
        '      | FAIL hello.txt says "bye" ]]> # not hello',
        "FAIL: 2 passed, 1 failed, 0 pending",
        "",
      ].join("\n"),
    );
    expect(controlCharacters(xml)).toEqual([]);
    expect(xml).not.toContain("[31m");
    expect(byName(suite, "first-commit/fail-uncommitted")["system-out"]).toBe(
      'expected not complete, got error\nthe play ran out of model replies at step 2 (prompt "commit it")\n',
    );
  });

  it("builds every report with a fresh builder: a second report does not carry the first's tests", async () => {
    await formatJunitReport(MIXED);
    const { root, suite } = await parsed(ALL_OK);
    expect(root).toMatchObject({ tests: "1", failures: "0", errors: "0", skipped: "0" });
    expect(suite.testcase.map((c) => c.name)).toEqual(["first-prompt/pass"]);
    expect(suite.properties).toBeUndefined();
  });

  it("names a shard's suite for its shard, so the shards' files hold distinct suites", async () => {
    const { suite } = await parsed(SHARD_2_OF_3);
    expect(suite.name).toBe("pi-quests test ./my-pack (shard 2/3)");
    expect(suite.properties?.property).toEqual([
      { name: "pi.version", value: "1.6.0" },
      { name: "shard", value: "2/3" },
    ]);
    expect((await parsed(ALL_OK)).suite.name).toBe("pi-quests test ./my-pack");
  });
});
