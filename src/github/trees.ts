/**
 * Snapshots from GitHub's trees: which entries a scope needs, which blobs must be read for them, and
 * the snapshot once they are; the changed files of a pull request and the differences between two
 * commits, computed from two trees by object id, so neither costs a request per file.
 */
import { limitFor, type ReadLimits, type SnapshotScope } from "../core/port.js";
import type { ChangedFile, FileEntry, Snapshot } from "../core/types.js";
import type { BlobData, Tree, TreeEntry } from "./api.js";

const MODE_SYMLINK = "120000";
const MODE_SUBMODULE = "160000";

/** Does a path fall in a scope (`undefined`: the whole revision)? */
export function inScope(scope: SnapshotScope | undefined, path: string): boolean {
  if (!scope) return true;
  if (scope.paths.includes(path)) return true;
  return scope.prefixes.some((prefix) =>
    prefix === "/" ? true : path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`),
  );
}

function blobs(tree: Tree): TreeEntry[] {
  return tree.entries.filter((entry) => entry.type === "blob" || entry.type === "commit");
}

/** The blobs a snapshot of `tree` in `scope` must read (files within the size limit, and link targets). */
export function blobsToRead(tree: Tree, scope: SnapshotScope | undefined, limits: ReadLimits): string[] {
  const out: string[] = [];
  for (const entry of blobs(tree)) {
    if (entry.type !== "blob" || !inScope(scope, entry.path)) continue;
    if ((entry.size ?? 0) > limitFor(entry.path, limits, Number.MAX_SAFE_INTEGER)) continue;
    out.push(entry.sha);
  }
  return out;
}

/** The snapshot of `tree` in `scope`, once the blobs `blobsToRead` named are read. */
export function snapshotOf(
  tree: Tree,
  scope: SnapshotScope | undefined,
  limits: ReadLimits,
  read: ReadonlyMap<string, BlobData>,
): Snapshot {
  const files = new Map<string, FileEntry>();
  for (const entry of blobs(tree)) {
    if (!inScope(scope, entry.path)) continue;
    files.set(entry.path, classify(entry, read.get(entry.sha), limitFor(entry.path, limits, Number.MAX_SAFE_INTEGER)));
  }
  return { rev: tree.sha, files };
}

function classify(entry: TreeEntry, blob: BlobData | undefined, limit: number): FileEntry {
  const { path } = entry;
  const size = entry.size ?? blob?.byteSize ?? 0;
  const oid = entry.sha;
  if (entry.mode === MODE_SUBMODULE || entry.type === "commit") return { path, kind: "submodule", size: 0, oid };
  if (entry.mode === MODE_SYMLINK) {
    return blob?.text != null
      ? { path, kind: "symlink", size, target: blob.text, oid }
      : { path, kind: "symlink", size, oid };
  }
  if (size > limit || !blob || blob.isTruncated) return { path, kind: "oversized", size, oid };
  if (blob.isBinary !== false || blob.text === null) return { path, kind: "binary", size, oid };
  return { path, kind: "file", size, text: blob.text, oid };
}

/** Files that differ between two trees (by object id and mode); no rename detection. */
export function changedFiles(base: Tree, head: Tree): ChangedFile[] {
  const before = new Map(blobs(base).map((entry) => [entry.path, entry]));
  const out: ChangedFile[] = [];
  for (const entry of blobs(head)) {
    const old = before.get(entry.path);
    if (!old) out.push({ path: entry.path, status: "added" });
    else if (old.sha !== entry.sha || old.mode !== entry.mode) out.push({ path: entry.path, status: "modified" });
    before.delete(entry.path);
  }
  for (const path of before.keys()) out.push({ path, status: "removed" });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every path whose content differs between `from` and `to`, with its object id at `from` (null: absent). */
export function differences(from: Tree, to: Tree): Map<string, string | null> {
  const there = new Map(blobs(to).map((entry) => [entry.path, entry]));
  const out = new Map<string, string | null>();
  for (const entry of blobs(from)) {
    const other = there.get(entry.path);
    if (!other || other.sha !== entry.sha || other.mode !== entry.mode) out.set(entry.path, entry.sha);
    there.delete(entry.path);
  }
  for (const path of there.keys()) out.set(path, null);
  return out;
}
