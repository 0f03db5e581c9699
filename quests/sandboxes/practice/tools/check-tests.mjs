// The test quests' checker: `node tools/check-tests.mjs [FILE...]` (every test/*.test.js when none
// is named) runs `node --test` on the files and wants each test they declare (`test("NAME", ...)`)
// reported `ok` by the runner, every one, and no failure. An exit code 0 is not enough: code under
// test that ends its process early (`process.exit(0)` when it is loaded) makes `node --test` exit
// 0 with no test run. Exit 0 when every test passed; 1 with the reason otherwise.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const fail = (why) => {
  console.error(`check-tests: ${why}`);
  process.exit(1);
};
const files = process.argv.slice(2);
if (files.length === 0)
  files.push(
    ...readdirSync("test")
      .filter((name) => name.endsWith(".test.js"))
      .sort()
      .map((name) => `test/${name}`),
  );
const declared = files.flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/^test\(\s*"((?:[^"\\]|\\.)*)"/gm)].map((match) =>
    JSON.parse(`"${match[1]}"`),
  ),
);
if (declared.length === 0) fail(`no test("...") in ${files.join(", ")}`);

const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...files], {
  encoding: "utf8",
  timeout: 60_000,
});
if (run.error) fail(`node --test could not run: ${run.error.message}`);
const tap = run.stdout.split("\n");
const failed = tap
  .filter((line) => /^\s*not ok \d+ - /.test(line))
  .map((line) => line.replace(/^\s*not ok \d+ - /, ""));
if (run.status !== 0 || failed.length > 0)
  fail(
    `node --test ${files.join(" ")} failed${failed.length > 0 ? `: ${failed.join(", ")}` : ` (exit ${run.status})`}`,
  );
const passed = tap
  .filter((line) => /^ok \d+ - /.test(line))
  .map((line) => line.replace(/^ok \d+ - /, "").replace(/ # .*$/, ""));
const unrun = declared.filter((name) => passed.filter((seen) => seen === name).length !== 1);
if (unrun.length > 0)
  fail(
    `node --test exited 0, but these tests were not reported passing once each: ${unrun.map((name) => JSON.stringify(name)).join(", ")} (did the code under test end the process?)`,
  );
console.log(`check-tests: ${declared.length} test(s) of ${files.join(", ")} passed`);
