/** The play controls' prompt, as the runner writes it and the extension reads it back. */
import { describe, expect, it } from "vitest";
import { type PlayControl, parsePlayControl, playControlPrompt } from "../../src/core/play-controls.ts";

describe("play controls", () => {
  it("reads back every control the runner writes", () => {
    const controls: PlayControl[] = [
      {
        action: "tree",
        args: { target: "Now divide", summarize: true, label: "start", instructions: "short" },
      },
      { action: "tree", args: { target: "x" } },
      { action: "reload", args: {} },
      { action: "trust", args: { decision: "session" } },
      { action: "resume", args: { name: "my work" } },
    ];
    for (const control of controls) {
      const prompt = playControlPrompt(control);
      expect(prompt.startsWith("/pi-quests-play ")).toBe(true);
      expect(parsePlayControl(prompt.slice("/pi-quests-play ".length))).toEqual({ ok: true, control });
    }
  });

  it("says what is wrong with a control it cannot read", () => {
    const reason = (text: string) => {
      const read = parsePlayControl(text);
      return read.ok ? "read" : read.reason;
    };
    expect(reason("jump {}")).toBe('no action "jump" (tree, reload, trust, resume)');
    expect(reason("tree {nope")).toBe("the arguments of tree are not JSON: {nope");
    expect(reason("tree []")).toBe("the arguments of tree are not a JSON object");
    expect(reason('tree {"target":""}')).toContain("tree needs target");
    expect(reason('tree {"target":"x","summarize":"yes"}')).toBe("tree's summarize is true or false");
    expect(reason('tree {"target":"x","label":3}')).toBe("tree's label is a text");
    expect(reason('trust {"decision":"always"}')).toBe("trust needs decision: yes, no or session");
    expect(reason("resume {}")).toBe("resume needs the session's name");
    expect(reason("reload")).toBe("read");
  });
});
