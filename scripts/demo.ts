/**
 * `npm run demo`: a scripted learner plays the starter pack in the real `pi` (RPC mode, offline,
 * the scripted test model: no API key, no network) with the pi-quests extension, and every HUD
 * state Pi shows is printed as it changes. Along the way the model once only *claims* the work,
 * and the HUD stays red. Exits 0 when the learner ends with every quest done.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PiRpc, type ScriptedTurn, startPiRpc } from "./pi-rpc.ts";

type Step = { say: string; prompt: string; turns: ScriptedTurn[] };

const STEPS: Step[] = [
  {
    say: "The learner says hello",
    prompt: "Hi Pi, what can you do in this folder?",
    turns: [{ text: "Hi! I can read and write files here and run commands for you." }],
  },
  {
    say: "The learner asks for hello.txt; the model only claims it did it",
    prompt: "Create hello.txt that says hello to the world.",
    turns: [{ text: "Done! I created hello.txt with a friendly greeting." }],
  },
  {
    say: "The learner asks again; this time Pi really writes the file",
    prompt: "Please really write hello.txt with your write tool.",
    turns: [
      { tools: [{ name: "write", arguments: { path: "hello.txt", content: "hello world\n" } }] },
      { text: "hello.txt is written." },
    ],
  },
  { say: "The learner asks for a hint", prompt: "/quest hint", turns: [] },
  {
    say: "The learner asks Pi to commit",
    prompt: "Commit hello.txt with the message: Say hello",
    turns: [
      {
        tools: [
          { name: "bash", arguments: { command: "git add hello.txt && git commit -q -m 'Say hello'" } },
        ],
      },
      { text: "Committed." },
    ],
  },
];

const workspace = mkdtempSync(join(tmpdir(), "pi-quests-demo-"));
const agentDir = mkdtempSync(join(tmpdir(), "pi-quests-demo-agent-"));
const out = (text: string) => process.stdout.write(text);

/** Prints what the HUD did since `from`: each widget state, the status, notifications. */
function printHud(pi: PiRpc, from: number): void {
  let lastStatus = "";
  for (const line of pi.lines.slice(from)) {
    if (line.type !== "extension_ui_request") continue;
    if (line.method === "setWidget") {
      const lines = (line.widgetLines as string[] | undefined) ?? [];
      if (lines[0]?.endsWith("checking…")) {
        out("   (checking…)\n");
        continue;
      }
      out(
        `   ┌─ HUD ${"─".repeat(50)}\n${lines.map((text) => `   │ ${text}\n`).join("")}   └${"─".repeat(56)}\n`,
      );
    } else if (line.method === "setStatus" && line.statusText !== lastStatus) {
      lastStatus = String(line.statusText ?? "");
      if (!lastStatus.includes("checking")) out(`   footer: ${lastStatus}\n`);
    } else if (line.method === "notify") {
      out(`   » ${String(line.message).replaceAll("\n", "\n     ")}\n`);
    }
  }
}

const pi = startPiRpc({ workspace, agentDir, script: STEPS.flatMap((step) => step.turns) });
let exitCode = 1;
try {
  out(`pi-quests demo: the real pi, a scripted model, an empty folder (${workspace})\n\n== Pi starts\n`);
  await pi.settled();
  printHud(pi, 0);
  for (const step of STEPS) {
    const from = pi.lines.length;
    out(`\n== ${step.say}\n   > ${step.prompt}\n`);
    await pi.prompt(step.prompt);
    await pi.settled();
    printHud(pi, from);
  }
  const done = pi.hud().widget?.[0] === "Quests 3/3 done. Well played!";
  out(
    done
      ? "\nEvery quest was checked against what really happened; the claim alone did not pass.\n"
      : "\nUnexpected: the starter pack did not end complete (see above).\n",
  );
  exitCode = done ? 0 : 1;
} catch (error) {
  out(`\nThe demo failed: ${(error as Error).message}\n`);
} finally {
  await pi.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(agentDir, { recursive: true, force: true });
}
process.exitCode = exitCode;
