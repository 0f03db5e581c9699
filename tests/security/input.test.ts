/**
 * Input that would hang or fool Pi: a quest regex with catastrophic backtracking fed a long value,
 * a YAML alias bomb, an oversize quest file, a skill that is a link to somewhere else, and an MCP
 * stub that only lists the names a check expects. Each case is what an agent could do with its
 * bash tool (write files, make links, start nothing by hand), run through the real `pi-quests`
 * binary. A regex case asserts the answer, never a time: a hang would fail the run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_QUEST_FILE_BYTES } from "../../src/verifier/loader.ts";
import { type CliRun, runCli } from "../support/cli.ts";
import { processesMentioning, snapshot } from "../support/task-verifier.ts";
import { makeWorkspace, removeWorkspaces } from "../support/workspace.ts";

afterEach(removeWorkspaces);

const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$/m;
/** Long enough that a backtracking engine would not finish `^(a+)+$` in the life of the test run. */
const LONG = 50_000;
const CATASTROPHIC = ["^(a+)+$", "(a|aa)+$", "(.*a){20}"] as const;

/** What the agent runs with its bash tool, in the workspace. */
function agent(workspace: string, script: string): void {
  execFileSync("bash", ["-c", script], { cwd: workspace, stdio: ["ignore", "pipe", "pipe"] });
}

type CheckJson = { id: string; status: string; evidence: Record<string, unknown> & { summary: string } };

async function check(workspace: string, quest: string, extra: string[] = []) {
  const run = await runCli(["check", join(workspace, quest), "--cwd", workspace, "--json", ...extra]);
  expect(run.stderr).not.toMatch(STACK_TRACE);
  const checks = (JSON.parse(run.stdout) as { checks: CheckJson[] }).checks;
  return { run, byId: Object.fromEntries(checks.map((c) => [c.id, c])) as Record<string, CheckJson> };
}

function expectInvalidInput(run: CliRun, where: RegExp, text: string): void {
  expect(run.exitCode).toBe(3);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(where);
  expect(run.stderr).toContain(text);
  expect(run.stderr).not.toMatch(STACK_TRACE);
  expect(run.stderr).not.toContain("internal error");
}

const questHead = (id: string) => `version: 1\nid: ${id}\ntitle: ${id}\ngoal: g\nchecks:\n`;

