import { describe, expect, it } from "vitest";
import { checkIdentity, isSecretName, redactCommand } from "../../src/receipts/identity.ts";
import { type CommandCheck, CommandCheckSchema } from "../../src/verifier/checks/command.ts";

// Token-shaped fixtures are assembled here so no scanner mistakes this file for a leak.
const GITHUB = `ghp_${"A1b2C3d4E5f6".repeat(3)}`;
const GITHUB_PAT = `github_pat_${"11ABCDEFG0".repeat(3)}_${"x9".repeat(20)}`;
const OPENAI = `sk-proj-${"Ab3De6Gh9J".repeat(4)}`;
const SLACK = `xoxb-${"1234567890"}-${"0987654321"}-${"AbCdEfGhIjKl"}`;
const AWS = `AKIA${"IOSFODNN7EXAMPLE"}`;
const NPM = `npm_${"aB3dE6gH9j".repeat(3)}aB3dE6`;
const GITLAB = `glpat-${"xY7zW8vU9t".repeat(2)}`;
const GOOGLE = `AIza${"Sy0123456789abcdefghijklmnopqrstuvw"}`;

/** [what it shows, command, redacted command]; the command itself when nothing must change. */
const CASES: Array<[string, string, string]> = [
  // URLs
  [
    "user and password in a URL",
    "git clone https://alice:hunter2@github.com/o/r.git",
    "git clone https://***@github.com/o/r.git",
  ],
  [
    "a bare token as a URL user",
    `git clone https://${GITHUB}@github.com/o/r.git`,
    "git clone https://***@github.com/o/r.git",
  ],
  [
    "a token with x-oauth-basic",
    "git push https://abc123:x-oauth-basic@github.com/o/r.git HEAD",
    "git push https://***@github.com/o/r.git HEAD",
  ],
  [
    "a database URL",
    'psql "postgres://app:s3cr3t@db:5432/app" -c "select 1"',
    'psql "postgres://***@db:5432/app" -c "select 1"',
  ],
  [
    "a password-only redis URL",
    "redis-cli -u redis://:pw@localhost:6379",
    "redis-cli -u redis://***@localhost:6379",
  ],
  // Flags
  ["--password=x", "mytool --password=hunter2 run", "mytool --password=*** run"],
  ["--password x", "mytool --password hunter2 run", "mytool --password *** run"],
  ["--token x", "gh api --token abc123 /user", "gh api --token *** /user"],
  ["--token=x", "deploy --token=abc123", "deploy --token=***"],
  ["--api-key=x", "cli --api-key=k-123 list", "cli --api-key=*** list"],
  ["--api_key x", "cli --api_key k-123", "cli --api_key ***"],
  ["--secret with a quoted value", 'vault --secret "a b c" --verbose', 'vault --secret "***" --verbose'],
  ["--auth user:pass", "http --auth alice:pw example.com", "http --auth *** example.com"],
  ["a prefixed flag", "release --github-token=xyz --draft", "release --github-token=*** --draft"],
  ["a flag in capitals", "tool --PASSWORD secret", "tool --PASSWORD ***"],
  // Assignments
  ["an env assignment", "GITHUB_TOKEN=abc npm publish", "GITHUB_TOKEN=*** npm publish"],
  ["an export", "export NPM_TOKEN=abc && npm ci", "export NPM_TOKEN=*** && npm ci"],
  ["a quoted assignment", "DB_PASSWORD='p w' node db.js", "DB_PASSWORD='***' node db.js"],
  ["a glued name", "PGPASSWORD=x psql -h db", "PGPASSWORD=*** psql -h db"],
  ["lower case", "api_key=abc ./run.sh", "api_key=*** ./run.sh"],
  ["apikey, privatekey", "APIKEY=a PRIVATE_KEY=b ./go", "APIKEY=*** PRIVATE_KEY=*** ./go"],
  [
    "a secret in the middle of a name",
    "AWS_SECRET_ACCESS_KEY=abc aws s3 ls",
    "AWS_SECRET_ACCESS_KEY=*** aws s3 ls",
  ],
  [
    "mysql pwd and credentials",
    "MYSQL_PWD=a GOOGLE_CREDENTIALS=b make",
    "MYSQL_PWD=*** GOOGLE_CREDENTIALS=*** make",
  ],
  ["after a semicolon", "cd app;AUTH=abc ./x", "cd app;AUTH=*** ./x"],
  ["inside sh -c", 'sh -c "API_TOKEN=abc npm test"', 'sh -c "API_TOKEN=*** npm test"'],
  [
    "docker -e",
    "docker run -e OPENAI_API_KEY=abc -e DEBUG=1 img",
    "docker run -e OPENAI_API_KEY=*** -e DEBUG=1 img",
  ],
  [
    "a URL query",
    'curl "https://api.example.com/v1?access_token=abc&page=2"',
    'curl "https://api.example.com/v1?access_token=***&page=2"',
  ],
  [
    "an npm registry auth token",
    "npm config set //registry.npmjs.org/:_authToken=xyz",
    "npm config set //registry.npmjs.org/:_authToken=***",
  ],
  ["a Java property", "mvn deploy -Ddb.password=pw -Dskip=true", "mvn deploy -Ddb.password=*** -Dskip=true"],
  // Headers
  [
    "Authorization: Bearer",
    'curl -H "Authorization: Bearer abc.def-ghi" https://x',
    'curl -H "Authorization: Bearer ***" https://x',
  ],
  [
    "Authorization: Basic",
    "curl -H 'Authorization: Basic dXNlcjpwYXNz' https://x",
    "curl -H 'Authorization: Basic ***' https://x",
  ],
  ["Authorization without a scheme", 'curl -H "authorization:abc" url', 'curl -H "authorization:***" url'],
  ["X-Api-Key", 'curl -H "X-Api-Key: abc" url', 'curl -H "X-Api-Key: ***" url'],
  ["Private-Token", 'curl --header "Private-Token: abc" url', 'curl --header "Private-Token: ***" url'],
  ["Cookie", "curl -H 'Cookie: session=abc' url", "curl -H 'Cookie: ***' url"],
  ["curl -u user:password", "curl -sf -u alice:pw https://x", "curl -sf -u *** https://x"],
  ["curl --user=user:password", "curl --user='alice:p w' https://x", "curl --user='***' https://x"],
  ["Bearer on its own", "http GET url 'Bearer abc123=='", "http GET url 'Bearer ***'"],
  // Token shapes
  ["a GitHub token", `echo ${GITHUB} | gh auth login --with-token`, "echo *** | gh auth login --with-token"],
  ["a GitHub fine-grained token", `echo ${GITHUB_PAT}`, "echo ***"],
  ["an OpenAI-style key", `llm -k ${OPENAI} prompt`, "llm -k *** prompt"],
  ["a Slack token", `slack-cli send ${SLACK}`, "slack-cli send ***"],
  [
    "an AWS access key id",
    `aws configure set aws_access_key_id ${AWS}`,
    "aws configure set aws_access_key_id ***",
  ],
  [
    "an npm token",
    `echo //registry.npmjs.org/:x=${NPM} > .npmrc`,
    "echo //registry.npmjs.org/:x=*** > .npmrc",
  ],
  ["a GitLab token", `glab auth login -t ${GITLAB}`, "glab auth login -t ***"],
  ["a Google API key", `maps ${GOOGLE}`, "maps ***"],
  [
    "several secrets at once",
    `TOKEN=a curl -u x https://u:p@h/?api_key=b -H "Authorization: token ${GITHUB}"`,
    'TOKEN=*** curl -u x https://***@h/?api_key=*** -H "Authorization: token ***"',
  ],
  // Must not change
  ["npm test", "npm test", "npm test"],
  ["a timeout flag", "npm run test -- --timeout=5", "npm run test -- --timeout=5"],
  ["grep for a word", "grep password README.md", "grep password README.md"],
  ["grep for an assignment", 'grep -rn "token=" src', 'grep -rn "token=" src'],
  ["grep with later quotes", 'grep "token=" a "b"', 'grep "token=" a "b"'],
  ["cargo", "cargo test --offline", "cargo test --offline"],
  ["an scp-like git remote", "git clone git@github.com:o/r.git", "git clone git@github.com:o/r.git"],
  ["an ssh URL user", "git clone ssh://git@github.com/o/r.git", "git clone ssh://git@github.com/o/r.git"],
  ["an @ in a path", "curl https://example.com/pkg@1.2.3", "curl https://example.com/pkg@1.2.3"],
  ["a scoped package", "npm install @scope/pkg@1.2.3", "npm install @scope/pkg@1.2.3"],
  ["-p is a port", "docker run -p 8080:80 app", "docker run -p 8080:80 app"],
  ["-p is not generic", "ssh -p 2222 host", "ssh -p 2222 host"],
  [
    "--password-stdin is a switch",
    "docker login --password-stdin -u me",
    "docker login --password-stdin -u me",
  ],
  ["--token-file names a file", "tool --token-file ~/.t run", "tool --token-file ~/.t run"],
  ["--no-auth is a switch", "serve --no-auth dist", "serve --no-auth dist"],
  ["--author is not --auth", 'git commit --author "Ann <a@b.c>"', 'git commit --author "Ann <a@b.c>"'],
  ["a flag followed by a flag", "tool --auth --verbose", "tool --auth --verbose"],
  ["a secret flag at the end", "tool --secret", "tool --secret"],
  ["an author name", "GIT_AUTHOR_NAME=Jane git commit", "GIT_AUTHOR_NAME=Jane git commit"],
  ["a word containing token", "TOKENIZERS_PARALLELISM=false pytest", "TOKENIZERS_PARALLELISM=false pytest"],
  ["the shell's PWD", "PWD=/tmp make", "PWD=/tmp make"],
  ["npm config names", "npm_config_registry=https://r npm ci", "npm_config_registry=https://r npm ci"],
  ["a variable reference", 'GITHUB_TOKEN="$GH_TOKEN" gh pr list', 'GITHUB_TOKEN="$GH_TOKEN" gh pr list'],
  ["a flag reference", "tool --token $TOKEN", "tool --token $TOKEN"],
  ["a command substitution", "tool --token=$(cat ~/.t)", "tool --token=$(cat ~/.t)"],
  [
    "a header reference",
    'curl -H "Authorization: Bearer $TOKEN" url',
    'curl -H "Authorization: Bearer $TOKEN" url',
  ],
  ["a refspec", "git push origin fix-token:main", "git push origin fix-token:main"],
  ["a test name", 'pytest -k "test_token_refresh"', 'pytest -k "test_token_refresh"'],
  ["curl -u with a user only", "curl -u alice https://x", "curl -u alice https://x"],
  ["docker -u is a uid", "docker run -u 1000:1000 img", "docker run -u 1000:1000 img"],
  ["bearer in a sentence", 'echo "the bearer of news"', 'echo "the bearer of news"'],
  ["a short sk- word", "pip install sk-video", "pip install sk-video"],
  [
    "a long sk- name without digits",
    "npx sk-some-very-long-package-name",
    "npx sk-some-very-long-package-name",
  ],
  ["a task name", "run task-1234567890abcdefghijk", "run task-1234567890abcdefghijk"],
  ["unicode and blanks stay", "echo 'héllo  wörld'\t&& ls", "echo 'héllo  wörld'\t&& ls"],
];

