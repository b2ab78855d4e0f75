/**
 * The local git adapter: implements `TaskRepository` over a checkout (or a bare repository) by
 * running the `git` executable.
 *
 * Design rules:
 * - A constant number of git processes per call, never one per file: a snapshot is one `ls-tree`
 *   plus one `cat-file --batch` fed every blob id at once.
 * - git is spawned directly (no shell), every path-carrying output is read with `-z`, and refs that
 *   look like options are refused, so file names and ref names cannot inject anything.
 * - Repository configuration that would change the output format (relative diffs, signatures,
 *   ignored submodules, hidden root diffs...) is overridden on the command line.
 * - Every git failure becomes a `RepositoryError` carrying git's own message and a hint; a ref git
 *   does not know becomes a `RefNotFoundError`.
 */
import { spawn } from "node:child_process";
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync } from "node:fs";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";

import {
  DEFAULT_MAX_FILE_BYTES,
  MODE_SUBMODULE,
  classifyFile,
  folderOf,
  limitFor,
  parseIdentity,
  type ReadLimits,
  RefNotFoundError,
  RepositoryError,
  scopeCovers,
  scopeMatcher,
  type SnapshotScope,
  type TaskRepository,
} from "../core/index.js";
import type { ChangedFile, FileEntry, PrCommit, Snapshot } from "../core/index.js";
import { BlobFile, scanBatchFile, scanChunkFor, type BlobContent } from "./blobs.js";
import { GIT_HINT, malformed, missingObject } from "./errors.js";

/** Default for `maxFileBytes`: blobs above 1 MiB are reported as `oversized` and never read. */
export { DEFAULT_MAX_FILE_BYTES };
/** The mode git reports for the missing side of an added or deleted file. */
export const MODE_ABSENT = "000000";

/** A full object id: SHA-1 (40 hex digits) or SHA-256 (64). */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const OPEN_HINT = "run taskgate inside a git checkout or pass --repo DIR";

/**
 * Options passed to git before every subcommand. They pin down the output format against user or
 * repository configuration:
 * - `core.quotepath=off`: never escape non-ASCII path bytes (we read `-z` output anyway);
 * - `diff.relative=false`: paths stay relative to the repository root even when run in a subfolder;
 * - `log.showRoot=true`: a root commit lists the files it adds;
 * - `color.ui=false`: no escape codes in anything we parse;
 * - `trailer.separators=:`: trailers (`Co-authored-by:`) are found as everywhere else.
 */
const GLOBAL_ARGS: readonly string[] = [
  "-c",
  "core.quotepath=off",
  "-c",
  "diff.relative=false",
  "-c",
  "log.showRoot=true",
  "-c",
  "color.ui=false",
  "-c",
  "trailer.separators=:",
];

export interface GitRepositoryOptions {
  /** Blobs larger than this many bytes are reported as `oversized` and not read. Default 1 MiB. */
  readonly maxFileBytes?: number;
  /**
   * Called once per git process, just before it is spawned, with its arguments (without the leading
   * `git` and without the fixed `-c` options). Lets tests and diagnostics count processes.
   */
  readonly onSpawn?: (args: readonly string[]) => void;
  /**
   * A ref the caller will resolve first (an audit's revision): resolved by the process that opens
   * the repository, and handed to the first `resolve` of it. A ref git does not know is left to
   * `resolve`, which says so.
   */
  readonly ref?: string;
}

/** A changed file plus the git file modes on both sides, so callers can spot symlinks (120000). */
export interface GitChangedFile extends ChangedFile {
  /** Mode at `base` (`000000` when the file was added). For renames: the mode of `previousPath`. */
  readonly oldMode: string;
  /** Mode at `head` (`000000` when the file was removed). */
  readonly newMode: string;
}

/**
 * A commit as git records it: `author` is always `null` (git knows no GitHub login), `gitName` is the
 * author name (`null` when empty), `parents` the full parent ids (first parent first, empty for a root
 * commit), plus the author's e-mail address (`authorEmail`, and as `gitEmail`: `null` when empty), the
 * committer, the `Co-authored-by:` trailers (no logins) and the files the commit changed.
 */
export interface GitCommit extends PrCommit {
  readonly author: null;
  readonly gitName: string | null;
  readonly gitEmail: string | null;
  readonly gitCommitter: { readonly name: string | null; readonly email: string | null };
  readonly coAuthors: readonly { readonly login: null; readonly name: string | null; readonly email: string | null }[];
  readonly parents: readonly string[];
  readonly authorEmail: string;
  readonly files: readonly string[];
}

export interface GitResult {
  readonly code: number;
  /** git's output (empty with `keep`). */
  readonly stdout: Buffer;
  readonly stderr: string;
  /** With `keep`: the open file holding git's output (its name removed), which the caller closes. */
  readonly kept?: number;
  /** The size of git's output in bytes. */
  readonly size: number;
}

