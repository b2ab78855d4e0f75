/**
 * Finds credentials in text that must never be committed: GitHub tokens, AWS keys, private-key
 * blocks and `password=`-style assignments. Findings carry the line and the kind only; the secret
 * itself is never returned, so no report, log or comment can repeat it.
 */

export interface SecretFinding {
  readonly line: number;
  readonly kind: string;
}

const PATTERNS: readonly { kind: string; pattern: RegExp }[] = [
  { kind: "a GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: "an AWS access key id", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  {
    kind: "an AWS secret access key",
    pattern: /aws_secret_access_key\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/i,
  },
  { kind: "a private key block", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/ },
  { kind: "a Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  {
    kind: "a password assignment",
    pattern:
      /\b(?:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token)\b["']?\s*[:=]\s*["']?([^\s"'`]{6,})/i,
  },
];

/** Values that only stand in for a secret. */
const PLACEHOLDER =
  /^(?:\*+|x+|\.{3,}|<[^>]*>|\$\{[^}]*\}|\$[A-Z_]+|%[^%]+%|\{\{[^}]*\}\}|redacted|changeme|example\w*|null|none|true|false)$/i;

export function scanSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    for (const { kind, pattern } of PATTERNS) {
      const match = pattern.exec(line);
      if (!match) continue;
      if (kind === "a password assignment" && PLACEHOLDER.test(match[1] ?? "")) continue;
      findings.push({ line: index + 1, kind });
      break;
    }
  });
  return findings;
}