describe("redactCommand", () => {
  it("has a thorough corpus", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(CASES.filter(([, input, output]) => input === output).length).toBeGreaterThanOrEqual(10);
  });

  it.each(CASES)("%s", (_name, input, output) => {
    expect(redactCommand(input)).toBe(output);
  });

  it.each(CASES)("is idempotent: %s", (_name, input) => {
    const once = redactCommand(input);
    expect(redactCommand(once)).toBe(once);
  });

  it("reads a long run of look-alikes in linear time", () => {
    for (const unit of [
      "a-",
      "a.",
      "sk-",
      "curl ",
      "--token-",
      "https://",
      "TOKEN=",
      "X-Api-Key: ",
      "xoxb-",
    ]) {
      const text = unit.repeat(Math.ceil(100_000 / unit.length));
      const started = performance.now();
      redactCommand(text);
      expect(performance.now() - started, unit).toBeLessThan(1_000);
    }
  });

  it("leaves no fixture token behind", () => {
    for (const token of [GITHUB, GITHUB_PAT, OPENAI, SLACK, AWS, NPM, GITLAB, GOOGLE]) {
      expect(redactCommand(`a ${token} b`)).toBe("a *** b");
    }
  });
});

describe("isSecretName", () => {
  it.each([
    "GITHUB_TOKEN",
    "token",
    "Api_Key",
    "OPENAI_API_KEY",
    "_authToken",
    "PGPASSWORD",
    "db.password",
    "SECRET_KEY_BASE",
  ])("%s is a secret", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(["PWD", "OLDPWD", "GIT_AUTHOR_NAME", "TOKENIZERS_PARALLELISM", "DEBUG", "NODE_ENV", "PATH"])(
    "%s is not",
    (name) => {
      expect(isSecretName(name)).toBe(false);
    },
  );
});

/** A command check as the loader gives it, defaults applied. */
function command(fields: Record<string, unknown>): CommandCheck {
  return {
    ...CommandCheckSchema.parse({ type: "command", run: "npm test", ...fields }),
    id: "c",
  } as CommandCheck;
}

describe("checkIdentity", () => {
  const base = command({});

  it("is a sha256 hex", () => {
    expect(checkIdentity(base, ".")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not depend on key order", () => {
    const reordered = {
      isolation: base.isolation,
      oracle_paths: base.oracle_paths,
      exit_code: base.exit_code,
      timeout_ms: base.timeout_ms,
      run: base.run,
      type: base.type,
      id: base.id,
    } as CommandCheck;
    expect(checkIdentity(reordered, ".")).toBe(checkIdentity(base, "."));
    const predicates = command({ stdout: { regex: "ok", flags: "i" } });
    const flipped = { ...predicates, stdout: { flags: "i", regex: "ok" } } as CommandCheck;
    expect(checkIdentity(flipped, ".")).toBe(checkIdentity(predicates, "."));
  });

  it("normalizes the cwd", () => {
    expect(checkIdentity(base, "./x")).toBe(checkIdentity(base, "x"));
    expect(checkIdentity(base, "x/")).toBe(checkIdentity(base, "x"));
    expect(checkIdentity(base, "a//b/../x")).toBe(checkIdentity(base, "a/x"));
    expect(checkIdentity(base, "a\\x")).toBe(checkIdentity(base, "a/x"));
    expect(checkIdentity(base, "")).toBe(checkIdentity(base, "."));
    expect(checkIdentity(base, "./")).toBe(checkIdentity(base, "."));
  });

  it("ignores the check's id, description and written cwd", () => {
    const renamed = { ...command({ describe: "runs the tests", cwd: "{workspace}/x" }), id: "other" };
    expect(checkIdentity(renamed, "x")).toBe(checkIdentity(base, "x"));
  });

  it("comes from the unredacted command: hidden arguments differ", () => {
    const one = command({ run: "deploy --token=aaa" });
    const two = command({ run: "deploy --token=bbb" });
    expect(redactCommand(one.run)).toBe(redactCommand(two.run));
    expect(checkIdentity(one, ".")).not.toBe(checkIdentity(two, "."));
  });

  it("normalizes and sorts oracle paths", () => {
    const one = command({ oracle_paths: ["./tests/b.ts", "tests/a.ts"] });
    const two = command({ oracle_paths: ["tests/a.ts", "tests/b.ts", "tests//b.ts"] });
    expect(checkIdentity(one, ".")).toBe(checkIdentity(two, "."));
  });

  it("treats a bare predicate as equals", () => {
    expect(checkIdentity(command({ exit_code: { equals: 0 } }), ".")).toBe(checkIdentity(base, "."));
    expect(checkIdentity(command({ stdout: "ok" }), ".")).toBe(
      checkIdentity(command({ stdout: { equals: "ok" } }), "."),
    );
  });

  it("differs for whatever changes what the check means", () => {
    const variants = [
      checkIdentity(base, "."),
      checkIdentity(base, "sub"),
      checkIdentity(command({ run: "npm test " }), "."),
      checkIdentity(command({ timeout_ms: 5_000 }), "."),
      checkIdentity(command({ exit_code: 1 }), "."),
      checkIdentity(command({ exit_code: { min: 0 } }), "."),
      checkIdentity(command({ stdout: "ok" }), "."),
      checkIdentity(command({ stderr: "ok" }), "."),
      checkIdentity(command({ stdout: { contains: "ok" } }), "."),
      checkIdentity(command({ oracle_paths: ["tests"] }), "."),
      checkIdentity(command({ isolation: "none" }), "."),
    ];
    expect(new Set(variants).size).toBe(variants.length);
  });
});