export interface RunOptions {
  /** Written to git's stdin, which is then closed. */
  readonly input?: string;
  /** Exit codes that are not failures. Default: only 0. */
  readonly okCodes?: readonly number[];
  /** The refs this command names: a failure about an unknown revision maps to `RefNotFoundError`. */
  readonly refs?: readonly string[];
  /** Leaves git's output in its file, open, for the caller to read (`GitResult.kept`) and close. */
  readonly keep?: boolean;
  /** Variables added to git's environment (which is otherwise this process's). */
  readonly env?: Readonly<Record<string, string>>;
}

/** What a snapshot's blobs hold, by object id (`undefined` for one it did not ask for). */
type ContentOf = (sha: string) => BlobContent | undefined;

export class GitRepository implements TaskRepository {
  private constructor(
    /** Absolute path of the directory git runs in (the directory passed to `open`). */
    readonly dir: string,
    /** Absolute path of the git directory (`.git`, or the repository itself when bare). */
    readonly gitDir: string,
    /** Whether the repository is bare (has no work tree). */
    readonly bare: boolean,
    readonly maxFileBytes: number,
    private readonly onSpawn: ((args: readonly string[]) => void) | undefined,
    /** Refs resolved when the repository was opened, each for its first `resolve`. */
    private readonly resolved: Map<string, string> = new Map(),
  ) {}

