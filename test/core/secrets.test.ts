import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets, scanSecrets, secretSpanLists } from "../../src/core/kernel/secrets.js";

// Every fake secret is assembled at run time, so this file holds no literal that matches a pattern.
const cycle = (alphabet: string, length: number): string =>
  Array.from({ length }, (_, index) => alphabet[(index * 7) % alphabet.length]).join("");
const ALNUM = "Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXcVbNm";
const AWS_SECRET = cycle("wJalrXUtnFEMI/K7MDENG+bPxRfiCY=", 40);
const JWT = [
  "eyJ" + cycle("hbGciOiJIUzI1NiJ9", 20),
  "eyJ" + cycle("zdWIiOiIxMjM0NTY3ODkwIn0", 30),
  cycle(ALNUM, 43),
].join(".");
const BEGIN = (label: string): string => "-----" + "BEGIN " + label + "-----";

/** [description, line of text, the secret in it, kind reported]. */
const POSITIVES: [string, string, string, string][] = [
  ["a classic GitHub token", "token: " + "ghp_" + cycle(ALNUM, 36), "ghp_" + cycle(ALNUM, 36), "a GitHub token"],
  ...["gho_", "ghu_", "ghs_", "ghr_"].map((prefix): [string, string, string, string] => [
    `a ${prefix} GitHub token`,
    `use ${prefix}${cycle(ALNUM, 40)} here`,
    prefix + cycle(ALNUM, 40),
    "a GitHub token",
  ]),
  [
    "a fine-grained GitHub token",
    "github_pat_" + cycle(ALNUM, 22) + "_" + cycle(ALNUM, 59),
    "github_pat_" + cycle(ALNUM, 22) + "_" + cycle(ALNUM, 59),
    "a GitHub token",
  ],
  ["an AWS access key id", "key=" + "AKIA" + "Q1W2E3R4T5Y6U7I8", "AKIA" + "Q1W2E3R4T5Y6U7I8", "an AWS access key id"],
  ["an AWS session key id", "(" + "ASIA" + "Z9X8C7V6B5N4M3L2)", "ASIA" + "Z9X8C7V6B5N4M3L2", "an AWS access key id"],
  ...[
    "aws_secret_access_key = ",
    "AWS_SECRET_ACCESS_KEY=",
    '"aws_secret_access_key": "',
    "awsSecretAccessKey: ",
    "aws-secret-access-key: ",
    "export Aws_Secret_Access_Key='",
  ].map((prefix): [string, string, string, string] => [
    `an AWS secret access key as ${prefix.trim()}`,
    prefix + AWS_SECRET + (prefix.endsWith('"') ? '",' : prefix.endsWith("'") ? "'" : ""),
    AWS_SECRET,
    "an AWS secret access key",
  ]),
  ...["xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xapp-"].map((prefix): [string, string, string, string] => [
    `a ${prefix} Slack token`,
    `slack ${prefix}1234567890-${cycle(ALNUM, 24)}`,
    `${prefix}1234567890-${cycle(ALNUM, 24)}`,
    "a Slack token",
  ]),
  [
    "a Slack webhook URL",
    "webhook: " + "https://hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/" + cycle(ALNUM, 24),
    "https://hooks.slack.com/services/" + "T0A1B2C3D/B4E5F6G7H/" + cycle(ALNUM, 24),
    "a Slack webhook URL",
  ],
  ...["sk_live_", "sk_test_", "rk_live_", "rk_test_"].map((prefix): [string, string, string, string] => [
    `a ${prefix} Stripe key`,
    `stripe(${prefix}${cycle(ALNUM, 24)})`,
    prefix + cycle(ALNUM, 24),
    "a Stripe key",
  ]),
  [
    "a Google API key",
    'const key = "' + "AIza" + cycle(ALNUM + "_-", 35) + '";',
    "AIza" + cycle(ALNUM + "_-", 35),
    "a Google API key",
  ],
  ...["RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"].map(
    (label): [string, string, string, string] => [`a ${label}`, BEGIN(label), BEGIN(label), "a private key block"],
  ),
  ["a JWT", "Authorization: Bearer " + JWT, JWT, "a JSON Web Token"],
  ["a _PASSWORD assignment", "DB_PASSWORD=" + "hunter2hunter", "hunter2hunter", "a secret assignment"],
  ["a quoted _secret", "client_secret: " + '"abc123xyz"', "abc123xyz", "a secret assignment"],
  ["a JSON _TOKEN key", '  "API_TOKEN": ' + '"tok 1234 5678 90ab",', "tok 1234 5678 90ab", "a secret assignment"],
  ["an exported _TOKEN", "export GH_TOKEN" + "=" + cycle(ALNUM, 20), cycle(ALNUM, 20), "a secret assignment"],
  ["a dotted property", "spring.datasource.password = " + "s3cr3t-Pa55", "s3cr3t-Pa55", "a secret assignment"],
  ["a password", "password = " + "hunter2hunter2", "hunter2hunter2", "a secret assignment"],
  ["a passwd", "passwd: " + "'correct horse battery'", "correct horse battery", "a secret assignment"],
  ["a bare secret", "secret=" + "Zq9Xw8Vu7T", "Zq9Xw8Vu7T", "a secret assignment"],
  ["an api_key", "api_key: " + '"sk-live-1234567890"', "sk-live-1234567890", "a secret assignment"],
  ["an apiKey", "apiKey => " + "'K3yK3yK3yK3y'", "K3yK3yK3yK3y", "a secret assignment"],
  ["an access_token", "access_token=" + "at-98765-zyxwv", "at-98765-zyxwv", "a secret assignment"],
  ["an auth-token header", "x-auth-token: " + "Au7hT0k3nValue", "Au7hT0k3nValue", "a secret assignment"],
  ["a --password flag", "run --password=" + "Pa55w0rdPa55", "Pa55w0rdPa55", "a secret assignment"],
];

