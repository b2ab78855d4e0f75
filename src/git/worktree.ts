/**
 * Reads the files of a checkout's work tree (not a commit) into a snapshot, for `taskgate render`,
 * which renders what is on disk, and writes rendered files atomically. Symlinks are reported, never
 * followed; files above the size limit are not read.
 */
import { lstat, mkdir, readFile, readdir, readlink, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  DEFAULT_MAX_FILE_BYTES,
  MODE_FILE,
  MODE_SYMLINK,
  RepositoryError,
  classifyFile,
  limitFor,
} from "../core/index.js";
import type { FileEntry, ReadLimits, Snapshot, SnapshotScope } from "../core/index.js";
import { writeAtomic } from "./local-files.js";

export class WorkTree {
  constructor(readonly root: string) {}

  async readSnapshot(_rev: string, scope?: SnapshotScope, limits?: ReadLimits): Promise<Snapshot> {
    const files = new Map<string, FileEntry>();
    const paths = scope ? [...scope.paths] : [];
    for (const prefix of scope ? scope.prefixes : [""]) paths.push(...(await this.walk(prefix.replace(/\/+$/, ""))));
    for (const path of new Set(paths)) {
      const entry = await this.entry(path, limitFor(path, limits, DEFAULT_MAX_FILE_BYTES));
      if (entry) files.set(path, entry);
    }
    return { rev: "work tree", files };
  }

  /** Every file below a folder (relative paths), skipping `.git`; symlinked folders are not entered. */
  private async walk(folder: string): Promise<string[]> {
    const out: string[] = [];
    const pending = [folder];
    // A symlinked folder is reported as the link it is, never entered.
    const top = folder ? await lstat(join(this.root, folder)).catch(() => undefined) : undefined;
    if (top?.isSymbolicLink()) return [folder];
    while (pending.length > 0) {
      const current = pending.pop()!;
      const entries = await readdir(join(this.root, current), { withFileTypes: true }).catch(() => []);
      for (const item of entries) {
        const path = current ? `${current}/${item.name}` : item.name;
        if (item.name === ".git") continue;
        if (item.isDirectory()) pending.push(path);
        else out.push(path);
      }
    }
    return out;
  }

  private async entry(path: string, max: number): Promise<FileEntry | undefined> {
    const full = join(this.root, path);
    const info = await lstat(full).catch(() => undefined);
    if (!info) return undefined;
    if (info.isSymbolicLink()) {
      const target = await readlink(full).catch(() => "");
      return classifyFile({ path, mode: MODE_SYMLINK, size: target.length, content: target }, max);
    }
    if (!info.isFile()) return undefined;
    // Above the limit a file is classified from its size alone, never read.
    if (info.size > max) return classifyFile({ path, mode: MODE_FILE, size: info.size }, max);
    const content = await readFile(full);
    return classifyFile({ path, mode: MODE_FILE, size: content.length, content }, max);
  }

  /** Writes a file atomically (`writeAtomic`), creating its folders, never through a symlinked folder. */
  async writeAtomic(path: string, content: string): Promise<void> {
    const full = join(this.root, path);
    await this.refuseLinkedFolders(path);
    await mkdir(dirname(full), { recursive: true });
    await writeAtomic(full, content);
  }

  async remove(path: string): Promise<void> {
    await this.refuseLinkedFolders(path);
    await rm(join(this.root, path), { force: true });
  }

  /** A symlinked folder on the way could send a write outside the checkout: refuse it. */
  private async refuseLinkedFolders(path: string): Promise<void> {
    const folder = await linkedFolder(this.root, path);
    if (folder !== undefined) {
      throw new RepositoryError(
        `refusing to write ${path}: ${folder} is a symlink`,
        "Rendered files are written inside the checkout only; replace the link with a folder.",
      );
    }
  }
}

/**
 * The first folder on the way to `path` (relative, with "/") below `root` that is a symlink, or
 * `undefined`. A symlinked folder could send a write outside the checkout.
 */
export async function linkedFolder(root: string, path: string): Promise<string | undefined> {
  const parts = path.split("/").slice(0, -1);
  for (let depth = 1; depth <= parts.length; depth++) {
    const folder = parts.slice(0, depth).join("/");
    const info = await lstat(join(root, folder)).catch(() => undefined);
    if (info?.isSymbolicLink()) return folder;
  }
  return undefined;
}
