/** `json_path`: an assertion about the values a JSONPath matches in a JSON file. */
import { type CheckOf, defineCheckType } from "./define.ts";
import {
  evaluateStructuredPathCheck,
  structuredPathFields,
  structuredPathHint,
  structuredPathSchema,
} from "./structured-path.ts";

export const JsonPathCheckSchema = structuredPathSchema("json_path");
export type JsonPathCheck = CheckOf<typeof JsonPathCheckSchema>;

export const jsonPathCheck = defineCheckType({
  type: "json_path",
  schema: JsonPathCheckSchema,
  evaluate: evaluateStructuredPathCheck,
  needs: {},
  pathFields: structuredPathFields,
  hint: structuredPathHint,
});
