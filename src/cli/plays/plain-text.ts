// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is this module's job.
/**
 * Text without control characters, for formats that cannot carry them: XML 1.0 forbids most
 * C0 characters even in CDATA, and a check's output is full of terminal colors. Escape
 * sequences go as a whole (not only their ESC, which would leave `[31m` behind); tabs and line
 * breaks stay, a carriage return becomes a line break.
 */

/**
 * CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or `ESC ] … ESC \`), and the other escapes: `ESC`,
 * intermediates (space to `/`), one final character (`0` to `~`), as `ESC 7` or `ESC ( B`.
 */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-Z\\-~])/g;
/** C0 controls but tab and line feed, DEL, and the C1 controls. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(/\r\n?/g, "\n").replace(CONTROL, "");
}
