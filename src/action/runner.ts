/**
 * The runner's side of an Action, in the few lines it takes: inputs from `INPUT_*`, outputs and the
 * step summary in the files the runner names, and workflow commands on stdout (masks, annotations,
 * the step's failure). Written here rather than imported, to keep the bundle small and its start fast.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { EOL } from "node:os";

export interface Runner {
  input(name: string): string;
  output(name: string, value: string): void;
  summary(markdown: string): void;
  mask(secret: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string, where?: { title?: string; file?: string; line?: number }): void;
  /** Marks the step failed (exit code 1) with a message. */
  fail(message: string): void;
}

/** Escapes a workflow command's message (its data). */
function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Escapes a workflow command's property value. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

function command(name: string, message: string, properties: Record<string, string | number | undefined> = {}): string {
  const props = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}${EOL}`;
}

export function runner(
  env: NodeJS.ProcessEnv = process.env,
  write: (text: string) => void = (text) => process.stdout.write(text),
): Runner {
  return {
    input(name) {
      return (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
    },
    output(name, value) {
      const file = env.GITHUB_OUTPUT;
      if (!file) return write(command("set-output", value, { name }));
      const delimiter = `taskgate_${randomUUID()}`;
      appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, "utf8");
    },
    summary(markdown) {
      const file = env.GITHUB_STEP_SUMMARY;
      if (file) appendFileSync(file, `${markdown}${EOL}`, "utf8");
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
    error(message, where = {}) {
      write(command("error", message, { title: where.title, file: where.file, line: where.line }));
    },
    fail(message) {
      process.exitCode = 1;
      write(command("error", message));
    },
  };
}