const NEGATIVES = [
  "password: <redacted>",
  "password=${PASSWORD}",
  "password = ${DB_PASSWORD}",
  "DB_PASSWORD=$DB_PASSWORD",
  'DB_PASSWORD: "${{ secrets.DB_PASSWORD }}"',
  "GH_TOKEN: ${{ secrets.GH_TOKEN }}",
  'API_TOKEN: "{{ api_token }}"',
  "api_key: ***",
  "client_secret: xxxxxxxx",
  "secret: changeme",
  "password: example-password",
  "auth_token: null",
  "access_token = none",
  "SESSION_TOKEN=true",
  "DB_PASSWORD=",
  'DB_PASSWORD=""',
  '"API_TOKEN": "",',
  "password: [redacted]",
  "pwd=abc",
  'const API_TOKEN = os.getenv("API_TOKEN")',
  'api_token = os.environ["API_TOKEN"]',
  "  password: string;",
  "function login(password: string): void",
  "DB_PASSWORD = process.env.DB_PASSWORD",
  "const secret = getSecret();",
  "the password is rotated weekly",
  "Set the token in your environment; tokens expire after 90 days.",
  "Ask for an access token in #ops, never paste the token itself.",
  "request 123e4567-e89b-12d3-a456-426614174000 failed",
  "fixed in da39a3ee5e6b4b0d3255bfef95601890afd80709",
  "aws_secret_access_key = <your secret key>",
  "AKIA is the prefix of an AWS access key id",
  "-----BEGIN CERTIFICATE-----",
  "-----BEGIN PUBLIC KEY-----",
  "pk_live_ keys are public",
  "eyJ alone is not a token",
];

/** Every substring of `secret` with 12 characters (or `secret` itself when shorter). */
function pieces(secret: string): string[] {
  if (secret.length <= 12) return [secret];
  return Array.from({ length: secret.length - 11 }, (_, index) => secret.slice(index, index + 12));
}

