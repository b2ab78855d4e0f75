/**
 * What each coding-agent harness sends before a tool runs, and which files that tool call writes.
 *
 * Claude Code runs a `PreToolUse` command hook with one JSON object on stdin: `session_id`,
 * `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, `tool_name`, `tool_input` and
 * `tool_use_id`; `tool_input` is the tool's own input: `file_path` for Write, Edit and MultiEdit,
 * `notebook_path` for NotebookEdit, `command` for Bash (https://code.claude.com/docs/en/hooks).
 *
 * opencode calls a plugin's `tool.execute.before(input, output)` with `input.tool` (the tool's id)
 * and `output.args` (its arguments): `write`, `edit` and `multiedit` take `filePath`, `apply_patch`
 * (and the older `patch`) `patchText`, `bash` `command` (https://opencode.ai/docs/plugins/; the
 * tools' parameters in packages/opencode/src/tool/ of github.com/anomalyco/opencode). The plugin
 * taskgate installs sends `{tool, args, directory}` on stdin.
 *
 * Shell commands are read best-effort: redirections (`>`, `>>`, `&>`, `>|`), `tee`, `sed -i`,
 * `perl -i`, `cp`, `mv`, `rm`, `touch`, `ln`, `truncate`, `install`, `dd of=`. A word with `$`, a
 * backquote, a glob or `~` cannot be known before the shell runs and is not judged; docs/agents.md
 * lists the limits.
 */

/** The harnesses taskgate integrates with. */
export const HARNESSES = ["claude-code", "opencode"] as const;
export type Harness = (typeof HARNESSES)[number];

/** One tool call as taskgate reads it: the files it writes, and where relative paths start. */
export interface ToolCall {
  readonly tool: string;
  /** The folder relative paths are resolved against (the harness's working directory). */
  readonly cwd: string | undefined;
  readonly files: readonly string[];
  /** Shell words that name a written file but cannot be known before the shell expands them. */
  readonly unknown: readonly string[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** Claude Code's PreToolUse input: the files of Write, Edit, MultiEdit, NotebookEdit and Bash. */
export function claudeCodeCall(input: unknown): ToolCall {
  const json = isObject(input) ? input : {};
  const tool = text(json.tool_name) ?? "";
  const args = isObject(json.tool_input) ? json.tool_input : {};
  const cwd = text(json.cwd);
  if (tool === "Bash") return { tool, cwd, ...shellWrites(text(args.command) ?? "") };
  const files = [text(args.file_path), text(args.notebook_path)].filter((item): item is string => !!item);
  return { tool, cwd, files, unknown: [] };
}

/** opencode's `tool.execute.before`, as the plugin relays it: `{tool, args, directory}`. */
export function opencodeCall(input: unknown): ToolCall {
  const json = isObject(input) ? input : {};
  const tool = text(json.tool) ?? "";
  const args = isObject(json.args) ? json.args : {};
  const cwd = text(json.directory);
  if (tool === "bash") return { tool, cwd, ...shellWrites(text(args.command) ?? "") };
  const files: string[] = [];
  for (const key of ["filePath", "file_path", "path"]) if (text(args[key])) files.push(args[key] as string);
  if (Array.isArray(args.edits)) {
    for (const edit of args.edits) if (isObject(edit) && text(edit.filePath)) files.push(edit.filePath as string);
  }
  const patch = text(args.patchText) ?? text(args.patch);
  if (patch) files.push(...patchFiles(patch));
  return { tool, cwd, files: [...new Set(files)], unknown: [] };
}

/** The files a patch touches: opencode's `*** Add/Update/Delete File:` and `*** Move to:`, and `+++`/`---` lines. */
export function patchFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trim();
    const marker = /^\*\*\* (?:Add File|Update File|Delete File|Move to):\s*(.+)$/.exec(line);
    if (marker) files.add(marker[1]!.trim());
    const diff = /^(?:\+\+\+|---) (?:[ab]\/)?(.+?)(?:\t.*)?$/.exec(raw);
    if (diff && diff[1] !== "/dev/null" && !diff[1]!.startsWith("/dev/null")) files.add(diff[1]!.trim());
  }
  return [...files];
}

