/**
 * `--pr PR.json`: a simulated GitHub pull request (author, reviews, commits, permissions, teams) in
 * GitHub's own shapes. Parse and schema errors name the JSON path and the line.
 */
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import type { PrInput } from "../core/service.js";

const Login = z.string().min(1).max(100);

export const PrFileSchema = z.looseObject({
  author: Login.optional(),
  reviews: z
    .array(
      z.looseObject({
        user: z.looseObject({ login: Login, type: z.string().optional() }).nullable(),
        state: z.enum(["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"]),
        commit_id: z.string().nullable().optional(),
        submitted_at: z.string().nullable().optional(),
        body: z.string().nullable().optional(),
      }),
    )
    .optional(),
  commits: z
    .array(
      z.looseObject({
        sha: z.string().min(4),
        author: z.looseObject({ login: Login.nullable().optional() }).nullable().optional(),
      }),
    )
    .optional(),
  permissions: z.record(z.string(), z.enum(["none", "read", "triage", "write", "maintain", "admin"])).optional(),
  teams: z
    .record(z.string().regex(/^@[^/\s]+\/[^/\s]+$/, "a team is written @org/team-slug"), z.array(Login))
    .optional(),
});

export class PrFileError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "PrFileError";
  }
}

const HINT =
  'PR.json looks like {"author":"login","reviews":[{"user":{"login":"bob"},"state":"APPROVED","commit_id":"<sha>","submitted_at":"<ISO time>"}],"commits":[],"permissions":{"bob":"write"},"teams":{}}';

export function parsePrFile(text: string, name: string): PrInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = lineOfSyntaxError(text, message);
    throw new PrFileError(`${name}${line ? `:${line}` : ""}: invalid JSON (${message})`, HINT);
  }
  const parsed = PrFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
    const line = lineOfJsonPath(text, issue.path);
    throw new PrFileError(`${name}${line ? `:${line}` : ""}: ${path || "(root)"}: ${issue.message}`, HINT);
  }
  return parsed.data as PrInput;
}

/** The line of a JSON syntax error: from the engine's position when it gives one, else from a YAML parse. */
function lineOfSyntaxError(text: string, message: string): number | undefined {
  const position = /position (\d+)/.exec(message);
  if (position) return text.slice(0, Number(position[1])).split("\n").length;
  const counter = new LineCounter();
  const error = parseDocument(text, { lineCounter: counter }).errors[0];
  return error ? counter.linePos(error.pos[0]).line : undefined;
}

/** Best-effort line of a JSON path: the line where the last key of the path appears after its parents. */
function lineOfJsonPath(text: string, path: readonly PropertyKey[]): number | undefined {
  let offset = 0;
  for (const part of path) {
    if (typeof part !== "string") continue;
    const found = text.indexOf(JSON.stringify(part), offset);
    if (found < 0) break;
    offset = found;
  }
  return offset > 0 ? text.slice(0, offset).split("\n").length : undefined;
}
