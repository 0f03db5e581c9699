/** The built-in pack's chapters 3-4, proven by their plays in the real Pi (prove-chapters.ts). */
import { itProvesChapters } from "./prove-chapters.ts";

itProvesChapters([3, 4]);
