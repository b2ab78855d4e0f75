/**
 * The runner's side of an Action, in the few lines it takes: inputs from `INPUT_*`, outputs and the
 * step summary in the files the runner names, and workflow commands on stdout (masks, annotations,
 * the step's failure). Written here rather than imported, to keep the bundle small and its start fast;
 * it writes byte for byte what `@actions/core` (v3) writes for the same calls (the same escaping of
 * command data and properties, the same output heredoc, the same file checks; see
 * test/action/runner.test.ts). Its one deliberate difference: without `GITHUB_STEP_SUMMARY` the
 * summary is skipped, where the toolkit throws.
 *
 * When a host imports the bundle and calls its `run()` (GitHub's `local-action`, which replaces
 * `@actions/core` with its own stand-in and reports the outputs set through it), the Action talks
 * through the host's `@actions/core` instead: `toolkitRunner`.
 */
import { randomUUID } from "node:crypto";
import { accessSync, appendFileSync, constants, existsSync } from "node:fs";
import { EOL } from "node:os";
import type * as Toolkit from "@actions/core";

export interface Runner {
  input(name: string): string;
  output(name: string, value: string): void;
  /** Appends markdown and a line break to the step summary (the toolkit's is asynchronous). */
  summary(markdown: string): void | Promise<void>;
  mask(secret: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string, where?: { title?: string; file?: string; line?: number }): void;
  /** Marks the step failed (exit code 1) with a message. */
  fail(message: string): void;
}

/** Escapes a workflow command's message (its data), as `@actions/core` does. */
function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a workflow command's property value, as `@actions/core` does. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * `::name key=value,...::message`, built as `@actions/core` builds it: a space after the name as soon
 * as there are properties at all, then only those whose value is truthy (an empty title or line 0 is
 * left out), numbers written as JSON.
 */
function command(name: string, message: string, properties: Record<string, string | number | undefined> = {}): string {
  let text = `::${name}`;
  const keys = Object.keys(properties);
  if (keys.length > 0) {
    text += ` ${keys
      .filter((key) => properties[key])
      .map((key) => {
        const value = properties[key];
        return `${key}=${escapeProperty(typeof value === "string" ? value : JSON.stringify(value))}`;
      })
      .join(",")}`;
  }
  return `${text}::${escapeData(message)}${EOL}`;
}

export function runner(
  env: NodeJS.ProcessEnv = process.env,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Runner {
  return {
    input(name) {
      return (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] || "").trim();
    },
    output(name, value) {
      const file = env.GITHUB_OUTPUT;
      if (!file) {
        write(EOL);
        return write(command("set-output", value, { name }));
      }
      if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`);
      const delimiter = `ghadelimiter_${randomUUID()}`;
      if (name.includes(delimiter)) {
        throw new Error(`Unexpected input: name should not contain the delimiter "${delimiter}"`);
      }
      if (value.includes(delimiter)) {
        throw new Error(`Unexpected input: value should not contain the delimiter "${delimiter}"`);
      }
      appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, { encoding: "utf8" });
    },
    summary(markdown) {
      const file = env.GITHUB_STEP_SUMMARY;
      if (!file) return;
      try {
        accessSync(file, constants.R_OK | constants.W_OK);
      } catch {
        throw new Error(
          `Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`,
        );
      }
      appendFileSync(file, `${markdown}${EOL}`, { encoding: "utf8" });
    },
    mask(secret) {
      write(command("add-mask", secret));
    },
    info(message) {
      write(`${message}${EOL}`);
    },
    warning(message) {
      write(command("warning", message));
    },
    error(message, where) {
      write(
        command(
          "error",
          message,
          where && Object.keys(where).length > 0 ? { title: where.title, file: where.file, line: where.line } : {},
        ),
      );
    },
    fail(message) {
      process.exitCode = 1;
      write(command("error", message));
    },
  };
}

/** The same calls made through a toolkit's `@actions/core` (the host's, or `local-action`'s stand-in). */
export function toolkitRunner(core: typeof Toolkit): Runner {
  return {
    input: (name) => core.getInput(name),
    output: (name, value) => core.setOutput(name, value),
    summary: async (markdown) => void (await core.summary.addRaw(markdown, true).write()),
    mask: (secret) => core.setSecret(secret),
    info: (message) => core.info(message),
    warning: (message) => core.warning(message),
    error: (message, where) =>
      where && Object.keys(where).length > 0
        ? core.error(message, { title: where.title, file: where.file, startLine: where.line })
        : core.error(message),
    fail(message) {
      core.setFailed(message);
      // The toolkit sets it too; a stand-in (local-action's) may not, and the step's failure is the exit code.
      process.exitCode = 1;
    },
  };
}
