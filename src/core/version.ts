import { packageRoot, packageVersion } from "./package-root.ts";

/** This package's version, as its package.json says (found from src/ in a checkout, dist/ when built). */
export const VERSION: string = packageVersion(packageRoot(import.meta.dirname));