describe("scanSecrets and redactSecrets", () => {
  it.each(POSITIVES)("find and redact %s", (_, line, secret, kind) => {
    expect(line).toContain(secret);
    const text = `intro\n${line}\noutro\n`;
    expect(scanSecrets(text)).toEqual([{ line: 2, kind }]);
    const redacted = redactSecrets(text);
    expect(redacted).toContain("[redacted]");
    expect(redacted.startsWith("intro\n")).toBe(true);
    expect(redacted.endsWith("\noutro\n")).toBe(true);
    for (const piece of pieces(secret)) expect(redacted).not.toContain(piece);
    expect(scanSecrets(redacted)).toEqual([]);
  });

  it.each(NEGATIVES)("ignore %s", (line) => {
    const text = `intro\n${line}\n`;
    expect(scanSecrets(text)).toEqual([]);
    expect(redactSecrets(text)).toBe(text);
  });

  it("keeps the name and the separator of an assignment", () => {
    expect(redactSecrets("DB_PASSWORD=" + "hunter2hunter")).toBe("DB_PASSWORD=[redacted]");
    expect(redactSecrets('{"API_TOKEN": ' + '"abc123xyz"}')).toBe('{"API_TOKEN": "[redacted]"}');
    expect(redactSecrets("{password: " + "hunter2hunter};")).toBe("{password: [redacted]};");
    expect(redactSecrets("aws_secret_access_key = " + AWS_SECRET)).toBe("aws_secret_access_key = [redacted]");
    expect(redactSecrets("token: ghp_" + cycle(ALNUM, 36) + ".")).toBe("token: [redacted].");
  });

  it("redacts the BEGIN line of a private key block", () => {
    const block = [BEGIN("RSA PRIVATE KEY"), "MIIEowIBAAKCAQEA", "-----" + "END RSA PRIVATE KEY-----"].join("\n");
    expect(scanSecrets(`key:\n${block}\n`)).toEqual([{ line: 2, kind: "a private key block" }]);
    expect(redactSecrets(`key:\n${block}\n`)).toBe(`key:\n[redacted]\n${block.split("\n").slice(1).join("\n")}\n`);
  });

  it("redacts every secret on a line and reports the line once", () => {
    const token = "ghp_" + cycle(ALNUM, 36);
    const keyId = "AKIA" + "Q1W2E3R4T5Y6U7I8";
    const line = "DB_PASSWORD" + `=hunter2hunter GH_TOKEN=${token} id=${keyId} ${token} api_key: ` + '"p4ss phrase"';
    expect(scanSecrets(`${line}\n${line}`)).toEqual([
      { line: 1, kind: "a GitHub token" },
      { line: 2, kind: "a GitHub token" },
    ]);
    const expected = 'DB_PASSWORD=[redacted] GH_TOKEN=[redacted] id=[redacted] [redacted] api_key: "[redacted]"';
    expect(redactSecrets(`${line}\n${line}`)).toBe(`${expected}\n${expected}`);
  });

  it("finds a secret after a placeholder on the same line", () => {
    const line = "password=${PASSWORD} secret=" + "hunter2hunter";
    expect(scanSecrets(line)).toEqual([{ line: 1, kind: "a secret assignment" }]);
    expect(redactSecrets(line)).toBe("password=${PASSWORD} secret=[redacted]");
  });

  it("is idempotent", () => {
    const text = [...POSITIVES.map(([, line]) => line), ...NEGATIVES, POSITIVES.map(([, line]) => line).join(" ")].join(
      "\n",
    );
    const once = redactSecrets(text);
    expect(once).not.toBe(text);
    expect(redactSecrets(once)).toBe(once);
    expect(scanSecrets(once)).toEqual([]);
  });

  it.each([
    ["a key id before a key block", "AKIA" + "Q1W2E3R4T5Y6U7I8", BEGIN("RSA PRIVATE KEY")],
    ["a Google key before a key block", "AIza" + cycle(ALNUM, 35), BEGIN("RSA PRIVATE KEY")],
    ["a key block before a JWT", BEGIN("RSA PRIVATE KEY"), JWT],
    ["a key block as a token's value", "GH_TOKEN" + ":", BEGIN("RSA PRIVATE KEY") + ":AKIA" + "Q1W2E3R4T5Y6U7I8aws"],
    [
      "an AWS secret before a webhook",
      "aws_secret_access_key" + ":" + AWS_SECRET,
      "https://hooks.slack.com/services/" + "T0/B0/abcdefghij",
    ],
    ["a Slack token before a key id", "xoxb-" + "1234567890", "AKIA" + "Q1W2E3R4T5Y6U7I8"],
  ])("is idempotent with %s", (_, left, right) => {
    const once = redactSecrets(left + right);
    expect(redactSecrets(once)).toBe(once);
    expect(scanSecrets(once)).toEqual([]);
  });

  it("leaves text without secrets byte-identical", () => {
    const text = "# Notes\r\n\r\nNo secrets here: just a token of thanks.\n\ttabs\u00a0and ünïcode 🎉\n";
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets("")).toBe("");
  });

  it.each([
    ["a's", "a".repeat(1 << 20)],
    ["password-equals repetitions", ("password" + "=").repeat(1 << 17)],
    ["password repetitions", "password ".repeat(1 << 17)],
    ["a_ repetitions", "a_".repeat(1 << 19)],
    ["a_token-colon repetitions", ("a_token" + ":").repeat(1 << 17)],
    ["password-colon-quote repetitions", ("password" + ':"').repeat(1 << 17)],
    ["password-equals-semicolon repetitions", ("password" + "=;;;;;;;; ").repeat(1 << 17)],
    ["Slack prefixes", "xoxb-".repeat(1 << 18)],
    ["JWT-like segments", "eyJa.".repeat(1 << 18)],
    ["BEGIN words", "-----BEGIN " + "A ".repeat(1 << 19)],
    ["dashes", "-".repeat(1 << 20)],
    ["Google prefixes", "-AIza".repeat(1 << 18)],
  ])("finishes on a 1 MB line of %s", (_, line) => {
    // Finishes (a catastrophic pattern would not, within the test's timeout) and finds nothing to
    // redact that is not a secret; its time grows linearly, which `npm run bench` measures.
    expect(scanSecrets(line).every((finding) => finding.line === 1)).toBe(true);
    expect(redactSecrets(line).length).toBeGreaterThan(0);
  });

  it("redacts what sorting every secret by start and joining the overlaps gives", () => {
    // The reference: all spans of all patterns in one list, sorted, overlapping and touching ones
    // joined. `redactSecrets` merges the per-pattern lists as it walks them instead.
    const reference = (text: string): string => {
      const spans = secretSpanLists(text)
        .flatMap((list) => list.flatMap((value, index) => (index % 2 === 0 ? [[value, list[index + 1]!]] : [])))
        .sort((a, b) => a[0]! - b[0]! || b[1]! - a[1]!);
      let result = "";
      let copied = 0;
      for (let index = 0; index < spans.length; ) {
        const start = spans[index]![0]!;
        let end = spans[index]![1]!;
        for (index += 1; index < spans.length && spans[index]![0]! <= end; index += 1)
          end = Math.max(end, spans[index]![1]!);
        result += text.slice(copied, start) + "[redacted]";
        copied = end;
      }
      return spans.length === 0 ? text : result + text.slice(copied);
    };
    // Texts of secrets of every kind, glued to each other, to separators and to assignment names,
    // so that spans of different patterns start together, nest, overlap and touch.
    const secrets = POSITIVES.map(([, , secret]) => secret);
    const glue = ["", " ", "=", ": ", "\n", ".", "-", "GH_TOKEN=", "password: ", '"', "aws_secret_access_key="];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...secrets), fc.constantFrom(...glue), fc.string({ maxLength: 6 })), {
        maxLength: 12,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (value) => {
        expect(redactSecrets(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
    // Spans of several patterns on one text, so the walk really merges lists.
    const mixed = [secrets.join(" "), "GH_TOKEN" + "=" + JWT, secrets.join("")].join(" ");
    expect(secretSpanLists(mixed).length).toBeGreaterThan(3);
    expect(redactSecrets(mixed)).toBe(reference(mixed));
  });

  it("keeps a flat list of spans in order of start, two numbers per secret", () => {
    const line = "id=" + "AKIA" + "Q1W2E3R4T5Y6U7I8" + " then " + "AKIA" + "Z9X8C7V6B5N4M3L2" + " " + JWT;
    const lists = secretSpanLists(line);
    expect(lists.map((list) => list.length)).toEqual([4, 2]);
    const [keys] = lists;
    expect(line.slice(keys![0], keys![1])).toBe("AKIA" + "Q1W2E3R4T5Y6U7I8");
    expect(line.slice(keys![2], keys![3])).toBe("AKIA" + "Z9X8C7V6B5N4M3L2");
  });

  it("finds no secret in this test file", () => {
    expect(scanSecrets(readFileSync(new URL(import.meta.url), "utf8"))).toEqual([]);
  });
});
