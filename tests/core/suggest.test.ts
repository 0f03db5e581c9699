import { describe, expect, it } from "vitest";
import { closestName, didYouMean } from "../../src/core/suggest.ts";

const TYPES = ["event", "file_exists", "json_path", "yaml_path", "command", "git", "mcp_handshake"];

describe("closestName", () => {
  it("takes a name that differs only in case, _ or - first", () => {
    expect(closestName("jsonpath", TYPES)).toBe("json_path");
    expect(closestName("file-exists", TYPES)).toBe("file_exists");
    expect(closestName("fileExists", TYPES)).toBe("file_exists");
    expect(closestName("MCP_Handshake", TYPES)).toBe("mcp_handshake");
  });

  it("takes the name with the fewest edits, a swap of neighbours counting as one", () => {
    expect(closestName("pth", ["path", "kind"])).toBe("path");
    expect(closestName("regx", ["equals", "contains", "regex", "one_of"])).toBe("regex");
    expect(closestName("comand", TYPES)).toBe("command");
    expect(closestName("evnet", TYPES)).toBe("event");
    expect(closestName("exist", ["exists", "missing", "non_empty"])).toBe("exists");
  });

  it("allows one edit per three characters, at least one", () => {
    expect(closestName("gti", TYPES)).toBe("git");
    expect(closestName("xyz", TYPES)).toBeUndefined();
    // The limit is counted on the word written: 6 letters allow 2 edits, 5 letters only 1.
    expect(closestName("comnad", TYPES)).toBe("command");
    expect(closestName("cmmnd", TYPES)).toBeUndefined();
    expect(closestName("commandline", ["command"])).toBeUndefined(); // 4 edits, 3 allowed
  });

  it("suggests nothing for a name that is known, nor when nothing is close", () => {
    expect(closestName("git", TYPES)).toBeUndefined();
    expect(closestName("colour", ["path", "kind", "id", "describe"])).toBeUndefined();
    expect(closestName("a", [])).toBeUndefined();
  });

  it("breaks a tie by the order of the names", () => {
    expect(closestName("ab", ["ac", "ad"])).toBe("ac");
    expect(closestName("ab", ["ad", "ac"])).toBe("ad");
  });
});

describe("didYouMean", () => {
  it("is a parenthesis with the suggestion, or nothing", () => {
    expect(didYouMean("regx", ["regex"])).toBe(" (did you mean regex?)");
    expect(didYouMean("zzz", ["regex"])).toBe("");
  });
});
