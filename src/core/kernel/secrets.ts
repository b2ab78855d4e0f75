/**
 * Finds credentials in text that must never be committed: GitHub, Slack, Stripe and Google tokens,
 * AWS keys, JWTs, private-key blocks and `password=`-style assignments. Findings carry the line and
 * the kind only; the secret itself is never returned, so no report, log or comment can repeat it.
 * `redactSecrets` uses the same pattern table to blank the secrets out of a text.
 *
 * The patterns are meant to run in linear time on V8's backtracking engine: a token or a name may
 * only start where its run of characters starts (a look-behind), so each run is tried once, and no
 * pattern crosses a line break, so scanning line by line and redacting the whole text agree.
 */

export interface SecretFinding {
  readonly line: number;
  readonly kind: string;
}

interface SecretPattern {
  readonly kind: string;
  /**
   * Global, and with indices (`d`) when it has named groups: indices cost an allocation per match,
   * which a text of a million tokens feels. Without a named group the whole match is the secret; otherwise the
   * named group that took part is, and a placeholder there is no secret. A group named `bare` is an
   * unquoted value, whose trailing `,`, `;`, `:` and unmatched `)`, `]`, `}` are punctuation.
   */
  readonly pattern: RegExp;
}

/** What `redactSecrets` puts in place of a secret. */
const REDACTED = "[redacted]";

/**
 * Look-arounds that keep a token from starting or ending inside a longer run of `chars`. Next to
 * `[redacted]` (REDACTED) a token counts as inside a run too, so redacting a neighbour uncovers
 * nothing new.
 */
const notAfter = (chars: string): string => String.raw`(?<![${chars}]|\[redacted\])`;
const notBefore = (chars: string): string => String.raw`(?![${chars}]|\[redacted\])`;

/** What an assignment's name ends with; `token` alone is too common, so it needs a prefix. */
const SECRET_NAME = String.raw`(?<![A-Za-z0-9_.-])(?:(?:[A-Za-z0-9_.-]*[_.-])?(?:password|passwd|pwd|secret(?:[_-]?key)?|api[_-]?key|access[_-]?token|auth[_-]?token)|[A-Za-z0-9_.-]*[_.-]token)(?![A-Za-z0-9_.-])`;

/** `=`, `:`, `:=` or `=>`, after an optional closing quote of a JSON or YAML key. */
const ASSIGN = String.raw`["']?[ \t]*(?:=>|:=|[:=])[ \t]*`;

/** A literal of six or more characters, quoted (may hold spaces) or bare (up to white space). */
const VALUE = String.raw`(?:"(?<double>[^"\r\n]{6,})"|'(?<single>[^'\r\n]{6,})'|\x60(?<tick>[^\x60\r\n]{6,})\x60|["']?(?<bare>[^\s"'\x60]{6,}))`;

const PATTERNS: readonly SecretPattern[] = [
  {
    kind: "a GitHub token",
    pattern: new RegExp(
      String.raw`${notAfter("A-Za-z0-9_")}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`,
      "g",
    ),
  },
  {
    kind: "an AWS access key id",
    pattern: new RegExp(String.raw`${notAfter("A-Za-z0-9")}(?:AKIA|ASIA)[0-9A-Z]{16}${notBefore("A-Za-z0-9")}`, "g"),
  },
  {
    kind: "an AWS secret access key",
    pattern: new RegExp(
      String.raw`${notAfter("A-Za-z0-9")}aws[_-]?secret[_-]?access[_-]?key${ASSIGN}["']?(?<value>[A-Za-z0-9/+=]{40})${notBefore("A-Za-z0-9/+=")}`,
      "dgi",
    ),
  },
  { kind: "a private key block", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  {
    kind: "a Slack token",
    pattern: new RegExp(String.raw`${notAfter("A-Za-z0-9-")}(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}`, "g"),
  },
  {
    kind: "a Slack webhook URL",
    pattern: /https?:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_]+\/[A-Za-z0-9_]+\/[A-Za-z0-9_]{8,}/g,
  },
  {
    kind: "a Stripe key",
    pattern: new RegExp(String.raw`${notAfter("A-Za-z0-9_")}[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`, "g"),
  },
  {
    kind: "a Google API key",
    pattern: new RegExp(String.raw`${notAfter("A-Za-z0-9_-")}AIza[A-Za-z0-9_-]{35}${notBefore("A-Za-z0-9_-")}`, "g"),
  },
  {
    kind: "a JSON Web Token",
    pattern: new RegExp(
      String.raw`${notAfter("A-Za-z0-9_-")}eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`,
      "g",
    ),
  },
  { kind: "a secret assignment", pattern: new RegExp(SECRET_NAME + ASSIGN + VALUE, "dgi") },
];

