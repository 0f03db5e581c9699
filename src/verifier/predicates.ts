import type { FieldPredicate, IntPredicate, StringPredicate } from "../core/predicates.ts";
import { compileQuestRegex } from "../core/quest-regex.ts";

/** Turns a string predicate into a test, compiling its regex once (event checks run it per event). */
export function compileStringPredicate(predicate: StringPredicate): (value: string) => boolean {
  if (typeof predicate === "string") return (value) => value === predicate;
  if ("equals" in predicate) return (value) => value === predicate.equals;
  if ("contains" in predicate) return (value) => value.includes(predicate.contains);
  if ("starts_with" in predicate) return (value) => value.startsWith(predicate.starts_with);
  if ("ends_with" in predicate) return (value) => value.endsWith(predicate.ends_with);
  if ("regex" in predicate) {
    // The loader refused a pattern that does not compile; a definition that skipped the loader
    // matches nothing rather than throwing in the middle of an evaluation.
    const compiled = compileQuestRegex(predicate.regex, predicate.flags);
    return compiled.ok ? (value) => compiled.regex.test(value) : () => false;
  }
  return (value) => predicate.one_of.includes(value);
}

export function matchesStringPredicate(predicate: StringPredicate, value: string): boolean {
  return compileStringPredicate(predicate)(value);
}

export function matchesIntPredicate(predicate: IntPredicate, value: number): boolean {
  if (typeof predicate === "number") return value === predicate;
  if ("equals" in predicate) return value === predicate.equals;
  return (
    (predicate.min === undefined || value >= predicate.min) &&
    (predicate.max === undefined || value <= predicate.max)
  );
}

/** A payload field: a literal compares exactly; an operator applies to strings or numbers. */
/** The least and most an integer predicate accepts (absent: no bound that side). */
export function intPredicateBounds(predicate: IntPredicate): { min?: number; max?: number } {
  if (typeof predicate === "number") return { min: predicate, max: predicate };
  if ("equals" in predicate) return { min: predicate.equals, max: predicate.equals };
  return {
    ...(predicate.min !== undefined ? { min: predicate.min } : {}),
    ...(predicate.max !== undefined ? { max: predicate.max } : {}),
  };
}

export function compileFieldPredicate(predicate: FieldPredicate): (value: unknown) => boolean {
  if (predicate === null || typeof predicate !== "object") return (value) => value === predicate;
  if ("equals" in predicate) return (value) => value === predicate.equals;
  if ("one_of" in predicate) return (value) => predicate.one_of.some((option) => option === value);
  if ("min" in predicate || "max" in predicate) {
    const { min, max } = predicate as { min?: number; max?: number };
    return (value) =>
      typeof value === "number" && (min === undefined || value >= min) && (max === undefined || value <= max);
  }
  const test = compileStringPredicate(predicate as StringPredicate);
  return (value) => typeof value === "string" && test(value);
}

export function matchesFieldPredicate(predicate: FieldPredicate, value: unknown): boolean {
  return compileFieldPredicate(predicate)(value);
}

/** How a predicate reads in evidence: `contains "hello"`. */
export function describePredicate(predicate: StringPredicate | IntPredicate): string {
  if (typeof predicate !== "object") return `= ${JSON.stringify(predicate)}`;
  return Object.entries(predicate)
    .map(([operator, operand]) => `${operator} ${JSON.stringify(operand)}`)
    .join(" and ");
}
