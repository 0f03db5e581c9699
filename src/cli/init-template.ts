/**
 * The files `pi-quests init` writes: a quest pack that is also a Pi package, as text. The pack
 * is the package's root (`pi.quests: ["."]`), so `pi-quests lint DIR` and `pi-quests test DIR`
 * work on the folder as created. `{{name}}` and the like are filled in by init.ts.
 */

import { OLDEST_SUPPORTED_PI } from "../core/pi-versions.ts";

export type TemplateValues = { name: string; id: string; title: string; version: string };

const PACKAGE_JSON = (v: TemplateValues) =>
  `${JSON.stringify(
    {
      name: v.name,
      version: "0.1.0",
      description: `${v.title}: a quest pack for pi-quests, verified quests that teach in the Pi coding agent`,
      keywords: ["pi-package", "pi-quests"],
      license: "MIT",
      type: "module",
      // What a learner installs: the quests and their sandboxes (the plays stay in the repository).
      files: ["*.yaml", "sandboxes/", "README.md"],
      pi: { extensions: [], quests: ["."] },
      scripts: { lint: "pi-quests lint .", test: "pi-quests lint . && pi-quests test ." },
      peerDependencies: {
        "pi-quests": `>=${v.version}`,
        "@earendil-works/pi-coding-agent": `>=${OLDEST_SUPPORTED_PI}`,
      },
      devDependencies: {
        "pi-quests": `>=${v.version}`,
        "@earendil-works/pi-coding-agent": `>=${OLDEST_SUPPORTED_PI}`,
      },
    },
    null,
    2,
  )}\n`;

const PACK_YAML = (
  v: TemplateValues,
) => `# This pack's manifest (pi-quests, docs/quest-format.md, "Quest packs").
id: ${v.id}
title: ${v.title}
description: The first quest of ${v.title}. Add yours beside it, one YAML file a quest.
`;

const QUEST = `version: 2
id: hello-file
title: Make your first file
chapter: Getting started
minutes: 3
goal: |
  Ask Pi to create a file named \`hello.txt\` in this folder that says hello to the world.

  Done when Pi itself created \`hello.txt\` and the file has the word "hello" in it.
hints:
  - 'Ask in plain words: "Create hello.txt that says hello to the world."'
  - If Pi asks where, the answer is "here, in this folder".
sandbox: sandboxes/hello
# The learner's work is hello.txt; a change anywhere else never helps a check pass.
editable: [hello.txt]
debrief: |
  Pi changed a file on disk, and you saw the call and its result. Name the file and say what it
  should contain: that is the clearest way to ask Pi for a change.
checks:
  - id: pi-made-it
    describe: Pi created hello.txt
    type: event
    match:
      event: tool_result
      fields:
        "changedPaths.*": hello.txt
  - id: file-there
    describe: hello.txt exists
    type: file_exists
    path: hello.txt
  - id: says-hello
    describe: hello.txt says hello
    type: command
    run: grep -qi hello hello.txt
`;

const SANDBOX_README = `# Practice folder

A sandbox for this pack's quests: pi-quests copies it into the learner's empty folder, makes it
a git repository and commits it before the first quest that names it.
`;

const PASS_PLAY = `# The honest way: Pi writes hello.txt with its write tool.
version: 1
steps:
  - prompt: Create hello.txt that says hello to the world.
    model:
      - tool: write
        args: { path: hello.txt, content: "hello world\\n" }
      - text: Done! I created hello.txt.
`;

const FAIL_PLAY = `# Pi says it wrote the file, and did not: a claim is never evidence.
version: 1
steps:
  - prompt: Create hello.txt that says hello to the world.
    model:
      - text: Done! I created hello.txt.
`;

const README = (v: TemplateValues) => `# ${v.title}

A quest pack for [pi-quests](https://www.npmjs.com/package/pi-quests): quests that teach in the
[Pi coding agent](https://www.npmjs.com/package/@earendil-works/pi-coding-agent), each checked by
what really happened, never by what the chat claims.

## Play it

\`\`\`sh
pi install npm:${v.name}
\`\`\`

Then, in Pi with pi-quests installed (its README, "Use it in Pi", says how), \`/quest pack ${v.id}\`.
\`/quest packs\` lists every pack you have; your progress in each is kept.

## Write it

One YAML file a quest at the root (ordered by file name), its sandboxes in \`sandboxes/\`, and
plays that prove it in \`solutions/QUEST/\`: \`pass*.yaml\` must complete the quest,
\`fail-*.yaml\` must not.

\`\`\`sh
npm install                      # pi-quests and Pi, to author with (see below)
npx pi-quests lint .             # the quests, the plays and this package's pi manifest
npx pi-quests test .             # every play in the real Pi, offline
npm publish                      # then learners: pi install npm:${v.name}
\`\`\`

pi-quests is not on the npm registry yet: until it is, \`npm install\` cannot fetch it. Make
its package in a clone of pi-quests (\`npm ci && npm pack\`) and install that file first:
\`npm install --save-dev /path/to/pi-quests-*.tgz\` (pi-quests' docs/ci.md does the same in CI).

\`package.json\` keeps \`"pi": { "extensions": [], "quests": ["."] }\`: the empty extensions
list keeps Pi from loading this package as an extension.
`;

const WORKFLOW = `# Proves the pack on every push: the lint, then every play in the real Pi, in two shards.
name: quests
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 22 }
      - run: npm install
      - run: npx pi-quests lint .
  test:
    needs: lint
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 22 }
      - run: npm install
      - run: npx pi-quests test . --shard \${{ matrix.shard }}/2 --reporter junit > junit-\${{ matrix.shard }}.xml
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: junit-\${{ matrix.shard }}
          path: junit-\${{ matrix.shard }}.xml
`;

/** Each file of a new pack, by its path in DIR. */
export function packTemplate(values: TemplateValues): Record<string, string> {
  return {
    "package.json": PACKAGE_JSON(values),
    "pack.yaml": PACK_YAML(values),
    "010-hello-file.yaml": QUEST,
    "sandboxes/hello/README.md": SANDBOX_README,
    "solutions/hello-file/pass.yaml": PASS_PLAY,
    "solutions/hello-file/fail-claim.yaml": FAIL_PLAY,
    "README.md": README(values),
    ".github/workflows/quests.yml": WORKFLOW,
    ".gitignore": "node_modules/\n",
  };
}
