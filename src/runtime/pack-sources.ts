/**
 * Where a learner's Pi finds quest packs besides the built-in one: the Pi packages installed
 * for the user and for the project (Pi's own package list, `pi install` and `pi install -l`),
 * and whether the project is trusted, so that its `.pi/quests/` may be read. Pi's classes come
 * from the running Pi (src/runtime/pi-host.ts); nothing here imports Pi.
 */
import type { PiPackageApi } from "./pi-host.ts";

export type InstalledPackage = {
  /** As the learner installed it: `npm:name`, a path, a git URL. */
  source: string;
  scope: "user" | "project";
  /** The package's folder on disk. */
  root: string;
};

export type InstalledPackages = { packages: InstalledPackage[]; problems: string[] };

export type PackPlace = { cwd: string; agentDir: string };

/**
 * Whether the project at `cwd` is trusted for its pack, as Pi decides for `.pi/extensions/`:
 * the learner's saved decision for the folder (Pi's trust.json, the nearest entry), else Pi's
 * `defaultProjectTrust` (`always` trusts; `ask` and `never` do not, until the learner trusts the
 * project with /trust). `sessionTrusted` is what the running Pi decided for this session
 * (`ctx.isProjectTrusted()`): false (an untrusted session, `--no-trust`) is never overruled, and
 * a project Pi asked about (it has resources that need trust) is trusted as Pi decided.
 */
export function projectTrusted(pi: PiPackageApi, place: PackPlace, sessionTrusted?: boolean): boolean {
  if (sessionTrusted === false) return false;
  if (sessionTrusted === true && pi.hasTrustRequiringProjectResources(place.cwd)) return true;
  const saved = new pi.ProjectTrustStore(place.agentDir).get(place.cwd);
  if (saved !== null) return saved;
  const settings = pi.SettingsManager.create(place.cwd, place.agentDir, { projectTrusted: false });
  return settings.getDefaultProjectTrust() === "always";
}

/**
 * The packages Pi has installed for the user, and for the project when it is trusted (Pi reads
 * project settings only then). A package in the settings whose folder is missing is
 * left out (Pi reports it); nothing here throws.
 */
export function installedPackages(
  pi: PiPackageApi,
  place: PackPlace & { projectTrusted: boolean },
): InstalledPackages {
  let configured: ReturnType<InstanceType<PiPackageApi["DefaultPackageManager"]>["listConfiguredPackages"]>;
  try {
    const settingsManager = pi.SettingsManager.create(place.cwd, place.agentDir, {
      projectTrusted: place.projectTrusted,
    });
    const manager = new pi.DefaultPackageManager({
      cwd: place.cwd,
      agentDir: place.agentDir,
      settingsManager,
    });
    configured = manager.listConfiguredPackages();
  } catch (error) {
    return { packages: [], problems: [`Pi's package list could not be read: ${firstLine(error)}`] };
  }
  const packages: InstalledPackage[] = [];
  // A package Pi has not installed (yet) is Pi's to report: it offers no pack meanwhile.
  for (const each of configured)
    if (each.installedPath)
      packages.push({ source: each.source, scope: each.scope, root: each.installedPath });
  return { packages, problems: [] };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