describe("a quest regex cannot hang Pi (linear-time matching)", () => {
  it("a command prints 50,000 a's and a '!' at stdout and stderr regexes ^(a+)+$, (a|aa)+$, (.*a){20}", async () => {
    const workspace = makeWorkspace();
    const checks = CATASTROPHIC.flatMap((pattern, index) => [
      `  - id: out-${index}\n    type: command\n    isolation: none\n    run: node print.js\n    stdout: { regex: ${JSON.stringify(pattern)} }`,
      `  - id: err-${index}\n    type: command\n    isolation: none\n    run: node print.js\n    stderr: { regex: ${JSON.stringify(pattern)} }`,
    ]);
    agent(
      workspace,
      [
        `echo 'const s = "a".repeat(${LONG}) + "!"; process.stdout.write(s); process.stderr.write(s);' > print.js`,
        `cat > quest.yaml <<'EOF'\n${questHead("redos-command")}${checks.join("\n")}\nEOF`,
      ].join("\n"),
    );
    const before = snapshot(workspace);
    const { byId } = await check(workspace, "quest.yaml");
    // The anchored patterns cannot match a value ending in "!"; (.*a){20} can.
    for (const stream of ["out", "err"]) {
      expect(byId[`${stream}-0`]?.status).toBe("fail");
      expect(byId[`${stream}-1`]?.status).toBe("fail");
      expect(byId[`${stream}-2`]?.status).toBe("pass");
    }
    expect(byId["out-0"]?.evidence.summary).toMatch(/stdout/);
    expect(snapshot(workspace)).toEqual(before);
  });

  it("the agent's write tool call carries 50,000 a's for event match.tool and match.fields regexes", async () => {
    const workspace = makeWorkspace();
    const checks = CATASTROPHIC.map(
      (pattern, index) =>
        `  - id: field-${index}\n    type: event\n    match: { event: tool_result, tool: { regex: "^(w+)+rite$" }, fields: { input.content: { regex: ${JSON.stringify(pattern)} } } }`,
    );
    agent(
      workspace,
      [
        `cat > quest.yaml <<'EOF'\n${questHead("redos-event")}${checks.join("\n")}\nEOF`,
        `node -e 'const content = "a".repeat(${LONG}) + "!";
          const event = { name: "tool_result", sessionId: "s1", seq: 1, payload: { toolName: "write", toolCallId: "c1", isError: false, input: { path: "x.txt", content } } };
          console.log(JSON.stringify({ name: "session_start", sessionId: "s1", seq: 0, payload: { cwd: "." } }));
          console.log(JSON.stringify(event));' > events.jsonl`,
      ].join("\n"),
    );
    const { byId } = await check(workspace, "quest.yaml", ["--events", join(workspace, "events.jsonl")]);
    expect(byId["field-0"]?.status).toBe("fail");
    expect(byId["field-1"]?.status).toBe("fail");
    expect(byId["field-2"]?.status).toBe("pass");
    expect(byId["field-2"]?.evidence).toMatchObject({ kind: "event", matched: 1 });
  });

  it("a JSON and a YAML file hold 50,000 a's for json_path and yaml_path `matches`", async () => {
    const workspace = makeWorkspace();
    const checks = CATASTROPHIC.flatMap((pattern, index) => [
      `  - id: json-${index}\n    type: json_path\n    file: data.json\n    path: $.name\n    assert: matches\n    value: ${JSON.stringify(pattern)}`,
      `  - id: yaml-${index}\n    type: yaml_path\n    file: data.yaml\n    path: $.name\n    assert: matches\n    value: ${JSON.stringify(pattern)}`,
    ]);
    agent(
      workspace,
      [
        `cat > quest.yaml <<'EOF'\n${questHead("redos-structured")}${checks.join("\n")}\nEOF`,
        `node -e 'const name = "a".repeat(${LONG}) + "!"; require("fs").writeFileSync("data.json", JSON.stringify({ name })); require("fs").writeFileSync("data.yaml", "name: " + name + "\\n");'`,
      ].join("\n"),
    );
    const before = snapshot(workspace);
    const { byId } = await check(workspace, "quest.yaml");
    for (const kind of ["json", "yaml"]) {
      expect(byId[`${kind}-0`]?.status).toBe("fail");
      expect(byId[`${kind}-1`]?.status).toBe("fail");
      expect(byId[`${kind}-2`]?.status).toBe("pass");
    }
    expect(snapshot(workspace)).toEqual(before);
  });

  it("a quest pattern with a backreference or a lookbehind is refused at load time with file:line:col and what to write instead", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      [
        `cat > quest.yaml <<'EOF'`,
        `${questHead("backref")}  - type: command`,
        `    run: "true"`,
        `    stdout: { regex: "^(a+)\\\\1$" }`,
        `  - type: event`,
        `    match: { event: input, fields: { text: { regex: "(?<=x)a", flags: i } } }`,
        "EOF",
      ].join("\n"),
    );
    const file = join(workspace, "quest.yaml");
    for (const command of ["lint", "check"]) {
      const run = await runCli(command === "check" ? [command, file, "--cwd", workspace] : [command, file]);
      expectInvalidInput(run, new RegExp(`^${file}:8:22: `, "m"), "backreference \\1");
      expect(run.stderr).toContain("write the repeated text out");
    }
    const lint = await runCli(["lint", file]);
    expect(lint.stderr).toMatch(new RegExp(`^${file}:10:53: .*lookbehind \\(\\?<=\\.\\.\\.\\)`, "m"));
    expect(lint.stderr).toContain("match the text itself");
  });

  it("honest patterns still pass: flags i, m, s and a \\u escape, against the learner's real output", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      [
        `printf 'first line\\nHello World\\n' > notes.txt`,
        `cat > quest.yaml <<'EOF'`,
        `${questHead("honest-regex")}  - id: i-and-m`,
        "    type: command",
        "    isolation: none",
        "    run: cat notes.txt",
        `    stdout: { regex: "^hello \\\\u0077orld$", flags: im }`,
        "  - id: s",
        "    type: command",
        "    isolation: none",
        "    run: cat notes.txt",
        `    stdout: { regex: "line.Hello", flags: s }`,
        "  - id: without-s",
        "    type: command",
        "    isolation: none",
        "    run: cat notes.txt",
        `    stdout: { regex: "line.Hello" }`,
        "EOF",
      ].join("\n"),
    );
    const { byId } = await check(workspace, "quest.yaml");
    expect(byId["i-and-m"]?.status).toBe("pass");
    expect(byId.s?.status).toBe("pass");
    expect(byId["without-s"]?.status).toBe("fail");
  });
});

