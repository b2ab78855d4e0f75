#!/usr/bin/env node
/**
 * The floors of bench/cli.mjs: the least any correct implementation of a rule must do, as a separate
 * Node.js process that imports nothing but `yaml` (to parse the config) and uses the git plumbing
 * taskgate uses. Not a benchmark of its own: bench/cli.mjs times it next to the taskgate command.
 *
 *   node bench/floor.mjs audit-phases DIR REV
 *     One `git ls-tree -r -z -l` of the audit's part of REV (the config, `tasks/`, `docs/status/`),
 *     one `git cat-file --batch` of every blob in it within the size limit (each distinct blob once),
 *     the config parsed as YAML, and per task the first line of `.state` and the lines of
 *     `.state.approvals` split on `|`.
 *   node bench/floor.mjs audit-board DIR REV
 *     The same reads for a board's audit (the config, the definitions, the ledger, the evidence,
 *     handoff and issue folders, `docs/status/`), the config parsed as YAML, and `JSON.parse` of the
 *     definitions and of the ledger.
 *   node bench/floor.mjs check-board DIR BASE HEAD
 *     One `git merge-base`, one `git cat-file --batch` of the config at BASE and of the definitions
 *     and the ledger at the merge base and at HEAD, the config parsed as YAML, and `JSON.parse` of
 *     the four.
 *
 * Blob contents are parsed as they come, read back in 4 MiB chunks from the file `cat-file --buffer`
 * writes them to (the cheapest way to take them from git); what is not parsed is only read. The
 * layout is the default one (the bench's repositories use it): a config that moves the task store
 * or changes the size limits stops the floor (exit 2) rather than read other files than taskgate.
 * Prints one line of JSON: what it read and found, for the bench to check.
 */