  /**
   * Opens the repository containing `dir` (a work tree, any folder inside one, or a bare
   * repository). Throws `RepositoryError` when `dir` is missing or not inside a git repository.
   */
  static async open(dir: string, options: GitRepositoryOptions = {}): Promise<GitRepository> {
    const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 0) {
      throw new RangeError(`maxFileBytes must be a non-negative integer, got ${maxFileBytes}`);
    }
    const absolute = resolvePath(dir);
    // Check the folder ourselves: spawning in a missing cwd fails with an ENOENT that reads as if
    // git itself were missing.
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined) {
      throw new RepositoryError(`directory not found: ${dir}`, OPEN_HINT);
    }
    if (!info.isDirectory()) {
      throw new RepositoryError(`not a directory: ${dir}`, OPEN_HINT);
    }

    const ref = options.ref !== undefined && isPlainRef(options.ref) ? options.ref : undefined;
    const args = ["rev-parse", "--is-bare-repository", "--absolute-git-dir"];
    // `--verify --quiet`: an unknown ref only makes git exit 1, after the other two answers.
    if (ref !== undefined) args.push("--verify", "--quiet", `${ref}^{commit}`);
    const result = await runGit(absolute, args, { onSpawn: options.onSpawn });
    // The ref unknown (or not a repository at all): open without it, and let `resolve` say so.
    if (result.code !== 0 && ref !== undefined) return GitRepository.open(dir, { ...options, ref: undefined });
    if (result.code !== 0) {
      const detail = firstLine(result.stderr);
      if (/not a git repository/i.test(result.stderr)) {
        throw new RepositoryError(`not a git repository: ${dir}`, OPEN_HINT);
      }
      throw new RepositoryError(`cannot open the git repository at ${dir}${detail ? `: ${detail}` : ""}`, OPEN_HINT);
    }
    // Output: "true|false\n<git dir>\n", then the ref's commit id and "\n" when asked for and known.
    let out = result.stdout.toString("utf8");
    const resolved = new Map<string, string>();
    if (ref !== undefined) {
      const sha = out.slice(out.lastIndexOf("\n", out.length - 2) + 1, -1);
      if (!OBJECT_ID.test(sha)) throw malformed("rev-parse", JSON.stringify(sha.slice(0, 80)));
      resolved.set(ref, sha);
      out = out.slice(0, -(sha.length + 1));
    }
    const newline = out.indexOf("\n");
    const bare = out.slice(0, newline) === "true";
    // The git dir is the rest, so a newline in it survives.
    const gitDir = out.slice(newline + 1).replace(/\n$/, "");
    return new GitRepository(absolute, gitDir, bare, maxFileBytes, options.onSpawn, resolved);
  }

  /** The top folder of the work tree; throws `RepositoryError` for a bare repository. */
  async workTreeRoot(): Promise<string> {
    if (this.bare) {
      throw new RepositoryError("this repository has no work tree (it is bare)", "Run the command in a checkout.");
    }
    const result = await this.git(["rev-parse", "--show-toplevel"]);
    return result.stdout.toString("utf8").replace(/\n$/, "");
  }

  /**
   * Values of git's configuration for these keys (the last value of a key wins; a key not set, or
   * set to nothing, is absent), read by one process.
   */
  async configValues(keys: readonly string[]): Promise<Map<string, string>> {
    for (const key of keys) {
      if (!/^[A-Za-z][A-Za-z0-9-]*(\.[^\s=]+)+$/.test(key)) {
        throw new RepositoryError(`"${key}" is not a git config key`, GIT_HINT);
      }
    }
    const pattern = `^(${keys.map((key) => key.replace(/[.\\^$|?*+()[\]{}]/g, "\\$&")).join("|")})$`;
    // `-z` prints "key\nvalue\0" per entry; exit code 1: none is set.
    const result = await this.git(["config", "-z", "--get-regexp", pattern], { okCodes: [0, 1] });
    const values = new Map<string, string>();
    if (result.code !== 0) return values;
    for (const entry of result.stdout.toString("utf8").split("\0")) {
      const newline = entry.indexOf("\n");
      if (newline > 0) values.set(entry.slice(0, newline), entry.slice(newline + 1).trim());
    }
    for (const [key, value] of values) if (value === "") values.delete(key);
    return values;
  }

  /** Which of these work-tree paths git tracks (in the index). */
  async tracked(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    const result = await this.git(["ls-files", "-z", "--", ...paths.map((path) => `:(literal)${path}`)]);
    return result.stdout.toString("utf8").split("\0").filter(Boolean);
  }

  /** An absolute path inside the git directory, as git resolves it (`git rev-parse --git-path`). */
  async gitPath(name: string): Promise<string> {
    const result = await this.git(["rev-parse", "--path-format=absolute", "--git-path", name]);
    return result.stdout.toString("utf8").replace(/\n$/, "");
  }

  /**
   * Resolves `ref` to a full commit id; throws `RefNotFoundError` when it names no commit. Refs
   * asked for in the same tick (a pull request's base and head) are resolved by one git process.
   */
  async resolve(ref: string): Promise<string> {
    checkRef(ref);
    // One name per line below: a line feed cannot be part of a ref anyway.
    if (ref.includes("\n")) throw new RefNotFoundError(ref);
    const known = this.resolved.get(ref);
    if (known !== undefined) {
      this.resolved.delete(ref);
      return known;
    }
    return new Promise((resolve, reject) => {
      if (this.resolving === undefined) {
        this.resolving = new Map();
        queueMicrotask(() => void this.resolveAll());
      }
      const waiting = this.resolving.get(ref) ?? [];
      waiting.push({ resolve, reject });
      this.resolving.set(ref, waiting);
    });
  }

  /** Refs waiting to be resolved, each with its callers. */
  private resolving: Map<string, { resolve: (sha: string) => void; reject: (error: unknown) => void }[]> | undefined;

  /** Resolves the waiting refs with one `cat-file --batch-check`: "<id> commit <size>" or "<name> missing". */
  private async resolveAll(): Promise<void> {
    const batch = this.resolving!;
    this.resolving = undefined;
    const refs = [...batch.keys()];
    try {
      const result = await this.git(["cat-file", "--batch-check"], {
        input: refs.map((ref) => `${ref}^{commit}\n`).join(""),
      });
      const lines = result.stdout.toString("utf8").split("\n");
      refs.forEach((ref, index) => {
        const [sha = "", type] = (lines[index] ?? "").split(" ");
        for (const caller of batch.get(ref)!) {
          if (type === "commit" && OBJECT_ID.test(sha)) caller.resolve(sha);
          else caller.reject(new RefNotFoundError(ref));
        }
      });
    } catch (error) {
      for (const callers of batch.values()) for (const caller of callers) caller.reject(error);
    }
  }

  /** The best common ancestor of `a` and `b`, or `undefined` when the histories are unrelated. */
  async mergeBase(a: string, b: string): Promise<string | undefined> {
    checkRef(a);
    checkRef(b);
    const result = await this.git(["merge-base", a, b], { okCodes: [0, 1], refs: [a, b] });
    if (result.code === 1) return undefined;
    return result.stdout.toString("utf8").trim();
  }

  /**
   * Reads `rev` (or the part of it `scope` names) with two git processes: one `ls-tree` listing the
   * entries and one `cat-file --batch` reading every needed blob. Symlinks carry their target,
   * submodules, binaries and blobs above `maxFileBytes` carry no text. Every entry carries its object
   * id from the tree as `oid` (for a submodule: the commit id it records). `snapshot.rev` is `rev` as
   * given. A scope with no paths and no prefixes yields an empty snapshot without running git.
   */
  async readSnapshot(rev: string, scope?: SnapshotScope, limits?: ReadLimits): Promise<Snapshot> {
    checkRef(rev);
    const maxOf = (path: string) => limitFor(path, limits, this.maxFileBytes);
    const pathspecs = scope === undefined ? [] : listingPathspecs(scope);
    if (pathspecs.length === 0 && scope !== undefined) return { rev, files: new Map() };

    const planned = this.planned;
    const fromPlan = planned !== undefined && planned.rev === rev && scopeCovers(planned.scope, scope);
    this.listings++;
    const entries: TreeEntry[] = [];
    const maxima: number[] = [];
    /** Each blob to read once, by object id, numbered in the order it is asked for. */
    const toRead = new Map<string, number>();
    /** The largest blob to read: the scan's buffer is made large enough to serve its text later. */
    let largest = 0;
    try {
      const listed = fromPlan ? await planned.listing : await this.list(rev, scope, pathspecs);
      // The planned listing holds every entry of this scope: the exact check picks them.
      const keep = fromPlan ? scopeMatcher(scope) : undefined;
      // One pass: which entries, their limits, and what to read, decided from mode and size alone.
      for (let index = 0; index < listed.length; index++) {
        const entry = listed[index]!;
        if (keep !== undefined && !keep(entry.path)) continue;
        const max = maxOf(entry.path);
        entries.push(entry);
        maxima.push(max);
        if (entry.mode !== MODE_SUBMODULE && entry.type === "blob" && entry.size <= max) {
          if (!toRead.has(entry.sha)) toRead.set(entry.sha, toRead.size);
          if (entry.size > largest) largest = entry.size;
        }
      }
    } catch (error) {
      this.listings--;
      this.flushWhenListed();
      throw error;
    }
    const read = this.contentsOf(toRead, largest);
    this.listings--;
    this.flushWhenListed();
    const contentOf = await read;

    const files = new Map<string, FileEntry>();
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index]!;
      files.set(entry.path, classify(entry, contentOf(entry.sha), maxima[index]!));
    }
    return { rev, files };
  }

  /**
   * The entries of `scope` at `rev`, with one `ls-tree`. `--literal-pathspecs`: scope entries are
   * plain paths, never globs or `:(magic)`.
   */
  private async list(
    rev: string,
    scope: SnapshotScope | undefined,
    pathspecs: readonly string[],
  ): Promise<TreeEntry[]> {
    const listArgs = ["--literal-pathspecs", "ls-tree", "-r", "-z", "-l", "--full-tree", rev];
    if (pathspecs.length > 0 && !pathspecs.includes("/")) listArgs.push("--", ...pathspecs);
    const listing = await this.git(listArgs, { refs: [rev] });
    // The pathspecs may be wider than the scope (see `listingPathspecs`): this check is exact.
    return parseLsTree(listing.stdout, scopeMatcher(scope));
  }

  /** The one listing `plan` keeps: of `scope` at the commit `rev`. */
  private planned: { rev: string; scope: SnapshotScope; listing: Promise<TreeEntry[]> } | undefined;

  /**
   * Lists `scope` at one commit ahead, with one `ls-tree`, for every later `readSnapshot` of that
   * commit whose scope it covers: an audit reads its config and then the scope the config names,
   * and both come from the one listing. Only a plan of one commit id is taken (a commit's tree never
   * changes; a ref may move), and only the last one is kept. A listing that fails fails the reads
   * that use it, with the same error their own listing would have given.
   */
  plan(revs: readonly string[], scope: SnapshotScope): void {
    const rev = revs.length === 1 ? revs[0]! : "";
    if (!OBJECT_ID.test(rev)) return;
    // Planned already (a caller that reads the config first, then audits): one listing serves both.
    if (this.planned?.rev === rev && scopeCovers(this.planned.scope, scope)) return;
    const pathspecs = listingPathspecs(scope);
    if (pathspecs.length === 0) return;
    const listing = this.list(rev, scope, pathspecs);
    listing.catch(() => {}); // reported by the reads that use it
    this.planned = { rev, scope, listing };
  }

  /** One file of `rev` (with its `oid`), or `undefined` when the path does not exist there. */
  async readFile(rev: string, path: string): Promise<FileEntry | undefined> {
    const snapshot = await this.readSnapshot(rev, { paths: [path], prefixes: [] });
    return snapshot.files.get(path);
  }

  /**
   * Files that differ between the trees of `base` and `head` (a direct two-point diff: pass the
   * merge base as `base` to get a pull request's changes), renames detected. Copies are reported
   * as additions. Each entry also carries both file modes.
   */
  async changedFiles(base: string, head: string): Promise<GitChangedFile[]> {
    checkRef(base);
    checkRef(head);
    const result = await this.git(
      ["diff", "--raw", "-z", "-M", "--no-abbrev", "--ignore-submodules=none", base, head, "--"],
      { refs: [base, head] },
    );
    return parseRawDiff(result.stdout);
  }

  /**
   * Every path whose content differs between the trees of `from` and `to`, mapped to its object id
   * at `from` (`null` when the path does not exist at `from`). A direct two-point diff with one git
   * process: no rename detection (a rename is two paths: the old one with its id, the new one with
   * `null`), type changes (file -> symlink) and submodule changes included. `from` and `to` may name
   * commits or trees.
   */
  async differences(from: string, to: string): Promise<Map<string, string | null>> {
    checkRef(from);
    checkRef(to);
    const result = await this.git(
      [
        "diff",
        "--raw",
        "-z",
        "--no-renames",
        "--no-abbrev",
        "--ignore-submodules=none",
        // Peel to trees so a blob is an unknown ref rather than diffed as a file.
        `${from}^{tree}`,
        `${to}^{tree}`,
        "--",
      ],
      { refs: [from, to] },
    );
    return parseDifferences(result.stdout);
  }

  /**
   * Commits reachable from `head` but not from `base`, oldest first (topological order), each
   * with its full parent ids (first parent first; none for a root commit), its git author name
   * (`gitName`; `author` is always `null`: git knows no GitHub login) and e-mail, its committer, the
   * people its `Co-authored-by:` trailers name (as git finds trailers) and the files it changed
   * (renames listed as delete + add, i.e. both paths).
   *
   * Merge commits list only the files where the merge result differs from *every* parent
   * (git's combined diff, `-c`): conflict resolutions and changes made in the merge itself. Files a
   * merge merely brings in from another branch are attributed to the commits that changed them,
   * not to whoever made the merge. All commits of merged branches are listed (no
   * `--first-parent`).
   */
  async commits(base: string, head: string): Promise<GitCommit[]> {
    checkRef(base);
    checkRef(head);
    const result = await this.git(
      [
        "log",
        "--reverse",
        "--topo-order",
        "--no-renames",
        "--no-show-signature",
        "--name-only",
        "-c",
        "-z",
        // Two NULs open every commit: a run of empty records can never occur inside a file list
        // (paths are never empty), so this marker cannot be forged by a file name. No field holds a
        // NUL: git prints names, addresses and trailers up to the first one, and joins trailer values
        // with US (%x1f).
        "--format=%x00%x00%H%x00%P%x00%an%x00%ae%x00%cn%x00%ce%x00%(trailers:key=Co-authored-by,valueonly,unfold,separator=%x1f)",
        // Peel to commits so a tree or blob is an unknown ref rather than silently ignored.
        `${head}^{commit}`,
        `^${base}^{commit}`,
        "--",
      ],
      { refs: [base, head] },
    );
    return parseLog(result.stdout);
  }

  /** Snapshot listings running now. */
  private listings = 0;
  /** Blobs wanted by snapshots whose listing is done, waiting for the listings still running. */
  private waiting: {
    shas: ReadonlyMap<string, number>;
    largest: number;
    settle: (read: Promise<ContentOf>) => void;
  }[] = [];

  /**
   * The contents of these blobs. Snapshots read together (a pull request's merge base and head)
   * share one `cat-file` process: a snapshot whose listing is done waits for the listings still
   * running, and the last one reads every blob they want, each once. `shas` numbers the blobs in
   * the order they are asked for (0, 1, ...).
   */
  private contentsOf(shas: ReadonlyMap<string, number>, largest: number): Promise<ContentOf> {
    return new Promise<ContentOf>((resolve) => this.waiting.push({ shas, largest, settle: resolve }));
  }

  /** Once no listing runs, reads what the waiting snapshots want, in one process. */
  private flushWhenListed(): void {
    if (this.listings > 0 || this.waiting.length === 0) return;
    const group = this.waiting.splice(0);
    // One snapshot (an audit) reads its own blobs as numbered; several share one numbering, each blob once.
    let shas = group[0]!.shas;
    if (group.length > 1) {
      const shared = new Map<string, number>();
      for (const item of group) {
        item.shas.forEach((_, sha) => {
          if (!shared.has(sha)) shared.set(sha, shared.size);
        });
      }
      shas = shared;
    }
    const read = this.readContents([...shas.keys()], Math.max(...group.map((item) => item.largest))).then(
      (contents): ContentOf =>
        (sha) => {
          const index = shas.get(sha);
          return index === undefined ? undefined : contents[index];
        },
    );
    for (const item of group) item.settle(read);
  }

  /**
   * Reads blobs with one `cat-file --batch` process, each once per object id however many paths
   * share it. The blobs stay in the file git wrote them to (`blobs.ts`): one pass learns what each
   * is, and a longer text is read only when a rule reads it, so an audit that judges most files by
   * their kind and size never holds megabytes of artifacts in memory.
   */
  private async readContents(names: readonly string[], largest: number): Promise<BlobContent[]> {
    const contents: BlobContent[] = [];
    if (names.length === 0) return contents;
    const output = await this.git(["cat-file", "--batch", "--buffer"], { input: `${names.join("\n")}\n`, keep: true });
    const file = new BlobFile(output.kept!);
    try {
      // Git answers in the order asked (`names` holds it to that): the contents line up with the names.
      const onObject = (_sha: string, content: BlobContent) => void contents.push(content);
      if (!scanBatchFile(file, output.size, onObject, scanChunkFor(largest), names)) file.close();
    } catch (error) {
      file.close();
      throw error;
    }
    return contents;
  }

  /**
   * Runs git in this repository; a failure (exit code not in `okCodes`) throws. For the git
   * adapter's own modules (`hooks.ts`): nothing outside `src/git/` runs git.
   */
  async git(args: readonly string[], options: RunOptions = {}): Promise<GitResult> {
    const result = await runGit(this.dir, args, {
      onSpawn: this.onSpawn,
      input: options.input,
      keep: options.keep,
      env: options.env,
    });
    if ((options.okCodes ?? [0]).includes(result.code)) return result;
    if (result.kept !== undefined) closeSync(result.kept);
    const missing = unknownRef(result.stderr, options.refs ?? []);
    if (missing !== undefined) throw new RefNotFoundError(missing);
    const detail = firstLine(result.stderr) || `exit code ${result.code}`;
    throw new RepositoryError(`git ${args.find((a) => !a.startsWith("-")) ?? ""} failed: ${detail}`, GIT_HINT);
  }
}