// Indices exactly where a named group needs them (see `SecretPattern.pattern`).
for (const { kind, pattern } of PATTERNS) {
  if (/\(\?<[A-Za-z_$]/.test(pattern.source) !== pattern.hasIndices || !pattern.global) {
    throw new Error(`secret pattern for ${kind}: flags ${pattern.flags} do not fit its groups`);
  }
}

/**
 * Text every secret above contains (case-insensitive): a text without any of these holds no secret,
 * so the common case costs one scan. Keep it a superset of what the patterns need.
 */
const MAY_HOLD_SECRET =
  /gh[pousr]_|github_pat_|AKIA|ASIA|aws|PRIVATE KEY|xox|xapp-|hooks\.slack|k_live_|k_test_|AIza|eyJ|passw|pwd|secret|key|token/i;

/** Whether `text` may hold a secret at all; when not, `scanSecrets` finds none (and costs one search). */
export function mayHoldSecret(text: string): boolean {
  return MAY_HOLD_SECRET.test(text);
}

/**
 * Values that only stand in for a secret, or refer to one kept elsewhere: templates, environment
 * variables, calls and indexing (`getenv(`, `os.environ[`) and type names.
 */
const PLACEHOLDER =
  /^(?:\*+|x+|\.{3,}|<[^>]*>|\$\{[^}]*\}|\$\{\{[^}]*\}\}|\$\([^)]*\)|\$[A-Z_][A-Z0-9_]*|%[^%]+%|\{\{[^}]*\}\}|process\.env\.\w+|[A-Z_$][\w.$]*(?:[([]|\(\))|redacted|changeme|example\S*|string|null|none|true|false)$/i;

/** The shortest value that counts as a secret. */
const MIN_VALUE = 6;

/** Where `value` ends once the punctuation that follows a bare value is left out. */
function bareEnd(value: string): number {
  const open: Record<string, number> = { ")": 0, "]": 0, "}": 0 };
  const close: Record<string, number> = { ")": 0, "]": 0, "}": 0 };
  for (const char of value) {
    if (char === "(") open[")"]! += 1;
    else if (char === "[") open["]"]! += 1;
    else if (char === "{") open["}"]! += 1;
    else if (char in close) close[char]! += 1;
  }
  let end = value.length;
  for (;;) {
    const last = value[end - 1] ?? "";
    if (last === "," || last === ";" || last === ":") end -= 1;
    else if (last in close && close[last]! > open[last]!) {
      close[last]! -= 1;
      end -= 1;
    } else return end;
  }
}

/**
 * The secrets `pattern` finds in `text`, in order, as a flat list of numbers (start, end, start,
 * end, ...): a text with a million tokens holds no object per token. Only the first secret when
 * `first` is set.
 */
function secretSpans(pattern: RegExp, text: string, first: boolean): number[] {
  const spans: number[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    let start = match.index;
    let end = pattern.lastIndex;
    const groups = match.indices?.groups;
    const name = groups && Object.keys(groups).find((key) => groups[key] !== undefined);
    if (name !== undefined) {
      const [from, to] = groups![name]!;
      start = from;
      end = name === "bare" ? from + bareEnd(text.slice(from, to)) : to;
      const value = text.slice(start, end).trim();
      // A value holding `[redacted]` has been redacted already, maybe together with a neighbour.
      if (value.length < MIN_VALUE || value.includes(REDACTED) || PLACEHOLDER.test(value)) continue;
    }
    spans.push(start, end);
    if (first) break;
  }
  pattern.lastIndex = 0;
  return spans;
}

/**
 * Scans `text` for credentials and returns one finding per line that holds any: the 1-based line
 * and the kind of the first pattern that matched it. The secret itself is never part of a finding.
 */
export function scanSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  if (!MAY_HOLD_SECRET.test(text)) return findings;
  text.split("\n").forEach((line, index) => {
    // The same test per line: most lines of a text that may hold a secret hold none.
    if (!MAY_HOLD_SECRET.test(line)) return;
    const found = PATTERNS.find(({ pattern }) => secretSpans(pattern, line, true).length > 0);
    if (found) findings.push({ line: index + 1, kind: found.kind });
  });
  return findings;
}

/**
 * Every secret in `text`, per pattern that finds any: each list flat (start, end, start, end, ...)
 * and in order of start. What `redactSecrets` merges; exported for its tests.
 */
export function secretSpanLists(text: string): number[][] {
  return PATTERNS.map(({ pattern }) => secretSpans(pattern, text, false)).filter((list) => list.length > 0);
}

/**
 * Returns `text` with every secret that `scanSecrets` would report replaced by `[redacted]`: the
 * whole token, only the value of an assignment (its name and `=`/`:` stay) and the BEGIN line of a
 * private-key block. Text without secrets comes back unchanged, and redacting twice changes nothing.
 *
 * Each pattern's secrets come in order already, so they are merged as they are walked rather than
 * sorted, and overlapping ones are joined: linear in the number of secrets.
 */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  const lists = secretSpanLists(text);
  if (lists.length === 0) return text;
  const next = lists.map(() => 0);
  let result = "";
  let copied = 0;
  // The span being redacted: it grows while the next span starts inside it.
  let start = -1;
  let end = -1;
  for (;;) {
    // The list whose next span starts first (spans that start together join whatever their order).
    let best = -1;
    let from = Infinity;
    for (let list = 0; list < lists.length; list++) {
      const head = lists[list]![next[list]!];
      if (head !== undefined && head < from) {
        best = list;
        from = head;
      }
    }
    if (start >= 0 && from > end) {
      result += text.slice(copied, start) + REDACTED;
      copied = end;
      start = -1;
    }
    if (best < 0) break;
    const to = lists[best]![next[best]! + 1]!;
    next[best]! += 2;
    if (start < 0) {
      start = from;
      end = to;
    } else end = Math.max(end, to);
  }
  return result + text.slice(copied);
}

/**
 * A copy of a plain value (a report, an explanation) with `redactSecrets` applied to every string
 * in it, keys included. Everything taskgate prints passes through here, so no text a user wrote
 * (a review body, a path, a task id, an owner) can repeat a secret.
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redactSecrets(value) as T;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = redactDeep(value[index] as unknown);
      if (item !== value[index]) (copy ??= [...value])[index] = item;
    }
    return (copy ?? value) as T;
  }
  // Untouched values are returned as they are: redacting a clean report allocates nothing.
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const clean = redactSecrets(key);
    const item = redactDeep(record[key]);
    if (clean === key && item === record[key]) continue;
    copy ??= { ...record };
    if (clean !== key) delete copy[key];
    Object.defineProperty(copy, clean, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return (copy ?? value) as T;
}