import { spawn } from "node:child_process";
import { open, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";

const CONFIG = ".github/taskgate.yml";
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_LEDGER_BYTES = 64 * 1024 * 1024;
const DEFINITIONS = "planning/tasks.json";
const LEDGER = "state/tasks.json";

/**
 * Runs git; `onData` gets stdout as it comes (else it is collected). Resolves when git exits 0.
 * With `viaFile`, git writes into a temporary file that is then read in 4 MiB chunks: taking
 * `cat-file`'s one write per object off a pipe costs Node.js far more than git spends, and the
 * least any reader must do is what the cheapest way costs.
 */
async function git(dir, args, { input, onData, viaFile } = {}) {
  if (!viaFile) return gitPiped(dir, args, { input, onData });
  const path = join(tmpdir(), `taskgate-floor-${process.pid}-${++outputs}`);
  const handle = await open(path, "wx+", 0o600);
  try {
    await gitPiped(dir, args, { input, stdout: handle.fd });
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafe(Math.min(size, 4 * 1024 * 1024) || 1);
    for (let position = 0; position < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      // A copy: the consumer may keep parts of a chunk, and the buffer is reused.
      onData(Buffer.from(buffer.subarray(0, bytesRead)));
      position += bytesRead;
    }
    return Buffer.alloc(0);
  } finally {
    await handle.close();
    await unlink(path).catch(() => {});
  }
}
let outputs = 0;

function gitPiped(dir, args, { input, onData, stdout = "pipe" } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: dir, stdio: ["pipe", stdout, "pipe"] });
    const out = [];
    let err = "";
    child.stdout?.on("data", onData ?? ((chunk) => out.push(chunk)));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args[0]} failed (${code}): ${err.trim()}`)),
    );
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}

/**
 * `git cat-file --batch` of `names`, parsed as it streams: calls `onBlob(index, content)` for each
 * object in order (content a Buffer). Headers are short and read from the pending bytes; a body is
 * gathered chunk by chunk and joined once.
 */
async function catFile(dir, names, onBlob) {
  let index = 0;
  let pending = Buffer.alloc(0); // bytes not yet parsed, while reading a header
  let body = null; // { size, parts, have } while reading a body
  const take = (chunk) => {
    let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    while (data.length > 0) {
      if (body === null) {
        const newline = data.indexOf(10);
        if (newline < 0) {
          pending = data;
          return;
        }
        const header = data.toString("latin1", 0, newline).split(" ");
        if (header[1] === "missing" || header.length < 3) throw new Error(`cat-file: ${header.join(" ")}`);
        body = { size: Number(header[2]), parts: [], have: 0 };
        data = data.subarray(newline + 1);
      }
      const want = body.size + 1 - body.have; // the content and its trailing LF
      if (data.length < want) {
        body.parts.push(data);
        body.have += data.length;
        return;
      }
      body.parts.push(data.subarray(0, want));
      const whole = body.parts.length === 1 ? body.parts[0] : Buffer.concat(body.parts);
      onBlob(index++, whole.subarray(0, body.size));
      body = null;
      data = data.subarray(want);
    }
  };
  let failure;
  await git(dir, ["cat-file", "--batch", "--buffer"], {
    viaFile: true,
    input: `${names.join("\n")}\n`,
    onData: (chunk) => {
      try {
        if (!failure) take(chunk);
      } catch (error) {
        failure = error;
      }
    },
  });
  if (failure) throw failure;
  if (index !== names.length) throw new Error(`cat-file: ${index} of ${names.length} objects`);
}

/** `ls-tree -r -z -l` of REV restricted to `pathspecs`: `{ path, sha, size }` of every blob. */
async function listBlobs(dir, rev, pathspecs) {
  const out = await git(dir, ["ls-tree", "-r", "-z", "-l", "--full-tree", rev, "--", ...pathspecs]);
  // Each record: "<mode> <type> <sha> <padded size>\t<path>\0".
  const text = out.toString("utf8");
  const entries = [];
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf("\0", pos);
    const tab = text.indexOf("\t", pos);
    const typeAt = text.indexOf(" ", pos) + 1;
    const shaAt = text.indexOf(" ", typeAt) + 1;
    const sizeAt = text.indexOf(" ", shaAt);
    if (text.startsWith("blob", typeAt)) {
      entries.push({
        path: text.slice(tab + 1, end),
        sha: text.slice(shaAt, sizeAt),
        size: Number(text.slice(sizeAt, tab)),
      });
    }
    pos = end + 1;
  }
  return entries;
}

/** Stops when the config is not the default layout the floors assume. */
function checkConfig(text, preset) {
  const config = parseYaml(text) ?? {};
  const moved =
    config.preset !== preset ||
    config.workflow?.tasks_dir !== undefined ||
    config.render?.path !== undefined ||
    config.limits !== undefined ||
    (config.board !== undefined && Object.keys(config.board).length > 0);
  if (moved) {
    console.error(`floor: ${CONFIG} is not a default ${preset} layout; the floor would read other files`);
    process.exit(2);
  }
  return config;
}

/** Reads every blob of the audit's part of `rev` within its size limit; `parse(path, text)` per parsed file. */
async function readAuditScope(dir, rev, pathspecs, limitOf, parsed, preset) {
  const entries = await listBlobs(dir, rev, pathspecs);
  const wanted = new Map(); // sha -> index in the batch
  const shas = [];
  for (const entry of entries) {
    if (entry.size > limitOf(entry.path) || wanted.has(entry.sha)) continue;
    wanted.set(entry.sha, shas.length);
    shas.push(entry.sha);
  }
  // Paths whose text is parsed, by the blob that holds it.
  const parsedBy = new Map();
  for (const entry of entries) {
    if (!parsed(entry.path)) continue;
    const list = parsedBy.get(entry.sha);
    if (list) list.push(entry.path);
    else parsedBy.set(entry.sha, [entry.path]);
  }
  const texts = new Map(); // path -> text, for the parsed files only
  let bytes = 0;
  let config;
  await catFile(dir, shas, (index, content) => {
    bytes += content.length;
    const paths = parsedBy.get(shas[index]);
    if (!paths) return;
    const text = content.toString("utf8");
    for (const path of paths) {
      if (path === CONFIG) config = checkConfig(text, preset);
      else texts.set(path, text);
    }
  });
  if (!config) {
    console.error(`floor: no ${CONFIG} at ${rev}`);
    process.exit(2);
  }
  return { entries: entries.length, blobs: shas.length, bytes, texts };
}

async function auditPhases(dir, rev) {
  const isTaskFile = (path) =>
    path.startsWith("tasks/") && (path.endsWith("/.state") || path.endsWith("/.state.approvals"));
  const read = await readAuditScope(
    dir,
    rev,
    [CONFIG, "tasks/", "docs/status/"],
    () => MAX_FILE_BYTES,
    (path) => path === CONFIG || isTaskFile(path),
    "phases",
  );
  const tasks = new Map();
  let approvals = 0;
  for (const [path, text] of read.texts) {
    const slash = path.indexOf("/", 6);
    if (slash < 0 || path.indexOf("/", slash + 1) >= 0) continue; // a file directly in a task folder
    const id = path.slice(6, slash);
    let task = tasks.get(id);
    if (!task) tasks.set(id, (task = { state: undefined, approvals: [] }));
    if (path.endsWith("/.state")) task.state = text.split("\n", 1)[0];
    else {
      task.approvals = text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.split("|"));
      approvals += task.approvals.length;
    }
  }
  return { entries: read.entries, blobs: read.blobs, bytes: read.bytes, tasks: tasks.size, approvals };
}

async function auditBoard(dir, rev) {
  const read = await readAuditScope(
    dir,
    rev,
    [CONFIG, DEFINITIONS, LEDGER, "state/evidence/", "state/handoffs/", "state/issues/", "docs/status/"],
    (path) => (path === DEFINITIONS || path === LEDGER ? MAX_LEDGER_BYTES : MAX_FILE_BYTES),
    (path) => path === CONFIG || path === DEFINITIONS || path === LEDGER,
    "board",
  );
  const definitions = JSON.parse(read.texts.get(DEFINITIONS));
  const ledger = JSON.parse(read.texts.get(LEDGER));
  return {
    entries: read.entries,
    blobs: read.blobs,
    bytes: read.bytes,
    definitions: definitions.tasks.length,
    entriesInLedger: Object.keys(ledger.tasks).length,
  };
}

async function checkBoard(dir, base, head) {
  const mergeBase = (await git(dir, ["merge-base", base, head])).toString("utf8").trim();
  const names = [
    `${base}:${CONFIG}`,
    `${mergeBase}:${DEFINITIONS}`,
    `${mergeBase}:${LEDGER}`,
    `${head}:${DEFINITIONS}`,
    `${head}:${LEDGER}`,
  ];
  const parsed = [];
  let bytes = 0;
  await catFile(dir, names, (index, content) => {
    bytes += content.length;
    const text = content.toString("utf8");
    parsed.push(index === 0 ? checkConfig(text, "board") : JSON.parse(text));
  });
  const [, baseDefinitions, baseLedger, headDefinitions, headLedger] = parsed;
  return {
    bytes,
    definitions: [baseDefinitions.tasks.length, headDefinitions.tasks.length],
    entriesInLedger: [Object.keys(baseLedger.tasks).length, Object.keys(headLedger.tasks).length],
  };
}

const FLOORS = { "audit-phases": auditPhases, "audit-board": auditBoard, "check-board": checkBoard };
const [kind, ...args] = process.argv.slice(2);
if (!FLOORS[kind]) {
  console.error(`usage: node bench/floor.mjs ${Object.keys(FLOORS).join("|")} DIR REV [HEAD]`);
  process.exit(2);
}
console.log(JSON.stringify(await FLOORS[kind](...args)));