// ---------------------------------------------------------------------------------------------
// Process handling

/**
 * Spawns `git <GLOBAL_ARGS> <args>` in `cwd` without a shell. git writes its output into a
 * temporary file rather than a pipe: git flushes `cat-file --batch` after every object, and taking
 * 50,000 small writes off a pipe costs Node.js many times what git spends producing them, while a
 * file is read back in a few large reads. The output is then read whole (no size limit, unlike
 * `execFile`'s maxBuffer), or, with `keep`, left in the file, open, for the caller to read from
 * and close (`blobs.ts` reads blobs from it). Either way the file's name is gone once git is done.
 * Resolves with the exit code; rejects with a `RepositoryError` when git cannot be started at all.
 */
async function runGit(
  cwd: string,
  args: readonly string[],
  options: {
    onSpawn: ((args: readonly string[]) => void) | undefined;
    input?: string | undefined;
    keep?: boolean | undefined;
    env?: Readonly<Record<string, string>> | undefined;
  },
): Promise<GitResult> {
  const output = openOutputFile();
  let keep = false;
  try {
    options.onSpawn?.(args);
    const { code, stderr } = await spawnGit(cwd, args, output.fd, options.input, options.env);
    // git moved the file's shared offset to its end: read by position.
    const { size } = fstatSync(output.fd);
    if (options.keep) {
      keep = true;
      return { code, stderr, stdout: Buffer.alloc(0), kept: output.fd, size };
    }
    const stdout = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(output.fd, stdout, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { code, stderr, stdout: stdout.subarray(0, filled), size: filled };
  } finally {
    if (!keep) closeSync(output.fd);
    try {
      unlinkSync(output.path);
    } catch {
      // Gone already.
    }
  }
}

/** Runs git with its stdout on `stdoutFd`; resolves with the exit code and what it said on stderr. */
function spawnGit(
  cwd: string,
  args: readonly string[],
  stdoutFd: number,
  input: string | undefined,
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...GLOBAL_ARGS, ...args], {
      cwd,
      env: {
        ...process.env,
        GIT_TERMINAL_PROMPT: "0", // never wait for credentials (e.g. a lazy fetch in a partial clone)
        LC_ALL: "C", // English messages, which `unknownRef` recognises
        ...env,
      },
      stdio: ["pipe", stdoutFd, "pipe"],
      windowsHide: true,
    });
    const stderr: Buffer[] = [];
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new RepositoryError("git is not installed (no `git` on PATH)", "Install git and make sure it is on PATH.")
          : new RepositoryError(`cannot run git: ${error.message}`, GIT_HINT),
      );
    });
    child.on("close", (code, signal) => {
      resolve({ code: code ?? (signal ? 128 : -1), stderr: Buffer.concat(stderr).toString("utf8") });
    });
    // If git exits before reading all input, the write fails with EPIPE; the exit code and stderr
    // already tell what went wrong, so the stream error itself is not interesting.
    child.stdin!.on("error", () => {});
    child.stdin!.end(input ?? "");
  });
}

