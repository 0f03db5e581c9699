import { createRequire } from "node:module";

/** This package's version, as package.json says (the same path from src/ and from dist/). */
export const VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;
