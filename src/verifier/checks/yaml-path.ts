/** `yaml_path`: an assertion about the values a JSONPath matches in a YAML file. */
import { type CheckOf, defineCheckType } from "./define.ts";
import {
  evaluateStructuredPathCheck,
  structuredPathFields,
  structuredPathHint,
  structuredPathSchema,
} from "./structured-path.ts";

export const YamlPathCheckSchema = structuredPathSchema("yaml_path");
export type YamlPathCheck = CheckOf<typeof YamlPathCheckSchema>;

export const yamlPathCheck = defineCheckType({
  type: "yaml_path",
  schema: YamlPathCheckSchema,
  evaluate: evaluateStructuredPathCheck,
  needs: {},
  pathFields: structuredPathFields,
  hint: structuredPathHint,
});
