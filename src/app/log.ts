/**
 * The App's log: Probot's (pino, pretty unless `LOG_FORMAT=json`), except that an error is written
 * as its type and one line of message. Errors of webhooks carry the whole delivery (`event`), and
 * Octokit's carry requests and responses: none of that reaches a log line, nor does a secret.
 */
import { getTransformStream } from "@probot/pino";
import { pino, type DestinationStream, type Logger } from "pino";
import { redactSecrets } from "../core/index.js";

/** What is kept of an error: its type and one line, its first inner error for an aggregate. */
export function serializeError(error: unknown): { type: string; message: string } {
  const value = error as { name?: string; message?: string; errors?: unknown[] } | null;
  const inner = Array.isArray(value?.errors) && value.errors.length > 0 ? (value.errors[0] as typeof value) : value;
  const message = (inner?.message ?? String(error)).replace(/\s+/g, " ").trim();
  return {
    type: inner?.name ?? "Error",
    message: redactSecrets(message.length > 300 ? `${message.slice(0, 299)}…` : message),
  };
}

export interface LogOptions {
  readonly level?: string | undefined;
  /** `json` for one JSON object a line; anything else is Probot's readable format. */
  readonly format?: string | undefined;
  /** Where the lines go (standard output unless given: tests pass a stream). */
  readonly destination?: DestinationStream;
}

/** The error a log call is about, if any (`log.error(err)` or `log.error({ err }, ...)`), unwrapped. */
function errorOf(value: unknown): object | undefined {
  const found = value instanceof Error ? value : (value as { err?: unknown } | null)?.err;
  if (!(found instanceof Error)) return undefined;
  const inner = (found as { errors?: unknown[] }).errors?.[0];
  return inner instanceof Error ? inner : found;
}

export async function createLog(options: LogOptions = {}): Promise<Logger> {
  // One failure, one line: Probot and the webhook middleware both log a refused delivery.
  const logged = new WeakSet<object>();
  const settings = {
    hooks: {
      logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
        const error = errorOf(args[0]);
        if (error) {
          if (logged.has(error)) return;
          logged.add(error);
          if (/signature does not match/i.test(serializeError(error).message)) {
            method.apply(this, [
              "a delivery was refused: its signature does not match WEBHOOK_SECRET (check the secret in the App's settings on GitHub and in WEBHOOK_SECRET)",
            ]);
            return;
          }
        }
        method.apply(this, args);
      },
    },
    level: options.level || "info",
    name: "probot",
    serializers: { err: serializeError },
    // Anything logged as a payload, an event or a header is dropped, whatever logged it.
    redact: { paths: ["event", "payload", "headers", "request", "response", "err.event"], remove: true },
  };
  if (options.format === "json" || options.destination) {
    return pino(settings, options.destination ?? pino.destination(1));
  }
  const transform = await getTransformStream({});
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  return pino(settings, transform);
}