describe("a quest file cannot exhaust Pi", () => {
  const bomb = [
    `x-a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]`,
    `x-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]`,
    `x-c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]`,
    `x-d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]`,
    `x-e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]`,
    `x-f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]`,
    `x-g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]`,
  ].join("\n");

  it("a billion-laughs alias bomb in a quest file is exit 3 with file:line for lint and check, not an internal error", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      `cat > bomb.yaml <<'EOF'\nversion: 1\nid: bomb\ntitle: Bomb\ngoal: g\n${bomb}\nchecks:\n  - type: confirm\n    prompt: *g\nEOF`,
    );
    const file = join(workspace, "bomb.yaml");
    for (const command of ["lint", "check"]) {
      const run = await runCli(command === "check" ? [command, file, "--cwd", workspace] : [command, file]);
      // Line 7 is `x-c`, the first alias to a list that itself holds aliases.
      expectInvalidInput(run, new RegExp(`^${file}:7:10: YAML: `, "m"), "billion laughs");
    }
    // In a pack, the bomb is reported and the other quests are still judged on their own.
    agent(
      workspace,
      `mkdir pack && mv bomb.yaml pack/ && printf '${questHead("ok")}  - type: confirm\\n    prompt: p\\n' > pack/ok.yaml`,
    );
    const pack = await runCli(["lint", join(workspace, "pack")]);
    expectInvalidInput(pack, new RegExp(`^${join(workspace, "pack", "bomb.yaml")}:7:10: `, "m"), "aliases");
  });

  it("an alias bomb in the learner's YAML file fails the yaml_path check with a sentence", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      [
        `cat > config.yaml <<'EOF'\n${bomb}\nname: *g\nEOF`,
        `cat > quest.yaml <<'EOF'\n${questHead("bomb-data")}  - id: named\n    type: yaml_path\n    file: config.yaml\n    path: $.name\n    assert: exists\nEOF`,
      ].join("\n"),
    );
    const { run, byId } = await check(workspace, "quest.yaml");
    expect(run.exitCode).toBe(1);
    expect(byId.named?.status).toBe("fail");
    expect(byId.named?.evidence.summary).toMatch(/^config\.yaml:3:10 does not parse: .*billion laughs/);
  });

  it("a quest file of 1 MiB and one byte is refused unread (exit 3, file named), and so is a FIFO", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      [
        `printf '${questHead("big")}  - type: confirm\\n    prompt: p\\n# ' > big.yaml`,
        `head -c ${MAX_QUEST_FILE_BYTES} /dev/zero | tr '\\0' x >> big.yaml`,
        "mkfifo pipe.yaml",
      ].join("\n"),
    );
    const big = join(workspace, "big.yaml");
    for (const command of ["lint", "check"]) {
      const run = await runCli(command === "check" ? [command, big, "--cwd", workspace] : [command, big]);
      expectInvalidInput(run, new RegExp(`^${big}: is \\d+ bytes`, "m"), "at most 1048576 bytes (1 MiB)");
    }
    // Opening a FIFO for reading would wait for a writer forever; it is refused instead.
    const fifo = await runCli(["lint", join(workspace, "pipe.yaml")]);
    expectInvalidInput(fifo, new RegExp(`^${join(workspace, "pipe.yaml")}: `, "m"), "is not a regular file");
  });
});

