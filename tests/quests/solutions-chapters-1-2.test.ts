/** The built-in pack's chapters 1-2, proven by their plays in the real Pi (prove-chapters.ts). */
import { itProvesChapters } from "./prove-chapters.ts";

itProvesChapters([1, 2]);