let outputDir: string | undefined;
let outputCount = 0;

/**
 * A new empty file for one git command's output, in a private folder of this process (created on
 * first use, mode 0700, removed when the process exits); the caller removes the file after use.
 */
function openOutputFile(): { fd: number; path: string } {
  if (outputDir === undefined) {
    outputDir = mkdtempSync(join(tmpdir(), "taskgate-git-"));
    const dir = outputDir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  const path = join(outputDir, `out-${process.pid}-${++outputCount}`);
  return { fd: openSync(path, "wx+", 0o600), path };
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? ""
  );
}

/** A ref `checkRef` lets through and that fits on one line. */
function isPlainRef(ref: string): boolean {
  return ref !== "" && !ref.startsWith("-") && !ref.includes("\0") && !ref.includes("\n");
}

/**
 * Refuses refs git could take for an option (`--output=x`) or that cannot be passed as an argument.
 * Such a ref cannot exist, so the error is `RefNotFoundError`.
 */
function checkRef(ref: string): void {
  if (ref === "" || ref.startsWith("-") || ref.includes("\0")) throw new RefNotFoundError(ref);
}

/**
 * When git's error says a revision is unknown, returns which of `refs` it was. git names it in the
 * message: "bad revision 'X'", "Not a valid object name X", "unknown revision or path ... 'X'".
 */
