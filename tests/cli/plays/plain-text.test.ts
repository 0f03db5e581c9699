/** Control characters out of a text for XML: escape sequences as a whole, line breaks kept. */
import { describe, expect, it } from "vitest";
import { plainText } from "../../../src/cli/plays/plain-text.ts";

const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);

describe("plainText", () => {
  it("removes terminal escape sequences whole, not only their ESC", () => {
    expect(plainText(`${ESC}[1;31mred${ESC}[0m ${ESC}[2K${ESC}[?25lx`)).toBe("red x");
    expect(plainText(`${ESC}]8;;https://example.com${BEL}link${ESC}]8;;${ESC}\\ done`)).toBe("link done");
    expect(plainText(`${ESC}]0;title${BEL}a${ESC}Mb${ESC}7c${ESC}(Bd${ESC}ce`)).toBe("abcde");
  });

  it("removes the other C0 controls, DEL and the C1 controls; keeps tabs and line breaks", () => {
    expect(plainText("a\u0000b\u0007c\u0008d\u000be\u000cf\u007fg\u009bh")).toBe("abcdefgh");
    expect(plainText("a\tb\nc")).toBe("a\tb\nc");
  });

  it("makes a carriage return a line break", () => {
    expect(plainText("one\r\ntwo\rthree")).toBe("one\ntwo\nthree");
  });

  it("leaves printable text alone, non-ASCII included", () => {
    const text = 'é ✓ 🙂 ]]> <tag attr="x"> & # \\';
    expect(plainText(text)).toBe(text);
  });
});
