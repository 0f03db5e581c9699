/**
 * Process ids a check script reports to the test. A check runs in its own PID namespace where
 * the machine allows it, and there `$$` and `$!` are the namespace's numbers, which mean nothing
 * (or another process) outside it. /proc is the machine's, so a shell that reads /proc/self
 * itself (a builtin, no subshell) learns the id the test can look up.
 */

/** Shell: sets `$self` to this shell's id as the machine knows it. */
export const SELF = "read -r self _ < /proc/self/stat";

/** Shell: starts `sleep <seconds>` in the background, first appending its machine id to `file`. */
export function sleeperReporting(file: string, seconds = 300): string {
  return `sh -c '${SELF}; echo $self >> "$1"; exec sleep ${seconds}' sleeper '${file}' &`;
}
