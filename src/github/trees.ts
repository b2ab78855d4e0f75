/**
 * What taskgate knows of commits' trees, and the reads over them: the files a scope names, the
 * blobs those need, the snapshot once they are read, the changed files of a pull request and the
 * differences between two commits. A tree is known folder by folder, each folder listed once by
 * object id and shared by every commit that has it; the reads descend from the root and enter only
 * the folders they need: both sides of a folder whose object ids differ, and the folders a scope
 * reaches. Each read costs O(entries of the folders it enters + the scope), never a request or a
 * comparison per file; `GitHubRepository` lists what a read needs before it runs.
 */
import { createHash } from "node:crypto";
import {
  BINARY_CONTENT,
  MODE_SUBMODULE,
  MODE_SYMLINK,
  classifyFile,
  limitFor,
  type ReadLimits,
  type SnapshotScope,
} from "../core/index.js";
import type { ChangedFile, FileEntry, Snapshot } from "../core/index.js";
import type { BlobData, FolderEntry, TreeListing } from "./api.js";

/** Folders listed so far, by object id: a folder two commits share is listed once. */
export type Folders = Map<string, readonly FolderEntry[]>;

/**
 * One commit's tree: its root folder and the folders listed so far. Every folder a read enters must
 * be listed first (`GitHubRepository.cover`), or the read throws: an unlisted folder is never taken
 * for an empty one.
 */
export class Tree {
  constructor(
    readonly sha: string,
    readonly root: string,
    readonly folders: Folders,
  ) {}
}

/** A folder a read needs that nobody listed: a fault of the reader, never judged as empty. */
export class UnlistedFolderError extends Error {
  constructor(
    readonly sha: string,
    readonly path: string,
  ) {
    super(`the folder ${path || "/"} of ${sha.slice(0, 7)} was not read before it was needed`);
    this.name = "UnlistedFolderError";
  }
}

/** A folder's entries, listed before. */
function folderAt(tree: Tree, oid: string, path: string): readonly FolderEntry[] {
  const entries = tree.folders.get(oid);
  if (entries) return entries;
  throw new UnlistedFolderError(tree.sha, path);
}

// ---------------------------------------------------------------------------------------------
// Scopes

/**
 * A scope prepared for lookups: its files, its folders (with a trailing "/"), and every folder
 * above one of them. Built in O(scope); each entry is then placed in O(1).
 */
export interface ScopeIndex {
  /** The whole revision. */
  readonly whole: boolean;
  readonly paths: ReadonlySet<string>;
  readonly prefixes: ReadonlySet<string>;
  readonly ancestors: ReadonlySet<string>;
}

const indexes = new WeakMap<SnapshotScope, ScopeIndex>();

/** The index of a scope (`undefined`: the whole revision), built once per scope object. */
export function scopeIndex(scope: SnapshotScope | undefined): ScopeIndex {
  if (!scope) return { whole: true, paths: new Set(), prefixes: new Set(), ancestors: new Set() };
  let index = indexes.get(scope);
  if (index) return index;
  const prefixes = new Set(scope.prefixes.map((prefix) => (prefix.endsWith("/") ? prefix : `${prefix}/`)));
  const ancestors = new Set<string>();
  for (const path of [...scope.paths, ...prefixes]) {
    for (let at = path.lastIndexOf("/", path.length - 2); at > 0; at = path.lastIndexOf("/", at - 1)) {
      const folder = path.slice(0, at + 1);
      if (ancestors.has(folder)) break;
      ancestors.add(folder);
    }
  }
  index = { whole: prefixes.has("/"), paths: new Set(scope.paths), prefixes, ancestors };
  indexes.set(scope, index);
  return index;
}

/** Does a path fall in a scope (`undefined`: the whole revision)? O(depth of the path). */
export function inScope(scope: SnapshotScope | undefined, path: string): boolean {
  const index = scopeIndex(scope);
  if (index.whole || index.paths.has(path)) return true;
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    if (index.prefixes.has(path.slice(0, at + 1))) return true;
  }
  return false;
}

/**
 * One folder of a scoped read: calls `onFile` for each file in the scope and `onFolder` for each
 * subfolder the scope reaches (`whole`: every file below it is in the scope).
 */
