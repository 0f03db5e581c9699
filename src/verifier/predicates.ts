import type { FieldPredicate } from "../core/checks.ts";
import type { IntPredicate, StringPredicate } from "../core/predicates.ts";

export function matchesStringPredicate(predicate: StringPredicate, value: string): boolean {
  if (typeof predicate === "string") return value === predicate;
  if ("equals" in predicate) return value === predicate.equals;
  if ("contains" in predicate) return value.includes(predicate.contains);
  if ("starts_with" in predicate) return value.startsWith(predicate.starts_with);
  if ("ends_with" in predicate) return value.endsWith(predicate.ends_with);
  if ("regex" in predicate) return new RegExp(predicate.regex, predicate.flags).test(value);
  return predicate.one_of.includes(value);
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
export function matchesFieldPredicate(predicate: FieldPredicate, value: unknown): boolean {
  if (predicate === null || typeof predicate !== "object") return value === predicate;
  if ("equals" in predicate) return value === predicate.equals;
  if ("one_of" in predicate) return predicate.one_of.some((option) => option === value);
  if ("min" in predicate || "max" in predicate) {
    const range = predicate as { min?: number; max?: number };
    return (
      typeof value === "number" &&
      (range.min === undefined || value >= range.min) &&
      (range.max === undefined || value <= range.max)
    );
  }
  return typeof value === "string" && matchesStringPredicate(predicate as StringPredicate, value);
}

/** How a predicate reads in evidence: `contains "hello"`. */
export function describePredicate(predicate: StringPredicate | IntPredicate): string {
  if (typeof predicate !== "object") return `= ${JSON.stringify(predicate)}`;
  return Object.entries(predicate)
    .map(([operator, operand]) => `${operator} ${JSON.stringify(operand)}`)
    .join(" and ");
}
