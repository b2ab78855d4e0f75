import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/core/kernel/secrets.js";
import { finalText, inertMarkdown, inertPlain } from "../../src/github/inert.js";

const Z = "\u200b";

// Every fake secret is assembled at run time, so this file holds no literal that matches a pattern.
const cycle = (alphabet: string, length: number): string =>
  Array.from({ length }, (_, index) => alphabet[(index * 7) % alphabet.length]).join("");
const ALNUM = "Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXcVbNm";
const TOKEN = "ghp_" + cycle(ALNUM, 36);
const WEBHOOK =
  "https://hooks.slack.com/services/" + ["T0" + cycle(ALNUM, 8), "B0" + cycle(ALNUM, 8), cycle(ALNUM, 24)].join("/");

/** Every run of 8 characters of `secret` that `text` still holds. */
const leaks = (text: string, secret: string): string[] =>
  Array.from({ length: secret.length - 7 }, (_, index) => secret.slice(index, index + 8)).filter((piece) =>
    text.includes(piece),
  );

/** What GitHub would still act on in a text: each must find nothing in an inert one. */
const LIVE: Record<string, RegExp> = {
  mention: /@[A-Za-z0-9]/,
  url: /:\/\//,
  www: /(?<![A-Za-z0-9])www\./i,
  reference: /#[0-9]/,
  gh: /GH-[0-9]/i,
};
/** In Markdown also: HTML, and a link, code, table or math character not escaped by a backslash. */
const LIVE_MARKDOWN: Record<string, RegExp> = {
  ...LIVE,
  html: /[<>]/,
  unescaped: /(?:^|[^\\])(?:\\\\)*[[\]`|$]/,
  newline: /[\r\n]/,
};

const NASTY = [
  "@alice",
  "@acme/leads please look",
  "x @bob",
  "email a@b.com",
  "[x](https://evil)",
  "![x](https://evil/p.png)",
  "go to http://evil.com, https://evil.com/x, ftp://evil.com or foo+bar://evil",
  "www.evil.com and (www.evil.com) and WWW.EVIL.COM",
  "#12",
  "fixes acme/web#12",
  "GH-7 and gh-8",
  "<img src=x onerror=1>",
  "<!-- -->",
  "`code` and ``more``",
  "a|b\nc\r\nd\re",
  "\\[x](https://evil) \\\\[y](https://evil)",
  "&#64;alice &commat;bob",
  "$x^2$",
  "[ ] [^1] [ref]: https://evil",
  "mailto:a@b.com <https://evil>",
  "@@alice #\u200b #",
];

function expectInert(text: string, rules: Record<string, RegExp>): void {
  for (const [name, pattern] of Object.entries(rules))
    expect(text, `${name} in ${JSON.stringify(text)}`).not.toMatch(pattern);
}

describe("inertMarkdown", () => {
  it("breaks user and team mentions, and e-mail autolinks, with a zero-width space after @", () => {
    expect(inertMarkdown("@alice")).toBe(`@${Z}alice`);
    expect(inertMarkdown("@acme/leads")).toBe(`@${Z}acme/leads`);
    expect(inertMarkdown("x @bob")).toBe(`x @${Z}bob`);
    expect(inertMarkdown("email a@b.com")).toBe(`email a@${Z}b.com`);
    expect(inertMarkdown("@ alone and a@")).toBe("@ alone and a@");
  });

  it("holds the check GitHub's own rendering depends on: a team mention gets @ + U+200B", () => {
    expect(inertMarkdown("@acme/leads")).toContain("@\u200b");
    expect(inertMarkdown("@acme/leads")).not.toMatch(/@[A-Za-z0-9]/);
  });

  it("escapes link and image brackets, and breaks the URL inside", () => {
    expect(inertMarkdown("[x](https://evil)")).toBe(`\\[x\\](https:${Z}//evil)`);
    expect(inertMarkdown("![x](https://evil/p.png)")).toBe(`!\\[x\\](https:${Z}//evil/p.png)`);
    expect(inertMarkdown("[x][ref] [^1] [ ]")).toBe("\\[x\\]\\[ref\\] \\[^1\\] \\[ \\]");
  });

  it("breaks bare URL autolinks of any scheme after the colon", () => {
    expect(inertMarkdown("see http://evil.com and https://evil.com/x")).toBe(
      `see http:${Z}//evil.com and https:${Z}//evil.com/x`,
    );
    expect(inertMarkdown("ftp://evil.com foo+bar://evil")).toBe(`ftp:${Z}//evil.com foo+bar:${Z}//evil`);
  });

  it("breaks www autolinks where a word starts", () => {
    expect(inertMarkdown("www.evil.com")).toBe(`www${Z}.evil.com`);
    expect(inertMarkdown("(www.evil.com)")).toBe(`(www${Z}.evil.com)`);
    expect(inertMarkdown("WWW.evil.com")).toBe(`WWW${Z}.evil.com`);
    expect(inertMarkdown("awww.no")).toBe("awww.no");
  });

  it("breaks issue and pull request references", () => {
    expect(inertMarkdown("#12")).toBe(`#${Z}12`);
    expect(inertMarkdown("fixes acme/web#12")).toBe(`fixes acme/web#${Z}12`);
    expect(inertMarkdown("GH-7")).toBe(`GH-${Z}7`);
    expect(inertMarkdown("gh-7")).toBe(`gh-${Z}7`);
    expect(inertMarkdown("# heading-less #x")).toBe("\\# heading-less #x");
  });

  it("turns HTML, comments included, into entities, and escapes & first", () => {
    expect(inertMarkdown("<img src=x onerror=1>")).toBe("&lt;img src=x onerror=1&gt;");
    expect(inertMarkdown("<!-- -->")).toBe("&lt;!-- --&gt;");
    // An entity could otherwise spell a mention once GitHub decodes it.
    expect(inertMarkdown("&#64;alice")).toBe(`&amp;#${Z}64;alice`);
  });

  it("escapes backticks so no code span opens", () => {
    expect(inertMarkdown("`code`")).toBe("\\`code\\`");
    expect(inertMarkdown("``x``")).toBe("\\`\\`x\\`\\`");
  });

  it("escapes pipes and a backslash, and turns every line break into a space", () => {
    expect(inertMarkdown("a|b")).toBe("a\\|b");
    expect(inertMarkdown("a\nb\r\nc\rd")).toBe("a b c d");
    // A backslash in the text cannot cancel the escape of what follows it.
    expect(inertMarkdown("\\[x](y)")).toBe("\\\\\\[x\\](y)");
    expect(inertMarkdown("\\|")).toBe("\\\\\\|");
  });

  it("escapes math and a block marker at the start of the text", () => {
    expect(inertMarkdown("$x$")).toBe("\\$x\\$");
    expect(inertMarkdown("# Approved")).toBe("\\# Approved");
    expect(inertMarkdown("- item")).toBe("\\- item");
    expect(inertMarkdown("1. one")).toBe("1\\. one");
    expect(inertMarkdown("---")).toBe("\\---");
    expect(inertMarkdown("~~~")).toBe("\\~~~");
    expect(inertMarkdown("a - b")).toBe("a - b");
  });

  it("returns nothing for nothing, and text for numbers", () => {
    expect(inertMarkdown(null)).toBe("");
    expect(inertMarkdown(undefined)).toBe("");
    expect(inertMarkdown("")).toBe("");
    expect(inertMarkdown(42)).toBe("42");
    expect(inertMarkdown("plain words")).toBe("plain words");
  });

  it("leaves nothing live, applied once or twice", () => {
    for (const text of NASTY) {
      expectInert(inertMarkdown(text), LIVE_MARKDOWN);
      expectInert(inertMarkdown(inertMarkdown(text)), LIVE_MARKDOWN);
    }
  });

  it("redacts a secret before breaking its shape", () => {
    const inert = inertMarkdown(`hook ${WEBHOOK} and ${TOKEN}`);
    expect(inert).toBe("hook \\[redacted\\] and \\[redacted\\]");
    expect(leaks(finalText(inert, 1000), WEBHOOK)).toEqual([]);
  });
});