function unknownRef(stderr: string, refs: readonly string[]): string | undefined {
  const match =
    /bad revision '(.*)'/.exec(stderr) ??
    /Not a valid (?:object|commit) name (.*)/.exec(stderr) ??
    /ambiguous argument '(.*)': unknown revision/.exec(stderr) ??
    /bad object (.*)/.exec(stderr);
  if (match === null) {
    // ls-tree on a well-formed but absent object id names nothing.
    return /not a tree object/.test(stderr) && refs.length === 1 ? refs[0] : undefined;
  }
  const named = (match[1] ?? "")
    .trim()
    .replace(/^\^/, "")
    .replace(/\^\{(?:commit|tree)\}$/, "");
  return refs.find((ref) => ref === named) ?? refs.find((ref) => named.includes(ref));
}

// ---------------------------------------------------------------------------------------------
// Snapshots

interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly sha: string;
  /** Blob size from `ls-tree -l`; 0 for submodules (git prints "-"). */
  readonly size: number;
  readonly path: string;
}

/**
 * git compares every tree entry with every pathspec, so thousands of pathspecs (a pull request that
 * touches thousands of task folders) cost entries × pathspecs. Above this many, the listing asks for
 * the folders above them instead, and `scopeMatcher` keeps exactly the scope.
 */
const MAX_PATHSPECS = 64;