export function scopeFolder(
  prefix: string,
  entries: readonly FolderEntry[],
  whole: boolean,
  index: ScopeIndex,
  onFolder: (prefix: string, oid: string, whole: boolean) => void,
  onFile?: (path: string, entry: FolderEntry) => void,
): void {
  for (const entry of entries) {
    const path = prefix + entry.name;
    if (entry.type === "tree") {
      const folder = `${path}/`;
      if (whole || index.prefixes.has(folder)) onFolder(folder, entry.oid, true);
      else if (index.ancestors.has(folder)) onFolder(folder, entry.oid, false);
    } else if (whole || index.paths.has(path)) onFile?.(path, entry);
  }
}

/** Calls `visit` for each file of `tree` in `scope`, in the order of GitHub's recursive listing. */
function scopedFiles(
  tree: Tree,
  scope: SnapshotScope | undefined,
  visit: (path: string, entry: FolderEntry) => void,
): void {
  const index = scopeIndex(scope);
  const enter = (prefix: string, oid: string, whole: boolean) =>
    scopeFolder(prefix, folderAt(tree, oid, prefix), whole, index, enter, visit);
  enter("", tree.root, index.whole);
}

/** The blobs a snapshot of `tree` in `scope` must read (files within the size limit, and link targets). */
export function blobsToRead(tree: Tree, scope: SnapshotScope | undefined, limits: ReadLimits): string[] {
  const out: string[] = [];
  scopedFiles(tree, scope, (path, entry) => {
    if (entry.type !== "blob") return;
    if ((entry.size ?? 0) > limitFor(path, limits, Number.MAX_SAFE_INTEGER)) return;
    out.push(entry.oid);
  });
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
  scopedFiles(tree, scope, (path, entry) => {
    files.set(path, classify(path, entry, read.get(entry.oid), limitFor(path, limits, Number.MAX_SAFE_INTEGER)));
  });
  return { rev: tree.sha, files };
}

/** Is there a file at `path` in `tree` (its folders listed)? */
export function hasFile(tree: Tree, path: string): boolean {
  let found = false;
  scopedFiles(tree, { paths: [path], prefixes: [] }, () => (found = true));
  return found;
}

function classify(path: string, entry: FolderEntry, blob: BlobData | undefined, limit: number): FileEntry {
  const mode = entry.type === "commit" ? MODE_SUBMODULE : entry.mode;
  const size = entry.size ?? blob?.byteSize ?? 0;
  return classifyFile({ path, mode, size, oid: entry.oid, content: contentOf(mode, blob) }, limit);
}

/** What GitHub gave of a blob, as the classifier takes it: a symlink's target, the text, or binary. */
function contentOf(mode: string, blob: BlobData | undefined): string | typeof BINARY_CONTENT | undefined {
  if (mode === MODE_SYMLINK) return blob?.text ?? undefined;
  if (!blob || blob.isTruncated) return undefined;
  return blob.isBinary !== false || blob.text === null ? BINARY_CONTENT : blob.text;
}

// ---------------------------------------------------------------------------------------------
// Comparing two trees

/**
 * One folder of two trees compared by name: calls `onFile` for each file (a blob or a submodule)
 * whose object id or mode differs, or that one side lacks, and `onFolder` for each subfolder whose
 * object ids differ (`undefined`: that side has none). A folder replaced by a file is both.
 */
export function compareFolders(
  prefix: string,
  left: readonly FolderEntry[],
  right: readonly FolderEntry[],
  onFolder: (prefix: string, left: string | undefined, right: string | undefined) => void,
  onFile?: (path: string, left: FolderEntry | undefined, right: FolderEntry | undefined) => void,
): void {
  const there = new Map(right.map((entry) => [entry.name, entry]));
  const pair = (name: string, a: FolderEntry | undefined, b: FolderEntry | undefined) => {
    const path = prefix + name;
    const folderA = a?.type === "tree" ? a.oid : undefined;
    const folderB = b?.type === "tree" ? b.oid : undefined;
    if (folderA !== folderB) onFolder(`${path}/`, folderA, folderB);
    const fileA = a && a.type !== "tree" ? a : undefined;
    const fileB = b && b.type !== "tree" ? b : undefined;
    if ((fileA || fileB) && (fileA?.oid !== fileB?.oid || fileA?.mode !== fileB?.mode)) onFile?.(path, fileA, fileB);
  };
  for (const entry of left) {
    pair(entry.name, entry, there.get(entry.name));
    there.delete(entry.name);
  }
  for (const entry of there.values()) pair(entry.name, undefined, entry);
}

