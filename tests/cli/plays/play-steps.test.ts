/**
 * playSteps' dialog answers, with a fake Pi: the real-Pi behaviour of every step kind is proven
 * by the plays (tests/cli/test.test.ts, tests/cli/test-play-controls.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { PiRpcClient, RpcLine, UiRequest } from "../../../src/cli/plays/pi-rpc.ts";
import { playSteps } from "../../../src/cli/plays/play-steps.ts";
import type { PlayStep } from "../../../src/verifier/play.ts";

/** A Pi that answers every prompt at once and shows a confirm dialog when asked to. */
function fakePi() {
  const lines: RpcLine[] = [];
  const listeners = new Set<(line: RpcLine, index: number) => void>();
  const answers: { id: string; answer: unknown }[] = [];
  const pi = {
    lines,
    onLine(listener: (line: RpcLine, index: number) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    respond(request: UiRequest, answer: unknown) {
      answers.push({ id: request.id, answer });
    },
    async prompt() {
      return { type: "response" };
    },
  };
  const showConfirm = (id: string) => {
    const line = { type: "extension_ui_request", id, method: "confirm" };
    lines.push(line);
    for (const listener of [...listeners]) listener(line, lines.length - 1);
  };
  return { pi: pi as unknown as PiRpcClient, answers, showConfirm };
}

const shell = async () => ({ exitCode: 0, output: "" });
const timeouts = { stepMs: 1000, dialogMs: 1000 };

describe("playSteps' confirm dialogs", () => {
  it("answers a dialog once when one Pi plays several plays in turn: the newest play answers", async () => {
    const { pi, answers, showConfirm } = fakePi();
    await playSteps(pi, [{ kind: "command", command: "/quest check" }], shell, timeouts);
    const confirmYes: PlayStep[] = [{ kind: "confirm", answer: true }];
    const second = playSteps(pi, confirmYes, shell, timeouts);
    showConfirm("dialog-1");
    expect((await second).ok).toBe(true);
    expect(answers).toEqual([{ id: "dialog-1", answer: { confirmed: true } }]);
  });

  it("declines a dialog that comes after the last step (the closing check's)", async () => {
    const { pi, answers, showConfirm } = fakePi();
    await playSteps(pi, [{ kind: "command", command: "/quest check" }], shell, timeouts);
    showConfirm("dialog-after");
    expect(answers).toEqual([{ id: "dialog-after", answer: { confirmed: false } }]);
  });
});