describe("inertPlain", () => {
  it("breaks mentions, URLs and references, and nothing else", () => {
    expect(inertPlain("<b>@alice</b> & @acme/leads\n[x](https://evil) www.evil.com #1 acme/web#2 GH-3 `c` a|b")).toBe(
      `<b>@${Z}alice</b> & @${Z}acme/leads\n[x](https:${Z}//evil) www${Z}.evil.com #${Z}1 acme/web#${Z}2 GH-${Z}3 \`c\` a|b`,
    );
  });

  it("keeps line breaks and writes no entity or backslash", () => {
    const plain = inertPlain("<img src=x>\nline two\r\nthree");
    expect(plain).toBe("<img src=x>\nline two\r\nthree");
    expect(plain).not.toContain("&lt;");
    expect(plain).not.toContain("\\");
  });

  it("is idempotent and leaves nothing live", () => {
    for (const text of NASTY) {
      const once = inertPlain(text);
      expectInert(once, LIVE);
      expect(inertPlain(once)).toBe(once);
    }
    expect(inertPlain(null)).toBe("");
    expect(inertPlain(7)).toBe("7");
  });

  it("redacts secrets", () => {
    expect(inertPlain(`token ${TOKEN}`)).toBe("token [redacted]");
  });
});

describe("finalText", () => {
  /** The default note, as a reader sees it. */
  const noteFor = (limit: number): string =>
    `\n\n_Cut short: GitHub shows at most ${limit.toLocaleString("en-US")} characters here. Run \`taskgate check\` locally for every finding._\n`;
  const NOTE = noteFor(200);

  it("leaves a text under the limit as it is, apart from redaction", () => {
    expect(finalText("all is well\n@alice", 100)).toBe("all is well\n@alice");
    const secret = `line one\ntoken ${TOKEN}\nline three`;
    expect(finalText(secret, 1000)).toBe(redactSecrets(secret));
    expect(finalText(secret, 1000)).toBe("line one\ntoken [redacted]\nline three");
  });

  it("redacts a token the limit cuts through as a whole, keeping the note", () => {
    const limit = 200;
    const cutAt = limit - NOTE.length;
    const before = "a".repeat(cutAt - 21) + " ";
    const text = `${before}${TOKEN} ${"b".repeat(300)}`;
    // Cutting first would leave the first 20 characters of the token.
    expect(text.slice(0, cutAt)).toContain(TOKEN.slice(0, 20));

    const out = finalText(text, limit);
    expect(leaks(out, TOKEN)).toEqual([]);
    expect(out).toContain("[redacted]");
    expect(out.length).toBeLessThanOrEqual(limit);
    expect(out.endsWith(NOTE)).toBe(true);
    expect(out).toBe(`${before}[redacted] ${"b".repeat(cutAt - before.length - 11)}${NOTE}`);
  });

  it("cuts at a line boundary, dropping a token's line whole", () => {
    const text = [`first ${TOKEN}`, "x".repeat(40), `second ${TOKEN}`, "y".repeat(300)].join("\n");
    const out = finalText(text, 60 + NOTE.length, NOTE);
    expect(out).toBe(`first [redacted]\n${"x".repeat(40)}${NOTE}`);
    expect(leaks(out, TOKEN)).toEqual([]);
  });

  it("never splits the redaction marker", () => {
    const text = `${"x".repeat(20)} ${TOKEN} ${"y".repeat(300)}`;
    const out = finalText(text, 25 + NOTE.length, NOTE);
    expect(out).toBe(`${"x".repeat(20)} ${NOTE}`);
  });

  it("redacts once more what the cut made a secret", () => {
    // `<...>` is a placeholder, not a password; cut before its `>` it is one.
    const text = `password=<${"a".repeat(300)}>`;
    expect(redactSecrets(text)).toBe(text);
    const out = finalText(text, 50 + NOTE.length, NOTE);
    expect(out).toBe(`password=[redacted]${NOTE}`);
  });

  it("cuts more when the last redaction makes the text longer or takes in the note", () => {
    const text = `password=<${"a".repeat(300)}>`;
    // `password=<aaaaa` would become `password=[redacted]`: four characters over the limit.
    expect(finalText(text, 15 + NOTE.length, NOTE)).toBe(`password=<a${NOTE}`);
    // `password=<aaaa` and `…` would make a six-character value, and the note would be redacted.
    const out = finalText(text, 15, "…");
    expect(out).toBe("password=<…");
  });

  it("keeps a note of the caller's, and the length, for every limit", () => {
    const text = Array.from({ length: 30 }, (_, index) => `line ${index} @user ${TOKEN} ${"z".repeat(index)}`).join(
      "\n",
    );
    for (let limit = 0; limit <= text.length + 10; limit += 7) {
      for (const note of [undefined, " …", "\n(cut)"]) {
        const out = finalText(text, limit, note);
        expect(out.length).toBeLessThanOrEqual(limit);
        expect(leaks(out, TOKEN)).toEqual([]);
        const tail = note ?? noteFor(limit);
        if (redactSecrets(text).length > limit && limit >= tail.length) {
          expect(out.endsWith(tail), `${limit} ${JSON.stringify(note)}`).toBe(true);
        }
      }
    }
  });

  it("uses a note that says the text was cut and how to see everything", () => {
    const out = finalText("x\n".repeat(40_000), 65_535);
    expect(out.length).toBeLessThanOrEqual(65_535);
    expect(out).toMatch(/Cut short: GitHub shows at most 65,535 characters here\. Run `taskgate check` locally/);
  });
});
