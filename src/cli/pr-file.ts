/**
 * `--pr PR.json`: a simulated GitHub pull request (author, reviews, commits, permissions, teams) in
 * GitHub's own shapes. Parse and schema errors name the JSON path and the line.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { parseJsonFile } from "../core/index.js";
import type { PrInput } from "../core/index.js";
import { PrFileError } from "./io.js";

export { PrFileError } from "./io.js";

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
        committer: z.looseObject({ login: Login.nullable().optional() }).nullable().optional(),
        // taskgate's own: the logins GitHub links to the commit's co-authors (GraphQL `Commit.authors`).
        co_authors: z
          .array(
            z.looseObject({
              login: Login.nullable().optional(),
              email: z.string().nullable().optional(),
              name: z.string().nullable().optional(),
            }),
          )
          .nullable()
          .optional(),
        commit: z
          .looseObject({
            verification: z.looseObject({ verified: z.boolean().nullable().optional() }).nullable().optional(),
          })
          .nullable()
          .optional(),
      }),
    )
    .optional(),
  permissions: z.record(z.string(), z.enum(["none", "read", "triage", "write", "maintain", "admin"])).optional(),
  teams: z
    .record(z.string().regex(/^@[^/\s]+\/[^/\s]+$/, "a team is written @org/team-slug"), z.array(Login))
    .optional(),
});

const HINT =
  'PR.json looks like {"author":"login","reviews":[{"user":{"login":"bob"},"state":"APPROVED","commit_id":"<sha>","submitted_at":"<ISO time>"}],"commits":[],"permissions":{"bob":"write"},"teams":{}}';

export function parsePrFile(text: string, name: string): PrInput {
  const parsed = parseJsonFile(text, PrFileSchema, 1);
  if (parsed.ok) return parsed.value as PrInput;
  const issue = parsed.issues[0]!;
  const where = issue.path === "$" ? "" : ` ${issue.path.slice(1) || "(root)"}:`;
  throw new PrFileError(`${name}${issue.line ? `:${issue.line}` : ""}:${where} ${issue.message}`, HINT);
}

/** Reads and parses `--pr`'s file; a file that cannot be read is a `PrFileError` with a hint. */
export async function readPrFile(path: string): Promise<PrInput> {
  // A static import of `readFile`: the CLI's bundle turns `import()` of a builtin into a module whose
  // only export is its default.
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PrFileError(
      `cannot read ${path}${code ? ` (${code})` : ""}`,
      "Pass --pr with the path of a JSON file describing the pull request.",
    );
  }
  return parsePrFile(text, path);
}
