/**
 * Every path at which a folder can be reached, read from /proc/self/mountinfo: its own real path,
 * and the same folder through another mount of its file system (a bind mount of home, a
 * container's volume mounted twice). The bash sandbox (bash-sandbox.ts) hides the data dir at each.
 */
import { statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * Every path at which the folder `real` (a real path) can be reached: itself, and the same
 * folder seen through another mount of its file system (a bind mount of home, a container's
 * volume mounted twice). Each other path must be the very same folder (device and inode), so a
 * path that some later mount covers is left out.
 */
export function hiddenPathsOf(real: string, mountinfo: string): string[] {
  const mounts = parseMountinfo(mountinfo);
  // The mount `real` is on: the longest mount point above it, the last mounted where equal.
  let home: MountEntry | undefined;
  for (const mount of mounts) {
    if (!isWithin(real, mount.mountPoint)) continue;
    if (!home || mount.mountPoint.length >= home.mountPoint.length) home = mount;
  }
  if (!home) return [real];
  const inFileSystem = join(home.root, relative(home.mountPoint, real));
  let self: ReturnType<typeof statSync> | undefined;
  try {
    self = statSync(real);
  } catch {
    return [real];
  }
  const paths = [real];
  for (const mount of mounts) {
    if (mount.device !== home.device || !isWithin(inFileSystem, mount.root)) continue;
    const other = join(mount.mountPoint, relative(mount.root, inFileSystem));
    if (paths.includes(other)) continue;
    try {
      const seen = statSync(other);
      if (seen.dev === self.dev && seen.ino === self.ino) paths.push(other);
    } catch {
      // Covered by another mount, or gone: not a way to the folder.
    }
  }
  return paths;
}

type MountEntry = { device: string; root: string; mountPoint: string };

/** The lines of /proc/self/mountinfo: `id parent major:minor root mountpoint options ... - type source`. */
function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const [, , device, root, mountPoint] = fields;
    if (device === undefined || root === undefined || mountPoint === undefined) continue;
    entries.push({ device, root: unescapeMountPath(root), mountPoint: unescapeMountPath(mountPoint) });
  }
  return entries;
}

/** mountinfo writes space, tab, newline and backslash in paths as octal escapes (`\040`). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_whole, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

export function isWithin(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === "" || (!rest.startsWith("..") && !rest.startsWith("/"));
}
