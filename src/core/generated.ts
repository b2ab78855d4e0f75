/**
 * Files generated from the code's single sources: the JSON Schema of the config (from zod) and the
 * table of violation codes (from the violation catalogue). A test fails when the committed copies
 * in docs/ are stale; `npm run schema` rewrites them.
 */
import * as z from "zod";
import { boardSchemas } from "./board/formats.js";
import { ConfigSchema } from "./kernel/config.js";
import { VIOLATIONS } from "./kernel/violations.js";

/** The JSON Schema of `.github/taskgate.yml`, as committed in docs/taskgate.schema.json. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return { ...schema, title: "taskgate configuration" };
}

function violationsMarkdown(): string {
  const rows = Object.entries(VIOLATIONS).map(([code, { title, hint }]) => `| \`${code}\` | ${title} | ${hint} |`);
  return [
    "# Violation codes",
    "",
    "Every finding taskgate reports carries one of these codes, a message saying what is wrong and a hint saying",
    "how to fix it: `{code, task?, path?, line?, message, hint}`. The codes are stable; scripts may rely on them.",
    "`approval-required` is the only code that is not a failure: it marks a gate waiting for a review.",
    "",
    "This file is generated from `src/core/kernel/violations.ts` by `npm run schema`.",
    "",
    "| code | meaning | usual fix |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

function jsonSchemaOf(schema: z.ZodType, title: string): Record<string, unknown> {
  return { ...(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>), title };
}

/** The files `npm run schema` writes, path → content. */
export function generatedFiles(): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    "docs/taskgate.schema.json": json(configJsonSchema()),
    "docs/board-definitions.schema.json": json(
      jsonSchemaOf(boardSchemas().DefinitionsSchema, "taskgate board definitions"),
    ),
    "docs/board-ledger.schema.json": json(jsonSchemaOf(boardSchemas().LedgerSchema, "taskgate board ledger")),
    "docs/violations.md": violationsMarkdown(),
  };
}