/** Every file a shell command visibly writes, and the written words that cannot be known in advance. */
export function shellWrites(command: string): { files: string[]; unknown: string[] } {
  const files: string[] = [];
  const unknown: string[] = [];
  const add = (word: string | undefined) => {
    if (word === undefined || word === "" || word === "-" || word.startsWith("/dev/")) return;
    if (/[$`*?[\]{}~]/.test(word) || word.startsWith("<(") || word.startsWith(">(")) unknown.push(word);
    else files.push(word);
  };
  for (const words of simpleCommands(command)) {
    const rest: string[] = [];
    for (let index = 0; index < words.length; index++) {
      const word = words[index]!;
      const redirect = /^(?:\d*|&)(>>?|>\|)(.*)$/.exec(word.quoted ? "" : word.text);
      if (redirect) {
        const target = redirect[2] || words[++index]?.text;
        if (target && !target.startsWith("&")) add(target);
        continue;
      }
      rest.push(word.text);
    }
    for (const file of commandWrites(rest)) add(file);
  }
  return { files: [...new Set(files)], unknown: [...new Set(unknown)] };
}

/** The files one simple command (its words, redirections removed) writes, by the program it runs. */
function commandWrites(words: readonly string[]): string[] {
  let start = 0;
  while (start < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]!)) start++;
  while (["sudo", "command", "env", "nohup", "time"].includes(words[start] ?? "")) start++;
  const program = (words[start] ?? "").split("/").pop() ?? "";
  const args = words.slice(start + 1);
  const operands = args.filter((arg) => !arg.startsWith("-") || arg === "-");
  switch (program) {
    case "tee":
    case "touch":
    case "rm":
    case "truncate":
      return operands;
    case "cp":
    case "ln":
    case "install": {
      const target = targetDirectory(args);
      return target !== undefined ? [target] : operands.slice(-1);
    }
    case "mv": {
      const target = targetDirectory(args);
      return target !== undefined ? [target, ...operands] : operands;
    }
    case "sed":
    case "perl":
      return inPlace(program, args);
    case "dd":
      return args.filter((arg) => arg.startsWith("of=")).map((arg) => arg.slice(3));
    default:
      return [];
  }
}

function targetDirectory(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "-t" || arg === "--target-directory") return args[index + 1];
    if (arg.startsWith("--target-directory=")) return arg.slice("--target-directory=".length);
  }
  return undefined;
}

/** `sed -i` and `perl -i` rewrite the files they are given: every operand after the script. */
function inPlace(program: string, args: readonly string[]): string[] {
  if (!args.some((arg) => arg === "-i" || /^-[A-Za-z]*i/.test(arg) || arg.startsWith("--in-place"))) return [];
  const operands: string[] = [];
  let script = args.some(
    (arg) => arg === "-e" || arg === "--expression" || (program === "perl" && /^-[A-Za-z]*e$/.test(arg)),
  );
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === "-e" || arg === "--expression" || arg === "-f") {
      index++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    if (!script) {
      script = true;
      continue;
    }
    operands.push(arg);
  }
  return operands;
}

interface Word {
  readonly text: string;
  /** Any part was quoted: then it is never an operator. */
  readonly quoted: boolean;
}

/** Splits a command line into simple commands (at `;`, `&&`, `||`, `|`, `&`, newlines), each as words. */
export function simpleCommands(command: string): Word[][] {
  const commands: Word[][] = [];
  let words: Word[] = [];
  let current = "";
  let quoted = false;
  let started = false;
  const endWord = () => {
    if (started) words.push({ text: current, quoted });
    current = "";
    quoted = false;
    started = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (char === "'" || char === '"') {
      const close = command.indexOf(char, index + 1);
      const end = close < 0 ? command.length : close;
      current += command.slice(index + 1, end).replace(char === '"' ? /\\(["\\$`])/g : /$^/, "$1");
      quoted = started = true;
      index = end;
    } else if (char === "\\" && index + 1 < command.length) {
      current += command[++index];
      started = true;
    } else if (
      char === "\n" ||
      char === ";" ||
      char === "|" ||
      (char === "&" && command[index + 1] !== ">" && !current.endsWith(">"))
    ) {
      endCommand();
      if ((char === "|" || char === "&") && command[index + 1] === char) index++;
    } else if (char === " " || char === "\t") {
      endWord();
    } else if (char === "#" && !started) {
      const newline = command.indexOf("\n", index);
      index = newline < 0 ? command.length : newline - 1;
    } else {
      current += char;
      started = true;
    }
  }
  endCommand();
  return commands;
}