describe("skill_valid refuses a skill behind a link that leaves its root", () => {
  const skill = (name: string) =>
    `---\nname: ${name}\ndescription: Greets people warmly. Use when asked to say hello.\n---\n\n# Greeter\n`;

  it("the agent links .pi/skills/greeter to a valid skill outside the workspace: Pi finds it, the check fails", async () => {
    const workspace = makeWorkspace();
    const outside = makeWorkspace({ "greeter/SKILL.md": skill("greeter") });
    agent(
      workspace,
      [
        "mkdir -p .pi/skills",
        `ln -s ${join(outside, "greeter")} .pi/skills/greeter`,
        `cat > quest.yaml <<'EOF'\n${questHead("skill-link")}  - id: by-name\n    type: skill_valid\n    name: greeter\n  - id: by-path\n    type: skill_valid\n    path: .pi/skills/greeter\nEOF`,
      ].join("\n"),
    );
    const before = snapshot(workspace);
    const { run, byId } = await check(workspace, "quest.yaml");
    expect(run.exitCode).toBe(1);
    for (const id of ["by-name", "by-path"]) {
      expect(byId[id]?.status).toBe("fail");
      expect(byId[id]?.evidence).toMatchObject({ kind: "path", problem: "escape" });
      expect(byId[id]?.evidence.summary).toContain("through a symbolic link, outside");
    }
    expect(byId["by-name"]?.evidence.summary).toContain("Pi's discovery finds it, but");
    expect(snapshot(workspace)).toEqual(before);
  });

  it("the agent links SKILL.md to a FIFO outside the workspace: refused before anything opens it", async () => {
    const workspace = makeWorkspace();
    const outside = makeWorkspace();
    // A read of a FIFO with no writer never returns: if anything opened it, the run would hang.
    agent(
      workspace,
      [
        `mkfifo ${join(outside, "SKILL.md")}`,
        "mkdir -p skills-src/greeter",
        `ln -s ${join(outside, "SKILL.md")} skills-src/greeter/SKILL.md`,
        `cat > quest.yaml <<'EOF'\n${questHead("skill-file-link")}  - id: by-path\n    type: skill_valid\n    path: skills-src/greeter\nEOF`,
      ].join("\n"),
    );
    const { byId } = await check(workspace, "quest.yaml");
    expect(byId["by-path"]?.status).toBe("fail");
    expect(byId["by-path"]?.evidence).toMatchObject({ kind: "path", problem: "escape" });
    expect(byId["by-path"]?.evidence.summary).toContain(`leads to ${join(outside, "SKILL.md")}`);
    expect(byId["by-path"]?.evidence.summary).toContain("it was not read");
  });

  it("the agent links {agent_dir}/skills/greeter to a skill in /tmp: refused like a workspace link", async () => {
    const workspace = makeWorkspace();
    const home = makeWorkspace();
    const outside = makeWorkspace({ "greeter/SKILL.md": skill("greeter") });
    const agentDir = join(home, "agent");
    agent(
      workspace,
      [
        `mkdir -p ${agentDir}/skills`,
        `ln -s ${join(outside, "greeter")} ${agentDir}/skills/greeter`,
        `cat > quest.yaml <<'EOF'\n${questHead("agent-skill-link")}  - id: by-name\n    type: skill_valid\n    name: greeter\nEOF`,
      ].join("\n"),
    );
    const run = await runCli(["check", join(workspace, "quest.yaml"), "--cwd", workspace, "--json"], {
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir },
    });
    const [result] = (JSON.parse(run.stdout) as { checks: CheckJson[] }).checks;
    expect(result?.status).toBe("fail");
    expect(result?.evidence).toMatchObject({ kind: "path", problem: "escape" });
    expect(result?.evidence.summary).toContain(`outside ${agentDir}`);
  });

  it("honest: a real skill folder, and a link that stays inside the workspace, still pass", async () => {
    const workspace = makeWorkspace({ "shared/greeter/SKILL.md": skill("greeter"), ".git/HEAD": "" });
    agent(
      workspace,
      [
        "mkdir -p .pi/skills/helper",
        `cat > .pi/skills/helper/SKILL.md <<'EOF'\n${skill("helper")}EOF`,
        "ln -s ../../shared/greeter .pi/skills/greeter",
        `cat > quest.yaml <<'EOF'\n${questHead("skill-honest")}  - id: real\n    type: skill_valid\n    name: helper\n  - id: linked-inside\n    type: skill_valid\n    name: greeter\nEOF`,
      ].join("\n"),
    );
    const { run, byId } = await check(workspace, "quest.yaml");
    expect(byId.real?.status).toBe("pass");
    expect(byId["linked-inside"]?.status).toBe("pass");
    expect(run.exitCode).toBe(0);
  });
});

