/**
 * In-memory snapshots and pull requests for core tests: the third implementation of the port.
 */
import { defaultConfig, parseConfig, type Config } from "../../src/core/config.js";
import type { ChangedFile, FileEntry, PrCommit, PrContext, Review, Snapshot } from "../../src/core/types.js";

export type FileSpec = string | { kind: "symlink"; target: string } | { kind: "binary" | "oversized"; size: number };

export function snapshot(files: Record<string, FileSpec>, rev = "mem"): Snapshot {
  const map = new Map<string, FileEntry>();
  for (const [path, spec] of Object.entries(files)) {
    if (typeof spec === "string") map.set(path, { path, kind: "file", size: Buffer.byteLength(spec), text: spec });
    else if (spec.kind === "symlink")
      map.set(path, { path, kind: "symlink", size: spec.target.length, target: spec.target });
    else map.set(path, { path, kind: spec.kind, size: spec.size });
  }
  return { rev, files: map };
}

/** The files that differ between two in-memory snapshots, as a PR would list them. */
export function diff(base: Snapshot, head: Snapshot): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const [path, entry] of head.files) {
    const before = base.files.get(path);
    if (!before) out.push({ path, status: "added" });
    else if (before.text !== entry.text || before.kind !== entry.kind || before.target !== entry.target) {
      out.push({ path, status: "modified" });
    }
  }
  for (const path of base.files.keys()) if (!head.files.has(path)) out.push({ path, status: "removed" });
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

export interface PrSpec {
  author?: string;
  reviews?: Review[];
  commits?: PrCommit[];
  permissions?: Record<string, string>;
  teams?: Record<string, string[]>;
  files?: ChangedFile[];
}

/** A PR from `base` to `head`; by default one commit by the author touching every changed file. */
export function pullRequest(base: Snapshot, head: Snapshot, spec: PrSpec = {}): PrContext {
  const files = spec.files ?? diff(base, head);
  const author = spec.author ?? "carol";
  return {
    author,
    headSha: spec.commits?.at(-1)?.sha ?? "c1",
    files,
    commits: spec.commits ?? [{ sha: "c1", author, files: files.map((file) => file.path) }],
    reviews: spec.reviews ?? [],
    permissions: spec.permissions ?? {},
    teams: spec.teams ?? {},
  };
}

export function approve(login: string, commit = "c1", at = "2026-11-01T10:00:00Z", state = "APPROVED"): Review {
  return { user: { login }, state, commit_id: commit, submitted_at: at, body: "" };
}

export function config(yaml?: string): Config {
  if (yaml === undefined) return defaultConfig("phases");
  const parsed = parseConfig(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.config;
}

/** A phases task folder: `.state` plus the given files. */
export function task(
  id: string,
  state: string,
  files: Record<string, FileSpec> = {},
  dir = "tasks",
): Record<string, FileSpec> {
  const out: Record<string, FileSpec> = { [`${dir}/${id}/.state`]: `${state}\n` };
  for (const [name, spec] of Object.entries(files)) out[`${dir}/${id}/${name}`] = spec;
  return out;
}

export const CONFIG_FILE = { ".github/taskgate.yml": "preset: phases\n" };
