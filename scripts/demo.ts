/**
 * `npm run demo`: a scripted learner plays the built-in pack's first chapter and one later quest
 * in the real `pi` (RPC mode, offline, pi-quests' own scripted model: no API key, no network),
 * with the pi-quests extension, and every HUD state Pi shows is printed as it changes. The
 * learner's steps and the model's replies are the quests' own solution plays (scripts/tour.ts),
 * so the demo shows exactly what `pi-quests test` proves. Once, the model only *claims* the work
 * (first-file's fail-claim play), and the HUD stays red. Exits 0 when every quest of the tour
 * was completed and the claim was not.
 */
import type { PiRpcClient } from "../src/cli/plays/pi-rpc.ts";
import { describeStep } from "../src/cli/plays/play-steps.ts";
import { firstChapter, openTour, planTour } from "./tour.ts";

/** The later quest the tour ends with: one of the sessions chapter. */
const LATER_QUEST = "name-and-export";

const out = (text: string) => process.stdout.write(text);

/** Prints what the HUD did since `from`: each widget state, the status, notifications. */
function printHud(pi: PiRpcClient, from: number): void {
  let lastStatus = "";
  for (const line of pi.lines.slice(from)) {
    if (line.type !== "extension_ui_request") continue;
    if (line.method === "setWidget") {
      const lines = (line.widgetLines as string[] | undefined) ?? [];
      if (lines[0]?.endsWith("checking…")) continue;
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

async function main(): Promise<number> {
  const names = (await firstChapter()).flatMap((id) =>
    id === "first-file" ? [`${id}/fail-claim`, id] : [id],
  );
  const tour = await planTour([...names, LATER_QUEST]);
  const { pi, workspace, play, close } = openTour(tour);
  try {
    out(`pi-quests demo: the real pi, a scripted model, an empty folder (${workspace})\n\n== Pi starts\n`);
    await pi.waitFor((line) => line.type === "extension_ui_request" && line.method === "setWidget");
    printHud(pi, 0);
    let asExpected = true;
    for (const leg of tour) {
      const how = leg.completes ? "the real work" : "a claim without the work (it must stay red)";
      out(`\n== ${leg.quest.title} (${leg.quest.id}): ${how}\n`);
      for (const step of leg.play.steps) out(`   > ${describeStep(step)}\n`);
      const { from, completed } = await play(leg);
      printHud(pi, from);
      asExpected = completed === leg.completes && asExpected;
    }
    out(
      asExpected
        ? "\nEvery quest was checked against what really happened; the claim alone did not pass.\n"
        : "\nUnexpected: a quest of the tour did not end as it should (see above).\n",
    );
    return asExpected ? 0 : 1;
  } finally {
    await close();
  }
}

process.exitCode = await main().catch((error: Error) => {
  out(`\nThe demo failed: ${error.message}\n`);
  return 1;
});
