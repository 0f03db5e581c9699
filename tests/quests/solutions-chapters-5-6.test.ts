/** The built-in pack's chapters 5-6, proven by their plays in the real Pi (prove-chapters.ts). */
import { itProvesChapters } from "./prove-chapters.ts";

itProvesChapters([5, 6]);