/**
 * The pathspecs an `ls-tree` of `scope` passes git: the scope's paths and folders, or, when there
 * are more than `MAX_PATHSPECS`, their parent folders, one level up at a time ("/" means the whole
 * tree). Empty when the scope names nothing.
 */
export function listingPathspecs(scope: SnapshotScope): string[] {
  let specs = [...new Set([...scope.paths.filter((path) => path !== ""), ...scope.prefixes.map(folderOf)])];
  while (specs.length > MAX_PATHSPECS) specs = [...new Set(specs.map(parentFolder))];
  return specs.includes("/") ? ["/"] : specs;
}

/** The folder above a path or folder ("a/b/c" and "a/b/c/" give "a/b/"; "a" and "a/" give "/"). */
function parentFolder(spec: string): string {
  const trimmed = spec.endsWith("/") ? spec.slice(0, -1) : spec;
  const slash = trimmed.lastIndexOf("/");
  return slash < 0 ? "/" : trimmed.slice(0, slash + 1);
}

/** Parses `ls-tree -r -z -l` ("<mode> <type> <sha> <padded size>\t<path>\0" per entry), keeping the paths `keep` takes. */
function parseLsTree(out: Buffer, keep: (path: string) => boolean): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const text = out.toString("utf8");
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\0", start);
    if (end < 0) end = text.length;
    if (end > start) {
      const entry = parseTreeRecord(text, start, end);
      if (keep(entry.path)) entries.push(entry);
    }
    start = end + 1;
  }
  return entries;
}

/** The usual modes and types, shared rather than sliced anew for every entry. */
const COMMON_WORDS = ["100644", "blob", "100755", "120000", "160000", "040000", "tree", "commit"];

/** `text` from `start` to `end`, as a shared string (compared in place) when it is a usual mode or type. */
function word(text: string, start: number, end: number): string {
  for (let index = 0; index < COMMON_WORDS.length; index++) {
    const common = COMMON_WORDS[index]!;
    if (common.length === end - start && text.startsWith(common, start)) return common;
  }
  return text.slice(start, end);
}

/** One `ls-tree -l` record of `text` between `start` and `end`: "<mode> <type> <sha> <padded size>\t<path>". */
function parseTreeRecord(text: string, start: number, end: number): TreeEntry {
  const tab = text.indexOf("\t", start);
  const typeAt = text.indexOf(" ", start) + 1;
  const shaAt = typeAt > 0 ? text.indexOf(" ", typeAt) + 1 : 0;
  const sizeEnd = shaAt > 0 ? text.indexOf(" ", shaAt) : -1;
  if (tab < 0 || tab > end || typeAt === 0 || shaAt === 0 || sizeEnd < 0 || sizeEnd > tab) {
    throw malformed("ls-tree", JSON.stringify(text.slice(start, Math.min(end, start + 80))));
  }
  const sha = text.slice(shaAt, sizeEnd);
  const path = text.slice(tab + 1, end);
  return {
    mode: word(text, start, typeAt - 1),
    type: word(text, typeAt, shaAt - 1),
    sha,
    size: treeSize(text, sizeEnd, tab, sha, path),
    path,
  };
}

/**
 * The size in an `ls-tree -l` record: right-aligned digits between `from` and `to`, read in place;
 * "-" (a submodule) is 0, and "BAD" (git could not size the blob) names the missing object.
 */
function treeSize(text: string, from: number, to: number, sha: string, path: string): number {
  let at = from;
  while (at < to && text.charCodeAt(at) === 0x20) at++;
  let size = 0;
  for (let digit = at; digit < to; digit++) {
    const value = text.charCodeAt(digit) - 0x30;
    if (value < 0 || value > 9) return oddTreeSize(text.slice(at, to), sha, path);
    size = size * 10 + value;
  }
  if (at === to || !Number.isSafeInteger(size)) return oddTreeSize(text.slice(at, to), sha, path);
  return size;
}

/** A size field that is not digits: 0 for a submodule's "-", else git could not size the blob. */
function oddTreeSize(sizeText: string, sha: string, path: string): number {
  if (sizeText === "-") return 0;
  // ls-tree -l prints "BAD" when it cannot read the blob to size it.
  if (sizeText === "BAD") throw missingObject(sha, path);
  throw malformed("ls-tree", `size ${sizeText}`);
}

/** An entry of a tree with what was read of it (nothing above the size limit), as the core classifies it. */
function classify(entry: TreeEntry, content: BlobContent | undefined, maxFileBytes: number): FileEntry {
  const mode = entry.type === "commit" ? MODE_SUBMODULE : entry.mode;
  return classifyFile({ path: entry.path, mode, size: entry.size, oid: entry.sha, content }, maxFileBytes);
}

// ---------------------------------------------------------------------------------------------
// Diffs and logs

/**
 * Parses `diff --raw -z`: per change, ":<old mode> <new mode> <old sha> <new sha> <status>\0"
 * followed by one path, or two (source, destination) for renames and copies.
 */