describe("mcp_handshake says what it proved", () => {
  /** A stub an agent can write in a minute: it answers initialize and tools/list, and nothing works. */
  const STUB = `
const fs = require("fs");
fs.writeFileSync(process.argv[2], String(process.pid));
let buffer = "";
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf("\\n")) >= 0) {
    const request = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (request.id === undefined) continue;
    if (request.method === "initialize") {
      send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "stub-weather", version: "0.0.1" } } });
    } else if (request.method === "tools/list") {
      send({ id: request.id, result: { tools: ["get_forecast", "get_alerts"].map((name) => ({ name, inputSchema: { type: "object" } })) } });
    } else {
      send({ id: request.id, error: { code: -32601, message: "not implemented" } });
    }
  }
});
`;

  it("a stub that only lists get_forecast and get_alerts passes, and the evidence says it proves the handshake only", async () => {
    const workspace = makeWorkspace();
    const pidFile = join(workspace, "stub.pid");
    agent(
      workspace,
      [
        "mkdir -p .pi",
        `cat > stub.js <<'EOF'\n${STUB}\nEOF`,
        `cat > .pi/mcp.json <<EOF\n${JSON.stringify({
          mcpServers: {
            weather: {
              command: process.execPath,
              args: ["stub.js", pidFile, "--api-token", "tok-4f9a8b7c6d5e"],
              env: { WEATHER_API_KEY: "k3y-never-shown-81f2" },
            },
          },
        })}\nEOF`,
        `cat > quest.yaml <<'EOF'\n${questHead("mcp-stub")}  - id: weather\n    type: mcp_handshake\n    server: weather\n    expect_tools: [get_forecast, get_alerts]\nEOF`,
      ].join("\n"),
    );
    const before = snapshot(workspace);
    const { run, byId } = await check(workspace, "quest.yaml");
    const weather = byId.weather;
    // The honest answer to "does it do what it says" is unknown; the check only claims the handshake.
    expect(weather?.status).toBe("pass");
    expect(weather?.evidence).toMatchObject({
      kind: "mcp",
      server: "weather",
      transport: "stdio",
      serverInfo: { name: "stub-weather", version: "0.0.1" },
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      tools: ["get_forecast", "get_alerts"],
      missingTools: [],
      proved: "handshake",
      launched: {
        transport: "stdio",
        commandLine: `${process.execPath} stub.js ${pidFile} --api-token ***`,
        cwd: workspace,
        envNames: ["WEATHER_API_KEY"],
      },
    });
    const summary = weather?.evidence.summary ?? "";
    expect(summary).toContain(
      "MCP server weather (serverInfo: stub-weather 0.0.1) answered initialize (protocol ",
    );
    expect(summary).toContain("listed tools get_forecast, get_alerts");
    expect(summary).toContain(`ran ${process.execPath} stub.js`);
    expect(summary).toContain("env WEATHER_API_KEY set (values not shown)");
    expect(summary).toMatch(/: this proves the handshake only, not what the tools do$/);
    // Neither the env value nor the token argument is anywhere in what pi-quests printed.
    expect(run.stdout + run.stderr).not.toContain("k3y-never-shown-81f2");
    expect(run.stdout + run.stderr).not.toContain("tok-4f9a8b7c6d5e");
    // The readable report says it too, and the stub is gone.
    const text = await runCli(["check", join(workspace, "quest.yaml"), "--cwd", workspace]);
    expect(text.stdout).toContain("this proves the handshake only, not what the tools do");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(processesMentioning(pidFile)).toEqual([]);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(snapshot(workspace)).toMatchObject(
      Object.fromEntries(Object.entries(before).filter(([name]) => name !== "stub.pid")),
    );
  });

  it("the same stub missing one expected name fails, naming what it lacks and what ran", async () => {
    const workspace = makeWorkspace();
    agent(
      workspace,
      [
        `cat > stub.js <<'EOF'\n${STUB}\nEOF`,
        `cat > quest.yaml <<'EOF'\n${questHead("mcp-stub-missing")}  - id: weather\n    type: mcp_handshake\n    command: ${process.execPath}\n    args: [stub.js, ${join(workspace, "stub.pid")}]\n    expect_tools: [get_forecast, get_radar]\nEOF`,
      ].join("\n"),
    );
    const { run, byId } = await check(workspace, "quest.yaml");
    expect(run.exitCode).toBe(1);
    expect(byId.weather?.status).toBe("fail");
    expect(byId.weather?.evidence).toMatchObject({ missingTools: ["get_radar"] });
    expect(byId.weather?.evidence).not.toHaveProperty("proved");
    expect(byId.weather?.evidence.summary).toContain("does not offer get_radar");
    expect(byId.weather?.evidence.summary).toContain("ran ");
  });
});