/** Calls `visit` for each file that differs between two trees: O(entries of the folders that differ). */
function differingFiles(
  a: Tree,
  b: Tree,
  visit: (path: string, left: FolderEntry | undefined, right: FolderEntry | undefined) => void,
): void {
  const enter = (prefix: string, left: string | undefined, right: string | undefined) => {
    const before = left === undefined ? [] : folderAt(a, left, prefix);
    const after = right === undefined ? [] : folderAt(b, right, prefix);
    compareFolders(prefix, before, after, enter, visit);
  };
  if (a.root !== b.root) enter("", a.root, b.root);
}

/** Files that differ between two trees (by object id and mode), sorted by path; no rename detection. */
export function changedFiles(base: Tree, head: Tree): ChangedFile[] {
  const out: ChangedFile[] = [];
  differingFiles(base, head, (path, before, after) => {
    out.push({ path, status: !before ? "added" : !after ? "removed" : "modified" });
  });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every path whose content differs between `from` and `to`, with its object id at `from` (null: absent). */
export function differences(from: Tree, to: Tree): Map<string, string | null> {
  const out = new Map<string, string | null>();
  differingFiles(from, to, (path, before) => out.set(path, before?.oid ?? null));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Listings and their check

/** Git's mode in a tree object: the REST API's `040000` is `40000` there. */
function gitMode(mode: string): string {
  return mode.charCodeAt(0) === 48 ? mode.replace(/^0+/, "") : mode;
}

/** Git's order of a folder's entries: by name, a subfolder as if its name ended in "/". */
function inGitOrder(entries: readonly FolderEntry[]): FolderEntry[] {
  const key = (entry: FolderEntry) => Buffer.from(entry.type === "tree" ? `${entry.name}/` : entry.name, "utf8");
  return entries
    .map((entry) => ({ entry, key: key(entry) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((item) => item.entry);
}

/** Git's object id of a tree holding `entries` in this order: the hash of `<mode> <name>\0<id>` each. */
function hashOf(entries: readonly FolderEntry[]): string {
  const heads = entries.map((entry) => `${gitMode(entry.mode)} ${entry.name}\0`);
  let length = 0;
  for (const head of heads) length += Buffer.byteLength(head, "utf8") + 20;
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  entries.forEach((entry, index) => {
    at += body.write(heads[index]!, at, "utf8");
    at += body.write(entry.oid, at, 20, "hex");
  });
  return createHash("sha1").update(`tree ${length}\0`).update(body).digest("hex");
}

/**
 * Does a listing hold exactly the folder `oid`? Git names a tree by the hash of its entries, so a
 * listing that hashes to the folder's id is whole and unaltered: one cut short or rewritten does
 * not. O(entries) (sorted only when GitHub listed them in another order).
 */
export function isWhole(oid: string, entries: readonly FolderEntry[]): boolean {
  return hashOf(entries) === oid || hashOf(inGitOrder(entries)) === oid;
}

/**
 * Takes the folders of a REST listing of folder `listing.sha` into `folders` (`recursive`: every
 * folder below it too): all of them when GitHub listed everything; when it cut the listing short,
 * each folder whose entries are there whole (checked against its object id), so only the rest must
 * be listed again. Returns how many folders were taken. O(entries).
 */
export function absorbListing(listing: TreeListing, folders: Folders, recursive: boolean): number {
  const byFolder = new Map<string, FolderEntry[]>([["", []]]);
  const oids = new Map<string, string>([["", listing.sha]]);
  for (const entry of listing.entries) {
    const at = entry.path.lastIndexOf("/");
    const parent = at < 0 ? "" : entry.path.slice(0, at + 1);
    const item: FolderEntry = { name: entry.path.slice(at + 1), mode: entry.mode, type: entry.type, oid: entry.sha };
    const sized = entry.type === "blob" && entry.size !== undefined ? { ...item, size: entry.size } : item;
    let list = byFolder.get(parent);
    if (!list) byFolder.set(parent, (list = []));
    list.push(sized);
    if (entry.type === "tree" && recursive) {
      oids.set(`${entry.path}/`, entry.sha);
      if (!byFolder.has(`${entry.path}/`)) byFolder.set(`${entry.path}/`, []);
    }
  }
  let taken = 0;
  for (const [path, entries] of byFolder) {
    const oid = oids.get(path);
    if (!oid || folders.has(oid)) continue;
    if (listing.truncated && !isWhole(oid, entries)) continue;
    folders.set(oid, entries);
    taken++;
  }
  return taken;
}