function parseRawDiff(out: Buffer): GitChangedFile[] {
  const tokens = out.toString("utf8").split("\0");
  const changes: GitChangedFile[] = [];
  let i = 0;
  while (i < tokens.length) {
    const meta = tokens[i++] ?? "";
    if (meta === "") continue;
    const [oldMode, newMode, , , status] = meta.startsWith(":") ? meta.slice(1).split(" ") : [];
    const letter = status?.[0];
    const path = tokens[i++];
    if (oldMode === undefined || newMode === undefined || letter === undefined || path === undefined) {
      throw malformed("diff", JSON.stringify(meta.slice(0, 80)));
    }
    if (letter === "R" || letter === "C") {
      const destination = tokens[i++];
      if (destination === undefined) throw malformed("diff", "rename without destination");
      changes.push(
        letter === "R"
          ? { path: destination, status: "renamed", previousPath: path, oldMode, newMode }
          : { path: destination, status: "added", oldMode: MODE_ABSENT, newMode },
      );
      continue;
    }
    const statusName = ({ A: "added", M: "modified", T: "modified", D: "removed" } as const)[
      letter as "A" | "M" | "T" | "D"
    ];
    if (statusName === undefined) throw malformed("diff", `status ${status ?? ""} for ${path}`);
    changes.push({ path, status: statusName, oldMode, newMode });
  }
  return changes;
}

/**
 * Parses `diff --raw -z --no-renames`: per change, ":<old mode> <new mode> <old sha> <new sha>
 * <status>\0<path>\0". Returns each path with its old object id; git's all-zero id (the path is
 * missing on the old side) becomes `null`.
 */
function parseDifferences(out: Buffer): Map<string, string | null> {
  const tokens = out.toString("utf8").split("\0");
  const differences = new Map<string, string | null>();
  let i = 0;
  while (i < tokens.length) {
    const meta = tokens[i++] ?? "";
    if (meta === "") continue;
    const [, , oldSha, , status] = meta.startsWith(":") ? meta.slice(1).split(" ") : [];
    const path = tokens[i++];
    if (oldSha === undefined || !OBJECT_ID.test(oldSha) || status === undefined || path === undefined) {
      throw malformed("diff", JSON.stringify(meta.slice(0, 80)));
    }
    // Renames and copies (which --no-renames rules out) would carry a second path.
    if (status.startsWith("R") || status.startsWith("C")) throw malformed("diff", `status ${status} for ${path}`);
    differences.set(path, /^0+$/.test(oldSha) ? null : oldSha);
  }
  return differences;
}

/**
 * Parses `log -z --name-only -c` with the format of `commits()`. Split on NUL, the output is, per
 * commit:
 *
 *   "", "", sha, parents (space-separated ids, "" for a root commit), author name, author e-mail,
 *   committer name, committer e-mail, `Co-authored-by` values (joined by US), then the file list
 *
 * where the file list is empty, or (ordinary commits) "\n" glued to the first path, then the other
 * paths; or (merges, combined diff) one "" separator, then the paths. Since paths are never empty,
 * a run of two or more "" can only be a commit marker; the header is read by position, so an empty
 * parent list, name or trailer list inside it is never taken for a marker.
 */
function parseLog(out: Buffer): GitCommit[] {
  const tokens = out.toString("utf8").split("\0");
  const commits: GitCommit[] = [];
  let i = 0;
  while (i < tokens.length) {
    // Skip to the end of the next run of at least two empty tokens (or stop at end of output).
    let empties = 0;
    while (i < tokens.length && tokens[i] === "") {
      empties++;
      i++;
    }
    if (i >= tokens.length) break;
    const [sha, parentList, name, authorEmail, committerName, committerEmail, trailers] = tokens.slice(i, i + 7);
    const parents = parentList?.split(" ").filter((parent) => parent !== "");
    if (
      empties < 2 ||
      sha === undefined ||
      !OBJECT_ID.test(sha) ||
      parents === undefined ||
      !parents.every((parent) => OBJECT_ID.test(parent)) ||
      name === undefined ||
      authorEmail === undefined ||
      committerName === undefined ||
      committerEmail === undefined ||
      trailers === undefined
    ) {
      throw malformed("log", JSON.stringify((tokens[i] ?? "").slice(0, 80)));
    }
    i += 7;

    const files: string[] = [];
    let first = true;
    while (i < tokens.length) {
      const token = tokens[i] ?? "";
      if (token === "") {
        // A single "" right after the header is a merge's separator; otherwise it (with the ""
        // after it) is the next commit's marker, or the end of the output.
        if (!first || tokens[i + 1] === "" || i + 1 >= tokens.length) break;
        i++;
        first = false;
        continue;
      }
      // An ordinary commit's list starts with the "\n" git prints between message and diff.
      const path = first && token.startsWith("\n") ? token.slice(1) : token;
      if (path !== "") files.push(path);
      first = false;
      i++;
    }
    const coAuthors = trailers
      .split("\x1f")
      .map((value) => parseIdentity(value))
      .filter((identity) => identity !== undefined)
      .map((identity) => ({ login: null, ...identity }));
    commits.push({
      sha,
      author: null,
      gitName: name || null,
      gitEmail: authorEmail || null,
      gitCommitter: { name: committerName || null, email: committerEmail || null },
      coAuthors,
      parents,
      authorEmail,
      files,
    });
  }
  return commits;
}
